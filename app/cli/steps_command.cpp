// steps RUN: a served run's engine steps by kind (decode-only, mixed, prefill),
// and the kernel table of one kind (--kind) or of each.
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/engine_step_sol.h"
#include "analysis/engine_steps.h"
#include "analysis/gpu_metric_summary.h"
#include "analysis/token_steps.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/text_table.h"
#include "model/gpu_metrics.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

using json = nlohmann::ordered_json;

json kindJson(const StepKindSummary& k, std::size_t top) {
    json kernels = json::array();
    for (std::size_t i = 0; i < k.kernels.size() && i < top; ++i) {
        const auto& s = k.kernels[i];
        kernels.push_back({{"name", s.name},
                           {"time_percent", s.timePercent},
                           {"total_ns", s.time.totalNs},
                           {"instances", s.time.count},
                           {"mean_ns", s.time.meanNs},
                           {"median_ns", s.time.medianNs},
                           {"demangled", s.demangled}});
    }
    return {{"kind", stepKindName(k.kind)},           {"steps", k.stepTime.count},
            {"step_total_ns", k.stepTime.totalNs},    {"step_mean_ns", k.stepTime.meanNs},
            {"step_median_ns", k.stepTime.medianNs},  {"step_max_ns", k.stepTime.maxNs},
            {"mean_running", k.meanRunning},          {"prefill_tokens", k.prefillTokens},
            {"decode_tokens", k.decodeTokens},        {"kernel_ns", k.kernelNs},
            {"gpu_busy_fraction", k.gpuBusyFraction}, {"kernels", kernels}};
}

// "prefill: 8 prompts, TTFT 4.53 ms mean; floor 1.21 ms (...): SOL 26.7 %".
std::string prefillLine(const TokenStepReport& r) {
    std::string line = "prefill: " + std::to_string(r.prefills) + " prompts, TTFT " +
                       formatFixed(r.ttftMeanNs / 1e6, 3) + " ms mean";
    if (!r.prefillFloor)
        return line +
               "; no floor (the run does not declare decoder.prefill_flops and "
               "ceiling.bf16_tflops)";
    const auto& f = *r.prefillFloor;
    return line + "; floor " + formatFixed(f.ns() / 1e6, 3) + " ms a round (" +
           formatFixed(f.flops / 1e12, 2) + " TFLOP at " + formatFixed(f.tflops, 0) +
           " TFLOP/s, or the weights once, whichever is longer): SOL " +
           formatFixed(r.prefillSolPercent(), 1) + " %";
}

