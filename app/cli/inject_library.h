// Where warpscope-cli finds libwarpscope_inject.so and warpscope-workload, and
// the capture choices shared by every command that starts a program under
// capture (record, bench serve --server).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ws::cli {

// $WARPSCOPE_INJECT_LIBRARY, else beside this binary (installed:
// ../lib/warpscope/, build tree: ../core/capture/); empty when there is none.
std::string findInjectLibrary();
// The program `name` in this binary's folder; empty when it is not there.
std::string findBesideSelf(const std::string& name);

// --all-apis: the collector traces state-reading calls too (model/query_calls.h);
// either way the run says which in capture.query_calls ("traced" / "left out").
void applyQueryCallChoice(bool allApis, std::vector<std::string>& env,
                          std::vector<std::pair<std::string, std::string>>& properties);

}  // namespace ws::cli
