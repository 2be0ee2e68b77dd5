// sweep [GROUP]: the store's sweep groups, or one group's table (a point a
// row: requests, output tok/s, TTFT and TPOT p50/p99, goodput), as text or JSON.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "analysis/sweep.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/sweep_table.h"
#include "store/store.h"

namespace ws::cli {

namespace {

using json = nlohmann::ordered_json;

std::string fixed(std::optional<double> v, int digits) {
    if (!v) return "-";
    std::ostringstream out;
    out << std::fixed << std::setprecision(digits) << *v;
    return out.str();
}

json orNull(std::optional<double> v) {
    return v ? json(*v) : json(nullptr);
}

}  // namespace

void printSweepTable(std::ostream& out, const SweepTable& t) {
    out << "sweep " << t.group.group << ": " << t.group.parameter << ", " << t.points.size()
        << " of " << t.group.plannedPoints << " points";
    if (t.gpus > 1) out << ", " << t.gpus << " GPUs";
    out << '\n';
    const bool goodput = t.targets.any();
    const std::string name = sweepParameterName(t.group.parameter);
    out << std::left << std::setw(13) << name << std::setw(6) << "run" << std::right
        << std::setw(10) << "requests" << std::setw(8) << "failed" << std::setw(13)
        << "output tok/s" << std::setw(11) << "TTFT p50" << std::setw(11) << "TTFT p99"
        << std::setw(11) << "TPOT p50" << std::setw(11) << "TPOT p99";
    if (goodput) out << std::setw(10) << "goodput" << std::setw(7) << "meets";
    out << '\n';
    for (const auto& p : t.points) {
        out << std::left << std::setw(13) << p.value << std::setw(6) << p.run << std::right
            << std::setw(10) << p.completed << std::setw(8) << p.failed << std::setw(13)
            << fixed(p.outputThroughput, 1) << std::setw(11) << fixed(p.ttftP50Ms, 2)
            << std::setw(11) << fixed(p.ttftP99Ms, 2) << std::setw(11) << fixed(p.tpotP50Ms, 2)
            << std::setw(11) << fixed(p.tpotP99Ms, 2);
        if (goodput)
            out << std::setw(10) << fixed(p.requestGoodput, 2) << std::setw(7)
                << (p.meetsTargets.value_or(false) ? "yes" : "no");
        out << '\n';
    }
    out << "(latencies in ms, goodput in requests/s)\n";
    if (auto line = sweepContractLine(t); !line.empty()) out << line << '\n';
}

json sweepTableJson(const SweepTable& t) {
    json j;
    j["group"] = t.group.group;
    j["parameter"] = t.group.parameter;
    j["planned_points"] = t.group.plannedPoints;
    j["gpus"] = t.gpus;
    j["targets"] = {{"ttft_ms", orNull(t.targets.ttftMs)},
                    {"tpot_ms", orNull(t.targets.tpotMs)},
                    {"e2el_ms", orNull(t.targets.e2elMs)}};
    j["points"] = json::array();
    for (const auto& p : t.points) {
        json pt = {{"index", p.index},
                   {"value", p.value},
                   {"run", p.run},
                   {"status", toString(p.status)},
                   {"completed", p.completed},
                   {"failed", p.failed},
                   {"output_throughput", p.outputThroughput},
                   {"output_throughput_per_gpu", p.outputThroughputPerGpu},
                   {"request_throughput", p.requestThroughput},
                   {"ttft_p50_ms", orNull(p.ttftP50Ms)},
                   {"ttft_p99_ms", orNull(p.ttftP99Ms)},
                   {"tpot_p50_ms", orNull(p.tpotP50Ms)},
                   {"tpot_p99_ms", orNull(p.tpotP99Ms)},
                   {"request_goodput", orNull(p.requestGoodput)}};
        pt["meets_targets"] = p.meetsTargets ? json(*p.meetsTargets) : json(nullptr);
        j["points"].push_back(std::move(pt));
    }
    auto line = sweepContractLine(t);
    j["contract"] = line.empty() ? json(nullptr) : json(line);
    return j;
}

int cmdSweep(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db"}, 0, 1});
    auto store = openStore(args);
    const bool asJson = args.flag("json");
    if (args.positional().empty()) {
        auto groups = listSweepGroups(*store);
        if (asJson) {
            json list = json::array();
            for (const auto& g : groups)
                list.push_back({{"group", g.group},
                                {"parameter", g.parameter},
                                {"points", g.runs.size()},
                                {"planned_points", g.plannedPoints},
                                {"runs", g.runs},
                                {"label", g.label}});
            std::cout << list.dump(2) << '\n';
            return 0;
        }
        if (groups.empty()) std::cout << "no sweeps (bench serve --sweep stores them)\n";
        for (const auto& g : groups) {
            std::cout << g.group << "  " << g.parameter << "  " << g.runs.size() << "/"
                      << g.plannedPoints << " points  runs";
            for (RunId r : g.runs)
                std::cout << ' ' << r;
            std::cout << "  " << g.label << '\n';
        }
        return 0;
    }
    auto group = findSweepGroup(*store, args.positional()[0]);
    if (!group)
        throw UsageError("sweep: no sweep group or run in one named '" + args.positional()[0] +
                         "' (`sweep` lists them)");
    auto table = sweepTable(*store, *group);
    if (asJson)
        std::cout << sweepTableJson(table).dump(2) << '\n';
    else
        printSweepTable(std::cout, table);
    return 0;
}

}  // namespace ws::cli
