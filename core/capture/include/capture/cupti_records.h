// Turns CUPTI activity records into Warpscope records on the collector's
// writer thread. Keeps the state that spans records: open NVTX ranges and
// API callback names.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/records.h"
#include "wire/frames.h"

namespace ws::capture {

class RecordConverter {
  public:
    // Records of `ownThread` (the collector's own CUDA calls) are left out.
    RecordConverter(std::uint32_t processId, std::uint32_t ownThread)
        : processId_(processId), ownThread_(ownThread) {}

    // Appends the frames for one CUPTI record to `out`. Device records also
    // go to `devices` for the caller to complete and send.
    void convert(const CUpti_Activity* record, wire::Encoder& out,
                 std::vector<std::uint32_t>& devices);

  private:
    const std::string& callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid);
    void marker(const CUpti_ActivityMarker2& m, wire::Encoder& out);

    struct OpenRange {
        RangeRecord range;
    };
    std::uint32_t processId_;
    std::uint32_t ownThread_;
    std::unordered_map<std::uint32_t, OpenRange> open_;  // NVTX range id → its start
    std::map<std::uint32_t, int> depthByThread_;         // open push/pop ranges per thread
    std::map<std::pair<int, std::uint32_t>, std::string> names_;
};

// Completes a device's description with what only the driver knows.
DeviceInfo describeDevice(std::uint32_t deviceId);

}  // namespace ws::capture
