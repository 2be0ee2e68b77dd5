// Tensor parallelism on one GPU: two ranks of a tiny Llama-shaped model in one
// process (a thread and a stream each, summing through an in-process pair)
// generate what the whole model does; NCCL, when it loads, sums a single
// rank's buffer unchanged; communicator ids survive the trip as text. The pair
// stands in for NCCL here because NCCL will not put two ranks on one GPU; two
// GPUs run the decoder through NCCL (scripts/gpu/tp-check.sh).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <barrier>
#include <cmath>
#include <thread>

#include "common/cuda_check.h"
#include "decoder/decoder.h"
#include "host/bf16.h"
#include "tiny_decoder.h"
#if WARPSCOPE_HAVE_NCCL
#include "collectives/nccl_all_reduce.h"
#endif

namespace ws::kernels {
namespace {

// Both ranks in one process: each sum() meets the other rank, adds the other's
// partial into a scratch copy of its own (cuBLAS axpy, fp32 arithmetic: both
// ranks round alike), meets again once both have read, and copies back.
// Eager only: one capture cannot wait on another capture's events.
class PairAllReduce {
  public:
    class Rank final : public AllReduce {
      public:
        Rank(PairAllReduce& pair, int rank) : pair_(pair), rank_(rank) {
            WS_CUBLAS(cublasCreate(&cublas_));
            WS_CUDA(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
            WS_CUDA(cudaEventCreateWithFlags(&read_, cudaEventDisableTiming));
        }
        ~Rank() override {
            cudaEventDestroy(ready_);
            cudaEventDestroy(read_);
            cublasDestroy(cublas_);
        }
        void sum(__nv_bfloat16* data, std::size_t count, cudaStream_t stream) override {
            Rank& other = *pair_.ranks_[1 - rank_];
            if (scratch_.size() < count) scratch_ = DeviceBuffer<__nv_bfloat16>(count);
            data_ = data;
            WS_CUDA(cudaEventRecord(ready_, stream));
            pair_.meet_.arrive_and_wait();
            WS_CUDA(cudaStreamWaitEvent(stream, other.ready_));
            WS_CUDA(cudaMemcpyAsync(scratch_.get(), data, count * sizeof(__nv_bfloat16),
                                    cudaMemcpyDeviceToDevice, stream));
            const float one = 1.0f;
            WS_CUBLAS(cublasSetStream(cublas_, stream));
            WS_CUBLAS(cublasAxpyEx(cublas_, int(count), &one, CUDA_R_32F, other.data_, CUDA_R_16BF,
                                   1, scratch_.get(), CUDA_R_16BF, 1, CUDA_R_32F));
            WS_CUDA(cudaEventRecord(read_, stream));
            pair_.meet_.arrive_and_wait();
            WS_CUDA(cudaStreamWaitEvent(stream, other.read_));  // it has read `data`
            WS_CUDA(cudaMemcpyAsync(data, scratch_.get(), count * sizeof(__nv_bfloat16),
                                    cudaMemcpyDeviceToDevice, stream));
        }

      private:
        PairAllReduce& pair_;
        int rank_;
        cublasHandle_t cublas_ = nullptr;
        cudaEvent_t ready_ = nullptr, read_ = nullptr;
        __nv_bfloat16* data_ = nullptr;
        DeviceBuffer<__nv_bfloat16> scratch_;
    };

    PairAllReduce() : first_(*this, 0), second_(*this, 1) {}
    AllReduce& rank(int r) { return r == 0 ? static_cast<AllReduce&>(first_) : second_; }

