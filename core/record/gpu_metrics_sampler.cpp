#include "record/gpu_metrics_sampler.h"

#include <dlfcn.h>

#include <sstream>

#include "model/gpu_metrics.h"

namespace ws {

namespace {

void sayLine(void* context, const char* line) {
    (*static_cast<std::function<void(std::string)>*>(context))(line);
}

struct Taking {
    std::function<void(std::string)>* say;
    std::vector<GpuMetricSeries>* out;
};

void takeSeries(void* context, unsigned device, const char* metric, std::size_t count,
                const std::int64_t* startNs, const std::int64_t* endNs, const double* values) {
    auto* out = static_cast<Taking*>(context)->out;
    GpuMetricSeries s{device, metric, {}};
    s.samples.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        s.samples.push_back({startNs[i], endNs[i], values[i]});
    out->push_back(std::move(s));
}

void sayWhileTaking(void* context, const char* line) {
    (*static_cast<Taking*>(context)->say)(line);
}

}  // namespace

GpuMetricsSampler::GpuMetricsSampler(const GpuMetricsRequest& request,
                                     std::function<void(std::string)> say)
    : say_(std::move(say)) {
    module_ = dlopen(request.modulePath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!module_) {
        const char* why = dlerror();
        say_("no GPU metrics: " + std::string(why ? why : request.modulePath + ": cannot load"));
        return;
    }
    auto abi = reinterpret_cast<ws_gpu_metrics_abi_fn>(dlsym(module_, "ws_gpu_metrics_abi"));
    auto start = reinterpret_cast<ws_gpu_metrics_start_fn>(dlsym(module_, "ws_gpu_metrics_start"));
    take_ = dlsym(module_, "ws_gpu_metrics_take");
    stop_ = dlsym(module_, "ws_gpu_metrics_stop");
    if (!abi || !start || !take_ || !stop_ || abi() != gpu_metrics::kAbiVersion) {
        say_("no GPU metrics: " + request.modulePath + " is not this Warpscope's module (version " +
             std::to_string(abi ? abi() : 0) + ", expected " +
             std::to_string(gpu_metrics::kAbiVersion) + ")");
        return;
    }
    std::string list;
    for (const auto& m : request.metrics)
        list += (list.empty() ? "" : ",") + m;
    if (request.metrics.empty())
        for (const auto& m : gpu_metrics::kDefault)
            list += (list.empty() ? "" : ",") + std::string(m.cupti);
    const auto interval =
        request.intervalNs > 0 ? request.intervalNs : gpu_metrics::kDefaultIntervalNs;
    handle_ = start(list.c_str(), interval, sayLine, &say_);
    if (!handle_) say_("no GPU metrics: no GPU could be sampled (the lines above say why)");
}

GpuMetricsSampler::~GpuMetricsSampler() {
    if (handle_) {
        auto stop = reinterpret_cast<ws_gpu_metrics_stop_fn>(stop_);
        stop(handle_, 0);
        stop(handle_, 1);
    }
    // The module stays loaded: CUPTI, loaded with it, cannot be unloaded safely.
}

std::vector<GpuMetricSeries> GpuMetricsSampler::take() {
    std::vector<GpuMetricSeries> out;
    if (!handle_) return out;
    Taking taking{&say_, &out};
    reinterpret_cast<ws_gpu_metrics_take_fn>(take_)(handle_, takeSeries, sayWhileTaking, &taking);
    return out;
}

std::vector<GpuMetricSeries> GpuMetricsSampler::stop() {
    if (!handle_) return {};
    auto stop = reinterpret_cast<ws_gpu_metrics_stop_fn>(stop_);
    stop(handle_, 0);
    auto rest = take();
    stop(handle_, 1);
    handle_ = nullptr;
    return rest;
}

}  // namespace ws
