#include "tensor_parallel_ranks.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "common/cuda_check.h"

namespace ws::workload {

namespace {

int rankFromEnvironment(int ranks) {
    const char* text = std::getenv("WARPSCOPE_TP_RANK");
    if (!text) return 0;
    char* end = nullptr;
    long rank = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || rank < 1 || rank >= ranks)
        throw std::runtime_error(std::string("WARPSCOPE_TP_RANK=") + text +
                                 ": not a rank between 1 and " + std::to_string(ranks - 1));
    return int(rank);
}

}  // namespace

TensorParallelRanks::TensorParallelRanks(int ranks, const std::string& configPath)
    : rank_(rankFromEnvironment(ranks)), ranks_(ranks) {
    std::string id;
    if (rank_ > 0) {
        const char* given = std::getenv("WARPSCOPE_TP_ID");
        if (!given) throw std::runtime_error("WARPSCOPE_TP_RANK is set without WARPSCOPE_TP_ID");
        id = given;
    } else {
        int devices = 0;
        if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
        if (devices < ranks)
            throw std::runtime_error(
                "tensor_parallel = " + std::to_string(ranks) + " needs " + std::to_string(ranks) +
                " GPUs, one per rank; this machine has " + std::to_string(devices));
        auto nccl = kernels::ncclInfo();
        std::printf("tensor parallel: %d ranks on GPUs 0–%d, NCCL %s (%s)\n", ranks, ranks - 1,
                    nccl.version.c_str(), nccl.path.c_str());
        std::fflush(stdout);
        id = kernels::ncclIdToHex(kernels::newNcclId());
        others_.emplace(
            ranks, "/proc/self/exe",
            std::vector<std::string>{"warpscope-workload", "run", configPath},
            std::vector<std::string>{"WARPSCOPE_TP_ID=" + id}, [](const std::string& what) {
                std::fprintf(stderr, "warpscope-workload: %s; stopping the run\n", what.c_str());
                std::fflush(stderr);
                std::_Exit(3);
            });
    }
    WS_CUDA(cudaSetDevice(rank_));
    // Returns once every rank has joined; a rank that fails first ends this one.
    comm_ = std::make_unique<kernels::NcclAllReduce>(kernels::ncclIdFromHex(id), ranks_, rank_);
}

// Reached with a communicator only when the run failed: it is left to the
// process's end (a peer may be gone, and freeing it waits for peers); the
// ranks still running are stopped by others_'s destructor.
TensorParallelRanks::~TensorParallelRanks() {
    (void)comm_.release();
}

std::vector<std::string> TensorParallelRanks::finish() {
    comm_.reset();
    return others_ ? others_->finish() : std::vector<std::string>{};
}

}  // namespace ws::workload
