#include "capture/range_profiler.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "capture/cupti_callbacks.h"
#include "l2_flush.h"
#include "model/counter_metrics.h"

namespace ws::capture {

namespace {

constexpr std::size_t kMaxRanges = 512;  // kernels decoded per batch

struct Launch {
    std::uint32_t correlationId;
    bool flush = false;  // our L2 flush: its range is not the program's
};

struct ContextCounters {
    CUpti_RangeProfiler_Object* profiler = nullptr;
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<std::uint8_t> config;
    std::vector<std::uint8_t> counterData;
    std::deque<Launch> launches;  // profiled, not yet decoded
    bool failed = false;
    bool paused = false;     // around a CUDA graph launch
    bool capturing = false;  // between stream capture begin and end
    L2Flush l2;
    bool flushing = false;  // the L2 is emptied before each launch
};

struct State {
    std::vector<std::string> metrics;
    std::vector<const char*> metricPtrs;
    std::function<void(const KernelMetricValue&)> emit;
    std::function<void(const std::string&)> warn;
    bool flushL2 = true;  // WARPSCOPE_CACHE_CONTROL=all (default) or none
    std::mutex mutex;
    std::map<CUcontext, ContextCounters> contexts;
    std::int64_t unmatched = 0;
    std::int64_t graphLaunches = 0;  // not counted: kernel replay cannot replay graphs
    CUpti_SubscriberHandle subscriber = nullptr;
};

State* state = nullptr;

// CUPTI's parameter structs: zeroed, with their size set.
template <typename P>
P params(std::size_t structSize) {
    P p{};
    p.structSize = structSize;
    return p;
}
thread_local std::uint32_t runtimeCorrelation = 0;  // the runtime call around a driver launch
thread_local bool busy = false;                     // our own CUDA calls

bool ok(CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return true;
    const char* msg = nullptr;
    cuptiGetResultString(r, &msg);
    state->warn(std::string(what) + " failed: " + (msg ? msg : "unknown error"));
    return false;
}

std::vector<std::string> metricNames(const char* spec) {
    std::vector<std::string> out;
    if (std::strcmp(spec, "roofline") == 0) {
        for (const char* m : counters::kRoofline)
            out.emplace_back(m);
        return out;
    }
    if (std::strcmp(spec, "dram") == 0) {
        for (const char* m : counters::kDram)
            out.emplace_back(m);
        return out;
    }
    std::stringstream in(spec);
    for (std::string name; std::getline(in, name, ',');)
        if (!name.empty()) out.push_back(name);
    return out;
}

bool initializeImage(ContextCounters& c) {
    auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pRangeProfilerObject = c.profiler;
    init.counterDataSize = c.counterData.size();
    init.pCounterData = c.counterData.data();
    if (!ok(cuptiRangeProfilerCounterDataImageInitialize(&init), "counter data initialize"))
        return false;
    auto set = params<CUpti_RangeProfiler_SetConfig_Params>(
        CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    set.pRangeProfilerObject = c.profiler;
    set.configSize = c.config.size();
    set.pConfig = c.config.data();
    set.counterDataImageSize = c.counterData.size();
    set.pCounterDataImage = c.counterData.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kMaxRanges;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    if (!ok(cuptiRangeProfilerSetConfig(&set), "cuptiRangeProfilerSetConfig")) return false;
    auto start =
        params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    start.pRangeProfilerObject = c.profiler;
    return ok(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
}

// Called on the first launch into a context, with the context current.
bool setUp(CUcontext ctx, ContextCounters& c) {
    // Not at injection: inside cuInit the profiler cannot initialize yet.
    static const bool initialized = [] {
        auto init =
            params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
        return ok(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    }();
    if (!initialized) return false;
    CUdevice device = 0;
    if (cuCtxGetDevice(&device) != CUDA_SUCCESS) return false;
    auto chip =
        params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = static_cast<std::size_t>(device);
    if (!ok(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName")) return false;
    auto avail = params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.ctx = ctx;
    if (!ok(cuptiProfilerGetCounterAvailability(&avail), "counter availability")) return false;
    std::vector<std::uint8_t> availability(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    if (!ok(cuptiProfilerGetCounterAvailability(&avail), "counter availability")) return false;

    auto host = params<CUpti_Profiler_Host_Initialize_Params>(
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host.pChipName = chip.pChipName;
    host.pCounterAvailabilityImage = availability.data();
    if (!ok(cuptiProfilerHostInitialize(&host), "cuptiProfilerHostInitialize")) return false;
    c.host = host.pHostObject;
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = c.host;
    add.ppMetricNames = state->metricPtrs.data();
    add.numMetrics = state->metricPtrs.size();
    if (!ok(cuptiProfilerHostConfigAddMetrics(&add),
            "adding the metrics (is every name valid "
            "for this GPU?)"))
        return false;
    auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = c.host;
    if (!ok(cuptiProfilerHostGetConfigImageSize(&size), "config image size")) return false;
    c.config.resize(size.configImageSize);
    auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    image.pHostObject = c.host;
    image.configImageSize = c.config.size();
    image.pConfigImage = c.config.data();
    if (!ok(cuptiProfilerHostGetConfigImage(&image), "config image")) return false;
    auto passes = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    passes.configImageSize = c.config.size();
    passes.pConfigImage = c.config.data();
    if (ok(cuptiProfilerHostGetNumOfPasses(&passes), "number of passes"))
        state->warn("counting " + std::to_string(state->metrics.size()) +
                    " metrics per kernel in " + std::to_string(passes.numOfPasses) +
                    " replay passes");

    auto enable =
        params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = ctx;
    if (!ok(cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable")) return false;
    c.profiler = enable.pRangeProfilerObject;
    auto data = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    data.pRangeProfilerObject = c.profiler;
    data.pMetricNames = state->metricPtrs.data();
    data.numMetrics = state->metricPtrs.size();
    data.maxNumOfRanges = kMaxRanges;
    data.maxNumRangeTreeNodes = kMaxRanges;
    if (!ok(cuptiRangeProfilerGetCounterDataSize(&data), "counter data size")) return false;
    c.counterData.resize(data.counterDataSize);
    if (state->flushL2) {
        std::string error;
        c.flushing = c.l2.prepare(error);
        if (!c.flushing) state->warn("DRAM bytes are counted with a warm L2 cache (" + error + ")");
    }
    return initializeImage(c);
}

// Stops, decodes and evaluates what the context profiled, hands the values
// on, and (unless `last`) starts a fresh batch.
void collect(ContextCounters& c, bool last) {
    if (!c.profiler || c.failed) return;
    auto stop =
        params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = c.profiler;
    auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(
        CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = c.profiler;
    if (!ok(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop") ||
        !ok(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData")) {
        c.failed = true;
        return;
    }
    auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = c.counterData.data();
    info.counterDataImageSize = c.counterData.size();
    ok(cuptiRangeProfilerGetCounterDataInfo(&info), "counter data info");
    // Auto ranges are numbered, not named: the i-th range is the i-th launch
    // profiled in this context. A batch whose count differs cannot be mapped
    // safely (a launch we did not see), so it is left out rather than guessed.
    if (info.numTotalRanges != c.launches.size()) {
        state->unmatched += static_cast<std::int64_t>(c.launches.size());
        state->warn(std::to_string(info.numTotalRanges) + " ranges for " +
                    std::to_string(c.launches.size()) + " kernel launches: this batch is left out");
        c.launches.clear();
    }
    std::vector<double> values(state->metrics.size());
    for (std::size_t r = 0; r < info.numTotalRanges && !c.launches.empty(); ++r) {
        Launch launch = c.launches.front();
        c.launches.pop_front();
        if (launch.flush) continue;
        auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        eval.pHostObject = c.host;
        eval.pCounterDataImage = c.counterData.data();
        eval.counterDataImageSize = c.counterData.size();
        eval.rangeIndex = r;
        eval.ppMetricNames = state->metricPtrs.data();
        eval.numMetrics = state->metricPtrs.size();
        eval.pMetricValues = values.data();
        if (cuptiProfilerHostEvaluateToGpuValues(&eval) != CUPTI_SUCCESS) continue;
        for (std::size_t m = 0; m < values.size(); ++m)
            state->emit({launch.correlationId, state->metrics[m], values[m]});
    }
    if (decode.numOfRangeDropped > 0)
        state->warn(std::to_string(decode.numOfRangeDropped) + " kernels' counters were dropped");
    if (!last && !initializeImage(c)) c.failed = true;
}

void finish(ContextCounters& c) {
    if (!c.paused) collect(c, true);
    if (c.flushing) c.l2.release();
    c.flushing = false;
    if (c.profiler) {
        auto disable = params<CUpti_RangeProfiler_Disable_Params>(
            CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
        disable.pRangeProfilerObject = c.profiler;
        cuptiRangeProfilerDisable(&disable);
        c.profiler = nullptr;
    }
    if (c.host) {
        auto deinit = params<CUpti_Profiler_Host_Deinitialize_Params>(
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
        deinit.pHostObject = c.host;
        cuptiProfilerHostDeinitialize(&deinit);
        c.host = nullptr;
    }
}

// Launches into a capturing stream are recorded into a graph, not run: there
// is nothing to replay, so the profiler stops for the whole capture.
int captureEdge(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return 0;
    switch (cbid) {
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
            return 1;
        case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
            return -1;
        default:
            return 0;
    }
}

void pause(ContextCounters& c) {
    if (c.paused || c.failed || !c.profiler) return;
    collect(c, true);
    c.paused = true;
}

void resume(ContextCounters& c) {
    if (!c.paused || c.capturing) return;
    c.paused = false;
    if (!initializeImage(c)) c.failed = true;
}

// The profiler stops (decoding what it has) before a call it must not see
// and starts again after it; what the call runs has no counters:
// - a CUDA graph launch: kernel replay cannot replay a graph, so the graph
//   runs as it would without us;
// - a memset or memcpy: the driver runs some as kernels, which would be
//   ranges no launch accounts for (and with them CUPTI 13.0 was seen to
//   free an invalid pointer on its own thread, killing the workload).
void aroundUnprofiledCall(const CUpti_CallbackData* cb, bool graph) {
    auto it = state->contexts.find(cb->context);
    if (it == state->contexts.end()) return;
    ContextCounters& c = it->second;
    if (c.failed || !c.profiler) return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        pause(c);
        if (graph) ++state->graphLaunches;
    } else {
        resume(c);
    }
}

void aroundCapture(const CUpti_CallbackData* cb, int edge) {
    auto it = state->contexts.find(cb->context);
    if (it == state->contexts.end()) return;
    ContextCounters& c = it->second;
    if (edge > 0 && cb->callbackSite == CUPTI_API_ENTER) {
        pause(c);
        c.capturing = true;
    } else if (edge < 0 && cb->callbackSite == CUPTI_API_EXIT) {
        c.capturing = false;
        resume(c);
    }
}

void onCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (busy) return;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) return;
        auto* r = static_cast<const CUpti_ResourceData*>(data);
        busy = true;
        std::lock_guard lock(state->mutex);
        if (auto it = state->contexts.find(r->context); it != state->contexts.end()) {
            finish(it->second);
            state->contexts.erase(it);
        }
        busy = false;
        return;
    }
    auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        // Kernels carry the correlation id of the runtime call that launched
        // them, when there is one: remember it for the driver launch inside.
        if (cb->callbackSite == CUPTI_API_ENTER && runtimeCorrelation == 0)
            runtimeCorrelation = cb->correlationId;
        else if (cb->callbackSite == CUPTI_API_EXIT && runtimeCorrelation == cb->correlationId)
            runtimeCorrelation = 0;
        return;
    }
    int edge = captureEdge(domain, cbid);
    bool memoryOperation = domain == CUPTI_CB_DOMAIN_DRIVER_API && cb->functionName &&
                           (std::strncmp(cb->functionName, "cuMemset", 8) == 0 ||
                            std::strncmp(cb->functionName, "cuMemcpy", 8) == 0);
    if (edge != 0 || isGraphLaunch(domain, cbid) || memoryOperation) {
        busy = true;
        {
            std::lock_guard lock(state->mutex);
            if (edge != 0)
                aroundCapture(cb, edge);
            else
                aroundUnprofiledCall(cb, !memoryOperation);
        }
        busy = false;
        return;
    }
    if (!isKernelLaunch(domain, cbid)) return;
    busy = true;
    {
        std::lock_guard lock(state->mutex);
        auto [it, fresh] = state->contexts.try_emplace(cb->context);
        ContextCounters& c = it->second;
        if (fresh && !setUp(cb->context, c)) {
            c.failed = true;
            state->warn("no kernel counters for this context");
        }
        if (!c.failed && !c.paused) {
            if (cb->callbackSite == CUPTI_API_ENTER) {
                std::string error;
                int flushes = c.flushing ? c.l2.run(error) : 0;
                for (int i = 0; i < flushes; ++i)
                    c.launches.push_back({0, true});
                if (c.flushing && flushes == 0) {
                    state->warn(
                        "the L2 flush failed; DRAM bytes from here on are counted with "
                        "a warm L2 cache (" +
                        error + ")");
                    c.flushing = false;
                }
                c.launches.push_back({runtimeCorrelation ? runtimeCorrelation : cb->correlationId});
            } else if (c.launches.size() >= kMaxRanges) {
                collect(c, false);
            }
        }
    }
    busy = false;
}

}  // namespace

bool startKernelCounters(std::function<void(const KernelMetricValue&)> emit,
                         std::function<void(const std::string&)> warn) {
    const char* spec = std::getenv("WARPSCOPE_METRICS");
    if (!spec || !*spec) return false;
    state = new State;  // lives until exit: callbacks may come until the end
    state->metrics = metricNames(spec);
    for (const auto& m : state->metrics)
        state->metricPtrs.push_back(m.c_str());
    state->emit = std::move(emit);
    state->warn = std::move(warn);
    const char* cache = std::getenv("WARPSCOPE_CACHE_CONTROL");
    state->flushL2 = !cache || std::strcmp(cache, "none") != 0;
    state->subscriber = addCallbackHandler(onCallback);
    if (!state->subscriber) return false;
    cuptiEnableDomain(1, state->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(1, state->subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    cuptiEnableCallback(1, state->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                        CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    return true;
}

void flushKernelCounters() {
    if (!state) return;
    busy = true;
    std::lock_guard lock(state->mutex);
    for (auto& [ctx, c] : state->contexts)
        if (cuCtxPushCurrent(ctx) == CUDA_SUCCESS) {
            finish(c);
            CUcontext popped = nullptr;
            cuCtxPopCurrent(&popped);
        }
    state->contexts.clear();
    if (state->graphLaunches > 0)
        state->warn(std::to_string(state->graphLaunches) +
                    " CUDA graph launches ran without counters (kernel replay cannot replay "
                    "graphs; record without CUDA graphs to count their kernels)");
    if (state->unmatched > 0)
        state->warn(std::to_string(state->unmatched) +
                    " kernels' counters were left out: their ranges did not match the launches");
    busy = false;
}

}  // namespace ws::capture
