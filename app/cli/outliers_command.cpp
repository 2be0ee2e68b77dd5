// outliers RUN: the slowest inter-token latencies of a served run (at or above
// its p99) and what the server did meanwhile: engine steps, prefill, kernels
// and the gaps between them (analysis/itl_outliers.h), as text or JSON.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/engine_steps.h"
#include "analysis/itl_outliers.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::cli {

namespace {

using json = nlohmann::ordered_json;

std::string percent(double part, double whole) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(0) << (whole > 0 ? 100 * part / whole : 0) << " %";
    return out.str();
}

json splitJson(const ItlSplit& s) {
    const double total = s.totalNs();
    auto share = [&](double v) { return total > 0 ? v / total : 0.0; };
    return {{"total_ms", total / 1e6},
            {"prefill_ms", s.prefillNs / 1e6},
            {"kernel_ms", s.kernelNs / 1e6},
            {"launch_gap_ms", s.launchGapNs / 1e6},
            {"host_gap_ms", s.hostGapNs / 1e6},
            {"prefill_share", share(s.prefillNs)},
            {"kernel_share", share(s.kernelNs)},
            {"launch_gap_share", share(s.launchGapNs)},
            {"host_gap_share", share(s.hostGapNs)}};
}

void printSplitRow(std::ostream& out, const std::string& what, const ItlSplit& s) {
    const double t = s.totalNs();
    out << std::left << std::setw(26) << what << std::right << std::setw(10)
        << percent(s.prefillNs, t) << std::setw(10) << percent(s.kernelNs, t) << std::setw(12)
        << percent(s.launchGapNs, t) << std::setw(10) << percent(s.hostGapNs, t) << '\n';
}

void printReport(std::ostream& out, RunId run, const ItlOutlierReport& r,
                 const std::string& whyNoSteps) {
    out << std::fixed << std::setprecision(3);
    out << "run " << run << ": " << r.itlCount << " ITLs, p50 " << r.p50Ms << " ms, p99 " << r.p99Ms
        << " ms; " << r.outlierCount << " at or above p99; " << r.engineSteps << " engine steps\n";
    if (r.engineSteps == 0)
        out << "no engine.step ranges in this run: every ITL counts as host gap (" << whyNoSteps
            << ")\n";
    else if (!r.stepsDescribed)
        out << "the engine steps carry no prefill counts (docs/serving.md names the fields): "
               "prefill interference cannot be told apart\n";
    out << "\nwhere the time went        prefill    kernels  launch gap  host gap\n";
    printSplitRow(out, "every ITL", r.allTotal);
    printSplitRow(out, "ITLs at or above p99", r.outlierTotal);
    if (r.outliers.empty()) return;
    out << "\nslowest ITLs\n"
        << std::right << std::setw(8) << "request" << std::setw(7) << "token" << std::setw(10)
        << "ITL ms" << std::setw(11) << "vs p50" << std::setw(7) << "steps" << std::setw(9)
        << "prefill" << std::setw(7) << "batch"
        << "  prefill/kernels/launch gap/host gap\n";
    for (const auto& o : r.outliers) {
        const double t = o.split.totalNs();
        std::ostringstream times;
        times << percent(o.split.prefillNs, t) << " / " << percent(o.split.kernelNs, t) << " / "
              << percent(o.split.launchGapNs, t) << " / " << percent(o.split.hostGapNs, t);
        std::ostringstream ratio;
        ratio << std::fixed << std::setprecision(1) << (r.p50Ms > 0 ? o.ms() / r.p50Ms : 0) << "x";
        out << std::setw(8) << o.requestId << std::setw(7) << o.tokenIndex << std::setw(10)
            << o.ms() << std::setw(11) << ratio.str() << std::setw(7) << o.steps << std::setw(9)
            << o.prefillTokens << std::setw(7) << o.maxRunning << "  " << times.str() << '\n';
    }
    out << "(prefill: tokens of prompts run by the steps the ITL spans; batch: the most "
           "requests one of them ran)\n";
}

}  // namespace

int cmdOutliers(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "top"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    auto top = parseInteger("top", args.valueOr("top", "10"), 1, 100000);
    auto opened = openStore(args);
    requireRun(*opened, id);
    auto r = itlOutliers(*opened, id, static_cast<std::size_t>(top));
    if (!args.flag("json")) {
        printReport(std::cout, id, r, r.engineSteps == 0 ? whyNoEngineSteps(*opened, id) : "");
        return 0;
    }
    json j = {{"run", id},
              {"itl_count", r.itlCount},
              {"engine_steps", r.engineSteps},
              {"steps_described", r.stepsDescribed},
              {"itl_p50_ms", r.p50Ms},
              {"itl_p99_ms", r.p99Ms},
              {"outlier_count", r.outlierCount},
              {"all", splitJson(r.allTotal)},
              {"outliers_total", splitJson(r.outlierTotal)}};
    j["outliers"] = json::array();
    for (const auto& o : r.outliers) {
        json row = {{"request_id", o.requestId},
                    {"token_index", o.tokenIndex},
                    {"start_ns", o.startNs},
                    {"end_ns", o.endNs},
                    {"itl_ms", o.ms()},
                    {"steps", o.steps},
                    {"prefill_tokens", o.prefillTokens},
                    {"max_running", o.maxRunning}};
        row["split"] = splitJson(o.split);
        j["outliers"].push_back(std::move(row));
    }
    std::cout << j.dump(2) << '\n';
    return 0;
}

}  // namespace ws::cli
