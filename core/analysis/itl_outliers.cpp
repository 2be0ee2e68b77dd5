#include "analysis/itl_outliers.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>

#include "analysis/statistics.h"
#include "store/run_queries.h"

namespace ws {

namespace {

// Disjoint, sorted intervals with running sums, so the time a set covers
// inside any window costs two binary searches (a run holds millions of kernels
// and tens of thousands of ITLs).
class IntervalSet {
  public:
    using Span = std::pair<std::int64_t, std::int64_t>;

    explicit IntervalSet(std::vector<Span> spans) {
        std::sort(spans.begin(), spans.end());
        for (const auto& [s, e] : spans) {
            if (e <= s) continue;
            if (!spans_.empty() && s <= spans_.back().second)
                spans_.back().second = std::max(spans_.back().second, e);
            else
                spans_.push_back({s, e});
        }
        before_.reserve(spans_.size());
        std::int64_t sum = 0;
        for (const auto& [s, e] : spans_) {
            before_.push_back(sum);
            sum += e - s;
        }
    }

    const std::vector<Span>& spans() const { return spans_; }

    // Time covered inside [a, b).
    std::int64_t within(std::int64_t a, std::int64_t b) const {
        return b > a ? coveredUpTo(b) - coveredUpTo(a) : 0;
    }

    IntervalSet intersect(const IntervalSet& other) const {
        std::vector<Span> out;
        std::size_t i = 0, j = 0;
        const auto& a = spans_;
        const auto& b = other.spans_;
        while (i < a.size() && j < b.size()) {
            std::int64_t s = std::max(a[i].first, b[j].first);
            std::int64_t e = std::min(a[i].second, b[j].second);
            if (s < e) out.push_back({s, e});
            (a[i].second < b[j].second ? i : j)++;
        }
        return IntervalSet(std::move(out));
    }

  private:
    std::int64_t coveredUpTo(std::int64_t t) const {
        auto it = std::lower_bound(spans_.begin(), spans_.end(), t,
                                   [](const Span& s, std::int64_t v) { return s.first < v; });
        if (it == spans_.begin()) return 0;
        std::size_t k = static_cast<std::size_t>(it - spans_.begin()) - 1;
        return before_[k] + std::min(t, spans_[k].second) - spans_[k].first;
    }

    std::vector<Span> spans_;
    std::vector<std::int64_t> before_;
};

// The field's number, or `otherwise` when the value is not one whole number.
template <typename T = int>
T intField(std::string_view value, T otherwise = 0) {
    T v = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), v);
    return error == std::errc() && end == value.data() + value.size() ? v : otherwise;
}

}  // namespace

ItlSplit& ItlSplit::operator+=(const ItlSplit& o) {
    prefillNs += o.prefillNs;
    kernelNs += o.kernelNs;
    launchGapNs += o.launchGapNs;
    hostGapNs += o.hostGapNs;
    return *this;
}

std::optional<EngineStep> engineStepOf(const RangeRecord& range) {
    constexpr std::string_view kName = "engine.step";
    std::string_view name = range.name;
    if (range.kind == RangeKind::Mark || name.substr(0, kName.size()) != kName) return {};
    name.remove_prefix(kName.size());
    if (!name.empty() && name.front() != ':') return {};  // "engine.stepper" is another range
    EngineStep step{range.startNs, range.endNs};
    if (name.empty()) return step;
    name.remove_prefix(1);
    bool first = true;
    while (!name.empty()) {
        std::size_t end = std::min(name.find(';'), name.size());
        std::string_view field = name.substr(0, end);
        name.remove_prefix(std::min(end + 1, name.size()));
        std::size_t eq = field.find('=');
        if (first && eq == std::string_view::npos) {
            std::from_chars(field.data(), field.data() + field.size(), step.index);
        } else if (eq != std::string_view::npos) {
            std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
            if (key == "running") step.running = intField(value);
            if (key == "waiting") step.waiting = intField(value);
            if (key == "prefill_tokens") step.prefillTokens = intField(value);
            if (key == "decode_tokens") step.decodeTokens = intField(value);
            if (key == "prefill_seqs") step.prefillSeqs = intField(value, -1);
            if (key == "kv_read_tokens") step.kvReadTokens = intField<std::int64_t>(value, -1);
            if (key == "attention_pairs") step.attentionPairs = intField<std::int64_t>(value, -1);
        }
        first = false;
    }
    return step;
}

