// The processes of a tensor-parallel decoder run, one per GPU: the process the
// user (or `warpscope-cli record`) started is rank 0; it makes the NCCL
// communicator's id and starts ranks 1..N-1 as copies of itself running the
// same config (rank_processes.h), each on its own GPU.
//
// A rank that dies ends the run: rank 0 says which rank ended how and exits
// (status 3), since it may be waiting inside NCCL, or replaying a graph that
// does, for a peer that is gone; the other ranks die with rank 0.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectives/nccl_all_reduce.h"
#include "rank_processes.h"

namespace ws::workload {

class TensorParallelRanks {
  public:
    // Throws when this machine has fewer GPUs than ranks or NCCL cannot be
    // loaded (before any rank starts), or when joining the communicator fails.
    TensorParallelRanks(int ranks, const std::string& configPath);
    ~TensorParallelRanks();

    int rank() const { return rank_; }
    int ranks() const { return ranks_; }
    bool leader() const { return rank_ == 0; }
    kernels::AllReduce& allReduce() { return *comm_; }
    // Every rank once its rounds are done (and its decode graph destroyed):
    // frees its communicator; rank 0 then waits for the others and returns
    // how each that did not exit 0 ended, empty when all did.
    std::vector<std::string> finish();

  private:
    int rank_ = 0, ranks_ = 1;
    std::optional<RankProcesses> others_;  // rank 0's
    std::unique_ptr<kernels::NcclAllReduce> comm_;
};

}  // namespace ws::workload
