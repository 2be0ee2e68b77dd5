#include "analysis/sweep.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include "analysis/run_latency.h"
#include "analysis/statistics.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws {

namespace {

double numberOr(const std::map<std::string, std::string>& props, const char* key, double fallback) {
    auto v = numberProperty(props, key);
    return v ? *v : fallback;
}

std::optional<double> p(const std::vector<double>& samples, double pct) {
    if (samples.empty()) return std::nullopt;
    return stats::percentile(samples, pct);
}

std::string ms(double v) {
    std::ostringstream out;
    out << std::setprecision(4) << v;
    return out.str();
}

}  // namespace

std::string sweepParameterName(const std::string& parameter) {
    if (parameter == "max-concurrency") return "concurrency";
    if (parameter == "request-rate") return "request rate";
    return parameter;
}

// The group's label from its first point's: bench serve --sweep labels a
// point "PARAMETER=VALUE · LABEL" (before 2026-12-06 "LABEL PARAMETER=VALUE"),
// and the group is LABEL. A point labelled otherwise (an imported client's
// benchmark, a relabelled run) names itself, not the group: the group's name
// stands in.
std::string groupLabel(const std::optional<RunInfo>& first, const SweepGroup& g,
                       const std::string& value) {
    if (!first) return g.group;
    const std::string& label = first->label;
    const std::string point = g.parameter + "=" + value;
    const std::string prefix = point + " · ", suffix = " " + point;
    if (label.size() > prefix.size() && label.compare(0, prefix.size(), prefix) == 0)
        return label.substr(prefix.size());
    if (label.size() > suffix.size() &&
        label.compare(label.size() - suffix.size(), suffix.size(), suffix) == 0)
        return label.substr(0, label.size() - suffix.size());
    return g.group;
}

std::vector<SweepGroup> listSweepGroups(Store& store) {
    std::vector<SweepGroup> groups;
    std::map<std::string, std::size_t> byName;
    std::map<RunId, int> index;
    for (const auto& [run, name] : runsWithProperty(store, sweep_keys::kGroup)) {
        auto props = runProperties(store, run);
        auto [it, fresh] = byName.emplace(name, groups.size());
        if (fresh) {
            SweepGroup g;
            g.group = name;
            g.parameter = props[sweep_keys::kParameter];
            g.plannedPoints = static_cast<int>(numberOr(props, sweep_keys::kPoints, 0));
            g.label = groupLabel(findRun(store, run), g, props[sweep_keys::kValue]);
            groups.push_back(std::move(g));
        }
        groups[it->second].runs.push_back(run);
        index[run] = static_cast<int>(numberOr(props, sweep_keys::kIndex, 0));
    }
    for (auto& g : groups)
        std::stable_sort(g.runs.begin(), g.runs.end(),
                         [&](RunId a, RunId b) { return index[a] < index[b]; });
    return groups;
}

std::optional<std::string> sweepGroupOf(Store& store, RunId run) {
    auto props = runProperties(store, run);
    auto it = props.find(sweep_keys::kGroup);
    if (it == props.end()) return std::nullopt;
    return it->second;
}

std::optional<SweepGroup> findSweepGroup(Store& store, const std::string& nameOrRun) {
    auto groups = listSweepGroups(store);
    for (auto& g : groups)
        if (g.group == nameOrRun) return g;
    if (!nameOrRun.empty() && std::all_of(nameOrRun.begin(), nameOrRun.end(), ::isdigit)) {
        RunId run = std::stoll(nameOrRun);
        for (auto& g : groups)
            if (std::find(g.runs.begin(), g.runs.end(), run) != g.runs.end()) return g;
    }
    return std::nullopt;
}