// A run without engine steps but with tokens: its decode steps (token to
// token) against their floor, and where the time above it went.
int printTokenSteps(RunId id, const TokenStepReport& r, bool asJson) {
    auto ms = [](double ns) { return formatFixed(ns / 1e6, 3); };
    if (asJson) {
        json classes = json::object();
        for (const auto& [kind, ns] : r.kernelNs)
            classes[toString(kind)] = ns;
        json j = {{"run", id},
                  {"engine_steps", 0},
                  {"token_steps", r.steps},
                  {"step_mean_ns", r.meanNs},
                  {"step_p50_ns", r.p50Ns},
                  {"step_p99_ns", r.p99Ns},
                  {"kernel_ns_per_step", classes},
                  {"launch_gap_ns_per_step", r.launchGapNs},
                  {"host_ns_per_step", r.hostNs}};
        if (r.floor) {
            j["floor_ns"] = r.floor->ns();
            j["floor_bytes"] = r.floor->bytes;
            j["floor_bandwidth_gbs"] = r.floor->bandwidthGbs;
            j["sol_percent_mean"] = r.solPercent(r.meanNs);
            j["sol_percent_p99"] = r.solPercent(r.p99Ns);
        }
        if (r.prefills > 0) {
            j["prefills"] = r.prefills;
            j["ttft_mean_ns"] = r.ttftMeanNs;
            if (r.prefillFloor) {
                j["prefill_floor_ns"] = r.prefillFloor->ns();
                j["prefill_flops"] = r.prefillFloor->flops;
                j["prefill_sol_percent"] = r.prefillSolPercent();
            }
        }
        std::cout << j.dump(2) << '\n';
        return 0;
    }
    std::cout << "run " << id << ": no engine.step ranges; " << r.steps
              << " decode steps told from its tokens (token to token)\n";
    if (r.floor)
        std::cout << "floor " << ms(r.floor->ns())
                  << " ms per step: " << formatFixed(r.floor->bytes / 1e9, 2) << " GB at "
                  << formatFixed(r.floor->bandwidthGbs, 0)
                  << " GB/s (decoder.decode_step_bytes at the measured copy ceiling)\n";
    else
        std::cout << "no floor: the run does not declare its decode step's bytes "
                     "(decoder.decode_step_bytes and ceiling.copy_gbs, "
                     "docs/token-conventions.md)\n";
    std::cout << '\n';
    TextTable steps({"", "mean ms", "p50 ms", "p99 ms"});
    steps.add({"step", ms(r.meanNs), ms(r.p50Ns), ms(r.p99Ns)});
    if (r.floor)
        steps.add({"SOL %", formatFixed(r.solPercent(r.meanNs), 1),
                   formatFixed(r.solPercent(r.p50Ns), 1), formatFixed(r.solPercent(r.p99Ns), 1)});
    steps.print(std::cout);
    std::cout << "\nWhere a step's time goes (mean per step)\n";
    TextTable parts({"ms", "% of step", "part"});
    auto add = [&](double ns, const std::string& what) {
        parts.add({ms(ns), formatFixed(r.meanNs > 0 ? 100 * ns / r.meanNs : 0, 1), what});
    };
    std::vector<std::pair<KernelClass, double>> classes(r.kernelNs.begin(), r.kernelNs.end());
    std::sort(classes.begin(), classes.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [kind, ns] : classes)
        add(ns, std::string(toString(kind)) + " kernels");
    add(r.launchGapNs, "launch gaps (GPU idle between the step's first and last kernel)");
    add(r.hostNs, "host (before the step's first kernel and after its last)");
    if (r.floor) add(r.floor->ns(), "of which the floor would be");
    parts.print(std::cout);
    std::cout << "(kernels on several streams at once count in each; `whatif " << id
              << "` predicts what removing a part buys)\n";
    if (r.prefills > 0) std::cout << '\n' << prefillLine(r) << '\n';
    return 0;
}

json solJson(const EngineStepSol& sol) {
    json kinds = json::array();
    for (const auto& k : sol.kinds)
        kinds.push_back({{"kind", k.kind},
                         {"steps", k.steps},
                         {"step_total_ns", k.stepNs},
                         {"floor_total_ns", k.floorNs},
                         {"sol_percent", k.solPercent()},
                         {"sol_percent_p50", k.solP50},
                         {"sol_percent_p1", k.solP1}});
    json classes = json::object();
    for (const auto& [kind, ns] : sol.kernelNs)
        classes[toString(kind)] = ns;
    return {{"kinds", kinds},
            {"steps_without_work", sol.stepsWithoutWork},
            {"window_ns", sol.windowNs},
            {"floor_ns", sol.floorNs()},
            {"floor_matmul_ns", sol.floorMatmulNs},
            {"floor_attention_ns", sol.floorAttentionNs},
            {"kernel_ns", classes},
            {"launch_gap_ns", sol.launchGapNs},
            {"host_in_steps_ns", sol.hostInStepsNs},
            {"host_between_steps_ns", sol.hostBetweenStepsNs},
            {"prefill_interference_ns", sol.prefillInterferenceNs},
            {"copy_gbs", sol.cost.copyGbs},
            {"tensor_tflops", sol.cost.tensorTflops}};
}

