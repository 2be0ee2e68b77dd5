// Owning device allocation; copies in and out by element.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "common/cuda_check.h"

namespace ws::kernels {

template <typename T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        if (count) WS_CUDA(cudaMalloc(&data_, count * sizeof(T)));
    }
    ~DeviceBuffer() {
        if (data_) cudaFree(data_);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(data_, o.data_);
        std::swap(count_, o.count_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

    template <typename U = T>
    std::vector<U> toHost() const {
        static_assert(sizeof(U) == sizeof(T));
        std::vector<U> out(count_);
        WS_CUDA(cudaMemcpy(out.data(), data_, bytes(), cudaMemcpyDeviceToHost));
        return out;
    }

  private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace ws::kernels
