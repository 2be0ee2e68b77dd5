#include "analysis/timeline_replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "analysis/statistics.h"

namespace ws {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

using CallKey = std::pair<std::uint32_t, std::uint32_t>;  // process, correlation id
using ThreadKey = std::pair<std::uint32_t, std::uint32_t>;
using StreamKey = std::pair<std::uint32_t, std::uint32_t>;  // device, stream

bool contains(std::string_view text, std::string_view word) {
    return text.find(word) != std::string_view::npos;
}

bool isGraphLaunch(const ApiCallRecord& call) {
    return contains(call.name, "GraphLaunch");
}

bool waitsForWholeProcess(const ApiCallRecord& call) {
    return contains(call.name, "DeviceSynchronize") || contains(call.name, "CtxSynchronize");
}

// A low percentile, not the minimum: one odd record must not set a floor the
// rest of the run never reaches.
std::int64_t floorOf(std::vector<double> values, std::int64_t fallback) {
    if (values.empty()) return fallback;
    return static_cast<std::int64_t>(std::llround(stats::percentileInPlace(values, 5)));
}

// What the replay derives from the recording before moving anything.
struct Structure {
    std::vector<std::size_t> opOrder;       // ops by start
    std::vector<std::size_t> callOf;        // op -> launching call, kNone when unknown
    std::vector<bool> launches;             // call -> it launched GPU work
    std::vector<bool> blocking;             // call -> it waits for the GPU
    std::vector<std::size_t> prevOnStream;  // op -> the op before it on its stream, kNone
};

Structure structureOf(const ReplayInput& in) {
    Structure s;
    const auto& ops = in.ops;
    const auto& calls = in.apiCalls;
    s.opOrder.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
        s.opOrder[i] = i;
    std::stable_sort(s.opOrder.begin(), s.opOrder.end(),
                     [&](std::size_t a, std::size_t b) { return ops[a].startNs < ops[b].startNs; });

    std::map<CallKey, std::size_t> callByCorrelation;
    for (std::size_t i = 0; i < calls.size(); ++i)
        callByCorrelation.emplace(CallKey{calls[i].processId, calls[i].correlationId}, i);
    s.callOf.assign(ops.size(), kNone);
    s.launches.assign(calls.size(), false);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        auto it = callByCorrelation.find({ops[i].processId, ops[i].correlationId});
        // An op seen to start before its call began is clock skew between the
        // host and GPU records: it keeps its recorded place.
        if (it == callByCorrelation.end() || ops[i].startNs < calls[it->second].startNs) continue;
        s.callOf[i] = it->second;
        s.launches[it->second] = true;
    }
    s.blocking.resize(calls.size());
    for (std::size_t i = 0; i < calls.size(); ++i)
        s.blocking[i] = isBlockingCall(calls[i], s.launches[i]);

    s.prevOnStream.assign(ops.size(), kNone);
    std::map<StreamKey, std::size_t> lastOnStream;
    for (auto i : s.opOrder) {
        auto [it, fresh] = lastOnStream.try_emplace({ops[i].deviceId, ops[i].streamId}, i);
        if (!fresh) {
            s.prevOnStream[i] = it->second;
            it->second = i;
        }
    }

    return s;
}

ReplayFloors floorsOf(const ReplayInput& in, const Structure& s) {
    std::vector<double> latencies, gaps;
    for (std::size_t i = 0; i < in.ops.size(); ++i) {
        if (s.callOf[i] == kNone) continue;
        const auto latency = in.ops[i].startNs - in.apiCalls[s.callOf[i]].startNs;
        if (latency < 0) continue;
        if (s.prevOnStream[i] == kNone) {
            latencies.push_back(static_cast<double>(latency));
            continue;
        }
        const auto gap = in.ops[i].startNs - in.ops[s.prevOnStream[i]].endNs;
        if (gap >
            latency)  // the stream was idle when the launch began: the latency is the launch's
            latencies.push_back(static_cast<double>(latency));
        else if (gap >= 0)  // queued behind the previous op: the gap is the stream's
            gaps.push_back(static_cast<double>(gap));
    }
    return {floorOf(std::move(latencies), 0), floorOf(std::move(gaps), 0)};
}

