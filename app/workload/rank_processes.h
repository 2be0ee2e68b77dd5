// Ranks 1..N-1 of a multi-process run, started as copies of one program as
// torchrun starts them: each gets this process's environment with RANK,
// LOCAL_RANK, WORLD_SIZE and WARPSCOPE_TP_RANK set to its own (so a recording
// labels each process with its rank; under capture the environment also
// carries the injection), plus what all ranks share. A watcher reaps them by
// pid and reports each that ends badly while the run is on; each dies with the
// process that started it (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ws::workload {

class RankProcesses {
  public:
    // Called on the watcher's thread, once per rank that ends other than with
    // exit status 0 before finish(): "rank 2 (pid 812): killed by signal 9 (Killed)".
    using OnEnd = std::function<void(const std::string& what)>;

    RankProcesses(int ranks, const std::string& program, const std::vector<std::string>& argv,
                  const std::vector<std::string>& sharedEnv, OnEnd onBadEnd);
    ~RankProcesses();  // SIGTERM to the ranks still running, then reaps them
    RankProcesses(const RankProcesses&) = delete;
    RankProcesses& operator=(const RankProcesses&) = delete;

    // The run is done: waits for every rank and returns how each that did
    // not exit 0 ended (onBadEnd is not called for those that end from now on).
    std::vector<std::string> finish();
    const std::vector<pid_t>& pids() const { return pids_; }

  private:
    void watch();

    OnEnd onBadEnd_;
    std::vector<pid_t> pids_;  // rank r at r - 1
    std::mutex reaping_;       // guards what follows; the watcher holds it while it reaps
    std::vector<bool> reaped_;
    std::vector<std::string> failures_;
    bool stopping_ = false;   // SIGTERMs sent by us: not failures
    bool finishing_ = false;  // past the run: reported by finish(), not onBadEnd
    std::thread watcher_;
};

}  // namespace ws::workload
