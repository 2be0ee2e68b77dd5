// What every ladder case shares: host copies of the deterministic inputs,
// shape lookup, and rung-name checks.
#pragma once

#include <cuda_bf16.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/device_buffer.h"
#include "common/fill.h"
#include "host/bf16.h"
#include "host/cpu_reference.h"
#include "ladders/ladder.h"

namespace ws::kernels {

using Bf16Buffer = DeviceBuffer<__nv_bfloat16>;

inline ref::Bf16Vec hostUniform(std::uint64_t seed, std::size_t n, float scale) {
    ref::Bf16Vec v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = floatToBf16(uniformAt(seed, i, scale));
    return v;
}

inline std::vector<float> toFloat(const std::vector<bf16_bits>& v) {
    std::vector<float> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = bf16ToFloat(v[i]);
    return out;
}

inline std::vector<float> deviceToFloat(const Bf16Buffer& b) {
    return toFloat(b.toHost<bf16_bits>());
}

// Input sets on the device, one per copy, each from its own seed.
struct InputCopies {
    std::vector<Bf16Buffer> buffers;
    InputCopies(int copies, std::size_t n, std::uint64_t seed, float scale) {
        for (int c = 0; c < copies; ++c) {
            buffers.emplace_back(n);
            fillUniform(buffers.back().get(), n, seed + 1000003ull * c, scale);
        }
    }
    __nv_bfloat16* at(int copy) const { return buffers[copy % buffers.size()].get(); }
};

inline std::int64_t shapeValue(const Shape& shape, const std::string& key) {
    auto it = shape.find(key);
    if (it == shape.end()) throw std::invalid_argument("shape is missing '" + key + "'");
    return it->second;
}

inline void requireRung(const LadderCase& c, const std::string& rung) {
    auto rungs = c.rungs();
    if (std::find(rungs.begin(), rungs.end(), rung) == rungs.end()) {
        std::string list;
        for (const auto& r : rungs)
            list += (list.empty() ? "" : ", ") + r;
        throw std::invalid_argument(c.name() + ": unknown rung '" + rung + "' (" + list + ")");
    }
}

// Rows spread over [0, rows): the ones a big GEMM's reference is computed for.
inline std::vector<int> sampleRows(int rows, int count) {
    std::vector<int> out;
    for (int i = 0; i < count && i < rows; ++i)
        out.push_back(int((std::int64_t(i) * rows) / std::min(count, rows)));
    if (rows > 1 && out.back() != rows - 1) out.back() = rows - 1;
    return out;
}

}  // namespace ws::kernels