// How far each stamp moves: with the last blocking call that ended at or
// before it (the synchronize that made a token visible), unless that is more
// than kBlockingReach older than the last call of any kind, then with that
// call (a loop that polls instead of blocking).
class StampMover {
  public:
    StampMover(const ReplayInput& in, const Structure& s, const std::vector<std::int64_t>& newEnd) {
        for (std::size_t i = 0; i < in.apiCalls.size(); ++i) {
            const auto shift = newEnd[i] - in.apiCalls[i].endNs;
            (s.blocking[i] ? blocking_ : any_).push_back({in.apiCalls[i].endNs, shift});
        }
        for (auto* v : {&blocking_, &any_})
            std::sort(v->begin(), v->end());
    }
    std::int64_t moved(std::int64_t t) const {
        const auto blocking = lastAt(blocking_, t);
        const auto any = lastAt(any_, t);
        if (blocking && (!any || any->first - blocking->first <= kBlockingReach))
            return t + blocking->second;
        if (any) return t + any->second;
        return t;
    }
    static constexpr std::int64_t kBlockingReach = 1'000'000;  // 1 ms

  private:
    // The (end, shift) of the last call that ended at or before t.
    static std::optional<std::pair<std::int64_t, std::int64_t>> lastAt(
        const std::vector<std::pair<std::int64_t, std::int64_t>>& ends, std::int64_t t) {
        auto it = std::upper_bound(ends.begin(), ends.end(),
                                   std::pair{t, std::numeric_limits<std::int64_t>::max()});
        if (it == ends.begin()) return std::nullopt;
        return *std::prev(it);
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> blocking_, any_;
};

}  // namespace

bool isBlockingCall(const ApiCallRecord& call, bool launchesWork) {
    const std::string_view name = call.name;
    if (contains(name, "Synchronize")) return true;
    // cudaMemcpy / cudaMemset and the driver's cuMemcpyHtoD...: they return
    // once their copy is done. The Async forms and launches do not wait.
    return launchesWork && !contains(name, "Async") && !contains(name, "Launch") &&
           (contains(name, "Memcpy") || contains(name, "Memset"));
}

