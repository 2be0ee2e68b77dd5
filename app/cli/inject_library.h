// Where warpscope-cli finds libwarpscope_inject.so and warpscope-workload, and
// the capture choices shared by every command that starts a program under
// capture (record, bench serve --server).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cli/cli_args.h"

namespace ws::cli {

// $WARPSCOPE_INJECT_LIBRARY, else beside this binary (installed:
// ../lib/warpscope/, build tree: ../core/capture/); empty when there is none.
std::string findInjectLibrary();
// The program `name` in this binary's folder; empty when it is not there.
std::string findBesideSelf(const std::string& name);

// The collector's settings from --graph-trace node|graph (CUDA graphs per node,
// each kernel traced to its capture, or one record per graph launch),
// --all-apis (state-reading calls traced too, model/query_calls.h) and
// --capture-range none|cudaProfilerApi (the whole run, or only between the
// program's cudaProfilerStart and Stop, capture/capture_windows.h): the
// environment it reads, and the run's capture.graph_trace, capture.query_calls
// ("traced" / "left out") and capture.range ("whole run" / "cudaProfilerApi").
// Throws UsageError on a bad value.
void applyCaptureChoices(const Args& args, std::vector<std::string>& env,
                         std::vector<std::pair<std::string, std::string>>& properties);
// Whether --capture-range asks for windows (anything but its default, none).
bool windowedCapture(const Args& args);

}  // namespace ws::cli
