// PC sampling's vocabulary (`record --pc-sampling`): the run properties it
// leaves, the environment the collector reads, and CUPTI's stall reasons with
// the names Nsight Compute shows for them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ws::pc_sampling {

// The collector samples when this is set; its value is the period's log2
// (kShortestPeriodLog2..kLongestPeriodLog2) or 0 for CUPTI's default.
inline constexpr const char* kEnvironment = "WARPSCOPE_PC_SAMPLING";
inline constexpr std::uint32_t kShortestPeriodLog2 = 5;
inline constexpr std::uint32_t kLongestPeriodLog2 = 31;
// The period a recording samples at unless asked otherwise (2^13 cycles per
// SM), not CUPTI's 2^11: at 2^11 an H100 filled CUPTI's hardware buffer
// within 7-38 s of a long kernel (draining at every launch, a 2 GB buffer or a
// 1 ms worker did not stop it; docs/benchmarks.md) and sampled nothing after.
inline constexpr std::uint32_t kDefaultPeriodLog2 = 13;

// Run properties: asked for (capture.*) and what the sampler saw (summed
// over the run's processes).
inline constexpr const char* kCaptureProperty = "capture.pc_sampling";  // "2^N cycles[ (default)]"
inline constexpr const char* kSamples = "pc_sampling.samples";
inline constexpr const char* kDropped = "pc_sampling.dropped_samples";
inline constexpr const char* kNonUser = "pc_sampling.non_user_samples";
inline constexpr const char* kPeriod = "pc_sampling.period_log2";
inline constexpr const char* kBufferFull = "pc_sampling.hardware_buffer_full";
// The sampler's own time inside the sampled processes (draining CUPTI's
// buffers at launches, source lines and SASS text at exit), in ms: what PC
// sampling adds to the program's wall time beside the hardware's sampling.
inline constexpr const char* kHostMs = "pc_sampling.host_ms";

struct StallReason {
    std::string title;  // Nsight Compute's name without "Stall ": "Long Scoreboard"
    std::string hint;   // what the warp waits for, in a few words
    // CUPTI reports each reason twice: all samples, and those in which no
    // warp of the scheduler issued (…_not_issued). Shares are of the first.
    bool notIssued = false;
    bool issuing = false;  // "Selected": the warp issued, it did not stall
};

// CUPTI's name (smsp__pcsamp_warps_issue_stalled_long_scoreboard) read as a
// user reads it; an unknown name gets its words capitalised.
StallReason describeStallReason(std::string_view cupti);

}  // namespace ws::pc_sampling
