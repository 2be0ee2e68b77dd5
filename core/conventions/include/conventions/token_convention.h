// Token timestamps from NVTX, so TTFT/TPOT can be derived from any program:
//   a range named   "ws.request:<id>"        spans a request (arrival → last token);
//                   "ws.request:<id>:prompt=<n>" also gives its prompt length;
//   a mark or range "ws.token:<id>"          marks one output token of request <id>
//                                            at its start time.
// Any NVTX domain; docs/token-conventions.md has examples.
#pragma once

#include <vector>

#include "model/records.h"

namespace ws {

struct DerivedTokens {
    std::vector<RequestRecord> requests;
    std::vector<TokenRecord> tokens;
};

DerivedTokens deriveTokens(const std::vector<RangeRecord>& ranges);

}  // namespace ws
