// Collectives across the ranks of a distributed run (issue 24): NCCL kernels
// recognised by name, matched across ranks by their order on each rank's
// NCCL streams, and for each instance who arrived last and by how much.
//
// A rank is a process with GPU work (gpu_streams), numbered by the RANK it
// was started with (process.<pid>.rank) or, without one, by pid order. An
// NCCL kernel's start is its rank's arrival at the collective: the kernel
// spins until every peer has arrived, so the earlier ranks' kernels hold
// their wait. The k-th NCCL stream of each rank (streams ordered by their
// first NCCL kernel; one per communicator in PyTorch) is one channel; the
// i-th NCCL kernel of a channel on every rank is one collective instance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/records.h"
#include "store/run_queries.h"

namespace ws {

class Store;

// The collective of an NCCL kernel name, mangled or not:
// ncclDevKernel_AllReduce_Sum_bf16_RING_LL (NCCL >= 2.19) and
// ncclKernel_AllReduce_RING_LL_Sum_float (older) → "AllReduce";
// ncclDevKernel_SendRecv → "SendRecv"; nullopt for any other kernel.
std::optional<std::string> ncclCollective(std::string_view kernelName);

struct NcclLaunch {
    std::uint32_t streamId = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::string collective;
};

// One rank's kernels as the matching needs them.
struct RankKernels {
    std::uint32_t pid = 0;
    int rank = 0;
    bool rankFromEnvironment = false;  // RANK and the like, not pid order
    std::string command;
    std::string end;  // "exited", "lost" (killed, crashed), empty: unknown
    std::int64_t kernels = 0;
    std::int64_t kernelNs = 0;
    std::vector<NcclLaunch> nccl;  // in start order
};

struct CollectiveRankStats {
    std::uint32_t pid = 0;
    int rank = 0;
    bool rankFromEnvironment = false;
    std::string command;
    std::string end;  // how its process ended (process.<pid>.end)
    std::int64_t kernels = 0;
    std::int64_t kernelNs = 0;
    std::int64_t ncclKernels = 0;
    std::int64_t ncclNs = 0;
    double commShare = 0;           // NCCL kernel time / all kernel time
    std::int64_t matched = 0;       // instances it took part in
    std::int64_t lastArrivals = 0;  // of those, how often it came last
    std::int64_t waitNs = 0;        // summed: the last arrival's start minus its own
};

struct CollectiveInstance {
    std::string collective;
    int channel = 0;
    std::int64_t index = 0;         // within its channel
    std::int64_t firstStartNs = 0;  // the first rank's arrival
    std::int64_t lastStartNs = 0;   // the last rank's
    std::int64_t endNs = 0;         // the last rank's kernel end
    int lastRank = 0;
    std::int64_t skewNs() const { return lastStartNs - firstStartNs; }
};

struct CollectiveKindStats {
    std::string collective;
    std::int64_t instances = 0;
    std::int64_t skewMeanNs = 0, skewP50Ns = 0, skewP99Ns = 0, skewMaxNs = 0;
    // The rank that arrived last most often, and in how many instances.
    int mostOftenLast = -1;
    std::int64_t mostOftenLastCount = 0;
    std::int64_t mostOftenLastMeanBehindNs = 0;  // its mean skew in those
};

struct CollectiveReport {
    std::vector<CollectiveRankStats> ranks;     // by rank
    std::vector<CollectiveInstance> instances;  // by first arrival
    std::vector<CollectiveKindStats> kinds;     // by instances, most first
    std::int64_t unmatchedKernels = 0;          // NCCL kernels in no instance
    std::vector<std::string> notes;             // why some were not matched
    std::vector<std::string> findings;          // "rank 3 arrives last in 71 % of AllReduce…"
};

// The matching and statistics on ranks already read (records with known
// skews in tests; analyzeCollectives for a stored run).
CollectiveReport matchCollectives(std::vector<RankKernels> ranks);

// Every kernel overlapping `window`, read once.
CollectiveReport analyzeCollectives(Store& store, RunId run, TimeWindow window = {});

}  // namespace ws
