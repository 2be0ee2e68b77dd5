#include "analysis/analysis_window.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "analysis/kernel_summary.h"
#include "util/format.h"

namespace ws {

namespace {

// "1.5s", "1500ms", "1500" (ms), "20us", "800ns"; nothing when it is not one.
std::optional<std::int64_t> offsetNs(const std::string& text) {
    static const std::pair<std::string_view, long double> units[] = {
        {"ns", 1.0L}, {"us", 1e3L}, {"ms", 1e6L}, {"s", 1e9L}};
    std::string number = text;
    long double scale = 1e6L;
    for (const auto& [unit, ns] : units)
        if (text.size() > unit.size() && text.ends_with(unit)) {
            number = text.substr(0, text.size() - unit.size());
            scale = ns;
            break;
        }
    if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos)
        return std::nullopt;
    char* end = nullptr;
    long double v = std::strtold(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !(v * scale < 9.2e18L)) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(v * scale));
}

}  // namespace

WindowChoice parseWindowChoice(const std::string& spec) {
    if (spec == "run") return {WindowChoice::Kind::WholeRun, {}};
    if (spec == "requests") return {WindowChoice::Kind::Requests, {}};
    const std::string prefix = "range:";
    if (spec.rfind(prefix, 0) == 0) {
        if (spec.size() == prefix.size())
            throw std::invalid_argument("window 'range:' names no range (range:NAME)");
        return {WindowChoice::Kind::Range, spec.substr(prefix.size())};
    }
    auto colon = spec.find(':');
    if (colon != std::string::npos) {
        auto from = offsetNs(spec.substr(0, colon)), to = offsetNs(spec.substr(colon + 1));
        if (!from || !to)
            throw std::invalid_argument("window '" + spec +
                                        "': FROM:TO takes two times such as 1.2s:1.5s or "
                                        "1200:1500 (ms)");
        if (*from >= *to)
            throw std::invalid_argument("window '" + spec + "' ends before it begins");
        WindowChoice c{WindowChoice::Kind::Span, {}};
        c.fromNs = *from;
        c.toNs = *to;
        return c;
    }
    throw std::invalid_argument("window '" + spec +
                                "' is none of run, requests, range:NAME or FROM:TO");
}

std::string toSpec(const WindowChoice& choice) {
    switch (choice.kind) {
        case WindowChoice::Kind::WholeRun:
            return "run";
        case WindowChoice::Kind::Requests:
            return "requests";
        case WindowChoice::Kind::Range:
            return "range:" + choice.range;
        case WindowChoice::Kind::Span:
            return std::to_string(choice.fromNs) + "ns:" + std::to_string(choice.toNs) + "ns";
    }
    return "run";
}

namespace {

std::string lengthOf(const TimeWindow& w) {
    return formatDuration(w.endNs - w.beginNs);
}

ResolvedWindow wholeRun(const WindowChoice& choice, const std::string& why) {
    return {choice, {}, "whole run" + why};
}

}  // namespace

ResolvedWindow resolveWindow(Store& store, RunId run, const WindowChoice& choice, bool fallBack) {
    switch (choice.kind) {
        case WindowChoice::Kind::WholeRun:
            return wholeRun(choice, "");
        case WindowChoice::Kind::Requests: {
            TimeWindow w = measuredWindow(store, run);
            if (w.beginNs == TimeWindow{}.beginNs) return wholeRun(choice, " (it has no requests)");
            return {choice, w, "while requests were served (" + lengthOf(w) + ")"};
        }
        case WindowChoice::Kind::Range: {
            TimeWindow w{TimeWindow{}.endNs, TimeWindow{}.beginNs};
            int instances = 0;
            forEachRange(store, run, {}, std::nullopt, [&](const RangeRecord& r) {
                if (r.kind == RangeKind::Mark || r.name != choice.range) return;
                w.beginNs = std::min(w.beginNs, r.startNs);
                w.endNs = std::max(w.endNs, r.endNs);
                ++instances;
            });
            if (instances == 0) {
                std::string why =
                    "run " + std::to_string(run) + " has no NVTX range '" + choice.range + "'";
                if (!fallBack) throw std::invalid_argument(why);
                return wholeRun(choice, " (" + why + ")");
            }
            std::string label = "NVTX range '" + choice.range + "' (" + lengthOf(w);
            if (instances > 1)
                label += ", first of its " + std::to_string(instances) + " instances to the last";
            return {choice, w, label + ")"};
        }
        case WindowChoice::Kind::Span: {
            std::int64_t first = runAggregates(store, run).firstNs.value_or(0);
            TimeWindow w{first + choice.fromNs, first + choice.toNs};
            return {choice, w,
                    "from " + formatDuration(choice.fromNs) + " to " + formatDuration(choice.toNs) +
                        " of the run (" + lengthOf(w) + ")"};
        }
    }
    return wholeRun(choice, "");
}

}  // namespace ws
