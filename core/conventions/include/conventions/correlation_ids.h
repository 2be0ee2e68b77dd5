// Correlation ids across the processes of one run. CUDA numbers them per
// process from 1, so a parent and its spawned workers (torchrun ranks, a
// server's engine processes) all have a launch call 1, 2, ...; stored alike,
// a kernel would be matched to another process's launch (and its NVTX
// ranges), and hardware counters to another process's kernel. The first
// process to report keeps its ids; each later one gets a block of 2^28 ids
// counted down from the top of the 32-bit range (its id n stored as
// top - block start - n), so every stored id names one call of one process.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace ws {

class CorrelationIds {
  public:
    static constexpr std::uint32_t kBlock = 1u << 28;
    static constexpr std::uint32_t kBlocks = 15;  // later processes kept apart

    // The id to store for `id` of process `pid` (0, "none", stays 0; so does
    // every id of pid 0, a process not yet known).
    std::uint32_t of(std::uint32_t pid, std::uint32_t id);
    // Processes whose ids could not be kept apart (a 16th reporting process,
    // or ids past their block or into the blocks below the first process's):
    // each once, for the run's log.
    std::vector<std::uint32_t> takeUnseparated();
    bool anyUnseparated() const { return !unseparated_.empty(); }

  private:
    struct Process {
        // 0: the first process, its ids as CUDA gave them; past kBlocks: no
        // block left, CUDA's ids too (they may collide).
        std::uint32_t block = 0;
        bool reported = false;
    };
    Process& processOf(std::uint32_t pid);
    void unseparated(std::uint32_t pid, Process& p);

    std::map<std::uint32_t, Process> processes_;
    std::uint32_t lastPid_ = 0;
    Process* last_ = nullptr;
    std::vector<std::uint32_t> unseparated_;
};

}  // namespace ws
