// GpuBackend::tuneLinear: the decoder's rung against cuBLAS, timed for every
// matrix shape at each decode batch bucket before the graphs are captured.
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "common/cuda_check.h"
#include "serving/gpu_backend.h"

namespace ws::serving {

using namespace ws::kernels;

namespace {

constexpr int kRounds = 3;  // alternating, best of each: the least disturbed

struct TimedShape {
    int out = 0, in = 0;
    // One copy per layer, cycled through so that L2 never serves a repeat
    // (a 4096 × 4096 bf16 matrix is 32 MiB; the H200's L2 50 MiB).
    std::vector<const __nv_bfloat16*> weights;
    const __nv_bfloat16* x = nullptr;
    __nv_bfloat16* y = nullptr;
};

}  // namespace

void GpuBackend::tuneLinear(const std::vector<int>& rowCounts) {
    const auto& m = opt_.shape;
    std::vector<TimedShape> shapes;
    auto layerShape = [&](LinearWeight LayerWeights::*member, const __nv_bfloat16* x,
                          __nv_bfloat16* y) {
        const LinearWeight& first = weights_.layers.front().*member;
        if (first.quantized()) return;  // int8 keeps its own GEMV
        TimedShape t{first.out, first.in, {}, x, y};
        for (const auto& layer : weights_.layers)
            t.weights.push_back((layer.*member).w.get());
        shapes.push_back(std::move(t));
    };
    layerShape(&LayerWeights::qkv, h_.get(), qkv_.get());
    layerShape(&LayerWeights::o, attn_.get(), o_.get());
    layerShape(&LayerWeights::gateUp, h_.get(), gateUp_.get());
    layerShape(&LayerWeights::down, act_.get(), o_.get());
    shapes.push_back({m.vocab, m.hidden, {weights_.lmHeadWeights()}, last_.get(), logits_.get()});

    cudaEvent_t begin = nullptr, end = nullptr;
    WS_CUDA(cudaEventCreate(&begin));
    WS_CUDA(cudaEventCreate(&end));
    // Milliseconds per call over one pass through the shape's copies (at
    // least 8 calls).
    auto pass = [&](const TimedShape& t, int rows, bool cublas) {
        const int calls = std::max<int>(8, static_cast<int>(t.weights.size()));
        WS_CUDA(cudaEventRecord(begin, stream_));
        for (int i = 0; i < calls; ++i)
            matmul(t.weights[std::size_t(i) % t.weights.size()], t.x, t.y, rows, t.out, t.in,
                   cublas);
        WS_CUDA(cudaEventRecord(end, stream_));
        WS_CUDA(cudaEventSynchronize(end));
        float ms = 0;
        WS_CUDA(cudaEventElapsedTime(&ms, begin, end));
        return double(ms) / calls;
    };
    try {
        for (const auto& t : shapes)
            for (int rows : rowCounts) {
                if (rows > limits_.maxSeqs) continue;  // the buffers' rows (last_, logits_)
                matmul(t.weights.front(), t.x, t.y, rows, t.out, t.in, false);  // first-call setup
                matmul(t.weights.front(), t.x, t.y, rows, t.out, t.in, true);
                double own = std::numeric_limits<double>::infinity(), cublas = own;
                for (int r = 0; r < kRounds; ++r) {
                    own = std::min(own, pass(t, rows, false));
                    cublas = std::min(cublas, pass(t, rows, true));
                }
                tuning_.record(t.out, t.in, rows, own, cublas);
            }
    } catch (...) {
        cudaEventDestroy(begin);
        cudaEventDestroy(end);
        throw;
    }
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
}

std::vector<std::string> GpuBackend::preparedNotes() const {
    std::vector<std::string> notes;
    for (auto& line : tuning_.describe())
        notes.push_back("linear " + line);
    return notes;
}

}  // namespace ws::serving
