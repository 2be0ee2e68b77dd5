// collectives RUN: NCCL collectives across the ranks of a distributed run —
// per rank its communication share, how often it arrived last and how long
// it waited; per collective the arrival skew; findings.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/analysis_window.h"
#include "analysis/collectives.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/window_arg.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

using json = nlohmann::ordered_json;

json reportJson(RunId id, const CollectiveReport& r, std::size_t top) {
    json ranks = json::array();
    for (const auto& k : r.ranks)
        ranks.push_back({{"rank", k.rank},
                         {"rank_from_environment", k.rankFromEnvironment},
                         {"pid", k.pid},
                         {"command", k.command},
                         {"end", k.end},
                         {"kernels", k.kernels},
                         {"kernel_ns", k.kernelNs},
                         {"nccl_kernels", k.ncclKernels},
                         {"nccl_ns", k.ncclNs},
                         {"sized_kernels", k.sizedKernels},
                         {"nccl_bytes", k.ncclBytes},
                         {"comm_share", k.commShare},
                         {"matched", k.matched},
                         {"last_arrivals", k.lastArrivals},
                         {"wait_ns", k.waitNs}});
    json kinds = json::array();
    for (const auto& k : r.kinds)
        kinds.push_back({{"collective", k.collective},
                         {"instances", k.instances},
                         {"skew_mean_ns", k.skewMeanNs},
                         {"skew_p50_ns", k.skewP50Ns},
                         {"skew_p99_ns", k.skewP99Ns},
                         {"skew_max_ns", k.skewMaxNs},
                         {"most_often_last_rank", k.mostOftenLast},
                         {"most_often_last_count", k.mostOftenLastCount},
                         {"sized_instances", k.sizedInstances},
                         {"bytes", k.bytes},
                         {"bus_bandwidth_gb_s", k.busBandwidthGBs}});
    // The most skewed instances, for a look on the timeline.
    std::vector<const CollectiveInstance*> worst;
    for (const auto& i : r.instances)
        worst.push_back(&i);
    std::stable_sort(worst.begin(), worst.end(),
                     [](const auto* a, const auto* b) { return a->skewNs() > b->skewNs(); });
    json instances = json::array();
    for (std::size_t i = 0; i < worst.size() && i < top; ++i)
        instances.push_back({{"collective", worst[i]->collective},
                             {"channel", worst[i]->channel},
                             {"index", worst[i]->index},
                             {"first_start_ns", worst[i]->firstStartNs},
                             {"last_start_ns", worst[i]->lastStartNs},
                             {"end_ns", worst[i]->endNs},
                             {"last_rank", worst[i]->lastRank},
                             {"skew_ns", worst[i]->skewNs()},
                             {"ranks", worst[i]->ranks},
                             {"bytes", worst[i]->bytes}});
    return {{"run", id},
            {"instances", r.instances.size()},
            {"unmatched_kernels", r.unmatchedKernels},
            {"unsized_kernels", r.unsizedKernels},
            {"ranks", ranks},
            {"collectives", kinds},
            {"most_skewed", instances},
            {"findings", r.findings},
            {"notes", r.notes}};
}

}  // namespace

