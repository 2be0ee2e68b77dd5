// Device samples (power, clocks, temperature, memory, utilisation, energy)
// through NVML, loaded with dlopen so nothing links libnvidia-ml: without a
// driver, available() is false and the sampler records nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

class NvmlSampler {
  public:
    NvmlSampler();
    ~NvmlSampler();
    NvmlSampler(const NvmlSampler&) = delete;
    NvmlSampler& operator=(const NvmlSampler&) = delete;

    bool available() const;
    // Why NVML is not available ("libnvidia-ml.so.1: cannot open shared object file").
    const std::string& unavailableReason() const { return reason_; }
    // One sample per device, stamped with `timeNs`; fields NVML cannot give stay empty.
    std::vector<SampleRecord> sample(std::int64_t timeNs);
    // The driver's version, e.g. "580.159.04"; empty without NVML.
    std::string driverVersion() const;

  private:
    struct Api;
    std::unique_ptr<Api> api_;
    std::string reason_;
};

}  // namespace ws
