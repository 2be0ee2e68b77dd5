// ls, show, rm, label, tag: commands that read or edit a store.

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/capture_cost.h"
#include "analysis/client_measurement.h"
#include "analysis/pc_sample_summary.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "io/run_export.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/format.h"
#include "util/text.h"

namespace ws::cli {

namespace {

// Cut at a character's start, never inside a UTF-8 sequence.
std::size_t charStart(const std::string& s, std::size_t at) {
    while (at > 0 && at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80)
        --at;
    return at;
}

std::string truncate(const std::string& s, std::size_t width) {
    return s.size() <= width ? s : s.substr(0, charStart(s, width - 1)) + "~";
}

// Labels of one model's variants and of a sweep's points differ at their
// ends and starts: cut in the middle, both ends stay.
std::string truncateMiddle(const std::string& s, std::size_t width) {
    if (s.size() <= width) return s;
    const std::size_t head = charStart(s, (width - 1) / 2);
    const std::size_t tailFrom = charStart(s, s.size() - (width - 1 - head));
    return s.substr(0, head) + "~" + s.substr(tailFrom);
}

}  // namespace

int cmdLs(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db"}, 0, 0});
    auto store = openStore(args);
    auto runs = listRuns(*store);
    if (args.flag("json")) {
        writeRunListJson(runs, std::cout);
        return 0;
    }
    if (runs.empty()) {
        std::cout << "no runs in " << store->path() << '\n';
        return 0;
    }
    // The label column as wide as the longest label, between 28 and 48.
    std::size_t labelWidth = 27;
    for (const auto& r : runs)
        labelWidth = std::max(labelWidth, std::min<std::size_t>(47, forTerminal(r.label).size()));
    const int labelColumn = static_cast<int>(labelWidth) + 1;
    std::cout << std::left << std::setw(5) << "ID" << std::setw(8) << "STATUS"
              << std::setw(labelColumn) << "LABEL" << std::setw(26) << "WORKLOAD" << std::setw(20)
              << "DEVICE" << std::setw(21) << "STARTED"
              << "DURATION\n";
    for (const auto& r : runs) {
        std::cout << std::left << std::setw(5) << r.id << std::setw(8) << toString(r.status)
                  << std::setw(labelColumn) << truncateMiddle(forTerminal(r.label), labelWidth)
                  << std::setw(26) << truncate(forTerminal(r.workload), 25) << std::setw(20)
                  << truncate(forTerminal(r.device), 19) << std::setw(21)
                  << formatTimestamp(r.startedAtNs)
                  << (r.endedAtNs ? formatDuration(r.durationNs()) : "-") << '\n';
    }
    return 0;
}

namespace {

// show --json: the same facts as the text, as one object.
void printShowJson(Store& store, const RunInfo& run, const RunAggregates& agg) {
    nlohmann::ordered_json j = {
        {"run", run.id},
        {"label", run.label},
        {"status", toString(run.status)},
        {"exit_code", run.exitCode ? nlohmann::json(*run.exitCode) : nullptr},
        {"signal", run.signal ? nlohmann::json(*run.signal) : nullptr},
        {"workload", run.workload},
        {"workload_kind", run.workloadKind},
        {"variant", run.variant},
        {"tags", run.tags},
        {"command", run.command},
        {"host", run.host},
        {"started_at_ns", run.startedAtNs},
        {"duration_ns", run.endedAtNs ? nlohmann::json(run.durationNs()) : nullptr},
        {"kernels", agg.kernelCount},
        {"kernel_time_ns", agg.kernelTimeNs},
        {"streams", agg.streamCount},
        {"memcpys", agg.memcpyCount},
        {"memcpy_bytes", agg.memcpyBytes},
        {"memsets", agg.memsetCount},
        {"api_calls", agg.apiCallCount},
        {"nvtx_ranges", agg.rangeCount},
        {"requests", agg.requestCount},
        {"tokens", agg.tokenCount},
        {"device_samples", agg.sampleCount},
        {"pc_samples", pcSampleCount(store, run.id)},
        {"dropped_records", run.droppedRecords}};
    if (auto d = runDevice(store, run.id))
        j["device"] = {{"name", d->name},
                       {"cc", std::to_string(d->ccMajor) + "." + std::to_string(d->ccMinor)},
                       {"sm_count", d->smCount},
                       {"memory_bytes", d->memoryBytes},
                       {"driver", d->driverVersion},
                       {"cuda", d->cudaVersion}};
    auto properties = nlohmann::ordered_json::object();
    for (const auto& [key, value] : runProperties(store, run.id))
        properties[key] = value;
    j["properties"] = std::move(properties);
    j["log"] = runLog(store, run.id);
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace

int cmdShow(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    auto store = openStore(args);
    auto run = requireRun(*store, id);
    auto agg = runAggregates(*store, id);
    if (args.flag("json")) {
        printShowJson(*store, run, agg);
        return 0;
    }
    auto row = [](const char* key, const std::string& value) {
        // Labels, commands and device names come from files and programs:
        // escape sequences in them are shown, not sent to the terminal.
        if (!value.empty())
            std::cout << std::left << std::setw(18) << key << forTerminal(value) << '\n';
    };
    row("run", std::to_string(run.id));
    row("label", run.label);
    row("status", toString(run.status));
    if (run.exitCode) row("exit code", std::to_string(*run.exitCode));
    if (run.signal) row("signal", std::to_string(*run.signal));
    row("workload", run.workload.empty() ? "" : run.workload + " (" + run.workloadKind + ")");
    row("variant", run.variant);
    row("tags", run.tags);
    row("command", run.command);
    row("host", run.host);
    row("started", formatTimestamp(run.startedAtNs));
    if (run.endedAtNs) row("duration", formatDuration(run.durationNs()));
    if (auto d = runDevice(*store, id)) {
        std::ostringstream dev;
        dev << d->name << ", cc " << d->ccMajor << '.' << d->ccMinor << ", " << d->smCount
            << " SMs, " << formatBytes(d->memoryBytes) << ", driver " << d->driverVersion
            << ", CUDA " << d->cudaVersion;
        row("device", dev.str());
    }
    row("kernels", std::to_string(agg.kernelCount) + " (" + formatDuration(agg.kernelTimeNs) +
                       " GPU time, " + std::to_string(agg.streamCount) + " streams)");
    row("memcpys", std::to_string(agg.memcpyCount) + " (" + formatBytes(agg.memcpyBytes) + ")");
    row("memsets", std::to_string(agg.memsetCount));
    row("api calls", std::to_string(agg.apiCallCount));
    row("nvtx ranges", std::to_string(agg.rangeCount));
    row("requests",
        std::to_string(agg.requestCount) + " (" + std::to_string(agg.tokenCount) + " tokens)");
    row("device samples", std::to_string(agg.sampleCount));
    // record --pc-sampling: samples that landed in the program's kernels.
    if (const auto pc = pcSampleCount(*store, id); pc > 0) {
        std::string text = std::to_string(pc) + " in its kernels (`kernel " + std::to_string(id) +
                           " NAME` says where each stalls)";
        if (auto cost = samplerCostText(runProperties(*store, id), run.durationNs()); !cost.empty())
            text += "; " + cost;
        row("PC samples", text);
    }
    if (run.droppedRecords > 0)
        row("DROPPED", std::to_string(run.droppedRecords) +
                           " records were dropped by CUPTI: the timeline is incomplete");
    for (const auto& q : qualityOf(*store, id)) {
        std::ostringstream text;
        text << (q.passed ? "passed" : "FAILED") << ": token agreement " << q.tokenAgreement
             << ", max logit error " << q.maxLogitError << " (tolerance " << q.tolerance
             << ") against " << q.referenceVariant << "; " << q.check;
        row("quality", text.str());
    }
    auto properties = runProperties(*store, id);
    // The line without its "capture cost " lead, which the row names.
    if (auto cost = captureCostLine(properties)) row("capture cost", cost->substr(13));
    if (auto range = captureRangeLine(properties, run.durationNs())) row("capture range", *range);
    // The same for the client's line without its "client: " lead.
    if (auto client = clientMeasurementLine(properties)) row("client", client->substr(8));
    if (!properties.empty()) std::cout << "properties\n";
    std::size_t width = 0;
    for (const auto& p : properties)
        width = std::max(width, p.first.size());
    for (const auto& [key, value] : properties)
        std::cout << "  " << std::left << std::setw(int(width) + 2) << forTerminal(key)
                  << forTerminal(value) << '\n';
    // The log's end: why a run failed (a request's HTTP error, the program's
    // last words) is there.
    const std::string log = runLog(*store, id);
    std::vector<std::string> lines;
    std::stringstream in(log);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    if (!lines.empty()) {
        constexpr std::size_t kShown = 20;
        const std::size_t from = lines.size() > kShown ? lines.size() - kShown : 0;
        std::cout << "log"
                  << (from > 0 ? " (last " + std::to_string(kShown) + " of " +
                                     std::to_string(lines.size()) + " lines)"
                               : std::string())
                  << '\n';
        for (std::size_t i = from; i < lines.size(); ++i)
            std::cout << "  " << forTerminal(lines[i]) << '\n';
    }
    return 0;
}

int cmdRm(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db"}, 1, 64});
    auto store = openStore(args);
    // Every id first: `rm 4 99` once removed run 4 and then failed on 99.
    std::vector<RunId> ids;
    for (const auto& text : args.positional())
        ids.push_back(parseRunId(text));
    for (auto id : ids)
        requireRun(*store, id);
    Store::Transaction tx(*store);
    for (auto id : ids)
        store->deleteRun(id);
    tx.commit();
    for (auto id : ids)
        std::cout << "removed run " << id << '\n';
    return 0;
}

int cmdLabel(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db"}, 2, 2});
    auto id = parseRunId(args.positional()[0]);
    const std::string& label = args.positional()[1];
    if (label.find_first_not_of(" \t") == std::string::npos)
        throw UsageError("label: the new label of run " + std::to_string(id) + " is empty");
    auto store = openStore(args);
    requireRun(*store, id);
    store->setLabel(id, label);
    std::cout << "run " << id << " is now labelled " << forTerminal(label) << '\n';
    return 0;
}

int cmdTag(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db", "add", "remove"}, 1, 2});
    auto id = parseRunId(args.positional()[0]);
    auto store = openStore(args);
    auto run = requireRun(*store, id);
    // TAGS replaces the list; --add and --remove edit it.
    std::string tags = args.positional().size() == 2 ? args.positional()[1] : run.tags;
    if (auto add = args.value("add")) tags += "," + *add;
    if (auto remove = args.value("remove")) {
        std::string kept;
        std::string current = normalizedTags(tags) + ",";
        std::string drop = "," + normalizedTags(*remove) + ",";
        for (std::size_t at = 0, comma; (comma = current.find(',', at)) != std::string::npos;
             at = comma + 1) {
            std::string tag = current.substr(at, comma - at);
            if (drop.find("," + tag + ",") == std::string::npos) kept += tag + ",";
        }
        tags = kept;
    }
    if (args.positional().size() == 1 && !args.value("add") && !args.value("remove")) {
        std::cout << forTerminal(run.tags) << '\n';  // just show them
        return 0;
    }
    store->setTags(id, tags);
    auto now = normalizedTags(tags);
    std::cout << "run " << id << (now.empty() ? " has no tags" : " tags: " + forTerminal(now))
              << '\n';
    return 0;
}

}  // namespace ws::cli
