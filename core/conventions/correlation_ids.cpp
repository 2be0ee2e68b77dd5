#include "conventions/correlation_ids.h"

#include <algorithm>

namespace ws {

namespace {
constexpr std::uint32_t kTop = 0xFFFFFFFFu;
}  // namespace

CorrelationIds::Process& CorrelationIds::processOf(std::uint32_t pid) {
    if (last_ && pid == lastPid_) return *last_;
    auto [it, inserted] = processes_.try_emplace(pid);
    if (inserted) {
        // Blocks in the order processes first report; the first keeps its ids.
        it->second.block = static_cast<std::uint32_t>(processes_.size() - 1);
        if (it->second.block > kBlocks) unseparated(pid, it->second);
    }
    lastPid_ = pid;
    last_ = &it->second;
    return it->second;
}

void CorrelationIds::unseparated(std::uint32_t pid, Process& p) {
    if (p.reported) return;
    p.reported = true;
    unseparated_.push_back(pid);
}

std::uint32_t CorrelationIds::of(std::uint32_t pid, std::uint32_t id) {
    if (id == 0 || pid == 0) return id;
    Process& p = processOf(pid);
    if (p.block > kBlocks) return id;
    if (p.block == 0) {
        // The first process's ids reach the lowest block handed out.
        const auto blocks = std::min<std::uint64_t>(processes_.size() - 1, kBlocks);
        if (blocks && id > std::uint64_t(kTop) - blocks * kBlock) unseparated(pid, p);
        return id;
    }
    if (id >= kBlock) {
        unseparated(pid, p);
        return id;
    }
    return kTop - (p.block - 1) * kBlock - id;
}

std::vector<std::uint32_t> CorrelationIds::takeUnseparated() {
    std::vector<std::uint32_t> out;
    out.swap(unseparated_);
    return out;
}

}  // namespace ws
