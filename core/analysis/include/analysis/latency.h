// Inference latency metrics of a run, as vLLM's benchmark defines them:
// TTFT = first token − request start; TPOT = (E2E − TTFT) / (output tokens − 1)
// for requests with more than one output token; ITL = gaps between a
// request's consecutive tokens, pooled over all requests (none for a request
// whose stored tokens skip indexes: a client that kept only the first and last
// token, as GuideLLM does); E2E = last token − request start.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/statistics.h"
#include "model/records.h"

namespace ws {

struct LatencyTargets {  // milliseconds; unset = not part of goodput
    std::optional<double> ttftMs;
    std::optional<double> tpotMs;
    std::optional<double> e2elMs;
    bool any() const { return ttftMs || tpotMs || e2elMs; }
};

struct RequestLatency {
    std::int64_t requestId = 0;
    std::int64_t startNs = 0;       // arrival, on the run's clock
    std::int64_t firstTokenNs = 0;  // the later tokens follow at itlMs apart (if any)
    double ttftMs = 0;
    std::optional<double> tpotMs;  // absent with one output token
    double e2elMs = 0;
    int promptTokens = 0;
    int outputTokens = 0;
    std::vector<double> itlMs;
};

struct LatencyReport {
    std::vector<RequestLatency> requests;  // completed requests with at least one token
    int failedRequests = 0;
    double durationS = 0;
    std::int64_t totalInputTokens = 0;
    std::int64_t totalOutputTokens = 0;
    std::vector<double> ttftMs, tpotMs, itlMs, e2elMs;  // the samples behind each statistic
    double requestThroughput = 0;                       // requests / s
    double outputThroughput = 0;                        // output tokens / s
    double totalTokenThroughput = 0;                    // (input + output) tokens / s
    std::optional<double> requestGoodput;               // requests meeting every target / s
    std::optional<double> energyPerOutputTokenJ;
    // The requests' span: the first one's start to the last one's end.
    std::int64_t windowBeginNs = 0, windowEndNs = 0;
    int maxConcurrency = 0;  // most requests in flight at once (the effective batch)
    // Completed requests whose stored tokens skip indexes (a client that kept
    // only the first and last token): they give no ITL, and with any of them
    // the peak output throughput cannot be counted (it stays 0).
    int requestsWithoutTokenTimes = 0;
    // Most output tokens in one whole second counted from the first request's
    // start, as vLLM's "Peak output token throughput (tok/s)".
    double peakOutputThroughput = 0;
};

// `durationNs` overrides the span of the requests (a benchmark's wall time,
// e.g. from an imported vLLM result); 0 = from the first request's start to
// the last request's end.
LatencyReport computeLatency(const std::vector<RequestRecord>& requests,
                             const std::vector<TokenRecord>& tokens,
                             const LatencyTargets& targets = {}, std::int64_t durationNs = 0,
                             const std::vector<SampleRecord>& samples = {});

}  // namespace ws
