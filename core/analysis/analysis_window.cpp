#include "analysis/analysis_window.h"

#include <algorithm>
#include <stdexcept>

#include "analysis/kernel_summary.h"
#include "util/format.h"

namespace ws {

WindowChoice parseWindowChoice(const std::string& spec) {
    if (spec == "run") return {WindowChoice::Kind::WholeRun, {}};
    if (spec == "requests") return {WindowChoice::Kind::Requests, {}};
    const std::string prefix = "range:";
    if (spec.rfind(prefix, 0) == 0) {
        if (spec.size() == prefix.size())
            throw std::invalid_argument("window 'range:' names no range (range:NAME)");
        return {WindowChoice::Kind::Range, spec.substr(prefix.size())};
    }
    throw std::invalid_argument("window '" + spec + "' is none of run, requests or range:NAME");
}

std::string toSpec(const WindowChoice& choice) {
    switch (choice.kind) {
        case WindowChoice::Kind::WholeRun:
            return "run";
        case WindowChoice::Kind::Requests:
            return "requests";
        case WindowChoice::Kind::Range:
            return "range:" + choice.range;
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
    }
    return wholeRun(choice, "");
}

}  // namespace ws
