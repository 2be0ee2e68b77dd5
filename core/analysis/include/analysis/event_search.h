// Search over every kernel, copy, memset and API call of a run by the name
// the timeline shows (a kernel's short demangled name, "Memcpy HtoD",
// "Memset", the API function), for runs too large to hold in the timeline:
// one streaming pass per kind, never more than `limit` matches held.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "store/store.h"

namespace ws {

enum class MatchedKind { Kernel, Memcpy, Memset, ApiCall };

struct EventMatch {
    MatchedKind kind = MatchedKind::Kernel;
    std::uint32_t deviceId = 0;  // kernels, copies, memsets
    std::uint32_t laneId = 0;    // stream, or thread of an API call
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::string name;  // as the timeline labels it
};

struct EventSearch {
    std::int64_t total = 0;         // every match in the run
    std::vector<EventMatch> first;  // the earliest `limit`, in start order
    bool stopped = false;           // cancelled: total and first are partial
};

// The label the timeline shows for a kernel's (mangled) name.
std::string kernelLabel(const std::string& mangled);

// Events whose label contains `text`, ignoring ASCII case (the timeline's
// search). `keepGoing(fraction done)` is asked every 65,536 records; false
// stops the search.
EventSearch searchRunEvents(Store& store, RunId run, const std::string& text, std::size_t limit,
                            const std::function<bool(double)>& keepGoing = {});

}  // namespace ws
