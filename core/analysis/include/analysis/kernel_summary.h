// What `nsys stats` reports as cuda_gpu_kern_sum, cuda_gpu_mem_time_sum,
// cuda_api_sum and nvtx_sum, plus GPU busy/idle overall and per NVTX range, and GPU time
// attributed to the NVTX ranges (phases such as prefill and decode) that
// launched it.
//
// Computed in one pass over the run's records in start order (kernels,
// copies and memsets side by side, API calls alongside for the launch of each
// kernel), or over slices of the run's time on several threads, merged into
// the same result (kernel_summary_sliced.cpp; a row's standard deviation past
// the exact table may differ in its last bits), in memory bounded by the number of distinct names
// and durations, not by the number of records: durations go into stats::Accumulator, GPU busy time
// is the union of intervals as they arrive. Medians are exact as nsys stats reports them unless one
// row sees more than stats::Accumulator::kExactDistinct distinct durations; then that row's median
// is within 0.025 % (below) and DurationStats::medianExact is false (the CLI marks it). A kernel is
// credited to the ranges of the launch call with its correlation id that started at most
// kLaunchSearchWindowNs before it (a CUDA launch precedes its kernel; calls older than that are
// forgotten).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/statistics.h"
#include "model/records.h"
#include "store/run_queries.h"

namespace ws {

class Store;

struct DurationStats {
    std::int64_t count = 0;
    double totalNs = 0, meanNs = 0, medianNs = 0, minNs = 0, maxNs = 0, stdNs = 0;
    bool medianExact = true;  // false: within 0.025 % (see the top of this file)
};

struct KernelStat {
    std::string name;       // short: "gemv_bf16_splitk"
    std::string demangled;  // full signature
    std::string mangled;    // as CUPTI reported it
    DurationStats time;
    double timePercent = 0;  // of all kernel time in the run
    // Where counters measured the kernel's DRAM bytes (record --metrics).
    std::optional<double> dramGBs;
    std::optional<double> tflops;
    std::optional<double> achievedOccupancy;  // 0..1
};

struct MemcpyStat {
    MemcpyKind kind = MemcpyKind::Unknown;
    DurationStats time;
    std::int64_t totalBytes = 0;
    double gbPerS = 0;  // bytes over time spent copying (10^9 bytes/s)
    double timePercent = 0;
};

// CUDA runtime and driver calls by name, as nsys's cuda_api_sum: time on the
// calling thread, and how many returned an error.
struct ApiStat {
    std::string name;
    ApiKind kind = ApiKind::Runtime;
    DurationStats time;
    double timePercent = 0;  // of all API time in the window
    std::int64_t errors = 0;
};

// Kernel time attributed to a range the way nsys's nvtx_kern_sum and
// PyTorch's CUDA total / self do: a kernel belongs to every range open on the
// thread that launched it (inclusive), and to the innermost one (self).
// A range nested in another of the same name counts a kernel once.
struct RangeStat {
    std::string name;
    std::string domain;
    DurationStats time;
    double gpuBusyNs = 0;  // GPU activity inside the range's instances
    double inclusiveKernelNs = 0;
    double selfKernelNs = 0;
    std::int64_t inclusiveKernels = 0;
    double gpuBusyFraction = 0;
};

// Kernels replayed from CUDA graphs, and how many of them were traced to the
// NVTX ranges open when their graph was captured (a kernel with a graph node
// id is credited to those ranges, not to the ones around cudaGraphLaunch).
struct GraphReplayStats {
    std::int64_t kernels = 0;  // replayed from a graph node
    double kernelNs = 0;
    std::int64_t traced = 0;  // its node's creation was recorded
    double tracedNs = 0;
    std::int64_t inRange = 0;  // and an NVTX range was open on the capturing thread then
    double inRangeNs = 0;
};

struct RunSummary {
    std::string window;  // what it covers: "whole run", "while requests were served …"
    std::vector<KernelStat> kernels;  // by total time, largest first
    std::vector<MemcpyStat> memcpys;
    std::vector<RangeStat> ranges;
    std::vector<ApiStat> apiCalls;  // by total time, largest first
    GraphReplayStats graphs;
    std::int64_t gpuSpanNs = 0;  // first GPU activity to last
    std::int64_t gpuBusyNs = 0;  // union of kernels, memcpys and memsets
    double gpuBusyFraction = 0;
};

// Kernels, copies and ranges that overlap `window` (a range's figures are its
// whole instances'); `label` says which window that is.
// Made from slices of the run's time on one thread each, one per CPU core
// (fewer for a small run; WARPSCOPE_SUMMARY_THREADS=N sets how many, 1 one
// pass), merged into what one pass in start order makes.
RunSummary summarizeRun(Store& store, RunId run, TimeWindow window = {},
                        std::string label = "whole run");
// The same on `threads` slices (0: one per core, fewer for a small run, or
// WARPSCOPE_SUMMARY_THREADS; 1: the one pass); the result does not depend on the number (but for
// the last bits of a rounded row's standard deviation). `stop`,
// where given, is asked every few thousand records (from every slice's thread: it must be safe to
// call from any thread); once it says true the summary throws SummaryStopped.
RunSummary summarizeRun(Store& store, RunId run, TimeWindow window, std::string label,
                        unsigned threads, const std::function<bool()>& stop = {});
struct SummaryStopped {};
// The sliced summary alone (for tests and timing): nullopt where slices cannot
// give what the one pass gives, when summarizeRun makes the one pass instead
// (two calls sharing a correlation id, as two processes numbering theirs
// alike; a record ending before it starts; one slice only).
std::optional<RunSummary> summarizeRunSliced(Store& store, RunId run, TimeWindow window,
                                             const std::string& label, unsigned threads);
// The part of a run its requests span (first arrival to last token): what a
// benchmark measures, without set-up or a quality check after it. The whole
// run when it has no requests.
TimeWindow measuredWindow(Store& store, RunId run);

DurationStats durations(const std::vector<double>& ns);
DurationStats durations(const stats::Accumulator& ns);
// A row per kernel name (as recorded, mangled) from its instances' durations,
// largest total first; timePercent of `totalNs`.
std::vector<KernelStat> kernelStats(const std::map<std::string, std::vector<double>>& timesByName,
                                    double totalNs);
// The same from durations already summarized, one per name.
std::vector<KernelStat> kernelStats(std::vector<std::pair<std::string, DurationStats>> byName,
                                    double totalNs);

// "void at::native::foo<int, 4>(float*, int)" → "foo" (with templateArgs:
// "foo<int, 4>"); "_Z3bazv" → "baz".
std::string demangle(const std::string& mangled);
std::string shortKernelName(const std::string& demangled, bool templateArgs = false);

// Length of the union of [start, end) intervals.
std::int64_t unionLength(std::vector<std::pair<std::int64_t, std::int64_t>> intervals);

}  // namespace ws
