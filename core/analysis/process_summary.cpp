#include "analysis/process_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include "store/store.h"

namespace ws {

std::vector<ProcessSummary> summarizeProcesses(Store& store, RunId run, TimeWindow window,
                                               const RunSummary* sameWindow) {
    std::map<std::uint32_t, ProcessSummary> byPid;
    for (auto& p : processesFromProperties(runProperties(store, run)))
        byPid[p.pid].process = p;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> streamPid;
    for (const auto& s : gpuStreamsOf(store, run))
        streamPid[{s.deviceId, s.streamId}] = s.processId;
    auto summaryOf = [&](std::uint32_t device, std::uint32_t stream) -> ProcessSummary& {
        auto it = streamPid.find({device, stream});
        const std::uint32_t pid = it == streamPid.end() ? 0 : it->second;
        auto& s = byPid[pid];
        s.process.pid = pid;
        return s;
    };
    std::set<std::uint32_t> gpuPids;
    for (const auto& [stream, pid] : streamPid)
        gpuPids.insert(pid);
    std::int64_t total = 0;
    if (sameWindow && gpuPids.size() <= 1) {
        // Every GPU record is that one process's (or, without gpu_streams, none's).
        auto& s = byPid[gpuPids.empty() ? 0 : *gpuPids.begin()];
        s.process.pid = gpuPids.empty() ? 0 : *gpuPids.begin();
        for (const auto& k : sameWindow->kernels) {
            s.kernels += k.time.count;
            s.kernelNs += static_cast<std::int64_t>(k.time.totalNs);
        }
        for (const auto& m : sameWindow->memcpys) {
            s.memcpys += m.time.count;
            s.memcpyBytes += m.totalBytes;
        }
        total = s.kernelNs;
        if (s.kernels == 0 && s.memcpys == 0 && s.process.pid == 0) byPid.erase(0);
    } else {
        forEachKernel(store, run, window, std::nullopt, [&](const KernelRecord& k) {
            auto& s = summaryOf(k.deviceId, k.streamId);
            ++s.kernels;
            s.kernelNs += k.durationNs();
            total += k.durationNs();
        });
        forEachMemcpy(store, run, window, std::nullopt, [&](const MemcpyRecord& m) {
            auto& s = summaryOf(m.deviceId, m.streamId);
            ++s.memcpys;
            s.memcpyBytes += m.bytes;
        });
    }
    std::vector<ProcessSummary> out;
    for (auto& [pid, s] : byPid) {
        s.kernelShare =
            total > 0 ? static_cast<double>(s.kernelNs) / static_cast<double>(total) : 0;
        out.push_back(std::move(s));
    }
    std::stable_sort(out.begin(), out.end(), [](const ProcessSummary& a, const ProcessSummary& b) {
        return a.kernelNs > b.kernelNs;
    });
    return out;
}

}  // namespace ws
