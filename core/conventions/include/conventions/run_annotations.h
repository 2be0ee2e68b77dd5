// Run facts a program publishes through NVTX marks, so the built-in workloads
// and any user program report them the same way (docs/token-conventions.md):
//   "ws.property:<key>=<value>"   a run property (kv_cache_bytes, ceilings, …)
//   "ws.quality:<check>;ref=<variant>;agreement=<0..1>;max_logit_error=<x>;
//    tolerance=<x>;passed=<0|1>"  one output-agreement check
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/records.h"

namespace ws {

struct RunAnnotations {
    std::vector<std::pair<std::string, std::string>> properties;  // last value of a key wins
    std::vector<QualityRecord> quality;
    std::vector<std::string> errors;  // malformed annotations, named, so nothing is silently lost
};

RunAnnotations parseRunAnnotations(const std::vector<RangeRecord>& ranges);

// The mark texts (used by the workload runner; tested against the parser).
std::string propertyMark(const std::string& key, const std::string& value);
std::string qualityMark(const QualityRecord& q);

}  // namespace ws