ReplayResult replayTimeline(const ReplayInput& in, const ReplayOptions& options) {
    const auto s = structureOf(in);
    ReplayResult result;
    result.floors = floorsOf(in, s);
    const auto& calls = in.apiCalls;
    const auto& ops = in.ops;
    const std::int64_t nodeGap = std::max<std::int64_t>(0, options.nodeGapNs);

    // Events in recorded time: op ends, then a blocking call's end, then call
    // starts, then op starts; each depends only on events before it in this
    // order. A blocking call returns after the work its thread (its process,
    // for a device-wide synchronize) launched that had ended by the time it
    // returned in the recording: the op ends before it say which.
    enum : int { OpEnd = 0, BlockEnd = 1, CallStart = 2, OpStart = 3 };
    struct Event {
        std::int64_t at;
        int type;
        std::size_t index;
    };
    std::vector<Event> events;
    events.reserve(calls.size() * 2 + ops.size() * 2);
    for (std::size_t i = 0; i < calls.size(); ++i) {
        events.push_back({calls[i].startNs, CallStart, i});
        if (s.blocking[i]) events.push_back({calls[i].endNs, BlockEnd, i});
    }
    for (auto i : s.opOrder) {
        events.push_back({ops[i].startNs, OpStart, i});
        // A zero-length op notes its end at its start (an end event would sort first).
        if (s.callOf[i] != kNone && ops[i].endNs > ops[i].startNs)
            events.push_back({ops[i].endNs, OpEnd, i});
    }
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        return a.at != b.at ? a.at < b.at : a.type < b.type;
    });

    // The latest end, recorded and replayed, of the work a thread or a
    // process launched, as far as the event loop has come.
    struct Latest {
        std::int64_t recorded = std::numeric_limits<std::int64_t>::min();
        std::int64_t replayed = std::numeric_limits<std::int64_t>::min();
    };
    std::vector<std::int64_t> opEnd(ops.size());
    auto awaited = [&](std::map<ThreadKey, Latest>& ofThread,
                       std::map<std::uint32_t, Latest>& ofProcess,
                       const ApiCallRecord& call) -> Latest {
        const auto& process = ofProcess[call.processId];
        if (waitsForWholeProcess(call)) return process;
        // Nothing of its own thread was running when it began: it waited for
        // work another thread of the process launched, if any was running.
        const auto& own = ofThread[{call.processId, call.threadId}];
        return own.recorded <= call.startNs && process.recorded > call.startNs ? process : own;
    };
    auto noteEnd = [&](std::map<ThreadKey, Latest>& ofThread,
                       std::map<std::uint32_t, Latest>& ofProcess, std::size_t op) {
        const auto& call = calls[s.callOf[op]];
        for (auto* l : {&ofThread[{call.processId, call.threadId}], &ofProcess[call.processId]}) {
            l->recorded = std::max(l->recorded, ops[op].endNs);
            l->replayed = std::max(l->replayed, opEnd[op]);
        }
    };

    // Wake-up after a wait: the run's typical one, for calls that did not
    // wait in the recording but must in the replay; and the typical time of a
    // blocking call that did not wait, the least one that waited can take.
    std::int64_t wakeNs = 0, ownNs = 0;
    {
        std::map<ThreadKey, Latest> ofThread;
        std::map<std::uint32_t, Latest> ofProcess;
        std::vector<double> tails, own;
        for (const auto& e : events) {
            const bool endsNow =
                e.type == OpEnd || (e.type == OpStart && s.callOf[e.index] != kNone &&
                                    ops[e.index].endNs <= ops[e.index].startNs);
            if (endsNow) {
                opEnd[e.index] = ops[e.index].endNs;
                noteEnd(ofThread, ofProcess, e.index);
            } else if (e.type == BlockEnd) {
                const auto& call = calls[e.index];
                const auto latest = awaited(ofThread, ofProcess, call).recorded;
                if (latest > call.startNs)
                    tails.push_back(static_cast<double>(call.endNs - latest));
                else
                    own.push_back(static_cast<double>(call.endNs - call.startNs));
            }
        }
        if (!tails.empty()) wakeNs = static_cast<std::int64_t>(stats::percentile(tails, 50));
        if (!own.empty()) ownNs = static_cast<std::int64_t>(stats::percentile(own, 50));
    }

    struct Thread {
        bool started = false;
        std::int64_t cursor = 0;   // replayed end of its last call
        std::int64_t lastEnd = 0;  // recorded end of its last call
        bool inBurst = false;      // launching since its last blocking call (noLaunchGaps)
    };
    std::map<ThreadKey, Thread> threads;
    std::map<ThreadKey, Latest> latestOfThread;
    std::map<std::uint32_t, Latest> latestOfProcess;
    std::vector<std::int64_t> newStart(calls.size()), newEnd(calls.size());
    std::vector<bool> free(calls.size(), false);  // launched as part of a graph (noLaunchGaps)

    for (const auto& e : events) {
        if (e.type == OpEnd) {
            noteEnd(latestOfThread, latestOfProcess, e.index);
        } else if (e.type == CallStart) {
            const auto& call = calls[e.index];
            auto& t = threads[{call.processId, call.threadId}];
            std::int64_t gap = t.started ? call.startNs - t.lastEnd : 0;
            std::int64_t duration = call.endNs - call.startNs;
            if (options.noLaunchGaps && !s.blocking[e.index] && !isGraphLaunch(call)) {
                if (t.inBurst) {
                    gap = duration = 0;
                    free[e.index] = true;
                    if (s.launches[e.index]) ++result.launchesRemoved;
                } else if (s.launches[e.index]) {  // the graph launch that replaces the burst
                    t.inBurst = true;
                    duration = options.graphLaunchNs;
                    free[e.index] = true;
                }
            }
            newStart[e.index] = t.started ? t.cursor + gap : call.startNs;
            newEnd[e.index] = newStart[e.index] + duration;
            t.started = true;
            if (!s.blocking[e.index]) {
                t.cursor = newEnd[e.index];
                t.lastEnd = call.endNs;
            }
        } else if (e.type == BlockEnd) {
            const auto& call = calls[e.index];
            auto& t = threads[{call.processId, call.threadId}];
            const auto latest = awaited(latestOfThread, latestOfProcess, call);
            const auto duration = call.endNs - call.startNs;
            std::int64_t end = newStart[e.index] + duration;
            if (latest.recorded != std::numeric_limits<std::int64_t>::min()) {
                // Both forms give the recorded end back when nothing changed.
                const bool waited = latest.recorded > call.startNs;
                const auto tail = waited ? call.endNs - latest.recorded
                                         : std::min(wakeNs, call.endNs - latest.recorded);
                const auto least = waited ? std::min(duration, ownNs) : duration;
                end = std::max(newStart[e.index] + least, latest.replayed + tail);
            }
            newEnd[e.index] = end;
            t.cursor = end;
            t.lastEnd = call.endNs;
            // The burst of launches a blocking call ends is the process's:
            // one thread may launch while another synchronizes.
            for (auto& [key, other] : threads)
                if (key.first == call.processId) other.inBurst = false;
        } else {
            const auto& op = ops[e.index];
            const auto prev = s.prevOnStream[e.index];
            const auto c = s.callOf[e.index];
            const std::int64_t latency = c != kNone ? op.startNs - calls[c].startNs : 0;
            const std::int64_t gap = prev != kNone ? op.startNs - ops[prev].endNs : 0;
            // Graph launches as untraced: the first node of a launch on its
            // stream starts graphLaunchNs after the call at most; the nodes
            // after it follow it as recorded.
            const bool untracedGraph =
                options.untracedGraphLaunches && c != kNone && isGraphLaunch(calls[c]);
            std::int64_t start = op.startNs;  // no launch call seen: it stays where it ran
            if (untracedGraph && prev != kNone && s.callOf[prev] == c) {
                start = opEnd[prev] + gap;
            } else if (untracedGraph) {
                start = newStart[c] + std::min(latency, options.graphLaunchNs);
                if (prev != kNone)
                    start = std::max(start, opEnd[prev] + std::min(gap, result.floors.queuedGapNs));
            } else {
                // Which of the two it waited on: the larger excess over its floor.
                const bool hostBound =
                    c != kNone && (prev == kNone || latency - result.floors.launchLatencyNs <=
                                                        gap - result.floors.queuedGapNs);
                if (c != kNone) {
                    if (free[c])
                        start = newEnd[c];  // a graph node: ready when the graph launch is
                    else
                        start = newStart[c] +
                                (hostBound ? latency
                                           : std::min(latency, result.floors.launchLatencyNs));
                }
                if (prev != kNone) {
                    std::int64_t streamGap =
                        hostBound ? std::min(gap, result.floors.queuedGapNs) : gap;
                    if (c != kNone && free[c]) streamGap = nodeGap;
                    start =
                        c != kNone ? std::max(start, opEnd[prev] + streamGap) : opEnd[prev] + gap;
                }
            }
            const auto duration = op.endNs - op.startNs;
            const auto scaled = static_cast<std::int64_t>(
                std::llround(static_cast<double>(duration) * op.durationScale));
            opEnd[e.index] = start + scaled;
            if (c != kNone && duration <= 0) noteEnd(latestOfThread, latestOfProcess, e.index);
            result.gpuTimeNs += duration;
            result.replayedGpuTimeNs += scaled;
        }
    }

    StampMover mover(in, s, newEnd);
    // A request sent by a client sees only the time saved while it was in
    // the system: what the server gained before it arrived became idle time
    // (the server could not start it sooner), so its stamps move by the
    // shift since its arrival, not by the whole run's.
    std::map<std::int64_t, std::int64_t> shiftAtArrival;
    if (in.arrivalsFixed)
        for (const auto& r : in.requests)
            shiftAtArrival[r.requestId] = mover.moved(r.startNs) - r.startNs;
    auto moveStamp = [&](std::int64_t requestId, std::int64_t t) {
        auto it = shiftAtArrival.find(requestId);
        return mover.moved(t) - (it != shiftAtArrival.end() ? it->second : 0);
    };
    result.tokens = in.tokens;
    for (auto& token : result.tokens)
        token.timeNs = moveStamp(token.requestId, token.timeNs);
    // A request's end moves as its last token does (it may end after it).
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> lastToken;  // recorded, moved
    for (std::size_t i = 0; i < in.tokens.size(); ++i) {
        auto [it, fresh] = lastToken.try_emplace(in.tokens[i].requestId, in.tokens[i].timeNs,
                                                 result.tokens[i].timeNs);
        if (!fresh && in.tokens[i].timeNs > it->second.first)
            it->second = {in.tokens[i].timeNs, result.tokens[i].timeNs};
    }
    result.requests = in.requests;
    for (auto& request : result.requests) {
        if (!in.arrivalsFixed) request.startNs = mover.moved(request.startNs);
        if (auto it = lastToken.find(request.requestId); it != lastToken.end())
            request.endNs += it->second.second - it->second.first;
        else
            request.endNs = moveStamp(request.requestId, request.endNs);
    }
    return result;
}

}  // namespace ws
