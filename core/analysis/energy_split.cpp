#include "analysis/energy_split.h"

#include <algorithm>
#include <map>

#include "analysis/engine_steps.h"
#include "analysis/latency.h"
#include "analysis/nvlink_rates.h"
#include "analysis/whatif.h"
#include "store/run_queries.h"
#include "util/format.h"

namespace ws {

namespace {

// Joules over [beginNs, endNs] of one GPU.
struct EnergyInterval {
    std::int64_t beginNs = 0, endNs = 0;
    double joules = 0;
};

// A device's intervals inside the window. With an energy counter, one per
// counter update: NVML refreshes it less often than Warpscope samples, so the
// samples that read an unchanged value are folded into the next change
// (an interval of zero joules beside one of double would say the GPU idled).
// Without one, the power samples' trapezoids.
std::vector<EnergyInterval> intervalsOf(const std::vector<const SampleRecord*>& s) {
    std::vector<EnergyInterval> out;
    const bool counter = std::count_if(s.begin(), s.end(),
                                       [](const auto* x) { return x->energyJ.has_value(); }) >= 2;
    const SampleRecord* from = nullptr;
    for (const auto* x : s) {
        if (counter ? !x->energyJ : !x->powerW) continue;
        if (!from) {
            from = x;
            continue;
        }
        if (counter) {
            const double e = *x->energyJ - *from->energyJ;
            if (e == 0) continue;                                    // not updated yet
            if (e > 0) out.push_back({from->timeNs, x->timeNs, e});  // else: counter reset
        } else {
            out.push_back(
                {from->timeNs, x->timeNs,
                 (*from->powerW + *x->powerW) / 2 * double(x->timeNs - from->timeNs) / 1e9});
        }
        from = x;
    }
    return out;
}

// How far a part holding `share` of an interval's time could be from
// share × joules if each part drew any power in [lo, hi] (the interval's
// mean power among them).
double boundOf(double share, double seconds, double meanW, double lo, double hi) {
    if (share <= 0 || share >= 1 || seconds <= 0) return 0;
    lo = std::min(lo, meanW);
    hi = std::max(hi, meanW);
    const double most = std::min(hi, (meanW - (1 - share) * lo) / share);
    const double least = std::max(lo, (meanW - (1 - share) * hi) / share);
    return share * seconds * std::max({most - meanW, meanW - least, 0.0});
}

struct Accumulator {
    std::vector<std::string> order;
    std::map<std::string, EnergyPart> parts;
    void add(const std::string& label, double joules, double bound) {
        auto [it, fresh] = parts.try_emplace(label, EnergyPart{label, 0, 0});
        if (fresh) order.push_back(label);
        it->second.joules += joules;
        it->second.boundJ += bound;
    }
    std::vector<EnergyPart> inOrder() const {
        std::vector<EnergyPart> out;
        for (const auto& l : order)
            out.push_back(parts.at(l));
        return out;
    }
};

// Time of each label inside [a, b] (spans sorted by begin); `union` gets the
// time covered by any span.
std::map<std::string, double> timeByLabel(const std::vector<EnergySpan>& spans, std::int64_t maxLen,
                                          std::int64_t a, std::int64_t b, double& covered) {
    std::map<std::string, double> out;
    covered = 0;
    auto it = std::lower_bound(spans.begin(), spans.end(), a - maxLen,
                               [](const EnergySpan& s, std::int64_t t) { return s.beginNs < t; });
    std::int64_t reach = a;  // end of the union so far
    for (; it != spans.end() && it->beginNs < b; ++it) {
        const std::int64_t from = std::max(it->beginNs, a), to = std::min(it->endNs, b);
        if (to <= from) continue;
        out[it->label] += double(to - from);
        if (to > reach) {
            covered += double(to - std::max(from, reach));
            reach = to;
        }
    }
    return out;
}

std::vector<EnergySpan> sortedByBegin(std::vector<EnergySpan> spans, std::int64_t& maxLen) {
    std::sort(spans.begin(), spans.end(),
              [](const auto& x, const auto& y) { return x.beginNs < y.beginNs; });
    maxLen = 0;
    for (const auto& s : spans)
        maxLen = std::max(maxLen, s.endNs - s.beginNs);
    return spans;
}

}  // namespace

std::optional<EnergySplit> splitEnergy(const std::vector<SampleRecord>& samples,
                                       std::int64_t windowBeginNs, std::int64_t windowEndNs,
                                       const std::vector<EnergySpan>& phases,
                                       const std::string& outsideLabel,
                                       const std::vector<EnergySpan>& kernels,
                                       std::int64_t outputTokens) {
    std::map<std::uint32_t, std::vector<const SampleRecord*>> byDevice;
    for (const auto& s : samples)
        if (s.timeNs >= windowBeginNs && s.timeNs <= windowEndNs)
            byDevice[s.deviceIndex].push_back(&s);
    std::vector<EnergyInterval> intervals;
    EnergySplit out;
    out.outputTokens = outputTokens;
    out.minPowerW = 1e300;
    out.maxPowerW = 0;
    for (auto& [device, list] : byDevice) {
        std::sort(list.begin(), list.end(),
                  [](const auto* x, const auto* y) { return x->timeNs < y->timeNs; });
        for (const auto& i : intervalsOf(list))
            intervals.push_back(i);
        for (const auto* s : list)
            if (s->powerW) {
                out.minPowerW = std::min(out.minPowerW, *s->powerW);
                out.maxPowerW = std::max(out.maxPowerW, *s->powerW);
            }
    }
    if (intervals.empty()) return std::nullopt;
    if (out.maxPowerW == 0)  // no power samples: the range of the intervals' mean powers
        for (const auto& iv : intervals)
            if (iv.endNs > iv.beginNs) {
                const double w = iv.joules / (double(iv.endNs - iv.beginNs) / 1e9);
                out.minPowerW = std::min(out.minPowerW, w);
                out.maxPowerW = std::max(out.maxPowerW, w);
            }

    std::int64_t phaseLen = 0, kernelLen = 0;
    const auto phaseSpans = sortedByBegin(phases, phaseLen);
    const auto kernelSpans = sortedByBegin(kernels, kernelLen);
    Accumulator byPhase, byClass;
    for (const auto& p : phaseSpans)  // in the order they first occur, outside last
        byPhase.add(p.label, 0, 0);
    std::vector<double> lengths;
    for (const auto& iv : intervals) {
        const double ns = double(iv.endNs - iv.beginNs);
        if (ns <= 0) continue;
        lengths.push_back(ns);
        out.totalJ += iv.joules;
        const double seconds = ns / 1e9, meanW = iv.joules / seconds;
        const double lo = out.minPowerW, hi = out.maxPowerW;
        auto split = [&](Accumulator& acc, const std::map<std::string, double>& weights) {
            double sum = 0;
            for (const auto& [label, w] : weights)
                sum += w;
            for (const auto& [label, w] : weights) {
                const double share = w / sum;
                acc.add(label, share * iv.joules, boundOf(share, seconds, meanW, lo, hi));
            }
        };
        double covered = 0;
        auto inPhases = timeByLabel(phaseSpans, phaseLen, iv.beginNs, iv.endNs, covered);
        if (!phaseSpans.empty()) {
            if (ns - covered > 0) inPhases[outsideLabel] += ns - covered;
            split(byPhase, inPhases);
        }
        auto inClasses = timeByLabel(kernelSpans, kernelLen, iv.beginNs, iv.endNs, covered);
        if (ns - covered > 0) inClasses["idle"] += ns - covered;
        split(byClass, inClasses);
    }
    if (!phaseSpans.empty()) out.phases = byPhase.inOrder();
    out.classes = byClass.inOrder();
    std::sort(out.classes.begin(), out.classes.end(),
              [](const auto& x, const auto& y) { return x.joules > y.joules; });
    std::sort(lengths.begin(), lengths.end());
    out.intervalMs = lengths.empty() ? 0 : lengths[lengths.size() / 2] / 1e6;
    return out;
}

std::string describeEnergyParts(const EnergySplit& split, const std::vector<EnergyPart>& parts) {
    std::string out;
    for (const auto& p : parts) {
        if (split.perToken(p.joules) < 0.0005) continue;  // rounds to 0.000
        if (!out.empty()) out += ", ";
        out += p.label + " " + formatFixed(split.perToken(p.joules), 3);
        if (split.perToken(p.boundJ) >= 0.0005)
            out += " ± " + formatFixed(split.perToken(p.boundJ), 3);
    }
    return out;
}

std::string describeEnergyModel(const EnergySplit& split) {
    return "each " + formatFixed(split.intervalMs, 0) +
           " ms energy reading split over what ran in it by time; ± if the parts drew anything "
           "from " +
           formatFixed(split.minPowerW, 0) + " to " + formatFixed(split.maxPowerW, 0) + " W";
}

namespace {

const char* stepLabel(StepKind kind) {
    switch (kind) {
        case StepKind::Decode:
            return "decode steps";
        case StepKind::Mixed:
            return "mixed steps";
        case StepKind::Prefill:
            return "prefill steps";
        case StepKind::Other:
            break;
    }
    return "other steps";
}

// Spans merged where they touch or overlap.
std::vector<std::pair<std::int64_t, std::int64_t>> merged(
    std::vector<std::pair<std::int64_t, std::int64_t>> spans) {
    std::sort(spans.begin(), spans.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    for (const auto& s : spans)
        if (!out.empty() && s.first <= out.back().second)
            out.back().second = std::max(out.back().second, s.second);
        else
            out.push_back(s);
    return out;
}

std::int64_t overlapNs(const std::vector<std::pair<std::int64_t, std::int64_t>>& a,
                       const std::vector<std::pair<std::int64_t, std::int64_t>>& b) {
    std::int64_t total = 0;
    std::size_t j = 0;
    for (const auto& x : a) {
        while (j < b.size() && b[j].second <= x.first)
            ++j;
        for (std::size_t k = j; k < b.size() && b[k].first < x.second; ++k)
            total += std::max<std::int64_t>(
                0, std::min(x.second, b[k].second) - std::max(x.first, b[k].first));
    }
    return total;
}

// Prefill (arrival to first token) and decode (first token to last) of each
// request, when the two never run at once; otherwise `whyNot`.
std::vector<EnergySpan> requestPhases(const std::vector<RequestRecord>& requests,
                                      const std::vector<TokenRecord>& tokens, std::string& whyNot) {
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> firstLast;
    for (const auto& t : tokens) {
        auto [it, fresh] = firstLast.try_emplace(t.requestId, t.timeNs, t.timeNs);
        if (!fresh) {
            it->second.first = std::min(it->second.first, t.timeNs);
            it->second.second = std::max(it->second.second, t.timeNs);
        }
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> prefill, decode;
    for (const auto& q : requests) {
        auto it = firstLast.find(q.requestId);
        if (!q.success || it == firstLast.end()) continue;
        prefill.emplace_back(q.startNs, it->second.first);
        decode.emplace_back(it->second.first, it->second.second);
    }
    prefill = merged(prefill);
    decode = merged(decode);
    // A batch's requests stamp their first tokens one after another: a few
    // microseconds of overlap are not requests prefilling while others decode.
    std::int64_t span = 0;
    for (const auto& [b, e] : decode)
        span += e - b;
    if (overlapNs(prefill, decode) > span / 100) {
        whyNot =
            "requests prefill while others decode and the run has no engine steps to tell the "
            "two apart";
        return {};
    }
    std::vector<EnergySpan> out;
    for (const auto& [b, e] : prefill)
        out.push_back({b, e, "prefill"});
    for (const auto& [b, e] : decode)
        out.push_back({b, e, "decode"});
    return out;
}

}  // namespace

std::optional<EnergySplit> energySplitOf(Store& store, RunId run, std::string& whyNot) {
    auto samples = samplesOf(store, run);
    const auto busy = busyDevices(samples, nvlinkRates(samples));
    std::erase_if(samples, [&](const SampleRecord& s) { return !busy.count(s.deviceIndex); });
    if (std::none_of(samples.begin(), samples.end(),
                     [](const auto& s) { return s.energyJ || s.powerW; })) {
        whyNot = "the run has no GPU power samples (record with --sample-ms above 0)";
        return std::nullopt;
    }
    if (runProperties(store, run).count("capture.metrics")) {
        whyNot = "a counter pass replays every kernel: its power is not the program's";
        return std::nullopt;
    }
    const auto counts = runAggregates(store, run);
    if (counts.kernelCount + counts.apiCallCount > kSuggestRecordLimit) {
        whyNot = "the run has " + std::to_string(counts.kernelCount + counts.apiCallCount) +
                 " kernels and API calls, more than the split reads";
        return std::nullopt;
    }
    const auto loaded = loadWhatIfRun(store, run);
    const auto steps = engineStepsOf(store, run);
    const auto& t = loaded.timeline;
    const auto latency = computeLatency(t.requests, t.tokens);
    if (latency.requests.empty()) {
        whyNot = "the run has no requests with tokens to count energy per token over";
        return std::nullopt;
    }
    std::vector<EnergySpan> kernels;
    kernels.reserve(t.ops.size());
    const auto classes = loaded.nameClasses();
    for (std::size_t i = 0; i < t.ops.size(); ++i) {
        const auto name = loaded.opName[i];
        kernels.push_back({t.ops[i].startNs, t.ops[i].endNs,
                           isGraphSpanName(loaded.names[name]) ? "CUDA graphs traced whole"
                                                               : toString(classes[name])});
    }
    std::vector<EnergySpan> phases;
    std::string source, why, outside;
    if (!steps.empty()) {
        for (const auto& s : steps)
            phases.push_back({s.startNs, s.endNs, stepLabel(stepKind(s))});
        source = "engine steps";
        outside = "outside steps";
    } else {
        phases = requestPhases(t.requests, t.tokens, why);
        source = "requests";
        outside = "between requests";
    }
    auto split = splitEnergy(samples, latency.windowBeginNs, latency.windowEndNs, phases, outside,
                             kernels, latency.totalOutputTokens);
    if (!split) {
        whyNot = "no two energy samples fall inside the requests' span";
        return std::nullopt;
    }
    if (!phases.empty()) split->phaseSource = source;
    split->whyNoPhases = why;
    return split;
}

}  // namespace ws