SweepTable sweepTable(Store& store, const SweepGroup& group) {
    SweepTable t;
    t.group = group;
    if (group.runs.empty()) return t;
    auto first = runProperties(store, group.runs.front());
    if (auto v = numberProperty(first, sweep_keys::kTtftTarget)) t.targets.ttftMs = v;
    if (auto v = numberProperty(first, sweep_keys::kTpotTarget)) t.targets.tpotMs = v;
    if (auto v = numberProperty(first, sweep_keys::kE2elTarget)) t.targets.e2elMs = v;
    if (!t.targets.any()) t.targets = contractTargets(store, group.runs.front());
    t.gpus = std::max(1, static_cast<int>(numberOr(first, sweep_keys::kGpus, 1)));
    for (RunId run : group.runs) {
        auto props = runProperties(store, run);
        SweepPoint pt;
        pt.run = run;
        pt.index = static_cast<int>(numberOr(props, sweep_keys::kIndex, 0));
        pt.value = props[sweep_keys::kValue];
        pt.numericValue = pt.value == "inf" ? std::numeric_limits<double>::infinity()
                                            : numberOr(props, sweep_keys::kValue, 0);
        pt.status = requireRun(store, run).status;
        auto r = runLatency(store, run, t.targets);
        pt.completed = static_cast<int>(r.requests.size());
        pt.failed = r.failedRequests;
        pt.outputThroughput = r.outputThroughput;
        pt.outputThroughputPerGpu = r.outputThroughput / t.gpus;
        pt.requestThroughput = r.requestThroughput;
        pt.ttftP50Ms = p(r.ttftMs, 50);
        pt.ttftP99Ms = p(r.ttftMs, 99);
        pt.tpotP50Ms = p(r.tpotMs, 50);
        pt.tpotP99Ms = p(r.tpotMs, 99);
        pt.requestGoodput = r.requestGoodput;
        if (t.targets.any()) {
            auto within = [](std::optional<double> target, std::optional<double> v) {
                return !target || (v && *v <= *target);
            };
            pt.meetsTargets =
                pt.completed > 0 && pt.failed == 0 && within(t.targets.ttftMs, pt.ttftP99Ms) &&
                within(t.targets.tpotMs, pt.tpotP99Ms) && within(t.targets.e2elMs, p(r.e2elMs, 99));
        }
        t.points.push_back(std::move(pt));
    }
    return t;
}

std::vector<SweepTable> sweepTablesOf(Store& store, const std::vector<RunId>& runs) {
    std::vector<SweepTable> tables;
    std::vector<std::string> seen;
    for (RunId id : runs) {
        auto name = sweepGroupOf(store, id);
        if (!name || std::find(seen.begin(), seen.end(), *name) != seen.end()) continue;
        seen.push_back(*name);
        if (auto group = findSweepGroup(store, *name)) tables.push_back(sweepTable(store, *group));
    }
    return tables;
}

std::string sweepContractLine(const SweepTable& table) {
    const auto& tg = table.targets;
    if (!tg.any() || table.points.empty()) return {};
    std::string targets;
    auto add = [&](const char* name, std::optional<double> v) {
        if (!v) return;
        if (!targets.empty()) targets += " / ";
        targets += std::string("p99 ") + name + " \u2264 " + ms(*v) + " ms";
    };
    add("TTFT", tg.ttftMs);
    add("TPOT", tg.tpotMs);
    add("E2EL", tg.e2elMs);
    std::vector<const SweepPoint*> ordered;
    for (const auto& pt : table.points)
        ordered.push_back(&pt);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](auto* a, auto* b) { return a->numericValue < b->numericValue; });
    const SweepPoint* last = nullptr;
    for (const auto* pt : ordered) {
        if (!pt->meetsTargets.value_or(false)) break;
        last = pt;
    }
    const std::string parameter = sweepParameterName(table.group.parameter);
    std::string line =
        "meets " + targets + (last ? " up to " + parameter + " " + last->value : " at no point");
    if (last == ordered.back()) return line + " (every point)";
    // Why the next point misses: a failed request fails the contract as
    // surely as a slow one, and the line should not leave the reader guessing.
    const SweepPoint* miss =
        last ? *(std::find(ordered.begin(), ordered.end(), last) + 1) : ordered.front();
    std::vector<std::string> why;
    if (miss->completed == 0) why.push_back("no request completed");
    if (miss->failed > 0)
        why.push_back(std::to_string(miss->failed) + " failed request" +
                      (miss->failed > 1 ? "s" : ""));
    auto over = [&](const char* name, std::optional<double> target, std::optional<double> v) {
        if (target && v && *v > *target)
            why.push_back(std::string("p99 ") + name + " " + ms(*v) + " ms");
    };
    over("TTFT", tg.ttftMs, miss->ttftP99Ms);
    over("TPOT", tg.tpotMs, miss->tpotP99Ms);
    if (why.empty()) why.push_back("p99 E2EL");
    line += "; " + parameter + " " + miss->value + " misses:";
    for (std::size_t i = 0; i < why.size(); ++i)
        line += (i ? ", " : " ") + why[i];
    return line;
}

}  // namespace ws
