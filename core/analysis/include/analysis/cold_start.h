// Cold starts inside timed requests: module loading (lazy loading runs it at
// a kernel's first launch), JIT compilation and first-call initialisation
// that fall between a request's arrival and its first token, so its TTFT
// measures start-up, not serving. Works on any run with CUDA API calls,
// recorded or imported (Kineto traces carry them; vLLM results do not).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

// What kind of start-up work an API call is, or nullptr for none:
// "module loading", "JIT compilation", "first-call initialisation".
const char* coldStartKind(const std::string& apiName);

struct ColdStartRequest {
    std::int64_t requestId = 0;
    std::int64_t ttftNs = 0;
    std::int64_t coldNs = 0;  // union of the calls' time inside the TTFT window
    std::string calls;        // "cuLibraryLoadData ×12, cuModuleGetFunction ×3"
    std::string kinds;        // "module loading, JIT compilation"
};

struct ColdStartCheck {
    bool checked = false;                // false: the run has no requests or no API calls
    std::string why;                     // why it was not checked
    int requests = 0;                    // requests with a first token
    std::vector<ColdStartRequest> hits;  // by arrival
};

ColdStartCheck checkColdStart(Store& store, RunId run);

}  // namespace ws