// The steps against their floors, and where the serving window's time above
// the floors goes.
void printEngineStepSol(RunId id, const EngineStepSol& sol) {
    auto ms = [](double ns) { return formatFixed(ns / 1e6, 3); };
    std::cout << "\nSpeed of light: each step's floor is its weights once, the KV it reads and "
                 "writes at "
              << formatFixed(sol.cost.copyGbs, 0) << " GB/s, or its FLOPs at "
              << formatFixed(sol.cost.tensorTflops, 0)
              << " TFLOP/s, whichever is longer (linear layers and attention apart)\n";
    TextTable kinds({"steps", "time ms", "floor ms", "SOL %", "p50 %", "slowest 1 % %", "kind"});
    for (const auto& k : sol.kinds)
        kinds.add({std::to_string(k.steps), ms(k.stepNs), ms(k.floorNs),
                   formatFixed(k.solPercent(), 1), formatFixed(k.solP50, 1),
                   formatFixed(k.solP1, 1), k.kind});
    kinds.print(std::cout);
    if (sol.stepsWithoutWork > 0)
        std::cout << "(" << sol.stepsWithoutWork
                  << " steps name no attention work and are left out)\n";

    std::cout << "\nWhere the serving window's " << ms(sol.windowNs)
              << " ms go (first step's start to last step's end)\n";
    TextTable parts({"ms", "% of window", "part"});
    auto add = [&](double ns, const std::string& what) {
        parts.add({ms(ns), formatFixed(sol.windowNs > 0 ? 100 * ns / sol.windowNs : 0, 1), what});
    };
    for (const auto& part : windowParts(sol))
        add(part.ns, part.what);
    parts.print(std::cout);
    std::cout << "prefill interference: decodes waited " << ms(sol.prefillInterferenceNs)
              << " ms on prefill ("
              << formatFixed(sol.windowNs > 0 ? 100 * sol.prefillInterferenceNs / sol.windowNs : 0,
                             1)
              << " % of the window; part of the rows above)\n"
              << "(kernels on several streams at once count in each; `whatif " << id
              << "` predicts what removing a part buys)\n";
}

}  // namespace

