// The blob of a gpu_metric_chunks row: its samples in order, each as the gap
// since the previous sample's end (zigzag varint; 0 while sampling keeps up),
// its duration (varint) and its value (IEEE float, little-endian). Float: a
// performance monitor's value has far fewer than seven significant digits,
// and at 10 kHz per metric the bytes per sample are what a long run stores.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/records.h"

namespace ws::gpu_metric_blob {

// The first sample's start is the row's first_start_ns, not in the blob.
std::string encode(std::span<const GpuMetricSample> samples);

// Throws std::runtime_error when the blob does not hold `count` samples
// starting at `firstStartNs` (truncated, overlong, times out of range).
std::vector<GpuMetricSample> decode(std::string_view blob, std::int64_t firstStartNs,
                                    std::int64_t count);

}  // namespace ws::gpu_metric_blob
