// bench serve --sweep max-concurrency=1,2,4 | request-rate=1,4,inf: each point
// is a run of its own, tied into one group by sweep.* run properties.
#include <chrono>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>

#include "analysis/sweep.h"
#include "cli/bench_serve.h"
#include "cli/sweep_table.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::cli {

namespace {

// "sweep-20261204-112134-3fa0": readable, sortable, unique across stores.
std::string newGroupName() {
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::ostringstream out;
    out << "sweep-" << std::put_time(&utc, "%Y%m%d-%H%M%S") << '-' << std::hex << std::setw(4)
        << std::setfill('0') << (std::random_device{}() & 0xffff);
    return out.str();
}

std::string number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

void setPoint(ServeLoadOptions& o, const SweepSpec& sweep, const std::string& value) {
    if (sweep.parameter == "max-concurrency")
        o.maxConcurrency = static_cast<int>(parseInteger("sweep", value, 1, 1'000'000));
    else
        o.requestRate = value == "inf" ? std::numeric_limits<double>::infinity()
                                       : parseFiniteNumber("sweep", value);
}

}  // namespace

std::string sweepResultPath(const std::string& path, const std::string& parameter,
                            const std::string& value) {
    const auto slash = path.find_last_of('/');
    auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
        dot == (slash == std::string::npos ? 0 : slash + 1))
        dot = path.size();
    return path.substr(0, dot) + "-" + parameter + "-" + value + path.substr(dot);
}

SweepSpec parseSweep(const std::string& text, const Args& args) {
    SweepSpec s;
    auto eq = text.find('=');
    if (eq == std::string::npos)
        throw UsageError("--sweep: expected PARAMETER=V1,V2,... (max-concurrency or request-rate)");
    s.parameter = text.substr(0, eq);
    if (s.parameter != "max-concurrency" && s.parameter != "request-rate")
        throw UsageError("--sweep: unknown parameter '" + s.parameter +
                         "' (max-concurrency or request-rate)");
    if (args.value(s.parameter))
        throw UsageError("--sweep " + s.parameter + " and --" + s.parameter +
                         " exclude each other");
    std::stringstream in(text.substr(eq + 1));
    std::string v;
    while (std::getline(in, v, ',')) {
        if (s.parameter == "max-concurrency") {
            parseInteger("sweep max-concurrency", v, 1, 1'000'000);
        } else if (v != "inf" && !(parseFiniteNumber("sweep request-rate", v) > 0)) {
            throw UsageError("--sweep request-rate: '" + v + "' is not positive (or inf)");
        }
        s.values.push_back(v);
    }
    if (s.values.empty() || text.back() == ',')
        throw UsageError("--sweep " + s.parameter + ": no values (e.g. " + s.parameter + "=1,2,4)");
    s.gpus = static_cast<int>(parseInteger("gpus", args.valueOr("gpus", "1"), 1, 4096));
    return s;
}

