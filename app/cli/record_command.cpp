// warpscope-cli record: run any program with the capture library injected.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/capture_cost.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/inject_library.h"
#include "cli/open_store.h"
#include "cli/progress_output.h"
#include "cli/record_dram_pass.h"
#include "cli/remote_commands.h"
#include "config/workload_config.h"
#include "record/recorder.h"
#include "store/store.h"
#include "util/format.h"

namespace ws::cli {

namespace {

Recorder* activeRecorder = nullptr;

void onSignal(int) {
    if (activeRecorder) activeRecorder->cancel();
}

// Where the scripts bundled presets run live: installed,
// ../share/warpscope/scripts beside this binary; in a build tree, the source
// tree's scripts/gpu.
std::string scriptsFolder() {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        auto installed = exe.parent_path() / "../share/warpscope/scripts";
        if (std::filesystem::is_directory(installed, ec))
            return std::filesystem::weakly_canonical(installed, ec).string();
    }
    return WARPSCOPE_SOURCE_SCRIPTS_DIR;
}

// A command config names a bundled script as ${WARPSCOPE_SCRIPTS}/NAME, so
// the preset runs what the package installs wherever it is started from.
std::string expandScripts(std::string text) {
    static const std::string key = "${WARPSCOPE_SCRIPTS}";
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
        auto folder = scriptsFolder();
        text.replace(at, key.size(), folder);
        at += folder.size();
    }
    return text;
}

bool validMetricSpec(const std::string& spec) {
    if (spec == "roofline" || spec == "dram") return true;
    if (spec.empty() || spec.front() == ',' || spec.back() == ',') return false;
    return std::all_of(spec.begin(), spec.end(), [](unsigned char c) {
        return std::islower(c) || std::isdigit(c) || c == '_' || c == '.' || c == ',';
    });
}

}  // namespace

