// kernel RUN NAME: one kernel of a run as Nsight Compute's Details and Source
// pages read it: its launches and time, and, for a run recorded with
// --pc-sampling, where its warps stall (share of samples by stall reason),
// its hottest source lines (code built with -lineinfo) and instructions.
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/kernel_summary.h"
#include "analysis/pc_sample_summary.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/text_table.h"
#include "model/pc_sampling.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

using json = nlohmann::ordered_json;

std::string percent(double share) {
    return formatFixed(100 * share, 1) + "%";
}

std::string hex(std::uint64_t offset) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(offset));
    return text;
}

// The kernel NAME names: its CUPTI name, or one whose short name is NAME or
// whose signature contains it, if only one does.
const KernelStat& pickKernel(const std::vector<KernelStat>& kernels, const std::string& name,
                             RunId id) {
    std::vector<const KernelStat*> matches;
    for (const auto& k : kernels)
        if (k.mangled == name || k.name == name) return k;
    for (const auto& k : kernels)
        if (k.demangled.find(name) != std::string::npos) matches.push_back(&k);
    if (matches.size() == 1) return *matches.front();
    if (matches.empty())
        throw UsageError("run " + std::to_string(id) + " has no kernel named '" + name +
                         "' (`summary " + std::to_string(id) + "` lists its kernels)");
    std::string names;
    for (std::size_t i = 0; i < matches.size() && i < 8; ++i)
        names += "\n  " + matches[i]->name + "  (" + matches[i]->demangled.substr(0, 100) + ")";
    throw UsageError("'" + name + "' names " + std::to_string(matches.size()) + " kernels of run " +
                     std::to_string(id) + "; give one of:" + names);
}

json stallsJson(const KernelStalls& s) {
    json reasons = json::array(), lines = json::array(), instructions = json::array();
    for (const auto& r : s.reasons)
        reasons.push_back(
            {{"reason", r.reason}, {"title", r.title}, {"samples", r.samples}, {"share", r.share}});
    for (const auto& l : s.lines)
        lines.push_back({{"file", l.sourceFile},
                         {"line", l.line},
                         {"samples", l.samples},
                         {"share", l.share},
                         {"top_reason", l.topReason},
                         {"instructions", l.instructions}});
    for (const auto& i : s.instructions)
        instructions.push_back({{"pc_offset", i.pcOffset},
                                {"samples", i.samples},
                                {"share", i.share},
                                {"top_reason", i.topReason},
                                {"file", i.sourceFile},
                                {"line", i.line},
                                {"sass", i.sass}});
    return {{"samples", s.samples},
            {"run_share", s.runShare},
            {"sampled_instructions", s.instructionCount},
            {"stall_reasons", std::move(reasons)},
            {"hot_lines", std::move(lines)},
            {"hot_instructions", std::move(instructions)}};
}

void printStalls(const KernelStalls& s, const std::map<std::string, std::string>& properties,
                 std::int64_t runWallNs) {
    const auto found = properties.find(pc_sampling::kPeriod);
    const std::optional<std::string> period =
        found == properties.end() ? std::nullopt : std::optional(found->second);
    std::cout << "\nwhere its warps stall: " << s.samples << " PC samples (" << percent(s.runShare)
              << " of the run's) at " << s.instructionCount << " instructions"
              << (period ? ", one per SM every 2^" + *period + " cycles" : std::string()) << '\n';
    if (const auto cost = samplerCostText(properties, runWallNs); !cost.empty())
        std::cout << "sampling cost: " << cost << '\n';
    TextTable reasons({"share", "samples", "stall reason", "the warp"});
    for (const auto& r : s.reasons)
        reasons.add({percent(r.share), std::to_string(r.samples), r.title,
                     pc_sampling::describeStallReason(r.reason).hint});
    reasons.print(std::cout);
    if (!s.lines.empty()) {
        std::cout << "\nhottest source lines\n";
        TextTable lines({"share", "samples", "line", "mostly", "instructions"});
        for (const auto& l : s.lines)
            lines.add({percent(l.share), std::to_string(l.samples),
                       sourceLineText(l.sourceFile, l.line), l.topReason,
                       std::to_string(l.instructions)});
        lines.print(std::cout);
    } else {
        std::cout << "\n(no source lines: the kernel was built without -lineinfo)\n";
    }
    std::cout << "\nhottest instructions\n";
    bool sass = false;
    for (const auto& i : s.instructions)
        sass = sass || !i.sass.empty();
    std::vector<std::string> columns{"share", "samples", "offset", "mostly", "line"};
    if (sass) columns.push_back("SASS");
    TextTable pcs(columns);
    for (const auto& i : s.instructions) {
        std::vector<std::string> row{percent(i.share), std::to_string(i.samples), hex(i.pcOffset),
                                     i.topReason, sourceLineText(i.sourceFile, i.line)};
        if (sass) row.push_back(i.sass);
        pcs.add(row);
    }
    pcs.print(std::cout);
    if (!sass) std::cout << "(no SASS text: nvdisasm was not found where the run was recorded)\n";
}

}  // namespace

int cmdKernel(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "top"}, 2, 2});
    auto id = parseRunId(args.positional()[0]);
    const std::string& name = args.positional()[1];
    const auto top =
        static_cast<std::size_t>(parseInteger("top", args.valueOr("top", "10"), 1, 100000));
    auto opened = openStore(args);
    Store& store = *opened;
    const RunInfo run = requireRun(store, id);
    const auto summary = summarizeRun(store, id);
    const KernelStat& k = pickKernel(summary.kernels, name, id);
    const auto stalls = stallsOfKernel(store, id, k.mangled, top);
    if (args.flag("json")) {
        json out = {{"run", id},
                    {"name", k.name},
                    {"demangled", k.demangled},
                    {"mangled", k.mangled},
                    {"launches", k.time.count},
                    {"total_ns", k.time.totalNs},
                    {"mean_ns", k.time.meanNs},
                    {"median_ns", k.time.medianNs},
                    {"time_share", k.timePercent / 100}};
        out["pc_sampling"] = stalls ? stallsJson(*stalls) : json(nullptr);
        std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
        return 0;
    }
    std::cout << k.name << "  (" << k.demangled << ")\n"
              << k.time.count << " launches, "
              << formatDuration(static_cast<std::int64_t>(k.time.totalNs)) << " in all ("
              << formatFixed(k.timePercent, 1) << "% of kernel time), mean "
              << formatDuration(static_cast<std::int64_t>(k.time.meanNs)) << ", median "
              << formatDuration(static_cast<std::int64_t>(k.time.medianNs)) << '\n';
    const auto properties = runProperties(store, id);
    if (stalls)
        printStalls(*stalls, properties, run.durationNs());
    else if (properties.count(pc_sampling::kBufferFull))
        std::cout
            << "\nno PC samples landed in this kernel, possibly because CUPTI's hardware buffer "
               "filled during the run and CUPTI stopped sampling there (record with a "
               "larger --pc-sampling-period)\n";
    else if (properties.count(pc_sampling::kSamples))
        std::cout << "\nno PC samples landed in this kernel (too short for the sampling period: "
                     "record with a smaller --pc-sampling-period)\n";
    else
        std::cout << "\nno PC samples: record the run with --pc-sampling to see where its warps "
                     "stall\n";
    return 0;
}

}  // namespace ws::cli
