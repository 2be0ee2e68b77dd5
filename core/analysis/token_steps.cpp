#include "analysis/token_steps.h"

#include <algorithm>
#include <cmath>

#include "analysis/statistics.h"
#include "store/run_queries.h"

namespace ws {

namespace {

struct Interval {
    std::int64_t begin, end;
};

// The intervals between consecutive tokens of each request, without the
// repeats a batched step leaves (one per request in the batch).
std::vector<Interval> stepsOf(std::vector<TokenRecord> tokens) {
    std::sort(tokens.begin(), tokens.end(), [](const TokenRecord& a, const TokenRecord& b) {
        return a.requestId != b.requestId ? a.requestId < b.requestId : a.index < b.index;
    });
    std::vector<Interval> all;
    for (std::size_t i = 1; i < tokens.size(); ++i)
        if (tokens[i].requestId == tokens[i - 1].requestId &&
            tokens[i].timeNs > tokens[i - 1].timeNs)
            all.push_back({tokens[i - 1].timeNs, tokens[i].timeNs});
    std::sort(all.begin(), all.end(),
              [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
    std::vector<Interval> steps;
    for (const auto& s : all) {
        if (!steps.empty()) {
            const auto& last = steps.back();
            const auto overlap = std::min(last.end, s.end) - std::max(last.begin, s.begin);
            if (2 * overlap > s.end - s.begin) continue;
        }
        steps.push_back(s);
    }
    return steps;
}

}  // namespace

std::optional<StepFloor> declaredStepFloor(const std::map<std::string, std::string>& properties) {
    const auto bytes = positiveProperty(properties, "decoder.decode_step_bytes");
    const auto gbs = positiveProperty(properties, "ceiling.copy_gbs");
    if (!bytes || !gbs) return std::nullopt;
    return StepFloor{*bytes, *gbs};
}

std::optional<PrefillFloor> declaredPrefillFloor(
    const std::map<std::string, std::string>& properties) {
    const auto flops = positiveProperty(properties, "decoder.prefill_flops");
    const auto tflops = positiveProperty(properties, "ceiling.bf16_tflops");
    if (!flops || !tflops) return std::nullopt;
    PrefillFloor f{*flops, *tflops, 0, 0};
    const auto bytes = positiveProperty(properties, "model.weight_bytes");
    const auto gbs = positiveProperty(properties, "ceiling.copy_gbs");
    if (bytes && gbs) {
        f.weightBytes = *bytes;
        f.bandwidthGbs = *gbs;
    }
    return f;
}

std::vector<StepTimeParts> stepTimeParts(const WhatIfRun& run, const std::vector<StepSpan>& steps) {
    std::vector<StepTimeParts> parts(steps.size());
    // Ops by start, each step taking those that start inside it.
    const auto& ops = run.timeline.ops;
    std::vector<std::size_t> order(ops.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return ops[a].startNs < ops[b].startNs; });
    const auto classOfName = run.nameClasses();

    // One pass over the ops by start, steps in time order; an op still
    // running at a step's end is carried into the next step for the part
    // inside it.
    std::vector<Interval> busy;
    std::vector<std::size_t> carried, stillRunning;
    std::size_t next = 0;
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const Interval s{steps[k].beginNs, steps[k].endNs};
        auto& r = parts[k];
        busy.clear();
        stillRunning.clear();
        auto take = [&](std::size_t i) {
            const auto& op = ops[i];
            const auto begin = std::max(op.startNs, s.begin);
            const auto end = std::min(op.endNs, s.end);
            if (op.endNs > s.end) stillRunning.push_back(i);
            if (end <= begin) return;
            r.kernelNs[classOfName[run.opName[i]]] += static_cast<double>(end - begin);
            busy.push_back({begin, end});
        };
        for (auto i : carried)
            take(i);
        for (; next < order.size() && ops[order[next]].startNs < s.end; ++next)
            take(order[next]);
        carried.swap(stillRunning);
        if (busy.empty()) {
            r.hostNs = static_cast<double>(s.end - s.begin);
            continue;
        }
        // The union of the step's GPU work (streams may overlap), and its span.
        std::sort(busy.begin(), busy.end(),
                  [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
        std::int64_t covered = 0, spanEnd = busy.front().begin, curBegin = busy.front().begin,
                     curEnd = busy.front().end;
        for (const auto& b : busy) {
            if (b.begin > curEnd) {
                covered += curEnd - curBegin;
                curBegin = b.begin;
            }
            curEnd = std::max(curEnd, b.end);
            spanEnd = std::max(spanEnd, b.end);
        }
        covered += curEnd - curBegin;
        const auto span = spanEnd - busy.front().begin;
        r.launchGapNs = static_cast<double>(span - covered);
        r.hostNs = static_cast<double>((s.end - s.begin) - span);
    }
    return parts;
}

TokenStepReport tokenSteps(const WhatIfRun& run, std::optional<StepFloor> floor,
                           std::optional<PrefillFloor> prefillFloor) {
    TokenStepReport r;
    r.floor = floor;
    r.prefillFloor = prefillFloor;
    {
        std::map<std::int64_t, std::int64_t> firstToken;
        for (const auto& t : run.timeline.tokens) {
            auto [it, fresh] = firstToken.try_emplace(t.requestId, t.timeNs);
            if (!fresh) it->second = std::min(it->second, t.timeNs);
        }
        double total = 0;
        for (const auto& q : run.timeline.requests) {
            auto it = firstToken.find(q.requestId);
            if (!q.success || it == firstToken.end()) continue;
            total += static_cast<double>(it->second - q.startNs);
            ++r.prefills;
        }
        if (r.prefills > 0) r.ttftMeanNs = total / r.prefills;
    }
    const auto steps = stepsOf(run.timeline.tokens);
    if (steps.empty()) return r;
    std::vector<StepSpan> spans;
    std::vector<double> durations;
    for (const auto& s : steps) {
        spans.push_back({s.begin, s.end});
        durations.push_back(static_cast<double>(s.end - s.begin));
    }
    for (const auto& p : stepTimeParts(run, spans)) {
        for (const auto& [kind, ns] : p.kernelNs)
            r.kernelNs[kind] += ns;
        r.launchGapNs += p.launchGapNs;
        r.hostNs += p.hostNs;
    }
    r.steps = static_cast<int>(steps.size());
    const double n = r.steps;
    for (auto& [kind, ns] : r.kernelNs)
        ns /= n;
    r.launchGapNs /= n;
    r.hostNs /= n;
    auto summary = stats::summarize(durations);
    r.meanNs = summary.mean;
    r.p50Ns = summary.median;
    r.p99Ns = stats::percentile(durations, 99);
    return r;
}

}  // namespace ws
