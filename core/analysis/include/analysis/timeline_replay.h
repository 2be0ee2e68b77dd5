// Replays a recorded run with changed GPU durations (or without its launch
// gaps) over the run's own dependency structure, to predict when each token
// would have come out. Nothing is subtracted from sums: work that overlaps
// stays overlapped, and a kernel made faster only helps where the GPU, not
// the host that launches it, was what the step waited for.
//
// The model, stated once (docs/advisor.md repeats it for users):
// - Each host thread runs its CUDA API calls in recorded order; the host time
//   between two calls (the program's own work) is kept as recorded.
// - A GPU operation (kernel, copy, set) starts when both its launching call
//   has issued it and the operation before it on its stream has ended:
//   start' = max(launch' + latency, previous end' + gap). The latency and gap
//   are the recorded ones for whichever of the two the operation waited on,
//   and the run's floors (low percentiles) for the other, so an unchanged
//   replay reproduces the recording exactly.
// - A blocking call (a synchronize, a synchronous copy) returns when the
//   work its thread launched has ended (its process's, for a device-wide
//   synchronize, or when its own thread had nothing running), plus the
//   wake-up time it took in the recording; streams are not told apart there
//   (CUPTI does not record which stream a synchronize named).
// - A token or request stamp moves with the last blocking call that ended
//   before it (the synchronize that made the token visible, for a decode
//   loop), or with the last call of any kind when no blocking call ended
//   within the millisecond before that one (a loop that polls).
// - Arrivals sent by a client outside the traced process stay where they
//   were (an open-loop load). A request's stamps move by the time the server
//   saved while that request was in the system, not before: time gained
//   earlier becomes idle time, since the server could not start it sooner.
//   Requests are not re-batched: each step keeps the requests it ran.
// - Operations on different streams do not slow each other: a kernel's
//   duration is its own whatever runs beside it.
// - Without launch gaps (what CUDA graphs buy), the calls after a blocking
//   call's first launch, and the host time between them, cost nothing until
//   the process's next blocking call; that first launch costs one graph
//   launch, and its operations follow each other at the node gap.
#pragma once

#include <cstdint>
#include <vector>

#include "model/records.h"

namespace ws {

// One GPU operation as the replay sees it: kernels, copies and sets alike.
struct ReplayOp {
    std::int64_t startNs = 0, endNs = 0;
    std::uint32_t processId = 0;  // of the stream's process (gpu_streams), for the correlation
    std::uint32_t deviceId = 0, streamId = 0;
    std::uint32_t correlationId = 0;
    double durationScale = 1.0;  // set by the scenario before replaying
};

struct ReplayInput {
    std::vector<ReplayOp> ops;
    std::vector<ApiCallRecord> apiCalls;
    std::vector<RequestRecord> requests;
    std::vector<TokenRecord> tokens;
    // Arrivals made by a client outside the traced process (bench serve):
    // they do not move when the server gets faster.
    bool arrivalsFixed = false;
};

// Between two kernels of a replayed CUDA graph: median 96 ns (H200) and
// 97 ns (H100) over the 1B decoder's graph replays, traced node by node. An
// eager run's own queued gap (~1 µs under kernel tracing) is the tracer's
// per-launch cost and would overstate a graph's.
inline constexpr std::int64_t kGraphNodeGapNs = 100;

struct ReplayOptions {
    bool noLaunchGaps = false;
    // Graph launches as without node tracing: a run recorded with
    // --graph-trace node waits about 100-230 µs from each cudaGraphLaunch to
    // its first node (the tracer's cost, not the program's); each launch's
    // first node then starts at most graphLaunchNs after its call.
    bool untracedGraphLaunches = false;
    std::int64_t graphLaunchNs = 10'000;       // one graph launch, when noLaunchGaps or untraced
    std::int64_t nodeGapNs = kGraphNodeGapNs;  // between graph nodes
};

// The run's floors, from the recording: how soon a kernel can start after its
// launch call began when the stream is idle, and how close two kernels on one
// stream follow each other when the second was already queued.
struct ReplayFloors {
    std::int64_t launchLatencyNs = 0;
    std::int64_t queuedGapNs = 0;
};

struct ReplayResult {
    std::vector<RequestRecord> requests;  // moved stamps
    std::vector<TokenRecord> tokens;
    ReplayFloors floors;
    std::int64_t gpuTimeNs = 0, replayedGpuTimeNs = 0;  // sums of op durations
    std::int64_t launchesRemoved = 0;                   // launch calls made free (noLaunchGaps)
};

// True for API calls that wait for the GPU (synchronizations, synchronous
// copies and sets).
bool isBlockingCall(const ApiCallRecord& call, bool launchesWork);

ReplayResult replayTimeline(const ReplayInput& input, const ReplayOptions& options = {});

}  // namespace ws
