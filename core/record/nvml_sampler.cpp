#include "record/nvml_sampler.h"

#include <dlfcn.h>

#include <optional>

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
constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;  // a field id this driver lacks
constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
// Answers that will not change while the recording runs.
bool lasting(nvmlReturn_t rc) {
    return rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED ||
           rc == NVML_ERROR_FUNCTION_NOT_FOUND;
}
// Data (not raw) NVLink traffic in KiB, summed over all links when scopeId is
// UINT_MAX; running totals since the driver loaded.
constexpr unsigned int NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;
constexpr unsigned int NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;
constexpr unsigned int kAllLinks = 0xffffffffu;
union nvmlValue_t {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    unsigned short usVal;
};
struct nvmlFieldValue_t {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;  // nvmlValueType_t
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
};
static_assert(sizeof(nvmlFieldValue_t) == 40);

// A field's value as an integer; NVML says in valueType which member holds it.
std::optional<std::int64_t> fieldInteger(const nvmlFieldValue_t& f) {
    if (f.nvmlReturn != NVML_SUCCESS) return std::nullopt;
    switch (f.valueType) {
        case 0:
            return static_cast<std::int64_t>(f.value.dVal);
        case 1:
            return f.value.uiVal;
        case 2:
            return static_cast<std::int64_t>(f.value.ulVal);
        case 3:
            return static_cast<std::int64_t>(f.value.ullVal);
        case 4:
            return f.value.sllVal;
        case 5:
            return f.value.siVal;
        case 6:
            return f.value.usVal;
        default:
            return std::nullopt;
    }
}
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
    nvmlReturn_t (*fieldValues)(nvmlDevice_t, int, nvmlFieldValue_t*) = nullptr;
    struct Device {
        nvmlDevice_t handle = nullptr;
        std::uint32_t index = 0;  // NVML's, kept when another device's handle fails
        // Still worth asking for NVLink counters (a GPU without NVLink, or a
        // driver without these fields, says so once and is not asked again).
        bool nvlink = true;
    };
    std::vector<Device> devices;

    void readNvlink(Device& d, SampleRecord& s) {
        if (!fieldValues || !d.nvlink) return;
        nvmlFieldValue_t f[2] = {};
        f[0].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
        f[1].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
        f[0].scopeId = f[1].scopeId = kAllLinks;
        auto rc = fieldValues(d.handle, 2, f);
        if (lasting(rc) || lasting(f[0].nvmlReturn) || lasting(f[1].nvmlReturn)) {
            d.nvlink = false;
            return;
        }
        if (rc != NVML_SUCCESS) return;
        auto tx = fieldInteger(f[0]), rx = fieldInteger(f[1]);
        if (tx && rx) {
            s.nvlinkTxBytes = *tx * 1024;
            s.nvlinkRxBytes = *rx * 1024;
        }
    }

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
    api->load(api->fieldValues, "nvmlDeviceGetFieldValues");  // optional (NVLink counters)
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
        if (api->handle(i, &d) != NVML_SUCCESS) continue;
        api->devices.push_back({d, i});
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
    for (auto& device : api_->devices) {
        auto d = device.handle;
        SampleRecord s;
        s.timeNs = timeNs;
        s.deviceIndex = device.index;
        // NVLink first: its rate divides by the time between samples, which
        // is taken before this device's calls.
        api_->readNvlink(device, s);
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
