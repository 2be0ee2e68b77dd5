// bench serve joined with a capture. --server starts the server's command as
// `record` starts a program (the same Recorder, capture library and session)
// and drives the load beside it; --attach adds the load to a run that another
// `warpscope-cli record` is recording. Either way the client's times are moved
// onto the capture's clock (record/capture_clock.h).
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <iostream>

#include "cli/bench_serve.h"
#include "cli/commands.h"
#include "cli/inject_library.h"
#include "record/capture_clock.h"
#include "record/served_recording.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::cli {

namespace {

std::atomic<ServedRecording*> gServed{nullptr};
std::atomic<bool> gServedSignalled{false};
extern "C" void onServedSignal(int) {
    gServedSignalled = true;
    if (ServedRecording* s = gServed.load()) s->cancel();
}

// SIGINT and SIGTERM go to `handler` while this lives.
class SignalScope {
  public:
    explicit SignalScope(void (*handler)(int)) {
        struct sigaction action {};
        action.sa_handler = handler;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &oldInt_);
        sigaction(SIGTERM, &action, &oldTerm_);
    }
    ~SignalScope() {
        sigaction(SIGINT, &oldInt_, nullptr);
        sigaction(SIGTERM, &oldTerm_, nullptr);
    }
    SignalScope(const SignalScope&) = delete;
    SignalScope& operator=(const SignalScope&) = delete;

  private:
    struct sigaction oldInt_ {
    }, oldTerm_{};
};

std::atomic<bool> gAttachStop{false};
extern "C" void onAttachSignal(int) {
    gAttachStop = true;
}

}  // namespace

int benchWithServer(const BenchServe& bench, const Args& args, ServedPoint* point) {
    // The server is given its address: the load goes where it listens, so a
    // port must be named (port 0 would leave us guessing what it picked).
    const std::string base = endpointBase(bench.options.endpoint);
    const auto colon = base.rfind(':');
    if (colon == std::string::npos || colon < base.find("://") + 3 ||
        base.substr(colon + 1).empty() || base.substr(colon + 1) == "0")
        throw UsageError("--server: --endpoint must name the port the server listens on (" + base +
                         " has none); start the server on that port");

    ServedRecordingRequest req;
    req.load = bench.options;
    req.info = bench.info;
    req.serverTimeoutS = parseFiniteNumber("server-timeout", args.valueOr("server-timeout", "600"));
    if (!(req.serverTimeoutS > 0)) throw UsageError("--server-timeout must be positive");
    const double graceS = parseFiniteNumber("stop-grace", args.valueOr("stop-grace", "10"));
    if (!(graceS > 0 && graceS <= 3600))
        throw UsageError("--stop-grace must be positive (seconds, at most 3600)");

    RecordRequest& r = req.record;
    r.storePath = bench.storePath;
    r.label = bench.info.label.empty() ? "bench serve " + bench.options.model : bench.info.label;
    r.workload = WorkloadInfo{bench.options.model, "command", bench.info.settingsJson};
    r.argv = args.passThrough();
    r.echoOutputToStderr = true;  // stdout carries the benchmark's results, as without --server
    r.injectLibrary = findInjectLibrary();
    // As record: --graph-trace graph (one record per graph launch) is what a
    // server replaying decode steps as CUDA graphs pays least for.
    applyCaptureChoices(args, r);
    r.gpuMetrics = gpuMetricsChoice(args, r.properties);
    pcSamplingChoice(args, r.env, r.properties);
    if (windowedCapture(args) && !bench.options.profile)
        std::cerr << "[warpscope] --capture-range " << *args.value("capture-range")
                  << " without --profile: only what the server itself brackets with "
                     "cudaProfilerStart/Stop is traced\n";
    r.properties.emplace_back("bench.mode", "server");
    Companion stopping;
    stopping.stopGraceMs = static_cast<int>(graceS * 1000);
    r.companion = stopping;
    req.onReady = [](double waitedS) {
        char line[96];
        std::snprintf(line, sizeof line,
                      "bench serve: the server answered after %.2f s; load started\n", waitedS);
        std::cerr << line;
    };
    if (r.injectLibrary.empty())
        std::cerr << "[warpscope] capture library not found (this build has no CUDA capture): "
                     "recording the server's output and device samples only\n";

    ServedRecording served(std::move(req));
    gServedSignalled = false;
    gServed = &served;
    ServedRecordingOutcome out;
    {
        SignalScope signals(onServedSignal);
        std::cerr
            << "bench serve: starting the server under capture, then " << bench.options.numPrompts
            << " requests to " << requestUrl(bench.options)
            << " (Ctrl-C stops the load, keeping what was measured; the server is then stopped)\n";
        try {
            out = served.run();
        } catch (...) {
            gServed = nullptr;
            throw;
        }
        gServed = nullptr;
    }
    const RunId run = out.record.run;
    // The result file and the summary name the model the server gave, where
    // the command named none.
    BenchServe named = bench;
    if (named.options.model.empty() && !out.model.empty() && bench.info.label.empty()) {
        // The run was labelled before the server said which model it serves.
        Store store(bench.storePath);
        store.setLabel(run, "bench serve " + out.model);
    }
    if (named.options.model.empty()) named.options.model = out.model;
    if (named.modelId.empty() && !out.model.empty()) {
        named.modelId = out.model;
        if (named.resultPathFor) named.saveResult = named.resultPathFor(out.model);
    }
    int code = 0;
    if (point) {  // a sweep point: the sweep prints its own line and table
        point->run = run;
        point->load = out.load;
        point->interrupted = gServedSignalled.load() || out.load.interrupted;
        if (out.loadRan && named.saveResult)
            saveVllmResult(named, run, out.load, *named.saveResult);
    } else if (out.loadRan) {
        code = reportBenchRun(named, run, out.load);
    }
    if (!out.failure.empty()) {
        std::cerr << "warpscope-cli bench: " << out.failure << '\n';
        if (!out.record.errorTail.empty())
            std::cerr << "the server's last lines on stderr:\n" << out.record.errorTail;
        code = 1;
    }
    const RecordProgress& t = out.record.totals;
    std::cerr << "[warpscope] run " << run << " " << toString(out.record.status)
              << " (the server and the client in one run; `show " << run
              << "` for its log): server side " << t.processes
              << " processes reported to the capture, " << t.kernels << " kernels, " << t.memcpys
              << " memcpys, " << t.apiCalls << " API calls, " << t.ranges << " NVTX ranges";
    if (t.dropped) std::cerr << ", " << t.dropped << " records DROPPED";
    std::cerr << "; client side " << out.load.requests.size() << " requests\n";
    return out.record.status == RunStatus::Ok ? code : 1;
}

