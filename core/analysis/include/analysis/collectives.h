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
    // The message size NCCL's NVTX payload gave the call that launched it;
    // -1 when unknown (NCCL older than 2.19, NVTX off, or a kernel launched
    // outside the call, as ncclGroupEnd launches a group's).
    std::int64_t bytes = -1;
    // How many of the run's processes made calls on that call's communicator
    // (NCCL's hash); 0 when unknown (no size, or NCCL before the hash).
    int communicatorRanks = 0;
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
    std::int64_t sizedKernels = 0;  // NCCL kernels whose message size is known
    std::int64_t ncclBytes = 0;     // their message sizes, summed
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
    int ranks = 0;              // taking part
    std::int64_t bytes = -1;    // message size (NCCL's payload); -1 unknown
    int communicatorRanks = 0;  // its communicator's recorded ranks; 0 unknown
    std::int64_t skewNs() const { return lastStartNs - firstStartNs; }
    // From the last arrival to the last rank's end: the time the data moved
    // once everyone was there.
    std::int64_t transferNs() const { return endNs - lastStartNs; }
};

struct CollectiveKindStats {
    std::string collective;
    std::int64_t instances = 0;
    std::int64_t skewMeanNs = 0, skewP50Ns = 0, skewP99Ns = 0, skewMaxNs = 0;
    // The rank that arrived last most often, and in how many instances.
    int mostOftenLast = -1;
    std::int64_t mostOftenLastCount = 0;
    std::int64_t mostOftenLastMeanBehindNs = 0;  // its mean skew in those
    // Instances whose message size is known, their sizes summed, and the bus
    // bandwidth over their transfer times (nccl-tests' busbw: AllReduce
    // 2(n-1)/n of the size per rank, AllGather and ReduceScatter (n-1) times
    // the per-rank size, the others the size; n the ranks recorded on the
    // call's communicator, or taking part where NCCL gives no communicator);
    // 0 when none is sized.
    std::int64_t sizedInstances = 0;
    std::int64_t bytes = 0;
    double busBandwidthGBs = 0;
};

// Bytes on the bus per rank for one instance of `collective` with a message
// of `bytes` among `ranks` ranks (nccl-tests' conventions, NCCL's payload
// sizes); 0 for a kind without a convention (NCCL's generic kernel).
double busBytes(std::string_view collective, std::int64_t bytes, int ranks);

struct CollectiveReport {
    std::vector<CollectiveRankStats> ranks;     // by rank
    std::vector<CollectiveInstance> instances;  // by first arrival
    std::vector<CollectiveKindStats> kinds;     // by instances, most first
    std::int64_t unmatchedKernels = 0;          // NCCL kernels in no instance
    // NCCL kernels without a message size: launched outside an NCCL call
    // (ncclGroupEnd launches a group's), NVTX off (NCCL_NVTX_DISABLE=1), NCCL
    // older than 2.19, or recorded before Warpscope read NCCL's payloads.
    std::int64_t unsizedKernels = 0;
    std::vector<std::string> notes;     // why some were not matched
    std::vector<std::string> findings;  // "rank 3 arrives last in 71 % of AllReduce…"
};

// The matching and statistics on ranks already read (records with known
// skews in tests; analyzeCollectives for a stored run).
CollectiveReport matchCollectives(std::vector<RankKernels> ranks);

// Every kernel overlapping `window`, read once.
CollectiveReport analyzeCollectives(Store& store, RunId run, TimeWindow window = {});

}  // namespace ws
