// A stand-in for libwarpscope_gpu_metrics.so where no GPU can be sampled (CI):
// the module's C interface (model/gpu_metrics.h) over the wall clock, one
// 1 ms sample per metric for each millisecond between start and stop, value
// 42. The recorder's side of sampling (loading, versions, log lines, placing
// series on the capture clock, the last take after stop) is then tested for
// real; what it cannot test is the GPU's own sampling (scripts/gpu).
// WS_STAND_IN_ABI=N makes it claim version N.
#include <time.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "model/gpu_metrics.h"

namespace {

std::int64_t nowNs() {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

struct Sampling {
    std::vector<std::string> metrics;
    std::int64_t nextNs = 0;  // start of the first sample not yet handed over
    std::int64_t stopNs = 0;  // 0 while sampling
};

}  // namespace

extern "C" __attribute__((visibility("default"))) int ws_gpu_metrics_abi() {
    const char* v = std::getenv("WS_STAND_IN_ABI");
    return v ? std::atoi(v) : ws::gpu_metrics::kAbiVersion;
}

extern "C" __attribute__((visibility("default"))) void* ws_gpu_metrics_start(
    const char* metrics, std::int64_t, ws_gpu_metrics_say_fn say, void* context) {
    auto* s = new Sampling;
    std::stringstream in(metrics);
    for (std::string m; std::getline(in, m, ',');) {
        if (m.rfind("nvl", 0) == 0) {
            say(context, ("GPU 0: " + m + " left out: the stand-in has no NVLink").c_str());
            continue;
        }
        s->metrics.push_back(m);
    }
    s->nextNs = nowNs();
    return s;
}

extern "C" __attribute__((visibility("default"))) void ws_gpu_metrics_take(
    void* handle, ws_gpu_metrics_series_fn each, ws_gpu_metrics_say_fn, void* context) {
    auto* s = static_cast<Sampling*>(handle);
    const std::int64_t until = s->stopNs ? s->stopNs : nowNs();
    std::vector<std::int64_t> starts, ends;
    for (; s->nextNs + 1'000'000 <= until; s->nextNs += 1'000'000) {
        starts.push_back(s->nextNs);
        ends.push_back(s->nextNs + 1'000'000);
    }
    if (starts.empty()) return;
    const std::vector<double> values(starts.size(), 42.0);
    for (const auto& m : s->metrics)
        each(context, 0, m.c_str(), starts.size(), starts.data(), ends.data(), values.data());
}

extern "C" __attribute__((visibility("default"))) void ws_gpu_metrics_stop(void* handle,
                                                                           int release) {
    auto* s = static_cast<Sampling*>(handle);
    if (release)
        delete s;
    else
        s->stopNs = nowNs();
}
