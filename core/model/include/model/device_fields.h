// Every field of DeviceInfo, described once: its store column and where it
// lives in the struct. The capture wire codec and the store write and read
// devices through this list, in this order, so a new field is one line here
// (plus its column in a store migration), not nine edits matched by position.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "model/records.h"

namespace ws {

struct DeviceField {
    const char* column;  // in the store's devices table
    // Exactly one of these is set: the field's type.
    std::string DeviceInfo::*text = nullptr;
    int DeviceInfo::*int32 = nullptr;
    std::int64_t DeviceInfo::*int64 = nullptr;
};

constexpr DeviceField textField(const char* column, std::string DeviceInfo::*m) {
    return {column, m, nullptr, nullptr};
}
constexpr DeviceField intField(const char* column, int DeviceInfo::*m) {
    return {column, nullptr, m, nullptr};
}
constexpr DeviceField int64Field(const char* column, std::int64_t DeviceInfo::*m) {
    return {column, nullptr, nullptr, m};
}

inline constexpr std::array<DeviceField, 22> kDeviceFields = {
    textField("name", &DeviceInfo::name),
    textField("uuid", &DeviceInfo::uuid),
    intField("cc_major", &DeviceInfo::ccMajor),
    intField("cc_minor", &DeviceInfo::ccMinor),
    intField("sm_count", &DeviceInfo::smCount),
    int64Field("memory_bytes", &DeviceInfo::memoryBytes),
    intField("memory_bus_width_bits", &DeviceInfo::memoryBusWidthBits),
    intField("memory_clock_khz", &DeviceInfo::memoryClockKhz),
    intField("sm_clock_khz", &DeviceInfo::smClockKhz),
    int64Field("l2_bytes", &DeviceInfo::l2Bytes),
    textField("driver_version", &DeviceInfo::driverVersion),
    textField("cuda_version", &DeviceInfo::cudaVersion),
    intField("regs_per_sm", &DeviceInfo::regsPerSm),
    intField("regs_per_block", &DeviceInfo::regsPerBlock),
    intField("smem_per_sm", &DeviceInfo::smemPerSm),
    intField("smem_per_block", &DeviceInfo::smemPerBlock),
    intField("smem_per_block_optin", &DeviceInfo::smemPerBlockOptin),
    intField("reserved_smem_per_block", &DeviceInfo::reservedSmemPerBlock),
    intField("max_warps_per_sm", &DeviceInfo::maxWarpsPerSm),
    intField("max_blocks_per_sm", &DeviceInfo::maxBlocksPerSm),
    intField("max_threads_per_block", &DeviceInfo::maxThreadsPerBlock),
    intField("warp_size", &DeviceInfo::warpSize),
};

}  // namespace ws