  private:
    std::barrier<> meet_{2};
    Rank first_, second_;
    Rank* ranks_[2] = {&first_, &second_};
};

TEST(TensorParallelGpu, TwoRanksGenerateWhatTheWholeModelDoes) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    for (auto v : {DecoderVariant::Optimized, DecoderVariant::Cublas}) {
        const auto whole = generate(tinyModel(v), false);
        PairAllReduce pair;
        Generation ranks[2];
        std::thread second([&] {
            auto o = tinyModel(v);
            o.rank = 1;
            o.ranks = 2;
            o.allReduce = &pair.rank(1);
            ranks[1] = generate(o, false);
        });
        auto o = tinyModel(v);
        o.ranks = 2;
        o.allReduce = &pair.rank(0);
        ranks[0] = generate(o, false);
        second.join();
        // Both ranks end every step with the same hidden states, so the same tokens.
        EXPECT_EQ(ranks[0].tokens, ranks[1].tokens) << toString(v);
        EXPECT_EQ(ranks[0].slots, ranks[1].slots) << toString(v);
        // Against the whole model only the partial sums' rounding differs.
        int agree = 0;
        for (std::size_t i = 0; i < whole.tokens.size(); ++i)
            agree += whole.tokens[i] == ranks[0].tokens[i];
        EXPECT_GE(agree, int(whole.tokens.size()) - 2) << toString(v);
        double sumSq = 0, maxDiff = 0;
        for (std::size_t i = 0; i < whole.slots.size(); ++i) {
            sumSq += double(whole.slots[i]) * whole.slots[i];
            maxDiff = std::max(maxDiff, std::abs(double(whole.slots[i]) - ranks[0].slots[i]));
        }
        double stdDev = std::sqrt(sumSq / double(whole.slots.size()));
        EXPECT_LT(maxDiff / stdDev, 0.25) << toString(v);
        // Each rank holds half the KV cache and half of every layer's matrices.
        EXPECT_EQ(2 * ranks[0].kvBytes, whole.kvBytes);
        EXPECT_LT(ranks[0].weightBytes, whole.weightBytes);
    }
}

TEST(TensorParallelGpu, ARankWithoutAnAllReduceIsRefused) {
    auto o = tinyModel(DecoderVariant::Optimized);
    o.ranks = 2;
    EXPECT_THROW(Decoder(o, nullptr), std::invalid_argument);
    o.ranks = 3;  // 4 heads, 2 KV heads do not split in 3
    EXPECT_THROW(Decoder(o, nullptr), std::invalid_argument);
}

#if WARPSCOPE_HAVE_NCCL
TEST(TensorParallelGpu, CommunicatorIdsSurviveTheTripAsText) {
    ncclUniqueId id{};
    for (std::size_t i = 0; i < sizeof id.internal; ++i)
        id.internal[i] = static_cast<char>(i * 37 + 11);
    auto hex = ncclIdToHex(id);
    EXPECT_EQ(hex.size(), 2 * sizeof id.internal);
    auto back = ncclIdFromHex(hex);
    EXPECT_EQ(std::string(back.internal, sizeof back.internal),
              std::string(id.internal, sizeof id.internal));
    EXPECT_THROW(ncclIdFromHex(hex.substr(1)), std::invalid_argument);
    hex[3] = 'g';
    EXPECT_THROW(ncclIdFromHex(hex), std::invalid_argument);
}

TEST(TensorParallelGpu, NcclSumsASingleRanksBufferUnchanged) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device";
    NcclInfo info;
    try {
        info = ncclInfo();
    } catch (const std::exception& e) {
        GTEST_SKIP() << e.what();
    }
    std::printf("NCCL %s from %s\n", info.version.c_str(), info.path.c_str());
    NcclAllReduce comm(newNcclId(), 1, 0);
    std::vector<bf16_bits> host(4096);
    for (std::size_t i = 0; i < host.size(); ++i)
        host[i] = floatToBf16(float(i % 97) - 48.0f);
    DeviceBuffer<__nv_bfloat16> data(host.size());
    WS_CUDA(cudaMemcpy(data.get(), host.data(), host.size() * 2, cudaMemcpyHostToDevice));
    comm.sum(data.get(), host.size(), nullptr);
    WS_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(data.toHost<bf16_bits>(), host);
}
#endif

}  // namespace
}  // namespace ws::kernels