namespace {

ItlOutlierReport splitItls(const std::vector<TokenRecord>& tokens,
                           const std::vector<EngineStep>& steps,
                           std::vector<IntervalSet::Span> busySpans, std::size_t top) {
    ItlOutlierReport rep;
    rep.engineSteps = steps.size();
    rep.stepsDescribed =
        std::any_of(steps.begin(), steps.end(), [](const EngineStep& s) { return s.index >= 0; });

    std::vector<IntervalSet::Span> stepSpans, prefillSpans;
    for (const auto& s : steps) {
        stepSpans.push_back({s.startNs, s.endNs});
        if (s.prefillTokens > 0) prefillSpans.push_back({s.startNs, s.endNs});
    }
    const IntervalSet inSteps(std::move(stepSpans)), inPrefill(std::move(prefillSpans));
    const IntervalSet busy(std::move(busySpans));
    const IntervalSet busyInSteps = inSteps.intersect(busy);
    const IntervalSet busyInPrefill = inPrefill.intersect(busy);
    std::vector<EngineStep> byStart = steps;
    std::sort(byStart.begin(), byStart.end(),
              [](const EngineStep& a, const EngineStep& b) { return a.startNs < b.startNs; });
    std::int64_t longestStep = 0;
    for (const auto& s : byStart)
        longestStep = std::max(longestStep, s.endNs - s.startNs);

    std::map<std::int64_t, std::vector<const TokenRecord*>> byRequest;
    for (const auto& t : tokens)
        byRequest[t.requestId].push_back(&t);
    std::vector<ItlInterval> all;
    for (auto& [request, list] : byRequest) {
        std::sort(list.begin(), list.end(),
                  [](const TokenRecord* a, const TokenRecord* b) { return a->timeNs < b->timeNs; });
        for (std::size_t i = 1; i < list.size(); ++i) {
            ItlInterval iv;
            iv.requestId = request;
            iv.tokenIndex = list[i]->index;
            iv.startNs = list[i - 1]->timeNs;
            iv.endNs = list[i]->timeNs;
            const std::int64_t a = iv.startNs, b = iv.endNs;
            const double stepped = static_cast<double>(inSteps.within(a, b));
            iv.split.prefillNs = static_cast<double>(inPrefill.within(a, b));
            iv.split.kernelNs =
                static_cast<double>(busyInSteps.within(a, b) - busyInPrefill.within(a, b));
            iv.split.launchGapNs = stepped - iv.split.prefillNs - iv.split.kernelNs;
            iv.split.hostGapNs = static_cast<double>(b - a) - stepped;
            all.push_back(iv);
        }
    }
    rep.itlCount = all.size();
    if (all.empty()) return rep;
    std::vector<double> itls;
    itls.reserve(all.size());
    for (const auto& iv : all) {
        itls.push_back(iv.ms());
        rep.allTotal += iv.split;
    }
    std::sort(itls.begin(), itls.end());
    rep.p50Ms = stats::percentileSorted(itls, 50);
    rep.p99Ms = stats::percentileSorted(itls, 99);
    std::vector<ItlInterval> tail;
    for (const auto& iv : all)
        if (iv.ms() >= rep.p99Ms) tail.push_back(iv);
    rep.outlierCount = tail.size();
    for (const auto& iv : tail)
        rep.outlierTotal += iv.split;
    std::sort(tail.begin(), tail.end(), [](const ItlInterval& x, const ItlInterval& y) {
        return x.endNs - x.startNs > y.endNs - y.startNs;
    });
    if (tail.size() > top) tail.resize(top);
    // What the steps of each listed outlier held: the steps overlapping it
    // start before its end and no earlier than the longest step before its start.
    for (auto& iv : tail) {
        auto it =
            std::lower_bound(byStart.begin(), byStart.end(), iv.startNs - longestStep,
                             [](const EngineStep& s, std::int64_t t) { return s.startNs < t; });
        for (; it != byStart.end() && it->startNs < iv.endNs; ++it) {
            if (it->endNs <= iv.startNs) continue;
            ++iv.steps;
            iv.prefillTokens += it->prefillTokens;
            iv.maxRunning = std::max(iv.maxRunning, it->running);
        }
    }
    rep.outliers = std::move(tail);
    return rep;
}

}  // namespace

ItlOutlierReport itlOutliers(const std::vector<TokenRecord>& tokens,
                             const std::vector<EngineStep>& steps,
                             const std::vector<KernelRecord>& kernels, std::size_t top) {
    std::vector<IntervalSet::Span> busy;
    busy.reserve(kernels.size());
    for (const auto& k : kernels)
        busy.push_back({k.startNs, k.endNs});
    return splitItls(tokens, steps, std::move(busy), top);
}

ItlOutlierReport itlOutliers(Store& store, RunId run, std::size_t top) {
    std::vector<EngineStep> steps;
    forEachRange(store, run, {}, std::nullopt, [&](const RangeRecord& r) {
        if (auto step = engineStepOf(r)) steps.push_back(*step);
    });
    auto tokens = tokensOf(store, run);
    // Only the kernels' times, and only when there are steps to put them in:
    // a served hour holds millions of kernels.
    std::vector<IntervalSet::Span> busy;
    if (!steps.empty() && !tokens.empty())
        forEachKernel(store, run, {}, std::nullopt, [&](const KernelRecord& k) {
            busy.push_back({k.startNs, k.endNs});
        });
    return splitItls(tokens, steps, std::move(busy), top);
}

}  // namespace ws
