// Per-kernel hardware counters through CUPTI's range profiler, for
// `warpscope-cli record --metrics roofline|NAME,…`: every kernel launch is one
// range (auto range) replayed once per counter pass (kernel replay), so the
// program runs slower and its timeline is not a performance measurement;
// that is why it is a pass the user asks for. Ranges map to kernels by launch
// order within a context, checked by count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace ws::capture {

struct KernelMetricValue {
    std::uint32_t correlationId;
    std::string metric;
    double value;
};

// Starts when WARPSCOPE_METRICS is set; `emit` receives each kernel's values
// (from the thread that launched it, or at exit). Returns false, with the
// reason on stderr, when counters cannot be collected.
bool startKernelCounters(std::function<void(const KernelMetricValue&)> emit,
                         std::function<void(const std::string&)> warn);

// Collects what is pending in every context (at exit).
void flushKernelCounters();

}  // namespace ws::capture
