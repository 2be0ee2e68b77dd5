#include "analysis/collectives.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include "model/process_keys.h"
#include "util/format.h"

namespace ws {

std::optional<std::string> ncclCollective(std::string_view name) {
    for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
        auto at = name.find(prefix);
        if (at == std::string_view::npos) continue;
        std::string_view rest = name.substr(at + prefix.size());
        std::size_t n = 0;
        while (n < rest.size() && std::isalnum(static_cast<unsigned char>(rest[n])))
            ++n;
        if (n == 0) return std::nullopt;
        std::string kind(rest.substr(0, n));
        // NCCL's generic kernel runs whatever its work says: a collective
        // all the same, of a kind the name does not tell.
        return kind == "Generic" ? std::string("NCCL") : kind;
    }
    return std::nullopt;
}

double busBytes(std::string_view collective, std::int64_t bytes, int ranks) {
    const double n = ranks, b = static_cast<double>(bytes);
    if (ranks < 1 || bytes < 0) return 0;
    if (collective == "AllReduce") return b * 2 * (n - 1) / n;
    if (collective == "AllGather" || collective == "ReduceScatter") return b * (n - 1);
    if (collective == "Broadcast" || collective == "Reduce" || collective == "SendRecv" ||
        collective == "Send" || collective == "Recv")
        return b;
    return 0;
}

namespace {

std::int64_t nearestRank(std::vector<std::int64_t>& v, double p) {
    if (v.empty()) return 0;
    auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
    k = std::clamp<std::size_t>(k, 1, v.size()) - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

std::string percent(double share) {
    return formatFixed(share * 100, 0) + " %";
}

}  // namespace

CollectiveReport matchCollectives(std::vector<RankKernels> ranks) {
    CollectiveReport out;
    std::sort(ranks.begin(), ranks.end(),
              [](const RankKernels& a, const RankKernels& b) { return a.rank < b.rank; });
    for (const auto& r : ranks) {
        CollectiveRankStats s;
        s.pid = r.pid;
        s.rank = r.rank;
        s.rankFromEnvironment = r.rankFromEnvironment;
        s.command = r.command;
        s.end = r.end;
        s.kernels = r.kernels;
        s.kernelNs = r.kernelNs;
        s.ncclKernels = static_cast<std::int64_t>(r.nccl.size());
        for (const auto& k : r.nccl) {
            s.ncclNs += k.endNs - k.startNs;
            if (k.bytes < 0) continue;
            s.sizedKernels += 1;
            s.ncclBytes += k.bytes;
        }
        out.unsizedKernels += s.ncclKernels - s.sizedKernels;
        s.commShare = r.kernelNs > 0 ? static_cast<double>(s.ncclNs) / r.kernelNs : 0;
        out.ranks.push_back(s);
    }
    // Channels: each rank's NCCL streams by their first kernel.
    std::vector<std::vector<std::vector<const NcclLaunch*>>> channels(ranks.size());
    std::size_t channelCount = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        std::map<std::uint32_t, std::size_t> ordinal;
        for (const auto& k : ranks[r].nccl) {
            auto [it, added] = ordinal.try_emplace(k.streamId, channels[r].size());
            if (added) channels[r].emplace_back();
            channels[r][it->second].push_back(&k);
        }
        channelCount = std::max(channelCount, channels[r].size());
    }
    std::int64_t matchedKernels = 0, ncclKernels = 0;
    for (const auto& r : ranks)
        ncclKernels += static_cast<std::int64_t>(r.nccl.size());
    for (std::size_t c = 0; c < channelCount; ++c) {
        std::vector<std::size_t> members;
        for (std::size_t r = 0; r < ranks.size(); ++r)
            if (c < channels[r].size()) members.push_back(r);
        if (members.size() < 2) continue;
        std::size_t n = channels[members[0]][c].size();
        for (auto r : members)
            n = std::min(n, channels[r][c].size());
        for (auto r : members)
            if (channels[r][c].size() != n)
                out.notes.push_back(
                    "channel " + std::to_string(c) + ": rank " + std::to_string(ranks[r].rank) +
                    " ran " + std::to_string(channels[r][c].size()) + " NCCL kernels, matched " +
                    std::to_string(n) + " (the fewest of any rank)");
        for (std::size_t i = 0; i < n; ++i) {
            const NcclLaunch* first = channels[members[0]][c][i];
            bool same = true;
            for (auto r : members)
                same = same && channels[r][c][i]->collective == first->collective;
            if (!same) {
                out.notes.push_back(
                    "channel " + std::to_string(c) + ": NCCL kernel #" + std::to_string(i + 1) +
                    " differs between ranks (" + first->collective + " on rank " +
                    std::to_string(ranks[members[0]].rank) + "); matching stops there");
                break;
            }
            CollectiveInstance inst;
            inst.collective = first->collective;
            inst.channel = static_cast<int>(c);
            inst.index = static_cast<std::int64_t>(i);
            inst.firstStartNs = first->startNs;
            inst.lastStartNs = first->startNs;
            inst.lastRank = ranks[members[0]].rank;
            inst.ranks = static_cast<int>(members.size());
            std::size_t lastMember = members[0];
            for (auto r : members) {
                const auto* k = channels[r][c][i];
                inst.bytes = std::max(inst.bytes, k->bytes);
                inst.communicatorRanks = std::max(inst.communicatorRanks, k->communicatorRanks);
                inst.firstStartNs = std::min(inst.firstStartNs, k->startNs);
                if (k->startNs > inst.lastStartNs) {
                    inst.lastStartNs = k->startNs;
                    inst.lastRank = ranks[r].rank;
                    lastMember = r;
                }
                inst.endNs = std::max(inst.endNs, k->endNs);
            }
            for (auto r : members) {
                out.ranks[r].matched += 1;
                out.ranks[r].waitNs += inst.lastStartNs - channels[r][c][i]->startNs;
            }
            out.ranks[lastMember].lastArrivals += 1;
            matchedKernels += static_cast<std::int64_t>(members.size());
            out.instances.push_back(std::move(inst));
        }
    }
    out.unmatchedKernels = ncclKernels - matchedKernels;
    std::sort(out.instances.begin(), out.instances.end(),
              [](const CollectiveInstance& a, const CollectiveInstance& b) {
                  return a.firstStartNs < b.firstStartNs;
              });