int benchAttach(const BenchServe& bench, RunId run) {
    {
        Store store(bench.storePath);
        auto info = requireRun(store, run);
        if (info.status != RunStatus::Running)
            throw std::runtime_error("--attach: run " + std::to_string(run) + " in " +
                                     bench.storePath + " is " + toString(info.status) +
                                     ", not being recorded; start `warpscope-cli record` first "
                                     "and attach while it runs");
    }
    ServeLoadOptions o = bench.options;
    gAttachStop = false;
    o.stop = &gAttachStop;
    CaptureClock clock;
    ClockMapping mapping;
    ServeLoadResult result;
    {
        SignalScope signals(onAttachSignal);
        std::cerr << "bench serve: " << o.numPrompts << " requests to " << requestUrl(o)
                  << ", stored into run " << run << " (Ctrl-C stops, keeping what was measured)\n";
        mapping.start = clock.read();
        result = runServeLoad(o);
        mapping.end = clock.read();
    }
    alignToCapture(result, mapping);
    ServeRunInfo info = bench.info;
    info.clock = "CLOCK_MONOTONIC moved onto the " + clock.source() +
                 " clock by the offset measured before and after the load (clock.*)";
    {
        Store store(bench.storePath);
        // The recorder writes this run every 100 ms and waits out our lock;
        // we wait out its writes as long.
        store.setBusyTimeout(60'000);
        Store::Transaction tx(store);
        for (const auto& [key, value] : mapping.properties(clock.source()))
            store.setProperty(run, key, value);
        if (!clock.note().empty()) store.appendLog(run, "[bench serve] " + clock.note() + "\n");
        store.setProperty(run, "bench.mode", "attach");
        store.appendLog(run, "[bench serve] requests attached by: " + bench.info.command + "\n");
        writeServeRequests(store, run, o, result, info);
        tx.commit();
    }
    return reportBenchRun(bench, run, result);
}

}  // namespace ws::cli
