// bfloat16 on the host, bit-exact with CUDA's __float2bfloat16 (round to
// nearest even) so CPU references see the very inputs the GPU saw.
#pragma once

#include <cstdint>
#include <cstring>

namespace ws::kernels {

using bf16_bits = std::uint16_t;

inline float bf16ToFloat(bf16_bits b) {
    std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

inline bf16_bits floatToBf16(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu))  // NaN stays a quiet NaN
        return static_cast<bf16_bits>((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<bf16_bits>(u >> 16);
}

// The same deterministic "random" value the GPU fill kernels produce for
// (seed, index): uniform in [-scale, scale), so a CPU reference can rebuild any
// input without copying it back.
inline std::uint32_t hashIndex(std::uint64_t seed, std::uint64_t index) {
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return static_cast<std::uint32_t>(x);
}

inline float uniformAt(std::uint64_t seed, std::uint64_t index, float scale) {
    return (static_cast<float>(hashIndex(seed, index) >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f) *
           scale;
}

}  // namespace ws::kernels
