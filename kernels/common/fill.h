// Deterministic device fills: the same (seed, index) → value function as the
// host's uniformAt(), so references rebuild inputs without a copy; and poison,
// so a kernel that skips an output element is caught.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace ws::kernels {

void fillUniform(__nv_bfloat16* p, std::size_t n, std::uint64_t seed, float scale,
                 cudaStream_t s = nullptr);
void fillUniformInt8(std::int8_t* p, std::size_t n, std::uint64_t seed, cudaStream_t s = nullptr);
void fillUniformFloat(float* p, std::size_t n, std::uint64_t seed, float lo, float hi,
                      cudaStream_t s = nullptr);
void fillConstant(__nv_bfloat16* p, std::size_t n, float value, cudaStream_t s = nullptr);
// bf16 NaN in every element.
void poison(__nv_bfloat16* p, std::size_t n, cudaStream_t s = nullptr);

}  // namespace ws::kernels
