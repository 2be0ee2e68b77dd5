#include "conventions/run_conventions.h"

#include "conventions/run_annotations.h"
#include "conventions/token_convention.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"

namespace ws {

ConventionOutcome applyNvtxConventions(Store& store, RunId run, StoreWriter& writer) {
    // Only "ws." ranges carry conventions (ws.property, ws.quality,
    // ws.request, ws.token): keep those, not a run's million operator ranges.
    std::vector<RangeRecord> ranges;
    forEachRange(store, run, {}, std::nullopt, [&](const RangeRecord& r) {
        if (r.name.compare(0, 3, "ws.") == 0) ranges.push_back(r);
    });
    ConventionOutcome out;
    auto annotations = parseRunAnnotations(ranges);
    for (const auto& [key, value] : annotations.properties)
        store.setProperty(run, key, value);
    for (const auto& q : annotations.quality)
        writer.add(q);
    out.errors = std::move(annotations.errors);
    auto derived = deriveTokens(ranges);
    for (const auto& r : derived.requests)
        writer.add(r);
    for (const auto& t : derived.tokens)
        writer.add(t);
    out.requests = static_cast<std::int64_t>(derived.requests.size());
    out.tokens = static_cast<std::int64_t>(derived.tokens.size());
    return out;
}

}  // namespace ws