    // Per collective: skew and who came last.
    std::map<std::string, std::vector<const CollectiveInstance*>> byKind;
    for (const auto& inst : out.instances)
        byKind[inst.collective].push_back(&inst);
    for (const auto& [kind, list] : byKind) {
        CollectiveKindStats k;
        k.collective = kind;
        k.instances = static_cast<std::int64_t>(list.size());
        std::vector<std::int64_t> skews;
        std::map<int, std::pair<std::int64_t, std::int64_t>> last;  // rank → count, skew sum
        std::int64_t sum = 0;
        for (const auto* inst : list) {
            skews.push_back(inst->skewNs());
            sum += inst->skewNs();
            auto& l = last[inst->lastRank];
            l.first += 1;
            l.second += inst->skewNs();
        }
        k.skewMeanNs = sum / k.instances;
        double moved = 0;
        std::int64_t transferNs = 0;
        for (const auto* inst : list) {
            if (inst->bytes < 0) continue;
            k.sizedInstances += 1;
            k.bytes += inst->bytes;
            moved += busBytes(kind, inst->bytes,
                              inst->communicatorRanks > 0 ? inst->communicatorRanks : inst->ranks);
            transferNs += inst->transferNs();
        }
        if (transferNs > 0) k.busBandwidthGBs = moved / static_cast<double>(transferNs);
        k.skewMaxNs = *std::max_element(skews.begin(), skews.end());
        k.skewP50Ns = nearestRank(skews, 0.50);
        k.skewP99Ns = nearestRank(skews, 0.99);
        for (const auto& [rank, l] : last)
            if (l.first > k.mostOftenLastCount) {
                k.mostOftenLast = rank;
                k.mostOftenLastCount = l.first;
                k.mostOftenLastMeanBehindNs = l.second / l.first;
            }
        out.kinds.push_back(k);
    }
    std::stable_sort(out.kinds.begin(), out.kinds.end(),
                     [](const auto& a, const auto& b) { return a.instances > b.instances; });

    // Findings: a rank that comes last clearly more often than its share,
    // and ranks whose communication shares differ.
    const auto participants = static_cast<double>(std::count_if(
        out.ranks.begin(), out.ranks.end(), [](const auto& r) { return r.matched > 0; }));
    for (const auto& k : out.kinds) {
        if (k.instances < 10 || participants < 2) continue;
        const double share = static_cast<double>(k.mostOftenLastCount) / k.instances;
        if (share < std::max(0.5, 1.5 / participants)) continue;
        out.findings.push_back(
            "rank " + std::to_string(k.mostOftenLast) + " arrives last in " + percent(share) +
            " of " + k.collective + " (" + std::to_string(k.instances) + "), " +
            formatDuration(k.mostOftenLastMeanBehindNs) + " behind the first on average");
    }
    const auto busiest =
        std::max_element(out.ranks.begin(), out.ranks.end(),
                         [](const auto& a, const auto& b) { return a.commShare < b.commShare; });
    const auto idlest =
        std::min_element(out.ranks.begin(), out.ranks.end(),
                         [](const auto& a, const auto& b) { return a.commShare < b.commShare; });
    if (out.ranks.size() >= 2 && busiest->commShare - idlest->commShare >= 0.10)
        out.findings.push_back(
            "rank " + std::to_string(busiest->rank) + " spends " + percent(busiest->commShare) +
            " of its kernel time in NCCL kernels, rank " + std::to_string(idlest->rank) + " " +
            percent(idlest->commShare) + ": the ranks that wait less compute more");
    // A rank that died mid-run: its records are kept, its peers' later
    // collectives have no partner from it.
    for (const auto& r : out.ranks)
        if (r.end == "lost")
            out.findings.push_back("rank " + std::to_string(r.rank) + " (pid " +
                                   std::to_string(r.pid) +
                                   ") ended without flushing its capture (killed or crashed); "
                                   "its collectives were matched up to its last kernel");
    if (ncclKernels == 0) out.notes.push_back("no NCCL kernels in the run");
    return out;
}