int cmdRecord(const std::vector<std::string>& argv) {
    ArgSpec spec{{kGpuMetricsFlag, kPcSamplingFlag},
                 {"db", "label", "workload", "variant", "progress", "metrics", "cache-control",
                  "dram-pass", "host", "remote-db", "remote-cli", kGpuMetricsValues[0],
                  kGpuMetricsValues[1], kPcSamplingPeriod},
                 0,
                 0,
                 true};
    spec.flags.insert(std::begin(kCaptureFlags), std::end(kCaptureFlags));
    spec.valueOptions.insert(std::begin(kCaptureValues), std::end(kCaptureValues));
    auto args = Args::parse(argv, spec);
    if (args.value("host")) return recordOnHost(args, spec);
    for (const char* remoteOnly : {"remote-db", "remote-cli"})
        if (args.value(remoteOnly))
            throw UsageError(std::string("--") + remoteOnly + " applies to --host H only");
    RecordRequest req;
    req.storePath = storePath(args);
    req.label = args.valueOr("label", "");
    req.variant = args.valueOr("variant", "");
    req.argv = args.passThrough();
    applyCaptureChoices(args, req);
    req.gpuMetrics = gpuMetricsChoice(args, req.properties);
    pcSamplingChoice(args, req.env, req.properties);
    if (auto metrics = args.value("metrics")) {
        if (args.flag(kPcSamplingFlag))
            throw UsageError(
                "--pc-sampling and --metrics exclude each other: CUPTI's PC sampler and its "
                "counter profiler cannot run in one process (record twice)");
        if (req.gpuMetrics)
            throw UsageError(
                "--gpu-metrics and --metrics exclude each other: a counter pass replays every "
                "kernel, so samples over time would measure the replays (record twice)");
        if (windowedCapture(args))
            throw UsageError(
                "--capture-range and --metrics exclude each other: a counter pass counts "
                "every kernel of the program, windows or not");
        if (!validMetricSpec(*metrics))
            throw UsageError(
                "--metrics must be 'roofline', 'dram' or comma-separated counter names such "
                "as dram__bytes_read.sum");
        req.env.push_back("WARPSCOPE_METRICS=" + *metrics);
        // Kernel replay serializes and repeats every kernel: say so with the run.
        req.properties.emplace_back("capture.metrics", *metrics);
        // As Nsight Compute's --cache-control: "all" empties L2 before each
        // kernel, so its DRAM bytes are its own; "none" counts it warm.
        std::string cache = args.valueOr("cache-control", "all");
        if (cache != "all" && cache != "none")
            throw UsageError("--cache-control must be 'all' or 'none', not '" + cache + "'");
        req.env.push_back("WARPSCOPE_CACHE_CONTROL=" + cache);
        req.properties.emplace_back("capture.cache_control", cache);
    } else if (args.value("cache-control")) {
        throw UsageError("--cache-control applies to a counter pass: give --metrics too");
    }
    // Multi-pass sets count their replay's writebacks as DRAM bytes; "on"
    // records the program again with DRAM counters alone (application replay).
    const std::string dramPass = args.valueOr("dram-pass", "on");
    if (dramPass != "on" && dramPass != "off")
        throw UsageError("--dram-pass must be 'on' or 'off', not '" + dramPass + "'");
    if (args.value("dram-pass") && !args.value("metrics"))
        throw UsageError("--dram-pass applies to a counter pass: give --metrics too");
    const bool secondPass = dramPass == "on" && needsDramPass(args.valueOr("metrics", ""));
    const ProgressMode reporting = progressMode(args);

    if (auto path = args.value("workload")) {
        auto config = loadWorkloadConfig(*path);
        if (!config.ok()) {
            std::string errors;
            for (const auto& e : config.errors)
                errors += "\n" + e.toString();
            throw std::runtime_error(*path +
                                     ": invalid workload config; nothing was run:" + errors);
        }
        const auto& c = *config.config;
        req.workload = WorkloadInfo{c.name, toString(c.kind), c.text};
        if (req.label.empty()) req.label = c.name;
        if (req.argv.empty() && !c.command) {
            // Built-in workloads run in warpscope-workload, under the same collector.
            auto runner = findBesideSelf("warpscope-workload");
            if (runner.empty())
                throw std::runtime_error("workload '" + c.name + "' is of kind " +
                                         toString(c.kind) +
                                         ": it needs warpscope-workload beside warpscope-cli, and "
                                         "there is none; nothing was run");
            std::error_code ec;
            req.argv = {runner, "run", std::filesystem::absolute(*path, ec).string()};
            if (req.variant.empty() && c.decoder)
                req.variant = c.decoder->variant + (c.decoder->cudaGraphs ? "+graphs" : "") +
                              (c.decoder->precision == "bf16" ? "" : " " + c.decoder->precision);
        } else if (req.argv.empty()) {
            req.argv.push_back(expandScripts(c.command->program));
            for (const auto& a : c.command->args)
                req.argv.push_back(expandScripts(a));
            for (const auto& [k, v] : c.command->env)
                req.env.push_back(k + "=" + expandScripts(v));
            req.workingDir = expandScripts(c.command->workingDir);
        }
    }
    if (req.argv.empty()) throw UsageError("no program: give it after --");
    req.injectLibrary = findInjectLibrary();
    if (req.injectLibrary.empty())
        emitNote(reporting,
                 "capture library not found (this build has no CUDA capture): recording the "
                 "program's output and device samples only");
    req.onProgress = [reporting](const RecordProgress& p) { printRecordProgress(p, reporting); };

    // Windows opened by the program's own calls: say so when it made none.
    const bool windowed = windowedCapture(args) && !req.injectLibrary.empty();
    std::optional<RecordRequest> passRequest;
    if (secondPass) passRequest = req;
    // A counter pass replays kernels: what tracing costs is then beside the point.
    std::optional<RecordRequest> costRequest;
    if (!args.value("metrics")) costRequest = req;
    Recorder recorder(std::move(req));
    activeRecorder = &recorder;
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    RecordOutcome outcome;
    try {
        outcome = recorder.run();
    } catch (...) {
        activeRecorder = nullptr;
        throw;
    }
    activeRecorder = nullptr;
    if (passRequest && outcome.status == RunStatus::Ok)
        recordDramPass(std::move(*passRequest), outcome.run, reporting,
                       [](Recorder* r) { activeRecorder = r; });
    if (windowed && outcome.totals.kernels == 0)
        emitNote(reporting,
                 "no kernel was traced: with --capture-range cudaProfilerApi only what runs "
                 "between the program's cudaProfilerStart and cudaProfilerStop is (in PyTorch: "
                 "torch.cuda.profiler.start() and stop())");
    if (costRequest && outcome.status == RunStatus::Ok) {
        try {
            if (auto line = storeCaptureCost(*costRequest, outcome.run, outcome.totals.kernels,
                                             outcome.totals.elapsedNs))
                emitNote(reporting, *line);
        } catch (const std::exception& e) {
            emitNote(reporting, std::string("capture cost not estimated: ") + e.what());
        }
    }
    std::string summary = "run " + std::to_string(outcome.run) + " " + toString(outcome.status);
    if (outcome.exitCode) summary += ", exit code " + std::to_string(*outcome.exitCode);
    if (outcome.signal) summary += ", signal " + std::to_string(*outcome.signal);
    if (outcome.totals.dropped)
        summary += ", " + std::to_string(outcome.totals.dropped) + " records DROPPED by CUPTI";
    if (reporting == ProgressMode::Json) {
        progress::Message done{progress::Kind::Done, summary};
        done.run = outcome.run;
        done.exitCode = outcome.exitCode;
        emitMessage(done);
    } else {
        std::cerr << "[warpscope] " << summary << '\n';
    }
    return outcome.status == RunStatus::Ok ? 0 : 1;
}

}  // namespace ws::cli