int cmdCollectives(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "top", "window"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    const auto top =
        static_cast<std::size_t>(parseInteger("top", args.valueOr("top", "10"), 1, 100000));
    const auto choice = parseWindowArg(args, WindowChoice::Kind::WholeRun);
    auto opened = openStore(args);
    Store& store = *opened;
    requireRun(store, id);
    ResolvedWindow window;
    try {
        window = resolveWindow(store, id, choice);
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--window: ") + e.what());
    }
    const auto report = analyzeCollectives(store, id, window.span);
    if (args.flag("json")) {
        std::cout << reportJson(id, report, top)
                         .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
        return 0;
    }
    std::cout << "run " << id << ": " << report.ranks.size() << " rank(s), "
              << report.instances.size() << " collective(s) matched, " << report.unmatchedKernels
              << " NCCL kernel(s) unmatched\n";
    if (!report.ranks.empty()) {
        std::cout << '\n'
                  << std::left << std::setw(6) << "rank" << std::setw(9) << "pid" << std::right
                  << std::setw(10) << "kernels" << std::setw(8) << "NCCL" << std::setw(12)
                  << "NCCL time" << std::setw(8) << "comm" << std::setw(8) << "last"
                  << std::setw(12) << "mean wait" << std::setw(12) << "NCCL bytes" << std::setw(8)
                  << "end"
                  << "  command\n";
        for (const auto& k : report.ranks) {
            const double last = k.matched ? 100.0 * static_cast<double>(k.lastArrivals) /
                                                static_cast<double>(k.matched)
                                          : 0;
            std::cout << std::left << std::setw(6)
                      << (std::to_string(k.rank) + (k.rankFromEnvironment ? "" : "*"))
                      << std::setw(9) << k.pid << std::right << std::setw(10) << k.kernels
                      << std::setw(8) << k.ncclKernels << std::setw(12) << formatDuration(k.ncclNs)
                      << std::setw(7) << formatFixed(k.commShare * 100, 0) << '%' << std::setw(7)
                      << formatFixed(last, 0) << '%' << std::setw(12)
                      << (k.matched ? formatDuration(k.waitNs / k.matched) : std::string("-"))
                      << std::setw(12)
                      << (k.sizedKernels ? formatBytes(k.ncclBytes) : std::string("-"))
                      << std::setw(8) << (k.end.empty() ? std::string("-") : k.end) << "  "
                      << k.command.substr(0, 60) << '\n';
        }
    }
    if (!report.kinds.empty()) {
        std::cout << '\n'
                  << std::left << std::setw(16) << "collective" << std::right << std::setw(10)
                  << "instances" << std::setw(12) << "skew mean" << std::setw(12) << "skew p50"
                  << std::setw(12) << "skew p99" << std::setw(12) << "skew max" << std::setw(12)
                  << "bytes" << std::setw(10) << "bus GB/s" << '\n';
        for (const auto& k : report.kinds)
            std::cout << std::left << std::setw(16) << k.collective << std::right << std::setw(10)
                      << k.instances << std::setw(12) << formatDuration(k.skewMeanNs)
                      << std::setw(12) << formatDuration(k.skewP50Ns) << std::setw(12)
                      << formatDuration(k.skewP99Ns) << std::setw(12) << formatDuration(k.skewMaxNs)
                      << std::setw(12)
                      << (k.sizedInstances ? formatBytes(k.bytes) : std::string("-"))
                      << std::setw(10)
                      << (k.busBandwidthGBs > 0 ? formatFixed(k.busBandwidthGBs, 1)
                                                : std::string("-"))
                      << '\n';
    }
    if (!report.findings.empty()) {
        std::cout << "\nfindings:\n";
        for (const auto& f : report.findings)
            std::cout << "  " << f << '\n';
    }
    for (const auto& n : report.notes)
        std::cout << "note: " << n << '\n';
    if (report.unsizedKernels > 0)
        std::cout << "note: " << report.unsizedKernels
                  << " NCCL kernel(s) without a message size: launched outside an NCCL call "
                     "(ncclGroupEnd launches a group's), recorded with --no-driver-api (NCCL "
                     "launches through the driver API), NCCL_NVTX_DISABLE=1, NCCL older than "
                     "2.19, or recorded before Warpscope read NCCL's NVTX payloads\n";
    if (std::any_of(report.ranks.begin(), report.ranks.end(),
                    [](const auto& k) { return !k.rankFromEnvironment; }) &&
        report.ranks.size() > 1)
        std::cout << "(* rank by pid order: the process was started without RANK)\n";
    return 0;
}

}  // namespace ws::cli