namespace {

// The message size of each launch made inside a recorded NCCL call, by the
// launch's correlation id: every API call a thread made between an NCCL
// call's start and end belongs to it, the kernel launch among them.
struct LaunchSize {
    std::int64_t bytes = -1;
    int communicatorRanks = 0;
};
std::unordered_map<std::uint32_t, LaunchSize> launchSizes(Store& store, RunId run,
                                                          TimeWindow window) {
    std::unordered_map<std::uint32_t, LaunchSize> sizes;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<CollectiveCallRecord>> byThread;
    std::map<std::uint64_t, std::set<std::uint32_t>> ranksOf;  // communicator → its processes
    for (auto& c : collectiveCallsOf(store, run)) {
        if (c.communicator != 0) ranksOf[c.communicator].insert(c.processId);
        byThread[{c.processId, c.threadId}].push_back(std::move(c));
    }
    for (const auto& thread : byThread) {
        // Named, not bound: clang 14 cannot capture structured bindings.
        const auto& key = thread.first;
        const auto& calls = thread.second;
        // By start (as read); a thread's NCCL calls do not overlap.
        TimeWindow span{calls.front().startNs, calls.front().endNs};
        for (const auto& c : calls)
            span.endNs = std::max(span.endNs, c.endNs);
        // Launches after the window launched none of its kernels, nor those
        // long before it (as launchingCall looks no further).
        span.endNs = std::min(span.endNs, window.endNs);
        if (window.beginNs > std::numeric_limits<std::int64_t>::min() + kLaunchSearchWindowNs)
            span.beginNs = std::max(span.beginNs, window.beginNs - kLaunchSearchWindowNs);
        if (span.endNs < span.beginNs) continue;
        forEachApiCall(store, run, span, key.second, [&](const ApiCallRecord& a) {
            if (a.processId != key.first) return;
            auto after = std::upper_bound(
                calls.begin(), calls.end(), a.startNs,
                [](std::int64_t t, const CollectiveCallRecord& c) { return t < c.startNs; });
            if (after == calls.begin()) return;
            const auto& call = *std::prev(after);
            if (a.startNs > call.endNs) return;
            auto comm = ranksOf.find(call.communicator);
            sizes[a.correlationId] = {
                call.bytes, comm == ranksOf.end() ? 0 : static_cast<int>(comm->second.size())};
        });
    }
    return sizes;
}

}  // namespace

CollectiveReport analyzeCollectives(Store& store, RunId run, TimeWindow window) {
    std::map<std::uint32_t, std::uint32_t> processOfStream;
    for (const auto& g : gpuStreamsOf(store, run))
        processOfStream[g.streamId] = g.processId;
    std::map<std::uint32_t, ProcessInfo> processes;
    for (const auto& p : processesFromProperties(runProperties(store, run)))
        processes[p.pid] = p;
    const auto sizes = launchSizes(store, run, window);
    std::map<std::uint32_t, RankKernels> byPid;
    forEachKernel(store, run, window, std::nullopt, [&](const KernelRecord& k) {
        auto stream = processOfStream.find(k.streamId);
        const std::uint32_t pid = stream == processOfStream.end() ? 0 : stream->second;
        auto& r = byPid[pid];
        r.pid = pid;
        r.kernels += 1;
        r.kernelNs += k.endNs - k.startNs;
        if (auto kind = ncclCollective(k.name)) {
            auto size = sizes.find(k.correlationId);
            const LaunchSize known = size == sizes.end() ? LaunchSize{} : size->second;
            r.nccl.push_back({k.streamId, k.startNs, k.endNs, std::move(*kind), known.bytes,
                              known.communicatorRanks});
        }
    });
    std::vector<RankKernels> ranks;
    bool allFromEnvironment = true;
    for (auto& [pid, r] : byPid) {
        auto p = processes.find(pid);
        if (p != processes.end()) {
            r.command = p->second.command;
            r.end = p->second.end;
            r.rank = p->second.rank;
            r.rankFromEnvironment = p->second.rank >= 0;
        }
        allFromEnvironment = allFromEnvironment && r.rankFromEnvironment;
        // Each lane visits its kernels in start order; a rank's lanes interleave.
        std::stable_sort(
            r.nccl.begin(), r.nccl.end(),
            [](const NcclLaunch& a, const NcclLaunch& b) { return a.startNs < b.startNs; });
        ranks.push_back(std::move(r));
    }
    // Without RANK on every process, ranks are numbered by pid (the order a
    // launcher starts them in).
    if (!allFromEnvironment)
        for (std::size_t i = 0; i < ranks.size(); ++i) {
            ranks[i].rank = static_cast<int>(i);
            ranks[i].rankFromEnvironment = false;
        }
    auto report = matchCollectives(std::move(ranks));
    if (!allFromEnvironment && report.ranks.size() > 1)
        report.notes.push_back("ranks numbered by pid: not every process was started with RANK");
    return report;
}

}  // namespace ws
