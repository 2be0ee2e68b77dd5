#include "gpu_metric_blob.h"

#include <bit>
#include <cstring>
#include <stdexcept>

#include "model/value_limits.h"
#include "wire/varint.h"

namespace ws::gpu_metric_blob {

static_assert(std::endian::native == std::endian::little, "blobs are little-endian");

std::string encode(std::span<const GpuMetricSample> samples) {
    std::string out;
    out.reserve(samples.size() * 7);
    varint::Out o(out);
    std::int64_t previousEnd = samples.empty() ? 0 : samples.front().startNs;
    for (const auto& s : samples) {
        o.s(s.startNs - previousEnd);
        o.u(static_cast<std::uint64_t>(s.endNs - s.startNs));
        const float v = static_cast<float>(s.value);
        char bytes[sizeof v];
        std::memcpy(bytes, &v, sizeof v);
        out.append(bytes, sizeof v);
        previousEnd = s.endNs;
    }
    return out;
}

std::vector<GpuMetricSample> decode(std::string_view blob, std::int64_t firstStartNs,
                                    std::int64_t count) {
    if (count < 0 || static_cast<std::uint64_t>(count) > blob.size())
        throw std::runtime_error("sample count " + std::to_string(count) + " does not fit " +
                                 std::to_string(blob.size()) + " bytes");
    std::vector<GpuMetricSample> out;
    out.reserve(static_cast<std::size_t>(count));
    varint::In in(blob);
    std::int64_t previousEnd = firstStartNs;
    for (std::int64_t i = 0; i < count; ++i) {
        const std::int64_t gap = in.s();
        const std::uint64_t duration = in.u();
        if (gap < -limits::kLongestSpanNs || gap > limits::kLongestSpanNs ||
            duration > static_cast<std::uint64_t>(limits::kLongestSpanNs))
            throw std::runtime_error("sample " + std::to_string(i) + ": time out of range");
        GpuMetricSample s;
        s.startNs = previousEnd + gap;
        s.endNs = s.startNs + static_cast<std::int64_t>(duration);
        if (s.startNs < 0 || s.endNs > limits::kLatestTimeNs)
            throw std::runtime_error("sample " + std::to_string(i) + ": time out of range");
        float v = 0;
        std::memcpy(&v, in.bytes(sizeof v).data(), sizeof v);
        s.value = v;
        out.push_back(s);
        previousEnd = s.endNs;
    }
    if (!in.rest().empty()) throw std::runtime_error("bytes after the last sample");
    return out;
}

}  // namespace ws::gpu_metric_blob
