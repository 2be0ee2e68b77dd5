// libwarpscope_gpu_metrics.so: CUPTI PM sampling of every GPU the recorder
// sees, device-wide, while the program runs (model/gpu_metrics.h has the
// interface). It lives in the recorder's process, not the program's: PM
// sampling needs cuInit but no context, samples the whole GPU whoever runs on
// it, and so leaves the program's one CUPTI subscriber and its GPU memory
// alone. A thread per GPU decodes the hardware buffer every few milliseconds
// into plain series the recorder takes.
#include <cuda.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "capture/pm_image.h"
#include "cupti_profiler_params.h"
#include "model/gpu_metrics.h"

namespace {

// The hardware buffer CUPTI fills between decodes. Hopper writes tens of KB
// per sample of this metric set; 128 MiB holds about half a second at 10 kHz,
// fifty times the decode period.
constexpr std::size_t kHardwareBufferBytes = std::size_t{128} << 20;
// Samples one decode can hold; the rest wait for the next pass.
constexpr std::uint32_t kSamplesPerDecode = 1000;
constexpr auto kDecodePeriod = std::chrono::milliseconds(5);
// Busy images kept for tests (WARPSCOPE_GPU_METRICS_KEEP): each is as
// large as its samples per decode, however few it holds, so keeping decodes
// fewer at a time.
constexpr int kKeptImages = 3;
constexpr std::uint32_t kKeptSamplesPerDecode = 50;

using ws::capture::cuptiResultText;
using ws::capture::profilerParams;

std::int64_t unixNowNs() {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// Half or more of an image's samples saw the SMs active (the first metric
// of the default set): an image worth keeping for tests.
bool busy(const std::vector<ws::capture::PmSample>& samples) {
    std::size_t active = 0;
    for (const auto& s : samples)
        if (!s.values.empty() && s.values.front() > 1) ++active;
    return !samples.empty() && 2 * active >= samples.size();
}

struct Series {
    std::vector<std::int64_t> start, end;
    std::vector<double> value;
};

// One GPU's sampling session.
class Device {
  public:
    Device(unsigned index, std::int64_t clockShiftNs) : index_(index), shift_(clockShiftNs) {}
    ~Device() { release(); }

    // Sets up and starts; false with `why` when this GPU cannot be sampled.
    bool start(const std::vector<std::string>& wanted, std::int64_t intervalNs,
               std::vector<std::string>& lines, std::string& why);
    void stop();
    void take(ws_gpu_metrics_series_fn each, void* context, std::vector<std::string>& lines);

  private:
    bool decodeOnce(bool& more);
    void decodeLoop();
    void release();
    void fail(const std::string& line);

    unsigned index_;
    std::int64_t shift_;  // CUPTI clock minus Unix time, at start
    std::string chip_;
    std::vector<std::uint8_t> availability_, config_, counterData_;
    std::vector<std::string> metrics_;
    std::vector<const char*> names_;
    CUpti_Profiler_Host_Object* host_ = nullptr;
    CUpti_PmSampling_Object* sampler_ = nullptr;
    std::FILE* keep_ = nullptr;  // WARPSCOPE_GPU_METRICS_KEEP: the first images, for tests
    int kept_ = 0;
    std::thread thread_;
    std::atomic<bool> stopping_{false};
    bool started_ = false;
    bool skippedFirst_ = false;  // CUPTI's first sample starts at set-up, not at Start
    std::mutex mutex_;           // guards pending_ and lines_
    std::vector<Series> pending_;
    std::vector<std::string> lines_;
};

bool Device::start(const std::vector<std::string>& wanted, std::int64_t intervalNs,
                   std::vector<std::string>& lines, std::string& why) {
    const std::string gpu = "GPU " + std::to_string(index_);
    auto chip = profilerParams<CUpti_Device_GetChipName_Params>(
        CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = index_;
    if (auto r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
        why = gpu + ": chip name: " + cuptiResultText(r);
        return false;
    }
    chip_ = chip.pChipName;
    auto avail = profilerParams<CUpti_PmSampling_GetCounterAvailability_Params>(
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.deviceIndex = index_;
    auto r = cuptiPmSamplingGetCounterAvailability(&avail);
    if (r == CUPTI_SUCCESS) {
        availability_.assign(avail.counterAvailabilityImageSize, 0);
        avail.pCounterAvailabilityImage = availability_.data();
        r = cuptiPmSamplingGetCounterAvailability(&avail);
    }
    if (r != CUPTI_SUCCESS) {
        why = gpu + " (" + chip_ + "): counter availability: " + cuptiResultText(r) +
              (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                   ? " (profiling counters are reserved for admin users on this machine: "
                     "NVreg_RestrictProfilingToAdminUsers)"
                   : "");
        return false;
    }
    // One at a time first: a metric this GPU lacks (NVLink on a PCIe card)
    // fails the whole set otherwise.
    for (const auto& m : wanted) {
        std::string problem;
        auto* probe = ws::capture::pmHostWith(chip_, availability_, {m.c_str()}, config_, problem);
        if (!probe) {
            lines.push_back(gpu + ": " + m + " left out: " + problem);
            continue;
        }
        ws::capture::pmHostRelease(probe);
        metrics_.push_back(m);
    }
    // Together they may need more than one pass: drop from the end until one.
    for (;;) {
        if (metrics_.empty()) {
            why = gpu + " (" + chip_ + "): none of the metrics can be sampled";
            return false;
        }
        names_.clear();
        for (const auto& m : metrics_)
            names_.push_back(m.c_str());
        std::string problem;
        if ((host_ = ws::capture::pmHostWith(chip_, availability_, names_, config_, problem)))
            break;
        lines.push_back(gpu + ": " + metrics_.back() + " left out: the set " + problem);
        metrics_.pop_back();
    }

    auto enable =
        profilerParams<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
    enable.deviceIndex = index_;
    if (r = cuptiPmSamplingEnable(&enable); r != CUPTI_SUCCESS) {
        why = gpu + ": cuptiPmSamplingEnable: " + cuptiResultText(r) +
              (r == CUPTI_ERROR_INVALID_OPERATION ? " (another profiler samples this GPU)" : "");
        return false;
    }
    sampler_ = enable.pPmSamplingObject;
    auto set = profilerParams<CUpti_PmSampling_SetConfig_Params>(
        CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
    set.pPmSamplingObject = sampler_;
    set.configSize = config_.size();
    set.pConfig = config_.data();  // CUPTI keeps the pointer until Disable
    set.hardwareBufferSize = kHardwareBufferBytes;
    set.samplingInterval = static_cast<std::uint64_t>(intervalNs);
    set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    if (r = cuptiPmSamplingSetConfig(&set); r != CUPTI_SUCCESS) {
        why = gpu + ": cuptiPmSamplingSetConfig: " + cuptiResultText(r);
        return false;
    }
    auto size = profilerParams<CUpti_PmSampling_GetCounterDataSize_Params>(
        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pPmSamplingObject = sampler_;
    size.pMetricNames = names_.data();
    size.numMetrics = names_.size();
    // Kept images are read by tests from the repository: smaller ones.
    const char* keepDir = std::getenv(ws::capture::kPmKeepEnvironment);
    const bool keep = keepDir && *keepDir;
    size.maxSamples = keep ? kKeptSamplesPerDecode : kSamplesPerDecode;
    if (r = cuptiPmSamplingGetCounterDataSize(&size); r != CUPTI_SUCCESS) {
        why = gpu + ": counter data size: " + cuptiResultText(r);
        return false;
    }
    counterData_.assign(size.counterDataSize, 0);
    auto init = profilerParams<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pPmSamplingObject = sampler_;
    init.counterDataSize = counterData_.size();
    init.pCounterData = counterData_.data();
    if (r = cuptiPmSamplingCounterDataImageInitialize(&init); r != CUPTI_SUCCESS) {
        why = gpu + ": counter data image: " + cuptiResultText(r);
        return false;
    }
    auto go =
        profilerParams<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
    go.pPmSamplingObject = sampler_;
    if (r = cuptiPmSamplingStart(&go); r != CUPTI_SUCCESS) {
        why = gpu + ": cuptiPmSamplingStart: " + cuptiResultText(r);
        return false;
    }
    if (keep) {
        const auto path = std::string(keepDir) + "/gpu" + std::to_string(index_) + ".pmkeep";
        if ((keep_ = std::fopen(path.c_str(), "wb")))
            ws::capture::keepPmHeader(keep_, chip_, availability_, metrics_);
        else
            lines.push_back(gpu + ": cannot write " + path);
    }
    started_ = true;
    thread_ = std::thread([this] { decodeLoop(); });
    return true;
}

void Device::fail(const std::string& line) {
    std::lock_guard lock(mutex_);
    lines_.push_back("GPU " + std::to_string(index_) + ": " + line);
}

// Decodes what the hardware buffer holds into the image, evaluates every
// completed sample and queues it; `more` when the image filled first.
bool Device::decodeOnce(bool& more) {
    more = false;
    auto decode = profilerParams<CUpti_PmSampling_DecodeData_Params>(
        CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
    decode.pPmSamplingObject = sampler_;
    decode.pCounterDataImage = counterData_.data();
    decode.counterDataImageSize = counterData_.size();
    auto r = cuptiPmSamplingDecodeData(&decode);
    if (r != CUPTI_SUCCESS || decode.overflow) {
        fail(decode.overflow
                 ? "the GPU's sample buffer overflowed: sampling stopped here (ask for "
                   "fewer samples per second with --gpu-metrics-hz)"
                 : "decoding samples failed: " + cuptiResultText(r) + "; sampling stopped");
        return false;
    }
    std::vector<ws::capture::PmSample> samples;
    std::string why;
    if (!ws::capture::evaluatePmImage(host_, sampler_, counterData_, names_, samples, why)) {
        fail(why + "; sampling stopped");
        return false;
    }
    if (keep_ && kept_ < kKeptImages && busy(samples)) {
        ws::capture::keepPmImage(keep_, counterData_, samples);
        ++kept_;
    }
    std::vector<Series> got(metrics_.size());
    for (const auto& sample : samples) {
        if (!skippedFirst_) {
            skippedFirst_ = true;
            continue;
        }
        const auto start = static_cast<std::int64_t>(sample.startNs) - shift_;
        const auto end = static_cast<std::int64_t>(sample.endNs) - shift_;
        for (std::size_t m = 0; m < metrics_.size(); ++m) {
            got[m].start.push_back(start);
            got[m].end.push_back(end);
            got[m].value.push_back(sample.values[m]);
        }
    }
    {
        std::lock_guard lock(mutex_);
        if (pending_.empty()) pending_.resize(metrics_.size());
        for (std::size_t m = 0; m < got.size(); ++m) {
            auto& p = pending_[m];
            p.start.insert(p.start.end(), got[m].start.begin(), got[m].start.end());
            p.end.insert(p.end.end(), got[m].end.begin(), got[m].end.end());
            p.value.insert(p.value.end(), got[m].value.begin(), got[m].value.end());
        }
    }
    auto init = profilerParams<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pPmSamplingObject = sampler_;
    init.counterDataSize = counterData_.size();
    init.pCounterData = counterData_.data();
    if (r = cuptiPmSamplingCounterDataImageInitialize(&init); r != CUPTI_SUCCESS) {
        fail("resetting the sample image failed: " + cuptiResultText(r) + "; sampling stopped");
        return false;
    }
    more = decode.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
    return true;
}

void Device::decodeLoop() {
    bool more = false;
    while (!stopping_.load()) {
        if (!decodeOnce(more)) return;
        if (!more) std::this_thread::sleep_for(kDecodePeriod);
    }
    // Stopped: what the buffer still holds, to its end.
    auto halt =
        profilerParams<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    halt.pPmSamplingObject = sampler_;
    cuptiPmSamplingStop(&halt);
    started_ = false;
    do {
        if (!decodeOnce(more)) return;
    } while (more);
}

void Device::stop() {
    stopping_.store(true);
    if (thread_.joinable()) thread_.join();
}

void Device::take(ws_gpu_metrics_series_fn each, void* context, std::vector<std::string>& lines) {
    std::vector<Series> got;
    {
        std::lock_guard lock(mutex_);
        got.swap(pending_);
        lines.insert(lines.end(), lines_.begin(), lines_.end());
        lines_.clear();
    }
    for (std::size_t m = 0; m < got.size(); ++m)
        if (!got[m].value.empty())
            each(context, index_, metrics_[m].c_str(), got[m].value.size(), got[m].start.data(),
                 got[m].end.data(), got[m].value.data());
}

void Device::release() {
    stop();
    if (sampler_) {
        if (started_) {
            auto halt = profilerParams<CUpti_PmSampling_Stop_Params>(
                CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
            halt.pPmSamplingObject = sampler_;
            cuptiPmSamplingStop(&halt);
        }
        auto disable = profilerParams<CUpti_PmSampling_Disable_Params>(
            CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
        disable.pPmSamplingObject = sampler_;
        cuptiPmSamplingDisable(&disable);
        sampler_ = nullptr;
    }
    ws::capture::pmHostRelease(host_);
    host_ = nullptr;
    if (keep_) std::fclose(keep_);
    keep_ = nullptr;
}

struct Sampling {
    std::vector<std::unique_ptr<Device>> devices;
};

std::vector<std::string> split(const char* list) {
    std::vector<std::string> out;
    std::stringstream in(list ? list : "");
    for (std::string name; std::getline(in, name, ',');)
        if (!name.empty()) out.push_back(name);
    return out;
}

void say(ws_gpu_metrics_say_fn fn, void* context, const std::string& line) {
    if (fn) fn(context, line.c_str());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int ws_gpu_metrics_abi() {
    return ws::gpu_metrics::kAbiVersion;
}

// Nothing may escape into the recorder as an exception across the C
// interface: each entry catches everything and says what happened.
extern "C" __attribute__((visibility("default"))) void* ws_gpu_metrics_start(
    const char* metrics, std::int64_t intervalNs, ws_gpu_metrics_say_fn sayFn, void* context) {
    try {
        if (auto r = cuInit(0); r != CUDA_SUCCESS) {
            const char* text = nullptr;
            cuGetErrorString(r, &text);
            say(sayFn, context, std::string("cuInit: ") + (text ? text : "no CUDA driver"));
            return nullptr;
        }
        int count = 0;
        if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
            say(sayFn, context, "no CUDA device is visible");
            return nullptr;
        }
        auto init = profilerParams<CUpti_Profiler_Initialize_Params>(
            CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
        if (auto r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
            say(sayFn, context, "cuptiProfilerInitialize: " + cuptiResultText(r));
            return nullptr;
        }
        std::uint64_t cuptiNow = 0;
        cuptiGetTimestamp(&cuptiNow);
        const std::int64_t shift = static_cast<std::int64_t>(cuptiNow) - unixNowNs();
        const auto wanted = split(metrics);
        auto sampling = std::make_unique<Sampling>();
        for (int d = 0; d < count; ++d) {
            auto device = std::make_unique<Device>(static_cast<unsigned>(d), shift);
            std::vector<std::string> lines;
            std::string why;
            const bool ok = device->start(wanted, intervalNs, lines, why);
            for (const auto& line : lines)
                say(sayFn, context, line);
            if (ok)
                sampling->devices.push_back(std::move(device));
            else
                say(sayFn, context, why);
        }
        if (sampling->devices.empty()) return nullptr;
        return sampling.release();
    } catch (const std::exception& e) {
        say(sayFn, context, std::string("GPU metrics not started: ") + e.what());
        return nullptr;
    }
}

extern "C" __attribute__((visibility("default"))) void ws_gpu_metrics_take(
    void* handle, ws_gpu_metrics_series_fn each, ws_gpu_metrics_say_fn sayFn, void* context) {
    if (!handle) return;
    try {
        for (auto& device : static_cast<Sampling*>(handle)->devices) {
            std::vector<std::string> lines;
            device->take(each, context, lines);
            for (const auto& line : lines)
                say(sayFn, context, line);
        }
    } catch (const std::exception& e) {
        say(sayFn, context, std::string("GPU metrics: ") + e.what());
    }
}

extern "C" __attribute__((visibility("default"))) void ws_gpu_metrics_stop(void* handle,
                                                                           int release) {
    if (!handle) return;
    auto* sampling = static_cast<Sampling*>(handle);
    try {
        if (!release) {
            for (auto& device : sampling->devices)
                device->stop();
            return;
        }
        delete sampling;
        auto deinit = profilerParams<CUpti_Profiler_DeInitialize_Params>(
            CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
        cuptiProfilerDeInitialize(&deinit);
    } catch (...) {
    }
}
