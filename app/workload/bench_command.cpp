// `warpscope-workload bench`: the performance targets of the kernels issue,
// each a ratio measured side by side in one process on one GPU.
#include <cublas_v2.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "ceilings/ceilings.h"
#include "common/cuda_check.h"
#include "kernel_workload.h"
#include "nvtx_marks.h"
#include "workload_commands.h"

namespace ws::workload {

using kernels::Shape;

namespace {

struct Target {
    std::string what;
    double ratio = 0;
    double goal = 0;
};

void printTargets(const std::vector<Target>& targets) {
    std::printf("\n%-76s %8s %8s  %s\n", "target", "ratio", "goal", "verdict");
    for (const auto& t : targets)
        std::printf("%-76s %8.3f %8.2f  %s\n", t.what.c_str(), t.ratio, t.goal,
                    t.ratio >= t.goal ? "met" : "MISSED");
}

}  // namespace

int benchCommand(bool quick) {
    cudaDeviceProp prop{};
    WS_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs, CC %d.%d\n", prop.name, prop.multiProcessorCount, prop.major,
                prop.minor);
    int iterations = quick ? 10 : 50;

    cudaStream_t s;
    WS_CUDA(cudaStreamCreate(&s));
    cublasHandle_t handle;
    WS_CUBLAS(cublasCreate(&handle));
    WS_CUBLAS(cublasSetStream(handle, s));
    auto copy = kernels::measureCopyBandwidth(std::size_t(1) << 30, iterations, s);
    double tflops = kernels::measureCublasBf16Tflops(8192, quick ? 5 : 20, handle, s);
    cublasDestroy(handle);
    WS_CUDA(cudaStreamDestroy(s));
    double bw = copy.best();
    std::printf(
        "ceilings: copy %.1f GB/s (cudaMemcpy %.1f, copy kernel %.1f), cuBLAS bf16 %.1f "
        "TFLOP/s\n\n",
        bw, copy.memcpyGBs, copy.kernelGBs, tflops);
    markProperty("ceiling.copy_gbs", bw);
    markProperty("ceiling.bf16_tflops", tflops);

    std::vector<Target> targets;
    auto ladder = [&](const std::string& kernel, const Shape& shape,
                      std::vector<std::string> rungs) {
        auto r = runLadder(kernel, shape, std::move(rungs), 3, iterations, true);
        printLadder(r, bw);
        std::printf("\n");
        return r;
    };
    // Bandwidth targets are stated twice: per call (each launch between two
    // events, so it carries the ~3 µs launch boundary) and per launch in a
    // CUDA graph (as the decoder runs them). The verdict is printed for both.
    auto bandwidthTarget = [&](const std::string& what, const RungResult& rung, double goal) {
        targets.push_back({what + " (per call)", rung.gbs() / bw, goal});
        if (rung.graphMs > 0)
            targets.push_back({what + " (in a graph)", rung.graphGbs() / bw, goal});
    };
    auto label = [](const std::string& kernel, const Shape& shape) {
        std::string text = kernel;
        for (const auto& [k, v] : shape)
            text += " " + k + "=" + std::to_string(v);
        return text;
    };

    for (Shape shape : {Shape{{"batch", 1}, {"n", 8192}, {"k", 8192}},
                        Shape{{"batch", 1}, {"n", 28672}, {"k", 4096}},
                        Shape{{"batch", 1}, {"n", 4096}, {"k", 14336}}}) {
        auto r = ladder("gemv_bf16", shape, {"naive", "vectorized", "splitk", "int8", "cublas"});
        auto& best = *r.find("splitk");
        bandwidthTarget(label("gemv", shape) + " splitk/copy", best, 0.90);
        targets.push_back({label("gemv", shape) + " splitk/cublas",
                           r.find("cublas")->medianMs / best.medianMs, 1.0});
    }
    std::vector<Shape> gemms = {{{"m", 4096}, {"n", 4096}, {"k", 4096}},
                                // prefill of 2048 tokens, Llama-3.2-1B: qkv, o, gate|up, down
                                {{"m", 2048}, {"n", 3072}, {"k", 2048}},
                                {{"m", 2048}, {"n", 2048}, {"k", 2048}},
                                {{"m", 2048}, {"n", 16384}, {"k", 2048}},
                                {{"m", 2048}, {"n", 2048}, {"k", 8192}},
                                // Llama-3.1-8B
                                {{"m", 2048}, {"n", 6144}, {"k", 4096}},
                                {{"m", 2048}, {"n", 4096}, {"k", 4096}},
                                {{"m", 2048}, {"n", 28672}, {"k", 4096}},
                                {{"m", 2048}, {"n", 4096}, {"k", 14336}}};
    bool first = true;
    for (const auto& shape : gemms) {
        // The slow rungs once, on 4096³; the shapes only compare mma with cuBLAS.
        std::vector<std::string> rungs =
            first && !quick ? std::vector<std::string>{"naive",    "tiled", "regblock", "mma",
                                                       "mma_wide", "wgmma", "cublas"}
                            : std::vector<std::string>{"mma", "mma_wide", "wgmma", "cublas"};
        first = false;
        auto r = ladder("gemm_bf16", shape, rungs);
        double best = std::min(
            {r.find("mma")->medianMs, r.find("mma_wide")->medianMs, r.find("wgmma")->medianMs});
        targets.push_back({label("gemm", shape) + " best own rung/cublas",
                           r.find("cublas")->medianMs / best, 0.80});
    }
    for (Shape shape :
         {Shape{{"batch", 8}, {"context", 4096}}, Shape{{"batch", 1}, {"context", 32768}},
          Shape{{"batch", 16}, {"context", 8192}}}) {
        auto r = ladder("attention_decode", shape, {"naive", "splitkv", "splitkv_mma"});
        bandwidthTarget(label("decode attn", shape) + " splitkv_mma/copy", *r.find("splitkv_mma"),
                        0.85);
    }
    {
        auto r =
            ladder("attention_prefill", Shape{{"tokens", 2048}}, {"naive", "flash", "flash_mma"});
        (void)r;  // no target: prefill attention is compute-bound (see the prefill target)
    }
    for (auto [kernel, shape] :
         {std::pair<std::string, Shape>{"rmsnorm", {{"rows", 16384}, {"cols", 8192}}},
          {"softmax", {{"rows", 4096}, {"cols", 32768}}},
          {"softmax", {{"rows", 512}, {"cols", 131072}}},
          {"silu_mul", {{"rows", 4096}, {"cols", 14336}}},
          {"rope", {{"tokens", 8192}, {"heads", 48}, {"head_dim", 128}}}}) {
        auto r = ladder(kernel, shape, {"naive", "fused"});
        if (kernel == "rmsnorm" || kernel == "softmax")
            bandwidthTarget(label(kernel, shape) + " fused/copy", *r.find("fused"), 0.85);
    }
    printTargets(targets);
    return 0;
}

}  // namespace ws::workload
