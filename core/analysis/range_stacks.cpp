#include "analysis/range_stacks.h"

#include <algorithm>

namespace ws {

RangeStacks::RangeStacks(const std::vector<RangeRecord>& ranges)
    : ranges_(ranges), parent_(ranges.size(), kNone) {
    for (std::size_t i = 0; i < ranges.size(); ++i)
        if (ranges[i].kind != RangeKind::Mark) byThread_[ranges[i].threadId].push_back(i);
    for (auto& [thread, list] : byThread_) {
        std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
            return ranges[a].startNs < ranges[b].startNs;
        });
        // Push/pop ranges nest: a range's parent is the latest one still open
        // when it starts.
        std::vector<std::size_t> open;
        for (auto i : list) {
            while (!open.empty() && ranges[open.back()].endNs <= ranges[i].startNs)
                open.pop_back();
            if (!open.empty()) parent_[i] = open.back();
            open.push_back(i);
        }
    }
}

std::size_t RangeStacks::innermost(std::uint32_t thread, std::int64_t timeNs) const {
    auto t = byThread_.find(thread);
    if (t == byThread_.end()) return kNone;
    const auto& list = t->second;
    // The latest range to start at or before the moment, or the nearest range
    // around it still open then.
    auto pos =
        std::upper_bound(list.begin(), list.end(), timeNs,
                         [&](std::int64_t v, std::size_t i) { return v < ranges_[i].startNs; });
    if (pos == list.begin()) return kNone;
    std::size_t r = *(pos - 1);
    while (r != kNone && ranges_[r].endNs <= timeNs)
        r = parent_[r];
    return r;
}

std::string RangeStacks::path(std::uint32_t thread, std::int64_t timeNs) const {
    std::vector<std::size_t> chain;
    for (auto r = innermost(thread, timeNs); r != kNone; r = parent_[r])
        chain.push_back(r);
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (!out.empty()) out += '/';
        out += ranges_[*it].name;
    }
    return out;
}

}  // namespace ws
