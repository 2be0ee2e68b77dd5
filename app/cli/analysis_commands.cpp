// stats and import: latency statistics of a run, and runs from peer tools.
#include <charconv>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/cold_start.h"
#include "analysis/energy_split.h"
#include "analysis/run_latency.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/goodput_arg.h"
#include "cli/open_store.h"
#include "io/latency_json.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

std::vector<double> parsePercentiles(const std::string& text) {
    std::vector<double> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        double p = 0;
        auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), p);
        if (ec != std::errc() || end != item.data() + item.size() || !(p >= 0 && p <= 100))
            throw UsageError("--percentiles: '" + item + "' is not a number from 0 to 100");
        out.push_back(p);
    }
    if (out.empty()) throw UsageError("--percentiles needs at least one value");
    return out;
}

nlohmann::ordered_json energyPartsJson(const EnergySplit& s, const std::vector<EnergyPart>& parts) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& p : parts)
        out.push_back({{"label", p.label},
                       {"joules", p.joules},
                       {"bound_joules", p.boundJ},
                       {"j_per_output_token", s.perToken(p.joules)},
                       {"bound_j_per_output_token", s.perToken(p.boundJ)}});
    return out;
}

nlohmann::ordered_json energySplitJson(const std::optional<EnergySplit>& s,
                                       const std::string& why) {
    if (!s) return {{"why_not", why}};
    return {{"total_joules", s->totalJ},
            {"output_tokens", s->outputTokens},
            {"reading_interval_ms", s->intervalMs},
            {"power_range_w", {s->minPowerW, s->maxPowerW}},
            {"phase_source", s->phaseSource},
            {"why_no_phases", s->whyNoPhases},
            {"phases", energyPartsJson(*s, s->phases)},
            {"kernel_classes", energyPartsJson(*s, s->classes)}};
}

}  // namespace

int cmdStats(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "percentiles", "goodput", "metrics"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    auto percentiles = parsePercentiles(args.valueOr("percentiles", "90,99"));
    // --metrics (vLLM's --percentile-metrics): the rows of the table, in order.
    std::vector<std::string> metrics;
    {
        std::stringstream list(args.valueOr("metrics", "ttft,tpot,itl,e2el"));
        for (std::string m; std::getline(list, m, ',');) {
            if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el")
                throw UsageError("--metrics: '" + m + "' (ttft, tpot, itl, e2el)");
            metrics.push_back(m);
        }
        if (metrics.empty()) throw UsageError("--metrics: no metric (ttft, tpot, itl, e2el)");
    }
    auto opened = openStore(args);
    Store& store = *opened;
    requireRun(store, id);
    auto targets =
        args.value("goodput") ? parseGoodput(*args.value("goodput")) : contractTargets(store, id);
    auto report = runLatency(store, id, targets);
    auto j = latencyJson(report, percentiles);
    auto cold = checkColdStart(store, id);
    std::string noSplit;
    const auto energy = report.energyPerOutputTokenJ ? energySplitOf(store, id, noSplit)
                                                     : std::optional<EnergySplit>{};
    if (args.flag("json")) {
        if (report.energyPerOutputTokenJ) j["energy_split"] = energySplitJson(energy, noSplit);
        auto hits = nlohmann::ordered_json::array();
        for (const auto& h : cold.hits)
            hits.push_back({{"request_id", h.requestId},
                            {"ttft_ns", h.ttftNs},
                            {"start_up_ns", h.coldNs},
                            {"kinds", h.kinds},
                            {"calls", h.calls}});
        j["cold_start"] = {{"checked", cold.checked}, {"why_not", cold.why}, {"requests", hits}};
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return 0;
    }
    if (report.requests.empty()) {
        std::cout << "run " << id << " has no requests with tokens: no latency statistics "
                  << "(see docs/token-conventions.md)\n";
        return 0;
    }
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "requests " << report.requests.size() << " completed, " << report.failedRequests
              << " failed, over " << report.durationS << " s\n";
    std::cout << "tokens " << report.totalInputTokens << " input, " << report.totalOutputTokens
              << " output; up to " << report.maxConcurrency << " requests at once\n";
    std::cout << "throughput " << report.requestThroughput << " req/s, " << report.outputThroughput
              << " output tok/s (peak ";
    if (report.requestsWithoutTokenTimes > 0)
        std::cout << "not known: no per-token times";
    else
        std::cout << report.peakOutputThroughput << " in a second";
    std::cout << "), " << report.totalTokenThroughput << " total tok/s\n";
    if (report.requestGoodput) std::cout << "goodput " << *report.requestGoodput << " req/s\n";
    if (report.energyPerOutputTokenJ)
        std::cout << "energy " << formatFixed(*report.energyPerOutputTokenJ, 3)
                  << " J per output token\n";
    if (energy) {
        if (!energy->phases.empty())
            std::cout << "  by phase (" << energy->phaseSource
                      << "): " << describeEnergyParts(*energy, energy->phases) << '\n';
        else
            std::cout << "  by phase: not split (" << energy->whyNoPhases << ")\n";
        std::cout << "  by kernel class: " << describeEnergyParts(*energy, energy->classes)
                  << "\n  (" << describeEnergyModel(*energy) << ")\n";
    }
    std::cout << '\n'
              << std::left << std::setw(8) << "metric" << std::right << std::setw(12) << "mean ms"
              << std::setw(12) << "median" << std::setw(12) << "std";
    for (double p : percentiles) {
        std::ostringstream name;
        name << "p" << p;
        std::cout << std::setw(12) << name.str();
    }
    std::cout << '\n';
    for (const std::string& n : metrics) {
        if (n == "itl" && report.itlMs.empty() && report.requestsWithoutTokenTimes > 0) {
            std::cout << std::left << std::setw(8) << n << std::right
                      << "  none: the source kept only each request's first and last token "
                         "times\n";
            continue;
        }
        std::cout << std::left << std::setw(8) << n << std::right << std::setw(12)
                  << j["mean_" + n + "_ms"].get<double>() << std::setw(12)
                  << j["median_" + n + "_ms"].get<double>() << std::setw(12)
                  << j["std_" + n + "_ms"].get<double>();
        for (double p : percentiles) {
            std::ostringstream key;
            key << "p" << p << "_" << n << "_ms";
            std::cout << std::setw(12) << j[key.str()].get<double>();
        }
        std::cout << '\n';
    }
    // An imported client's figures are defined as that client defines them.
    auto props = runProperties(store, id);
    if (auto it = props.find("client.definitions"); it != props.end())
        std::cout << "\nnote on " << props["client"] << "'s definitions: " << it->second << '\n';
    if (auto it = props.find("client.kept_requests"); it != props.end())
        std::cout << "warning: the file keeps " << it->second
                  << " requests: these statistics are of those kept, and the throughput counts "
                     "them alone\n";
    // A TTFT that timed module loading or JIT measures start-up, not serving.
    for (const auto& h : cold.hits)
        std::cout << "warning: request " << h.requestId << "'s TTFT " << formatDuration(h.ttftNs)
                  << " includes " << formatDuration(h.coldNs) << " of " << h.kinds << " ("
                  << h.calls << ")\n";
    if (!cold.hits.empty())
        std::cout << "  warm up before measuring: an untimed first request, or "
                     "CUDA_MODULE_LOADING=EAGER\n";
    return 0;
}

}  // namespace ws::cli
