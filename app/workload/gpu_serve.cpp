// The GPU backend of `warpscope-workload serve` (CUDA builds): the [decoder]
// table's model over a paged KV pool, sized from kv_memory_fraction of the
// free device memory unless num_blocks is given. Before the weights are
// loaded it measures the GPU's ceilings and marks what one engine step costs
// per unit of work (docs/serving.md, "Speed of light"), the inputs of each
// step's floor.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <iostream>

#include "ceiling_marks.h"
#include "nvtx_marks.h"
#include "serving/gpu_backend.h"
#include "workload_commands.h"

namespace ws::workload {

std::unique_ptr<serving::Backend> makeGpuBackend(const DecoderParams& decoder,
                                                 const ServeParams& params,
                                                 serving::EngineConfig& config) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
        throw std::runtime_error(
            "the gpu backend needs CUDA: this build has it, but no CUDA device is visible");
    auto options = serving::GpuBackendOptions::from(decoder);
    {
        cudaStream_t stream;
        if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
            throw std::runtime_error("the gpu backend could not create a CUDA stream");
        markMeasuredCeilings(stream);
        cudaStreamDestroy(stream);
        const auto& m = options.shape;
        markProperty("model", decoder.model);
        markProperty("model.weight_bytes", m.weightBytes(options.precision));
        markProperty("serve.step_weight_bytes", m.decodeWeightBytes(options.precision));
        markProperty("serve.kv_bytes_per_token", m.kvBytesPerToken());
        markProperty("serve.matmul_flops_per_token", m.matmulFlops(1));
        // QKᵀ and PV: 2 FLOPs per multiply-add, head_dim of each, per query head and layer.
        markProperty("serve.attention_flops_per_pair", 4.0 * m.layers * m.heads * m.headDim);
    }
    options.textOnly = true;  // the server's tokenizer is the byte tokenizer
    options.tuneLinear = params.linear == "tuned";
    options.fixedDecodeSplits = params.decodeSplits == "fixed";
    const auto blockBytes = serving::GpuBackend::blockBytes(options.shape, config.blockSize);
    if (!params.numBlocks) {
        config.numBlocks =
            serving::GpuBackend::blocksThatFit(options, config, params.kvMemoryFraction);
        std::cout << "warpscope-workload: KV pool " << config.numBlocks << " blocks of "
                  << config.blockSize << " tokens (" << params.kvMemoryFraction
                  << " of the free device memory after the weights: "
                  << double(config.numBlocks) * double(blockBytes) / 1073741824.0 << " GiB)"
                  << std::endl;
    }
    return std::make_unique<serving::GpuBackend>(options);
}

std::function<std::string(bool start)> gpuProfilerSwitch() {
    return [](bool start) -> std::string {
        cudaError_t e = start ? cudaProfilerStart() : cudaProfilerStop();
        if (e == cudaSuccess) return {};
        return std::string(start ? "cudaProfilerStart" : "cudaProfilerStop") +
               " failed: " + cudaGetErrorString(e);
    };
}

}  // namespace ws::workload
