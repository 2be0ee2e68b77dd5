#include "analysis/kernel_attribution.h"

#include <algorithm>

#include "store/run_queries.h"

namespace ws {

KernelAttribution::KernelAttribution(Store& store, RunId run, Streamed)
    : ranges_(rangesIn(store, run, {})), stacks_(ranges_), origins_(graphNodesOf(store, run)) {}

KernelAttribution::KernelAttribution(Store& store, RunId run)
    : KernelAttribution(store, run, Streamed{}) {
    if (ranges_.empty()) return;
    forEachApiCall(store, run, {}, std::nullopt, [&](const ApiCallRecord& a) {
        if (!a.correlationId) return;
        const std::size_t r = stacks_.innermost(a.threadId, a.startNs);
        // The first call of a correlation id counts, in range or not.
        launches_.tryEmplace(a.correlationId, Launch{static_cast<std::uint32_t>(r)});
    });
    launches_.eraseRange(static_cast<std::uint32_t>(RangeStacks::kNone));
}

void KernelAttribution::addLaunch(std::uint32_t correlationId, std::uint32_t threadId,
                                  std::int64_t startNs, bool graphLaunch) {
    if (!correlationId || ranges_.empty()) return;
    const std::size_t r = stacks_.innermost(threadId, startNs);
    if (r == RangeStacks::kNone) return;
    // The first call of a correlation id counts, as in the eager constructor:
    // another process's call with the same id (ids are per process) must not
    // take its place, nor a call after the first one's kernel was credited.
    if (crediting_ && creditedHeld_ && credited_.contains(correlationId)) return;
    const std::uint64_t seq = forgotten_ + byStart_.size();
    if (launches_.tryEmplace(correlationId,
                             Launch{static_cast<std::uint32_t>(r), graphLaunch, seq})) {
        Held held;
        held.startNs = startNs;
        held.correlationId = correlationId;
        held.range = static_cast<std::uint32_t>(r);
        byStart_.push_back(held);
    }
}

void KernelAttribution::forgetLaunchesBefore(std::int64_t ns) {
    while (!byStart_.empty() && byStart_.front().startNs < ns) {
        const Held& front = byStart_.front();
        if (front.credited) {
            credited_.erase(front.correlationId);
            --creditedHeld_;
        } else {
            launches_.erase(front.correlationId);
        }
        byStart_.pop_front();
        ++forgotten_;
    }
}

std::size_t KernelAttribution::innermost(std::uint64_t graphNodeId, std::uint32_t correlationId,
                                         bool* captured) const {
    if (captured) *captured = false;
    if (graphNodeId)
        if (const GraphNodeRecord* node = origins_.origin(graphNodeId)) {
            if (captured) *captured = true;
            return stacks_.innermost(node->threadId, node->timeNs);
        }
    if (const Launch* launch = launches_.find(correlationId)) return launch->range;
    return creditedRange(correlationId);
}

std::size_t KernelAttribution::credit(std::uint64_t graphNodeId, std::uint32_t graphId,
                                      std::uint32_t correlationId, bool* captured) {
    if (captured) *captured = false;
    if (graphNodeId)
        if (const GraphNodeRecord* node = origins_.origin(graphNodeId)) {
            if (captured) *captured = true;
            return stacks_.innermost(node->threadId, node->timeNs);
        }
    const Launch* launch = launches_.find(correlationId);
    if (!launch) {
        const std::size_t r = creditedRange(correlationId);
        // A second kernel of a credited launch (two processes' ids, a graph
        // launch not known as one): from here on the table keeps them all.
        if (r != RangeStacks::kNone) keepCredited();
        return r;
    }
    const std::size_t r = launch->range;
    if (crediting_ && !launch->graph && !graphNodeId && !graphId) {
        Held& held = byStart_[launch->seq - forgotten_];
        held.credited = 1;
        launches_.erase(correlationId);
        credited_.insert(correlationId);
        ++creditedHeld_;
        // Ids spread over more than 2^28 values (16 MiB of pages): keep the table.
        if (credited_.pages() > 2048) keepCredited();
    }
    return r;
}

std::size_t KernelAttribution::creditedRange(std::uint32_t correlationId) const {
    if (!creditedHeld_ || !crediting_ || !credited_.contains(correlationId))
        return RangeStacks::kNone;
    for (const Held& held : byStart_)
        if (held.credited && held.correlationId == correlationId) return held.range;
    return RangeStacks::kNone;
}

void KernelAttribution::keepCredited() {
    if (!crediting_) return;
    crediting_ = false;
    std::uint64_t seq = forgotten_;
    for (Held& held : byStart_) {
        if (held.credited) {
            launches_.tryEmplace(held.correlationId, Launch{held.range, true, seq});
            held.credited = 0;
        }
        ++seq;
    }
    credited_.clear();
    creditedHeld_ = 0;
}

void KernelAttribution::IdSet::insert(std::uint32_t id) {
    const std::size_t page = id >> 16;
    if (bits_.empty()) {
        bits_.resize(std::size_t(1) << 16);
        counts_.assign(std::size_t(1) << 16, 0);
    }
    if (!bits_[page]) {
        bits_[page] = std::make_unique<std::uint64_t[]>(1024);
        ++pages_;
    }
    std::uint64_t& word = bits_[page][(id >> 6) & 1023];
    const std::uint64_t bit = std::uint64_t(1) << (id & 63);
    if (!(word & bit)) {
        word |= bit;
        ++counts_[page];
    }
}

void KernelAttribution::IdSet::erase(std::uint32_t id) {
    const std::size_t page = id >> 16;
    if (bits_.empty() || !bits_[page]) return;
    std::uint64_t& word = bits_[page][(id >> 6) & 1023];
    const std::uint64_t bit = std::uint64_t(1) << (id & 63);
    if (!(word & bit)) return;
    word &= ~bit;
    if (--counts_[page] == 0) {
        bits_[page].reset();
        --pages_;
    }
}

bool KernelAttribution::IdSet::contains(std::uint32_t id) const {
    const std::size_t page = id >> 16;
    return !bits_.empty() && bits_[page] && (bits_[page][(id >> 6) & 1023] >> (id & 63) & 1) != 0;
}

void KernelAttribution::IdSet::clear() {
    bits_.clear();
    counts_.clear();
    pages_ = 0;
}

std::size_t KernelAttribution::LaunchTable::home(std::uint32_t correlationId) const {
    // Fibonacci hashing: any pattern of ids (consecutive ones, several
    // processes' numberings) spreads evenly, so probe runs stay short.
    return static_cast<std::size_t>((std::uint64_t(correlationId) * 0x9E3779B97F4A7C15ull) >> 32) &
           (slots_.size() - 1);
}

void KernelAttribution::LaunchTable::grow() {
    std::vector<Slot> old(std::max<std::size_t>(1024, slots_.size() * 2));
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
        if (s.correlationId) tryEmplace(s.correlationId, s.launch);
}

bool KernelAttribution::LaunchTable::tryEmplace(std::uint32_t correlationId, Launch launch) {
    if ((size_ + 1) * 10 > slots_.size() * 7) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = home(correlationId);; i = (i + 1) & mask) {
        if (slots_[i].correlationId == correlationId) return false;
        if (!slots_[i].correlationId) {
            slots_[i] = {correlationId, launch};
            ++size_;
            return true;
        }
    }
}