int benchSweep(BenchServe& bench, const SweepSpec& sweep, const Args* server) {
    ServeLoadOptions& o = bench.options;
    const std::string group = newGroupName();
    const auto points = static_cast<int>(sweep.values.size());
    if (!bench.pointPrompts.empty() && bench.pointPrompts.size() != sweep.values.size())
        throw UsageError("--num-prompts has " + std::to_string(bench.pointPrompts.size()) +
                         " counts for " + std::to_string(points) + " --sweep points");
    Store(bench.storePath);  // created as import does, before the load
    std::cerr << "bench serve: sweep " << group << ", " << sweep.parameter << " = ";
    for (int i = 0; i < points; ++i)
        std::cerr << (i ? "," : "") << sweep.values[static_cast<std::size_t>(i)];
    std::cerr << ", ";
    if (bench.pointPrompts.empty()) {
        std::cerr << o.numPrompts;
    } else {
        for (std::size_t i = 0; i < bench.pointPrompts.size(); ++i)
            std::cerr << (i ? "," : "") << bench.pointPrompts[i];
    }
    std::cerr << " requests a point to " << requestUrl(o)
              << " (Ctrl-C stops the sweep, keeping the points measured)\n";
    bool allOk = true;
    StopOnSignals stop;  // for the whole sweep: a signal between points ends it too
    o.stop = &stop.flag();
    for (int i = 0; i < points; ++i) {
        if (stop.flag().load()) {
            std::cerr << "warpscope-cli bench: sweep interrupted before point " << i + 1 << "/"
                      << points << "\n";
            allOk = false;
            break;
        }
        const std::string& value = sweep.values[static_cast<std::size_t>(i)];
        setPoint(o, sweep, value);
        if (!bench.pointPrompts.empty())
            o.numPrompts = bench.pointPrompts[static_cast<std::size_t>(i)];
        std::cerr << "sweep point " << i + 1 << "/" << points << ": " << sweep.parameter << "="
                  << value << " ...\n";
        ServeRunInfo info = bench.info;
        // The point first: in the runs list and `ls`, where labels are cut,
        // the part that tells the points apart stays readable.
        info.label = sweep.parameter + "=" + value + " · " +
                     (info.label.empty() ? "bench serve " + o.model : info.label);
        const auto resultPath =
            bench.saveResult
                ? std::optional(sweepResultPath(*bench.saveResult, sweep.parameter, value))
                : std::nullopt;
        ServeLoadResult result;
        RunId run = 0;
        bool interrupted = false;
        if (server) {
            BenchServe pointBench = bench;
            pointBench.info = info;
            pointBench.saveResult = resultPath;
            pointBench.resultPathFor = nullptr;  // the point's own name, with its value
            ServedPoint served;
            benchWithServer(pointBench, *server, &served);
            run = served.run;
            result = std::move(served.load);
            interrupted = served.interrupted;
        } else {
            result = runServeLoad(o);
            interrupted = result.interrupted;
            Store store(bench.storePath);
            run = storeServeRun(store, o, result, info);
            if (resultPath) saveVllmResult(bench, run, result, *resultPath);
        }
        Store store(bench.storePath);
        namespace k = sweep_keys;
        store.setProperty(run, k::kGroup, group);
        store.setProperty(run, k::kParameter, sweep.parameter);
        store.setProperty(run, k::kValue, value);
        store.setProperty(run, k::kIndex, std::to_string(i));
        store.setProperty(run, k::kPoints, std::to_string(points));
        store.setProperty(run, k::kGpus, std::to_string(sweep.gpus));
        if (bench.targets.ttftMs)
            store.setProperty(run, k::kTtftTarget, number(*bench.targets.ttftMs));
        if (bench.targets.tpotMs)
            store.setProperty(run, k::kTpotTarget, number(*bench.targets.tpotMs));
        if (bench.targets.e2elMs)
            store.setProperty(run, k::kE2elTarget, number(*bench.targets.e2elMs));
        auto table = sweepTable(store, *findSweepGroup(store, group));
        const SweepPoint& pt = table.points.back();
        std::cerr << "sweep point " << i + 1 << "/" << points << ": run " << run << ", "
                  << pt.completed << " completed, " << pt.failed << " failed, " << std::fixed
                  << std::setprecision(1) << pt.outputThroughput << " output tok/s";
        if (pt.tpotP50Ms)
            std::cerr << ", TPOT p50 " << std::setprecision(2) << *pt.tpotP50Ms << " ms";
        std::cerr << std::defaultfloat << '\n';
        if (!result.warmupError.empty())
            std::cerr << "sweep point " << i + 1
                      << ": the warm-up request failed: " << result.warmupError << '\n';
        if (interrupted) {
            std::cerr << "warpscope-cli bench: sweep interrupted at point " << i + 1 << "/"
                      << points << "; run " << run << " keeps what was measured\n";
            allOk = false;
            break;
        }
        allOk = allOk && result.failed() == 0 && result.warmupError.empty() &&
                !result.runTimedOut && requireRun(store, run).status == RunStatus::Ok;
    }
    o.stop = nullptr;
    Store store(bench.storePath);
    if (auto g = findSweepGroup(store, group)) printSweepTable(std::cout, sweepTable(store, *g));
    return allOk ? 0 : 1;
}

}  // namespace ws::cli
