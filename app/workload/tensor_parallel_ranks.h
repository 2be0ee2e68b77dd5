// The processes of a tensor-parallel decoder run, one per GPU, as torchrun
// would start them: the process the user (or `warpscope-cli record`) started
// is rank 0; it makes the NCCL communicator's id and starts ranks 1..N-1 as
// copies of itself (same config, WARPSCOPE_TP_RANK / WARPSCOPE_TP_ID set, and
// RANK, LOCAL_RANK, WORLD_SIZE as torchrun sets them, so a recording labels
// each process with its rank). Under capture they are recorded with it: their
// environment carries the injection.
//
// A rank that dies ends the run: rank 0 watches the others, says which rank
// ended how and exits (status 3), as it may be waiting for the dead peer; the
// other ranks die with rank 0 (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectives/nccl_all_reduce.h"

namespace ws::workload {

class TensorParallelRanks {
  public:
    // `configPath`: what the other ranks run. Throws when this machine has
    // fewer GPUs than ranks or NCCL cannot be loaded, before any rank starts.
    TensorParallelRanks(int ranks, const std::string& configPath);
    ~TensorParallelRanks();  // rank 0: waits for the others
    TensorParallelRanks(const TensorParallelRanks&) = delete;
    TensorParallelRanks& operator=(const TensorParallelRanks&) = delete;

    int rank() const { return rank_; }
    int ranks() const { return ranks_; }
    bool leader() const { return rank_ == 0; }
    kernels::AllReduce& allReduce() { return *comm_; }
    // Every rank once its rounds are done: frees its communicator; rank 0 then
    // waits for the others and returns how each that did not exit 0 ended
    // ("rank 1 (pid 812): killed by signal 9 (Killed)"), empty when all did.
    std::vector<std::string> finish();

  private:
    void startOthers(const std::string& configPath, const std::string& id);
    void stopOthers();
    void watch();

    int rank_ = 0, ranks_ = 1;
    std::unique_ptr<kernels::NcclAllReduce> comm_;
    std::mutex reaping_;         // guards what follows; the watcher holds it while it reaps
    std::vector<pid_t> others_;  // ranks 1..N-1
    std::vector<bool> reaped_;
    std::vector<std::string> failures_;
    bool stopping_ = false;   // rank 0 is stopping the others itself (its run failed)
    bool finishing_ = false;  // every rank's rounds are done
    std::thread watcher_;
};

}  // namespace ws::workload
