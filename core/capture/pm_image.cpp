#include "capture/pm_image.h"

#include "cupti_profiler_params.h"
#include "kept_file.h"

namespace ws::capture {

namespace {

constexpr char kMagic[] = "WSPMKEEP1";
// Bounds a damaged file cannot make the reader exceed.
constexpr std::uint64_t kMostBytes = std::uint64_t{1} << 31;
constexpr std::uint64_t kMostCount = std::uint64_t{1} << 20;

}  // namespace

CUpti_Profiler_Host_Object* pmHostWith(const std::string& chip,
                                       std::vector<std::uint8_t>& availability,
                                       const std::vector<const char*>& names,
                                       std::vector<std::uint8_t>& config, std::string& why) {
    auto init = profilerParams<CUpti_Profiler_Host_Initialize_Params>(
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    init.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    init.pChipName = chip.c_str();
    init.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    if (auto r = cuptiProfilerHostInitialize(&init); r != CUPTI_SUCCESS) {
        why = "cuptiProfilerHostInitialize: " + cuptiResultText(r);
        return nullptr;
    }
    auto add = profilerParams<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = init.pHostObject;
    add.ppMetricNames = const_cast<const char**>(names.data());
    add.numMetrics = names.size();
    auto r = cuptiProfilerHostConfigAddMetrics(&add);
    if (r != CUPTI_SUCCESS)
        why = "not a PM-sampling metric of " + chip + " (" + cuptiResultText(r) + ")";
    if (r == CUPTI_SUCCESS) {
        auto size = profilerParams<CUpti_Profiler_Host_GetConfigImageSize_Params>(
            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
        size.pHostObject = init.pHostObject;
        r = cuptiProfilerHostGetConfigImageSize(&size);
        if (r == CUPTI_SUCCESS) {
            config.assign(size.configImageSize, 0);
            auto image = profilerParams<CUpti_Profiler_Host_GetConfigImage_Params>(
                CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
            image.pHostObject = init.pHostObject;
            image.configImageSize = config.size();
            image.pConfigImage = config.data();
            r = cuptiProfilerHostGetConfigImage(&image);
        }
        if (r == CUPTI_SUCCESS) {
            auto passes = profilerParams<CUpti_Profiler_Host_GetNumOfPasses_Params>(
                CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
            passes.configImageSize = config.size();
            passes.pConfigImage = config.data();
            r = cuptiProfilerHostGetNumOfPasses(&passes);
            if (r == CUPTI_SUCCESS && passes.numOfPasses != 1) {
                why = "needs " + std::to_string(passes.numOfPasses) +
                      " passes; PM sampling reads one";
                r = CUPTI_ERROR_NOT_SUPPORTED;
            }
        }
        if (r != CUPTI_SUCCESS && why.empty()) why = "config image: " + cuptiResultText(r);
    }
    if (r != CUPTI_SUCCESS) {
        pmHostRelease(init.pHostObject);
        return nullptr;
    }
    return init.pHostObject;
}

void pmHostRelease(CUpti_Profiler_Host_Object* host) {
    if (!host) return;
    auto deinit = profilerParams<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    deinit.pHostObject = host;
    cuptiProfilerHostDeinitialize(&deinit);
}

bool evaluatePmSample(CUpti_Profiler_Host_Object* host, const std::vector<std::uint8_t>& image,
                      const std::vector<const char*>& names, std::size_t index,
                      std::vector<double>& values) {
    values.assign(names.size(), 0);
    auto eval = profilerParams<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    eval.pHostObject = host;
    eval.pCounterDataImage = image.data();
    eval.counterDataImageSize = image.size();
    eval.rangeIndex = index;
    eval.ppMetricNames = const_cast<const char**>(names.data());
    eval.numMetrics = names.size();
    eval.pMetricValues = values.data();
    return cuptiProfilerHostEvaluateToGpuValues(&eval) == CUPTI_SUCCESS;
}

bool evaluatePmImage(CUpti_Profiler_Host_Object* host, CUpti_PmSampling_Object* sampler,
                     const std::vector<std::uint8_t>& image, const std::vector<const char*>& names,
                     std::vector<PmSample>& out, std::string& why) {
    auto info = profilerParams<CUpti_PmSampling_GetCounterDataInfo_Params>(
        CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = image.data();
    info.counterDataImageSize = image.size();
    if (auto r = cuptiPmSamplingGetCounterDataInfo(&info); r != CUPTI_SUCCESS) {
        why = "reading decoded samples failed: " + cuptiResultText(r);
        return false;
    }
    std::vector<double> values;
    for (std::size_t i = 0; i < info.numCompletedSamples; ++i) {
        auto sample = profilerParams<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
            CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
        sample.pPmSamplingObject = sampler;
        sample.pCounterDataImage = image.data();
        sample.counterDataImageSize = image.size();
        sample.sampleIndex = i;
        if (cuptiPmSamplingCounterDataGetSampleInfo(&sample) != CUPTI_SUCCESS) continue;
        if (!evaluatePmSample(host, image, names, i, values)) continue;
        out.push_back({sample.startTimestamp, sample.endTimestamp, values});
    }
    return true;
}

void keepPmHeader(std::FILE* f, const std::string& chip,
                  const std::vector<std::uint8_t>& availability,
                  const std::vector<std::string>& metrics) {
    std::fwrite(kMagic, 1, sizeof kMagic - 1, f);
    kept::putBytes(f, chip.data(), chip.size());
    kept::putBytes(f, availability.data(), availability.size());
    kept::put<std::uint64_t>(f, metrics.size());
    for (const auto& m : metrics)
        kept::putBytes(f, m.data(), m.size());
    std::fflush(f);
}

void keepPmImage(std::FILE* f, const std::vector<std::uint8_t>& image,
                 const std::vector<PmSample>& live) {
    kept::putBytes(f, image.data(), image.size());
    kept::put<std::uint64_t>(f, live.size());
    for (const auto& s : live) {
        kept::put<std::uint64_t>(f, s.startNs);
        kept::put<std::uint64_t>(f, s.endNs);
        for (double v : s.values)
            kept::put<double>(f, v);
    }
    std::fflush(f);
}

bool readKeptPm(const std::string& path, KeptPm& out, std::string& why) {
    auto opened = kept::Reader::open(path);
    if (!opened) {
        why = path + ": cannot be read";
        return false;
    }
    auto& r = *opened;
    auto bad = [&](const std::string& what) {
        why = path + ": " + what + " at byte " + std::to_string(r.at());
        return false;
    };
    if (!r.literal(kMagic)) return bad("not a kept PM-sampling file (no WSPMKEEP1)");
    std::uint64_t metrics = 0;
    if (!r.bytes(out.chip, kMostBytes) || !r.bytes(out.availability, kMostBytes) ||
        !r.get(metrics) || metrics > kMostCount)
        return bad("the header cut short");
    out.metrics.resize(metrics);
    for (auto& m : out.metrics)
        if (!r.bytes(m, kMostBytes)) return bad("a metric's name cut short");
    while (!r.done()) {
        KeptPmImage kept;
        std::uint64_t samples = 0;
        if (!r.bytes(kept.image, kMostBytes) || !r.get(samples) || samples > kMostCount)
            return bad("an image cut short");
        kept.live.resize(samples);
        for (auto& s : kept.live) {
            s.values.resize(metrics);
            if (!r.get(s.startNs) || !r.get(s.endNs)) return bad("a sample cut short");
            for (auto& v : s.values)
                if (!r.get(v)) return bad("a sample cut short");
        }
        out.images.push_back(std::move(kept));
    }
    return true;
}

}  // namespace ws::capture
