// Where a kernel stalls, from a run's PC samples (record --pc-sampling), as
// Nsight Compute's Source view reads them: per kernel the share of its
// samples by stall reason, its hottest instructions and (with -lineinfo)
// source lines. Shares count CUPTI's all-samples reasons; the "not issued"
// variants repeat a subset of them and are left out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

struct StallShare {
    std::string reason;  // CUPTI's name
    std::string title;   // "Long Scoreboard"
    std::int64_t samples = 0;
    double share = 0;  // of the kernel's samples, 0..1
};

struct HotInstruction {
    std::uint64_t pcOffset = 0;
    std::int64_t samples = 0;
    double share = 0;       // of the kernel's samples
    std::string topReason;  // title of the reason with most samples here
    std::string sourceFile;
    std::uint32_t line = 0;
    std::string sass;  // "" where nvdisasm was not found at capture
};

struct HotLine {
    std::string sourceFile;
    std::uint32_t line = 0;
    std::int64_t samples = 0;
    double share = 0;
    std::string topReason;
    int instructions = 0;  // sampled instructions on the line
};

struct KernelStalls {
    std::string function;  // as CUPTI named it (mangled)
    std::int64_t samples = 0;
    double runShare = 0;                       // of all sampled kernels' samples
    std::vector<StallShare> reasons;           // most samples first
    std::vector<HotInstruction> instructions;  // hottest first, at most `shown`
    std::vector<HotLine> lines;  // hottest first, at most `shown`; empty without line info
    int instructionCount = 0;    // sampled instructions in all
};

// "attention.cu:118": the file's name without its folder and the line; ""
// without line information (line 0).
std::string sourceLineText(const std::string& file, std::uint32_t line);
// The file's name without its folder.
std::string sourceFileName(const std::string& file);

// What PC sampling cost the run, from its properties: "the sampler's own
// time 12 ms, 0.4% of the run's 3.1 s" (draining CUPTI at launches, lines
// and SASS at exit; the hardware's sampling itself is not in it); "" for a
// run without the figure.
std::string samplerCostText(const std::map<std::string, std::string>& properties,
                            std::int64_t runWallNs);

// Every sampled kernel, most samples first.
std::vector<KernelStalls> summarizePcSamples(const std::vector<PcSampleRecord>& records,
                                             std::size_t shown = 10);

// The kernel whose CUPTI name is `function`.
std::optional<KernelStalls> stallsOfKernel(const std::vector<PcSampleRecord>& records,
                                           std::string_view function, std::size_t shown = 10);
// The same from a store: only that kernel's rows are read, its share of the
// run from the run's sample count (store/run_queries.h).
std::optional<KernelStalls> stallsOfKernel(Store& store, std::int64_t run,
                                           const std::string& function, std::size_t shown = 10);

}  // namespace ws
