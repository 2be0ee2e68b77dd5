#include "record/nvml_sampler.h"

#include <dlfcn.h>

namespace ws {

namespace {
// The few NVML declarations used; no NVML header is installed here. Layouts
// follow nvml.h of the R580 driver.
using nvmlDevice_t = struct nvmlDevice_st*;
using nvmlReturn_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr int NVML_CLOCK_SM = 1;
constexpr int NVML_CLOCK_MEM = 2;
constexpr int NVML_TEMPERATURE_GPU = 0;
struct nvmlMemory_t {
    unsigned long long total, free, used;
};
struct nvmlUtilization_t {
    unsigned int gpu, memory;
};
}  // namespace

struct NvmlSampler::Api {
    void* lib = nullptr;
    nvmlReturn_t (*init)() = nullptr;
    nvmlReturn_t (*shutdown)() = nullptr;
    nvmlReturn_t (*count)(unsigned int*) = nullptr;
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*) = nullptr;
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int*) = nullptr;
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
    nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long*) = nullptr;
    nvmlReturn_t (*driver)(char*, unsigned int) = nullptr;
    nvmlReturn_t (*clockEvents)(nvmlDevice_t, unsigned long long*) = nullptr;
    std::vector<nvmlDevice_t> devices;

    template <typename F>
    bool load(F& fn, const char* name) {
        fn = reinterpret_cast<F>(dlsym(lib, name));
        return fn != nullptr;
    }
};

NvmlSampler::NvmlSampler() {
    auto api = std::make_unique<Api>();
    api->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        const char* err = dlerror();
        reason_ = err ? err : "libnvidia-ml.so.1 not found";
        return;
    }
    bool ok = api->load(api->init, "nvmlInit_v2") && api->load(api->shutdown, "nvmlShutdown") &&
              api->load(api->count, "nvmlDeviceGetCount_v2") &&
              api->load(api->handle, "nvmlDeviceGetHandleByIndex_v2") &&
              api->load(api->power, "nvmlDeviceGetPowerUsage") &&
              api->load(api->clock, "nvmlDeviceGetClockInfo") &&
              api->load(api->temperature, "nvmlDeviceGetTemperature") &&
              api->load(api->memory, "nvmlDeviceGetMemoryInfo") &&
              api->load(api->utilization, "nvmlDeviceGetUtilizationRates");
    api->load(api->energy, "nvmlDeviceGetTotalEnergyConsumption");  // optional (Volta+)
    api->load(api->driver, "nvmlSystemGetDriverVersion");
    // Renamed from "throttle reasons" in driver 535; the bits are the same.
    if (!api->load(api->clockEvents, "nvmlDeviceGetCurrentClocksEventReasons"))
        api->load(api->clockEvents, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!ok) {
        reason_ = "libnvidia-ml.so.1 lacks a needed function";
        dlclose(api->lib);
        return;
    }
    if (api->init() != NVML_SUCCESS) {
        reason_ = "nvmlInit failed (no NVIDIA driver running?)";
        dlclose(api->lib);
        return;
    }
    unsigned int n = 0;
    api->count(&n);
    for (unsigned int i = 0; i < n; ++i) {
        nvmlDevice_t d = nullptr;
        if (api->handle(i, &d) == NVML_SUCCESS) api->devices.push_back(d);
    }
    api_ = std::move(api);
}

NvmlSampler::~NvmlSampler() {
    if (api_) {
        api_->shutdown();
        dlclose(api_->lib);
    }
}

bool NvmlSampler::available() const {
    return api_ != nullptr;
}

std::vector<SampleRecord> NvmlSampler::sample(std::int64_t timeNs) {
    std::vector<SampleRecord> out;
    if (!api_) return out;
    for (std::size_t i = 0; i < api_->devices.size(); ++i) {
        auto d = api_->devices[i];
        SampleRecord s;
        s.timeNs = timeNs;
        s.deviceIndex = static_cast<std::uint32_t>(i);
        unsigned int v = 0;
        if (api_->power(d, &v) == NVML_SUCCESS) s.powerW = v / 1000.0;
        if (api_->clock(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS) s.smClockMhz = v;
        if (api_->clock(d, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) s.memClockMhz = v;
        if (api_->temperature(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) s.temperatureC = v;
        nvmlMemory_t mem{};
        if (api_->memory(d, &mem) == NVML_SUCCESS)
            s.memoryUsedBytes = static_cast<std::int64_t>(mem.used);
        nvmlUtilization_t util{};
        if (api_->utilization(d, &util) == NVML_SUCCESS) {
            s.gpuUtilPercent = util.gpu;
            s.memUtilPercent = util.memory;
        }
        unsigned long long mj = 0;
        if (api_->energy && api_->energy(d, &mj) == NVML_SUCCESS) s.energyJ = mj / 1000.0;
        unsigned long long reasons = 0;
        if (api_->clockEvents && api_->clockEvents(d, &reasons) == NVML_SUCCESS)
            s.clockEventReasons = static_cast<std::int64_t>(reasons);
        out.push_back(s);
    }
    return out;
}

}  // namespace ws

namespace ws {
std::string NvmlSampler::driverVersion() const {
    char buf[96] = {};
    if (!api_ || !api_->driver || api_->driver(buf, sizeof buf) != NVML_SUCCESS) return {};
    return buf;
}
}  // namespace ws
