#include "record/capture_clock.h"

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "record/serve_load.h"

namespace ws {

namespace {

std::int64_t clockNs(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The libcupti of the CUDA toolkit the capture library was built against
// (same soname), found as the dynamic loader would find it for that library.
void* openCupti(std::string& why) {
    std::vector<std::string> names = {"libcupti.so.13", "libcupti.so"};
    if (const char* home = std::getenv("CUDA_HOME"))
        names.push_back(std::string(home) + "/lib64/libcupti.so");
    names.push_back("/usr/local/cuda/lib64/libcupti.so");
    for (const auto& name : names) {
        if (void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
        if (why.empty())
            if (const char* err = dlerror()) why = err;
    }
    return nullptr;
}

}  // namespace

CaptureClock::CaptureClock() {
    std::string why;
    lib_ = openCupti(why);
    if (!lib_) {
        note_ = "libcupti not loadable (" + why + "): client times kept on Unix time";
        return;
    }
    timestamp_ = reinterpret_cast<int (*)(std::uint64_t*)>(dlsym(lib_, "cuptiGetTimestamp"));
    std::uint64_t probe = 0;
    if (!timestamp_ || timestamp_(&probe) != 0 || probe == 0) {
        note_ = "cuptiGetTimestamp failed: client times kept on Unix time";
        timestamp_ = nullptr;
        return;
    }
    source_ = "cupti";
}

CaptureClock::~CaptureClock() {
    // libcupti stays loaded: unloading CUPTI in a running process is not
    // something it is known to survive, and the process ends soon after.
}

std::int64_t CaptureClock::now() const {
    if (!timestamp_) return clockNs(CLOCK_REALTIME);
    std::uint64_t t = 0;
    timestamp_(&t);
    return static_cast<std::int64_t>(t);
}

ClockReading CaptureClock::read() const {
    // The tightest bracket of a few dozen: a preemption between the two steady
    // reads only widens one of them.
    ClockReading best;
    std::int64_t bestWidth = std::numeric_limits<std::int64_t>::max();
    for (int i = 0; i < 64; ++i) {
        std::int64_t a = clockNs(CLOCK_MONOTONIC);
        std::int64_t c = now();
        std::int64_t b = clockNs(CLOCK_MONOTONIC);
        if (b - a < bestWidth) {
            bestWidth = b - a;
            best.steadyNs = a + (b - a) / 2;
            best.offsetNs = c - best.steadyNs;
            best.uncertaintyNs = (b - a + 1) / 2;
        }
    }
    return best;
}

std::int64_t ClockMapping::toCapture(std::int64_t steadyNs) const {
    const std::int64_t span = end.steadyNs - start.steadyNs;
    if (span <= 0 || steadyNs <= start.steadyNs) return steadyNs + start.offsetNs;
    if (steadyNs >= end.steadyNs) return steadyNs + end.offsetNs;
    // long double: (into * drift) passes 2^63 past a few hours of load.
    const long double share = static_cast<long double>(steadyNs - start.steadyNs) / span;
    const auto offset = start.offsetNs + static_cast<std::int64_t>(std::llround(share * driftNs()));
    return steadyNs + offset;
}

double ClockMapping::driftPpm() const {
    const std::int64_t span = end.steadyNs - start.steadyNs;
    return span > 0 ? 1e6 * static_cast<double>(driftNs()) / static_cast<double>(span) : 0.0;
}

std::vector<std::pair<std::string, std::string>> ClockMapping::properties(
    const std::string& source) const {
    std::ostringstream ppm;
    ppm << driftPpm();
    return {{"clock.source", source},
            {"clock.start_steady_ns", std::to_string(start.steadyNs)},
            {"clock.start_offset_ns", std::to_string(start.offsetNs)},
            {"clock.start_uncertainty_ns", std::to_string(start.uncertaintyNs)},
            {"clock.end_steady_ns", std::to_string(end.steadyNs)},
            {"clock.end_offset_ns", std::to_string(end.offsetNs)},
            {"clock.end_uncertainty_ns", std::to_string(end.uncertaintyNs)},
            {"clock.drift_ns", std::to_string(driftNs())},
            {"clock.drift_ppm", ppm.str()}};
}

void alignToCapture(ServeLoadResult& result, const ClockMapping& mapping) {
    const std::int64_t unixMinusSteady = result.clockOffsetNs;
    auto move = [&](std::int64_t& unixNs) { unixNs = mapping.toCapture(unixNs - unixMinusSteady); };
    move(result.startedNs);
    move(result.endedNs);
    for (auto& q : result.requests) {
        move(q.startNs);
        for (auto& t : q.chunkNs)
            move(t);
    }
    result.clockOffsetNs = mapping.start.offsetNs;
}

}  // namespace ws