int cmdSteps(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "kind", "top"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    const auto top =
        static_cast<std::size_t>(parseInteger("top", args.valueOr("top", "10"), 1, 100000));
    std::optional<StepKind> only;
    if (auto k = args.value("kind")) {
        only = parseStepKind(*k);
        if (!only)
            throw UsageError("--kind must be decode, mixed, prefill or other, not '" + *k + "'");
    }
    auto opened = openStore(args);
    requireRun(*opened, id);
    const auto engineSteps = engineStepsOf(*opened, id);
    auto summary = summarizeEngineSteps(*opened, id, engineSteps);
    if (summary.steps == 0 && runAggregates(*opened, id).tokenCount > 1) {
        const auto properties = runProperties(*opened, id);
        auto report = tokenSteps(loadWhatIfRun(*opened, id), declaredStepFloor(properties),
                                 declaredPrefillFloor(properties));
        if (report.steps > 0) return printTokenSteps(id, report, args.flag("json"));
    }
    if (summary.steps == 0) {
        const auto why = whyNoEngineSteps(*opened, id);
        if (args.flag("json"))
            std::cout << json{{"run", id}, {"engine_steps", 0}, {"why", why}}.dump(2) << '\n';
        else
            std::cout << "run " << id << " has no engine.step ranges: " << why << '\n';
        return 0;
    }
    std::optional<EngineStepSol> sol;
    const auto cost = declaredEngineStepCost(runProperties(*opened, id));
    if (cost) sol = engineStepSol(engineSteps, loadWhatIfRun(*opened, id), *cost);
    std::vector<const StepKindSummary*> shown;
    for (const auto& k : summary.kinds)
        if (!only || k.kind == *only) shown.push_back(&k);
    // GPU metrics (record --gpu-metrics) over the steps of each kind.
    std::map<StepKind, std::vector<GpuMetricStats>> gpuMetrics;
    if (auto series = gpuMetricsOf(*opened, id); !series.empty()) {
        std::map<StepKind, std::vector<TimeSpan>> spans;
        for (const auto& step : engineSteps)
            spans[stepKind(step)].push_back({step.startNs, step.endNs});
        for (auto& [kind, list] : spans)
            gpuMetrics[kind] = summarizeGpuMetrics(series, std::move(list));
    }
    if (args.flag("json")) {
        json j = {{"run", id}, {"engine_steps", summary.steps}, {"kinds", json::array()}};
        for (const auto* k : shown) {
            auto kind = kindJson(*k, top);
            if (auto m = gpuMetrics.find(k->kind); m != gpuMetrics.end()) {
                kind["gpu_metrics"] = json::array();
                for (const auto& g : m->second)
                    kind["gpu_metrics"].push_back({{"device", g.deviceIndex},
                                                   {"metric", g.metric},
                                                   {"mean", g.mean},
                                                   {"p99", g.p99}});
            }
            j["kinds"].push_back(std::move(kind));
        }
        if (sol) j["speed_of_light"] = solJson(*sol);
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return 0;
    }
    std::cout << "run " << id << ": " << summary.steps << " engine steps\n\n";
    auto ns = [](double v) { return formatDuration(static_cast<std::int64_t>(v)); };
    TextTable kinds({"steps", "total", "mean", "median", "max", "batch", "prefill", "decode",
                     "GPU busy", "kernels", "kind"});
    for (const auto& k : summary.kinds) {
        const auto& t = k.stepTime;
        kinds.add({std::to_string(t.count), ns(t.totalNs), ns(t.meanNs), ns(t.medianNs),
                   ns(t.maxNs), formatFixed(k.meanRunning, 1), std::to_string(k.prefillTokens),
                   std::to_string(k.decodeTokens), formatFixed(100 * k.gpuBusyFraction, 1) + "%",
                   ns(k.kernelNs), stepKindName(k.kind)});
    }
    kinds.print(std::cout);
    std::cout << "(batch: mean running requests; prefill, decode: tokens the steps ran; "
                 "kernels: those starting inside the steps)\n";
    if (sol)
        printEngineStepSol(id, *sol);
    else
        std::cout << "\nno speed-of-light floor: "
                  << (cost ? "the steps do not name their attention work (kv_read_tokens, "
                             "attention_pairs)"
                           : "the server does not declare what a step costs (serve.* and "
                             "ceiling.* properties)")
                  << ", docs/serving.md \"Speed of light\"\n";
    if (!gpuMetrics.empty()) {
        // A row per metric, a column per step kind: where decode and prefill
        // steps differ (tensor pipe, DRAM) reads across.
        std::vector<std::string> header = {"GPU"};
        for (const auto* k : shown)
            header.push_back(std::string(stepKindName(k->kind)) + " steps");
        header.push_back("metric (mean over the steps' samples)");
        TextTable table(header);
        const auto& first = gpuMetrics.begin()->second;
        for (const auto& m : first) {
            const auto name = gpu_metrics::describe(m.metric);
            std::vector<std::string> row = {std::to_string(m.deviceIndex)};
            for (const auto* k : shown) {
                std::string cell = "-";
                for (const auto& g : gpuMetrics[k->kind])
                    if (g.metric == m.metric && g.deviceIndex == m.deviceIndex)
                        cell = formatFixed(g.mean * name.scale, 1);
                row.push_back(cell);
            }
            row.push_back(gpu_metrics::title(m.metric));
            table.add(row);
        }
        std::cout << "\nGPU metrics by step kind\n";
        table.print(std::cout);
    }
    if (only && shown.empty())
        std::cout << "\nno " << stepKindName(*only) << " steps in this run\n";
    for (const auto* k : shown) {
        std::cout << "\nKernels in " << stepKindName(k->kind) << " steps\n";
        TextTable kernels({"time%", "total", "count", "mean", "median", "name"});
        for (std::size_t i = 0; i < k->kernels.size() && i < top; ++i) {
            const auto& s = k->kernels[i];
            kernels.add({formatFixed(s.timePercent, 1), ns(s.time.totalNs),
                         std::to_string(s.time.count), ns(s.time.meanNs), ns(s.time.medianNs),
                         s.name});
        }
        kernels.print(std::cout);
    }
    return 0;
}

}  // namespace ws::cli
