#include "slice_launches.h"

#include <algorithm>
#include <utility>

namespace ws::summary {

void IdBits::insert(std::uint32_t id) {
    if (pages_.empty()) pages_.resize(std::size_t(1) << 16);
    auto& page = pages_[id >> 16];
    if (!page) page = std::make_unique<std::uint64_t[]>(1024);
    page[(id >> 6) & 1023] |= std::uint64_t(1) << (id & 63);
}

void IdBits::erase(std::uint32_t id) {
    if (pages_.empty() || !pages_[id >> 16]) return;
    pages_[id >> 16][(id >> 6) & 1023] &= ~(std::uint64_t(1) << (id & 63));
}

bool IdBits::contains(std::uint32_t id) const {
    return !pages_.empty() && pages_[id >> 16] &&
           (pages_[id >> 16][(id >> 6) & 1023] >> (id & 63) & 1) != 0;
}

void IdBits::clear() {
    pages_.clear();
}

std::size_t SliceLaunches::home(std::uint32_t correlationId) const {
    // Fibonacci hashing, as KernelAttribution's table: ids of any pattern spread.
    return static_cast<std::size_t>((std::uint64_t(correlationId) * 0x9E3779B97F4A7C15ull) >> 32) &
           (slots_.size() - 1);
}

void SliceLaunches::grow() {
    std::vector<Slot> old(std::max<std::size_t>(1024, slots_.size() * 2));
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
        if (s.correlationId) tryEmplace(s.correlationId, s.launch);
}

bool SliceLaunches::tryEmplace(std::uint32_t correlationId, Launch launch) {
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

const SliceLaunches::Slot* SliceLaunches::find(std::uint32_t correlationId) const {
    if (slots_.empty() || !correlationId) return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = home(correlationId);; i = (i + 1) & mask) {
        if (slots_[i].correlationId == correlationId) return &slots_[i];
        if (!slots_[i].correlationId) return nullptr;
    }
}

SliceLaunches::Slot* SliceLaunches::find(std::uint32_t correlationId) {
    return const_cast<Slot*>(std::as_const(*this).find(correlationId));
}

void SliceLaunches::erase(std::uint32_t correlationId) {
    Slot* slot = find(correlationId);
    if (!slot) return;
    const std::size_t mask = slots_.size() - 1;
    auto i = static_cast<std::size_t>(slot - slots_.data());
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

void SliceLaunches::add(std::uint32_t correlationId, std::int64_t startNs, std::uint32_t range,
                        bool graph) {
    if (!correlationId || range == kNone) return;
    if (crediting_ && creditedHeld_ && credited_.contains(correlationId)) return;
    const std::uint64_t seq = forgotten_ + byStart_.size();
    if (tryEmplace(correlationId, Launch{range, graph, seq})) {
        Held held;
        held.startNs = startNs;
        held.correlationId = correlationId;
        held.range = range;
        byStart_.push_back(held);
    }
}

void SliceLaunches::forgetBefore(std::int64_t ns) {
    while (!byStart_.empty() && byStart_.front().startNs < ns) {
        const Held& front = byStart_.front();
        if (front.credited) {
            credited_.erase(front.correlationId);
            --creditedHeld_;
        } else {
            erase(front.correlationId);
        }
        byStart_.pop_front();
        ++forgotten_;
    }
}

std::uint32_t SliceLaunches::credit(std::uint32_t correlationId, bool plainKernel) {
    Slot* slot = find(correlationId);
    if (!slot) {
        if (!creditedHeld_ || !crediting_ || !credited_.contains(correlationId)) return kNone;
        keepCredited();
        slot = find(correlationId);
        return slot ? slot->launch.range : kNone;
    }
    const std::uint32_t range = slot->launch.range;
    if (crediting_ && plainKernel && !slot->launch.graph) {
        Held& held = byStart_[slot->launch.seq - forgotten_];
        held.credited = 1;
        erase(correlationId);
        credited_.insert(correlationId);
        ++creditedHeld_;
    }
    return range;
}

void SliceLaunches::keepCredited() {
    crediting_ = false;
    std::uint64_t seq = forgotten_;
    for (Held& held : byStart_) {
        if (held.credited) {
            tryEmplace(held.correlationId, Launch{held.range, true, seq});
            held.credited = 0;
        }
        ++seq;
    }
    credited_.clear();
    creditedHeld_ = 0;
}

}  // namespace ws::summary
