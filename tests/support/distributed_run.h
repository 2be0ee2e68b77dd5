// A stored run of two ranks on one GPU, as torchrun --nproc-per-node 2 on one
// device records: pids 900 and 901 on streams 7 and 8, each started with
// RANK, running `collectives` NCCL all-reduces 1 ms apart, each all-reduce
// ending 400 µs after the round's start on both ranks. Collective i has one
// rank arrive `lateNs` after the other: the pid `latePid(i)` returns.
#pragma once

#include <cstdint>
#include <functional>

#include "model/records.h"

namespace ws {
class Store;
}

namespace ws::testing {

struct TwoRankRun {
    int collectives = 16;
    std::int64_t lateNs = 300'000;
    std::function<std::uint32_t(int)> latePid = [](int) { return 900u; };
    int rankOf900 = 0;  // pid 901 is the other rank
    // Each all-reduce followed by a 600 µs GEMM on the same stream.
    bool withGemm = false;
    // When > 0: each all-reduce is launched (cudaLaunchKernel, on the thread
    // numbered as its pid) inside a recorded ncclAllReduce call of this many
    // bytes, except the last round's, launched after its call has returned
    // (as ncclGroupEnd launches a group's) and so of unknown size.
    std::int64_t messageBytes = 0;
};

inline constexpr std::int64_t kTwoRankStartNs = 1'000'000'000;

RunId writeTwoRankRun(Store& store, const TwoRankRun& shape = {});

}  // namespace ws::testing