const KernelAttribution::Launch* KernelAttribution::LaunchTable::find(
    std::uint32_t correlationId) const {
    if (slots_.empty() || !correlationId) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = home(correlationId);; i = (i + 1) & mask) {
        if (slots_[i].correlationId == correlationId) return &slots_[i].launch;
        if (!slots_[i].correlationId) return nullptr;
    }
}

void KernelAttribution::LaunchTable::erase(std::uint32_t correlationId) {
    if (slots_.empty() || !correlationId) return;
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = home(correlationId);
    for (;; i = (i + 1) & mask) {
        if (!slots_[i].correlationId) return;
        if (slots_[i].correlationId == correlationId) break;
    }
    // Backward-shift deletion: pull later slots of the probe run into the gap
    // when their home is not between the gap and them.
    for (std::size_t j = (i + 1) & mask; slots_[j].correlationId; j = (j + 1) & mask) {
        const std::size_t h = home(slots_[j].correlationId);
        const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (stays) continue;
        slots_[i] = slots_[j];
        i = j;
    }
    slots_[i] = {};
    --size_;
}

void KernelAttribution::LaunchTable::eraseRange(std::uint32_t range) {
    std::vector<Slot> old(slots_.size());
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
        if (s.correlationId && s.launch.range != range) tryEmplace(s.correlationId, s.launch);
}

}  // namespace ws
