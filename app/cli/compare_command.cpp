// warpscope-cli compare: runs against a baseline, with confidence intervals;
// series of repeated runs against a baseline series.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/compare.h"
#include "analysis/run_latency.h"
#include "analysis/series_compare.h"
#include "analysis/statistics.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/text_table.h"
#include "cli/window_arg.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::cli {

namespace {
nlohmann::ordered_json optJson(const std::optional<double>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json metricJson(const MetricDelta& d) {
    return {{"metric", d.metric},
            {"base", d.base},
            {"candidate", d.candidate},
            {"delta", d.delta},
            {"speedup", d.speedup},
            {"ci95_low", optJson(d.ciLow)},
            {"ci95_high", optJson(d.ciHigh)},
            {"verdict", toString(d.verdict)}};
}

const char* presence(KernelDelta::Presence p) {
    switch (p) {
        case KernelDelta::Presence::New:
            return "new";
        case KernelDelta::Presence::Vanished:
            return "vanished";
        default:
            return "both";
    }
}

// ---- Series: repeated runs of one workload and settings ----

constexpr const char* kPooledLabel = "pooled (ignores run-to-run variance)";

std::string joinIds(const std::vector<RunId>& ids) {
    std::string text;
    for (auto id : ids)
        text += (text.empty() ? "" : ",") + std::to_string(id);
    return text;
}

// What makes two runs repeats of each other, for --series: the same stored
// workload (name, kind and config text; the command line for a run recorded
// without a config), the same variant, the same GPU (its UUID, else its name)
// and the same capture settings (a counter pass replays kernels, a sampling
// interval changes what runs beside them).
struct SeriesKey {
    std::optional<WorkloadInfo> workload;
    std::string command;
    std::string variant;
    std::string gpu;
    std::map<std::string, std::string> capture;
    bool operator==(const SeriesKey& o) const {
        auto same = [](const std::optional<WorkloadInfo>& a, const std::optional<WorkloadInfo>& b) {
            if (!a || !b) return !a && !b;
            return a->name == b->name && a->kind == b->kind && a->configText == b->configText;
        };
        return same(workload, o.workload) && command == o.command && variant == o.variant &&
               gpu == o.gpu && capture == o.capture;
    }
};

SeriesKey seriesKey(Store& store, const RunInfo& run) {
    SeriesKey k;
    k.workload = runWorkload(store, run.id);
    if (!k.workload) k.command = run.command;
    k.variant = run.variant;
    if (auto d = runDevice(store, run.id)) k.gpu = d->uuid.empty() ? d->name : d->uuid;
    for (const auto& [key, value] : runProperties(store, run.id))
        if (key.rfind("capture.", 0) == 0) k.capture.emplace(key, value);
    return k;
}

// "6,7,8" as given, or with --series one run id grown to its series: that run
// and every finished (ok) run in the store with the same key.
std::vector<RunId> seriesArg(Store& store, const std::string& text, bool expand) {
    std::vector<RunId> ids;
    std::size_t from = 0;
    while (true) {
        auto comma = text.find(',', from);
        ids.push_back(parseRunId(text.substr(from, comma - from)));
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (std::find(ids.begin(), ids.begin() + long(i), ids[i]) != ids.begin() + long(i))
            throw UsageError("run " + std::to_string(ids[i]) + " is listed twice in '" + text +
                             "'");
        if (!findRun(store, ids[i]))
            throw UsageError("run " + std::to_string(ids[i]) +
                             (ids.size() > 1 ? " of the series '" + text + "'" : std::string()) +
                             " is not in " + store.path());
    }
    if (!expand || ids.size() > 1) return ids;
    const auto key = seriesKey(store, requireRun(store, ids[0]));
    for (const auto& run : listRuns(store))
        if (run.id != ids[0] && run.status == RunStatus::Ok && seriesKey(store, run) == key)
            ids.push_back(run.id);
    std::sort(ids.begin(), ids.end());
    return ids;
}

struct RunMetrics {
    std::vector<double> ttft, tpot, itl, e2el;
};

struct SeriesMetric {
    const char* name;
    std::vector<double> RunMetrics::*samples;
};
constexpr SeriesMetric kSeriesMetrics[] = {{"mean_ttft_ms", &RunMetrics::ttft},
                                           {"mean_tpot_ms", &RunMetrics::tpot},
                                           {"mean_itl_ms", &RunMetrics::itl},
                                           {"mean_e2el_ms", &RunMetrics::e2el}};

nlohmann::ordered_json partsJson(const VarianceParts& p) {
    return {{"runs", p.runs},
            {"requests_per_run", p.requestsPerRun},
            {"between_run_variance", p.betweenRun},
            {"within_run_variance", p.withinRun}};
}

nlohmann::ordered_json seriesJson(const SeriesDelta& d) {
    auto optInt = [](const std::optional<int>& v) {
        return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    return {{"metric", d.metric},
            {"base", d.base},
            {"candidate", d.candidate},
            {"delta", d.delta},
            {"ci95_low", optJson(d.ciLow)},
            {"ci95_high", optJson(d.ciHigh)},
            {"verdict", toString(d.verdict)},
            {"standard_error", optJson(d.standardError)},
            {"degrees_of_freedom", optJson(d.degreesOfFreedom)},
            {"mde", optJson(d.minimumDetectableEffect)},
            {"target", d.target},
            {"runs_needed", optInt(d.runsNeeded)},
            {"requests_per_run_needed", optInt(d.requestsPerRunNeeded)},
            {"base_runs", d.baseRuns},
            {"candidate_runs", d.candidateRuns},
            {"base_requests", d.baseRequests},
            {"candidate_requests", d.candidateRequests},
            {"variance",
             {{"base", partsJson(d.baseParts)}, {"candidate", partsJson(d.candidateParts)}}},
            {"pooled",
             {{"label", kPooledLabel},
              {"base", d.pooledBase},
              {"candidate", d.pooledCandidate},
              {"delta", d.pooledDelta},
              {"ci95_low", optJson(d.pooledCiLow)},
              {"ci95_high", optJson(d.pooledCiHigh)},
              {"verdict", toString(d.pooledVerdict)}}},
            {"notes", d.notes}};
}

void printSeriesDelta(const SeriesDelta& d, const std::optional<double>& resolvePercent) {
    // ITL's samples are the gaps between tokens, the others' are requests.
    const bool gaps = d.metric == "mean_itl_ms";
    const std::string one = gaps ? "token gap" : "request", many = one + "s";
    std::ostringstream line;
    line << std::fixed << std::setprecision(3) << "  " << std::left << std::setw(14) << d.metric
         << std::right << std::setw(10) << d.base << " -> " << std::setw(10) << d.candidate
         << "  delta " << std::showpos << d.delta << std::noshowpos;
    if (d.ciLow) line << "  95% CI [" << *d.ciLow << ", " << *d.ciHigh << "]";
    line << "  " << toString(d.verdict) << '\n';
    if (d.minimumDetectableEffect) {
        line << "      MDE " << *d.minimumDetectableEffect << " at " << d.baseRuns << " and "
             << d.candidateRuns << " runs";
        if (d.target > 0) {
            line << "; to resolve ";
            if (resolvePercent) line << std::defaultfloat << *resolvePercent << "% = ";
            line << std::fixed << d.target << ": ";
            if (d.runsNeeded)
                line << *d.runsNeeded << " runs per side at these " << many << " per run";
            else
                line << "over a million runs per side";
            if (d.requestsPerRunNeeded)
                line << ", or " << *d.requestsPerRunNeeded << ' '
                     << (*d.requestsPerRunNeeded == 1 ? one : many)
                     << " per run at these run counts";
            else
                line << "; more " << many << " per run alone never get there (run-to-run variance)";
        }
        line << '\n';
    }
    line << "      " << kPooledLabel << ": delta " << std::showpos << d.pooledDelta
         << std::noshowpos;
    if (d.pooledCiLow) line << "  95% CI [" << *d.pooledCiLow << ", " << *d.pooledCiHigh << "]";
    line << "  " << toString(d.pooledVerdict) << '\n';
    for (const auto& n : d.notes)
        line << "      note: " << n << '\n';
    std::cout << line.str();
}

int compareSeriesCommand(Store& store, const Args& args) {
    if (args.value("top") || args.value("window"))
        throw UsageError(
            "--top and --window apply to the kernel table of run comparisons; a series "
            "comparison covers latency only");
    std::optional<double> resolvePercent;
    if (auto v = args.value("resolve")) {
        resolvePercent = parseFiniteNumber("resolve", *v);
        if (*resolvePercent <= 0) throw UsageError("--resolve must be a percentage above 0");
    }
    const bool expand = args.flag("series");
    std::vector<std::vector<RunId>> sides;
    for (const auto& text : args.positional())
        sides.push_back(seriesArg(store, text, expand));
    const auto& base = sides[0];
    for (std::size_t i = 1; i < sides.size(); ++i)
        for (auto id : sides[i])
            if (std::find(base.begin(), base.end(), id) != base.end())
                throw UsageError(
                    "run " + std::to_string(id) + " is in both the baseline series (" +
                    joinIds(base) + ") and the candidate series (" + joinIds(sides[i]) +
                    "): a series comparison needs separate runs on each side" +
                    (expand ? " (--series gathered runs of the same workload and settings)" : ""));

    std::map<RunId, RunMetrics> metrics;  // each run read once
    auto metricsOf = [&](RunId id) -> const RunMetrics& {
        auto it = metrics.find(id);
        if (it != metrics.end()) return it->second;
        auto l = runLatency(store, id, contractTargets(store, id));
        return metrics[id] = RunMetrics{l.ttftMs, l.tpotMs, l.itlMs, l.e2elMs};
    };
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (std::size_t i = 1; i < sides.size(); ++i) {
        const auto& cand = sides[i];
        std::vector<std::string> notes;
        std::vector<SeriesDelta> deltas;
        unsigned seed = 12345;
        for (const auto& m : kSeriesMetrics) {
            RunSamples b, c;
            std::vector<RunId> without;
            for (auto id : base)
                if (const auto& v = metricsOf(id).*m.samples; !v.empty())
                    b.push_back(v);
                else
                    without.push_back(id);
            for (auto id : cand)
                if (const auto& v = metricsOf(id).*m.samples; !v.empty())
                    c.push_back(v);
                else
                    without.push_back(id);
            if (!without.empty())
                notes.push_back(std::string(m.name) + ": run(s) " + joinIds(without) +
                                " have no samples and are left out");
            if (b.empty() || c.empty()) continue;
            SeriesCompareOptions options;
            options.seed = seed++;
            if (resolvePercent) {  // a share of the baseline's estimate, the mean of run means
                double sum = 0;
                for (const auto& run : b)
                    sum += stats::summarize(run).mean;
                options.target = *resolvePercent / 100 * sum / static_cast<double>(b.size());
            }
            auto d = compareSeries(m.name, b, c, options);
            deltas.push_back(std::move(d));
        }
        if (deltas.empty())
            notes.push_back("latency: one of the series has no requests with tokens");
        if (args.flag("json")) {
            nlohmann::ordered_json j = {
                {"mode", "series"},
                {"base", base},
                {"candidate", cand},
                {"interval",
                 "hierarchical bootstrap (runs with replacement, then requests within each run), "
                 "bootstrap SE corrected for few runs, Welch t"}};
            j["latency"] = nlohmann::ordered_json::array();
            for (const auto& d : deltas)
                j["latency"].push_back(seriesJson(d));
            j["notes"] = notes;
            all.push_back(j);
            continue;
        }
        std::cout << "series " << joinIds(cand) << " against baseline series " << joinIds(base)
                  << " (" << cand.size() << " and " << base.size()
                  << " runs; 95% intervals resample runs, then requests within each run;\n"
                     "  MDE: the smallest true difference a two-sided 5% test finds 80% of the "
                     "time)\n";
        for (const auto& d : deltas)
            printSeriesDelta(d, resolvePercent);
        for (const auto& n : notes)
            std::cout << "  note: " << n << '\n';
    }
    if (args.flag("json"))
        std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return 0;
}
}  // namespace

int cmdCompare(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json", "series"}, {"db", "top", "window", "resolve"}, 2, 64});
    auto opened = openStore(args);
    Store& store = *opened;
    if (args.flag("series") ||
        std::any_of(args.positional().begin(), args.positional().end(),
                    [](const std::string& a) { return a.find(',') != std::string::npos; }))
        return compareSeriesCommand(store, args);
    if (args.value("resolve"))
        throw UsageError("--resolve applies to series comparisons (RUN,RUN,... or --series)");
    auto base = parseRunId(args.positional()[0]);
    requireRun(store, base);
    auto window = parseWindowArg(args, WindowChoice::Kind::Requests);
    auto top = static_cast<std::size_t>(
        args.value("top") ? parseInteger("top", *args.value("top"), 1, 100000) : 15);
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (std::size_t i = 1; i < args.positional().size(); ++i) {
        auto cand = parseRunId(args.positional()[i]);
        requireRun(store, cand);
        auto c = compareRuns(store, base, cand, kComparisonResamples, window);
        if (args.flag("json")) {
            nlohmann::ordered_json j = {{"base", base}, {"candidate", cand}};
            j["latency"] = nlohmann::ordered_json::array();
            for (const auto& d : c.latency)
                j["latency"].push_back(metricJson(d));
            j["kernel_window"] = {
                {"spec", toSpec(window)}, {"base", c.baseWindow}, {"candidate", c.candidateWindow}};
            j["total_kernel_time"] = c.totalKernelTime ? metricJson(*c.totalKernelTime) : nullptr;
            j["kernels"] = nlohmann::ordered_json::array();
            for (const auto& k : c.kernels)
                j["kernels"].push_back(
                    {{"name", k.name},
                     {"presence", presence(k.presence)},
                     {"launches", {{"base", k.baseLaunches}, {"candidate", k.candidateLaunches}}},
                     {"total_ns",
                      {{"base", k.baseTotalNs},
                       {"candidate", k.candidateTotalNs},
                       {"delta", k.candidateTotalNs - k.baseTotalNs},
                       {"ci95_low", optJson(k.totalCiLow)},
                       {"ci95_high", optJson(k.totalCiHigh)},
                       {"verdict", toString(k.totalVerdict)}}},
                     {"per_launch_ns",
                      {{"base", k.baseMeanNs},
                       {"candidate", k.candidateMeanNs},
                       {"delta", k.candidateMeanNs - k.baseMeanNs},
                       {"ci95_low", optJson(k.ciLow)},
                       {"ci95_high", optJson(k.ciHigh)},
                       {"verdict", toString(k.perLaunchVerdict)}}}});
            j["memory"] = nlohmann::ordered_json::array();
            for (const auto& m : c.memory)
                j["memory"].push_back({{"name", m.name},
                                       {"base", optJson(m.base)},
                                       {"candidate", optJson(m.candidate)}});
            j["quality"] = nlohmann::ordered_json::array();
            for (const auto& q : c.quality) {
                auto side = [](const std::optional<QualityRecord>& r) -> nlohmann::ordered_json {
                    if (!r) return nullptr;
                    return {{"token_agreement", r->tokenAgreement},
                            {"max_logit_error", r->maxLogitError},
                            {"tolerance", r->tolerance},
                            {"passed", r->passed}};
                };
                j["quality"].push_back(
                    {{"check", q.check}, {"base", side(q.base)}, {"candidate", side(q.candidate)}});
            }
            j["notes"] = c.notes;
            all.push_back(j);
            continue;
        }
        std::cout << "run " << cand << " against baseline " << base << "\n";
        std::cout << std::fixed << std::setprecision(3);
        for (const auto& d : c.latency) {
            std::cout << "  " << std::left << std::setw(20) << d.metric << std::right
                      << std::setw(11) << d.base << " -> " << std::setw(11) << d.candidate << "  x"
                      << std::setprecision(2) << d.speedup << std::setprecision(3);
            if (d.ciLow) std::cout << "  delta 95% CI [" << *d.ciLow << ", " << *d.ciHigh << "]";
            std::cout << "  " << toString(d.verdict) << '\n';
        }
        if (c.totalKernelTime)
            std::cout << "  total kernel time  " << c.totalKernelTime->base << " ms -> "
                      << c.totalKernelTime->candidate << " ms  x" << std::setprecision(2)
                      << c.totalKernelTime->speedup << '\n';
        if (!c.kernels.empty())
            std::cout << "  kernels, each quantity with its own verdict (changes under "
                      << kPracticalChange * 100 << " % are within noise); window: baseline "
                      << c.baseWindow << ", candidate " << c.candidateWindow << '\n';
        TextTable kernels(
            {"launches", "total µs (delta, verdict)", "per launch µs (delta, verdict)", "kernel"});
        for (std::size_t k = 0; k < c.kernels.size() && k < top; ++k) {
            const auto& d = c.kernels[k];
            std::ostringstream launches, total, perLaunch;
            launches << d.baseLaunches << " -> " << d.candidateLaunches;
            total << std::fixed << std::setprecision(1) << d.baseTotalNs / 1e3 << " -> "
                  << d.candidateTotalNs / 1e3;
            perLaunch << std::fixed << std::setprecision(2);
            if (d.presence == KernelDelta::Presence::Both) {
                total << " (" << std::showpos << (d.candidateTotalNs - d.baseTotalNs) / 1e3
                      << std::noshowpos << ", " << toString(d.totalVerdict) << ")";
                perLaunch << d.baseMeanNs / 1e3 << " -> " << d.candidateMeanNs / 1e3 << " ("
                          << std::showpos << (d.candidateMeanNs - d.baseMeanNs) / 1e3
                          << std::noshowpos << ", " << toString(d.perLaunchVerdict) << ")";
            } else {
                // A kernel in one run only: its own per-launch time, never "0".
                total << " (" << presence(d.presence) << ")";
                if (d.candidateLaunches == 0)
                    perLaunch << d.baseMeanNs / 1e3 << " -> -";
                else
                    perLaunch << "- -> " << d.candidateMeanNs / 1e3;
            }
            kernels.add({launches.str(), total.str(), perLaunch.str(), d.name});
        }
        if (!c.kernels.empty()) {
            std::ostringstream table;
            kernels.print(table);
            std::istringstream lines(table.str());
            for (std::string line; std::getline(lines, line);)
                std::cout << "    " << line << '\n';
        }
        for (const auto& m : c.memory) {
            auto gib = [](const std::optional<double>& v) {
                std::ostringstream s;
                if (v)
                    s << std::fixed << std::setprecision(3) << *v / 1073741824.0 << " GiB";
                else
                    s << "-";
                return s.str();
            };
            std::cout << "  " << std::left << std::setw(26) << m.name << std::right << std::setw(12)
                      << gib(m.base) << " -> " << std::setw(12) << gib(m.candidate) << '\n';
        }
        for (const auto& q : c.quality) {
            auto side = [](const std::optional<QualityRecord>& r) {
                std::ostringstream s;
                if (!r) return std::string("-");
                s << std::setprecision(3) << "agreement " << r->tokenAgreement << ", error "
                  << r->maxLogitError << (r->passed ? " (passed)" : " (FAILED)");
                return s.str();
            };
            std::cout << "  quality: " << side(q.base) << " -> " << side(q.candidate) << "  ["
                      << q.check << "]\n";
        }
        for (const auto& n : c.notes)
            std::cout << "  note: " << n << '\n';
    }
    if (args.flag("json"))
        std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return 0;
}

}  // namespace ws::cli
