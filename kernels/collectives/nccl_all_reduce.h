// NCCL, loaded at run time: no link dependency, so a build without NCCL runs
// everything but tensor parallelism. The library is looked for as
// $WARPSCOPE_NCCL_LIBRARY, then libnccl.so.2 on the loader's path (the CUDA
// toolkit's lib64), then the copy PyTorch bundles (nvidia/nccl/lib, found
// through `python3`).
#pragma once

#include <nccl.h>

#include <string>

#include "collectives/all_reduce.h"

namespace ws::kernels {

// A communicator's id as text, to pass to the other ranks' processes.
std::string ncclIdToHex(const ncclUniqueId& id);
ncclUniqueId ncclIdFromHex(const std::string& hex);  // throws std::invalid_argument

// The loaded library: where it was found and its version ("2.28.3").
struct NcclInfo {
    std::string path;
    std::string version;
};
// Loads it; throws std::runtime_error naming every place looked, or when it is
// older than 2.10 (the first with bf16 reductions).
NcclInfo ncclInfo();

ncclUniqueId newNcclId();  // the id rank 0 creates and hands to the others

// One rank's communicator on the current device; construction returns once
// every rank has joined (ncclCommInitRank).
class NcclAllReduce final : public AllReduce {
  public:
    NcclAllReduce(const ncclUniqueId& id, int ranks, int rank);
    ~NcclAllReduce() override;
    NcclAllReduce(const NcclAllReduce&) = delete;
    NcclAllReduce& operator=(const NcclAllReduce&) = delete;

    void sum(__nv_bfloat16* data, std::size_t count, cudaStream_t stream) override;

  private:
    ncclComm_t comm_ = nullptr;
};

}  // namespace ws::kernels
