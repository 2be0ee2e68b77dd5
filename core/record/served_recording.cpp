#include "record/served_recording.h"

#include <signal.h>

#include <cstring>
#include <optional>
#include <sstream>

#include "record/capture_clock.h"
#include "store/store.h"

namespace ws {

namespace {

std::string howItEnded(const RecordOutcome& o) {
    if (o.signal)
        return std::string("signal ") + std::to_string(*o.signal) + " (" + strsignal(*o.signal) +
               ")";
    if (o.exitCode) return "exit code " + std::to_string(*o.exitCode);
    return "an unknown status";
}

std::string seconds(double s) {
    std::ostringstream out;
    out.precision(3);
    out << s << " s";
    return out.str();
}

// The worse of two statuses for a run: failed over killed over ok.
RunStatus worse(RunStatus a, RunStatus b) {
    auto rank = [](RunStatus s) {
        return s == RunStatus::Failed ? 2 : s == RunStatus::Killed ? 1 : 0;
    };
    return rank(a) >= rank(b) ? a : b;
}

}  // namespace

ServedRecording::ServedRecording(ServedRecordingRequest request) : request_(std::move(request)) {}

void ServedRecording::cancel() {
    if (cancels_.fetch_add(1) == 0) {
        stop_ = true;
        return;
    }
    if (Recorder* r = recorder_.load()) r->cancel();
}

ServedRecordingOutcome ServedRecording::run() {
    endpointBase(request_.load.endpoint);  // a malformed endpoint fails before the server starts
    ServedRecordingOutcome out;
    ServerWaitResult wait;
    std::optional<ClockMapping> mapping;
    std::string clockSource, clockNote;
    bool endedEarly = false;  // the server ended before it was asked to

    ServeLoadOptions load = request_.load;
    load.stop = &stop_;
    RecordRequest record = request_.record;
    Companion companion;
    companion.stopGraceMs = record.companion ? record.companion->stopGraceMs : 10'000;
    companion.run = [&] {
        CaptureClock clock;
        clockSource = clock.source();
        clockNote = clock.note();
        ClockMapping m;
        m.start = clock.read();
        wait = waitForServer(load.endpoint, request_.serverTimeoutS, serverEnded_, stop_);
        if (wait.state != ServerWait::Ready) return;
        // No --model: the server is up now to say which it serves, as vLLM's
        // bench asks a running server.
        if (load.model.empty()) {
            try {
                load.model = firstServedModel(load.endpoint);
            } catch (const std::runtime_error& e) {
                out.failure = e.what();  // "no --model given, and the server ..."
                return;
            }
        }
        out.model = load.model;
        if (request_.onReady) request_.onReady(wait.waitedS);
        out.loadRan = true;
        out.load = runServeLoad(load);
        m.end = clock.read();
        alignToCapture(out.load, m);
        mapping = m;
    };
    companion.programEnded = [this, &endedEarly] {
        endedEarly = true;
        serverEnded_ = true;
        stop_ = true;  // the load cannot go on: keep what it measured
    };
    companion.finish = [&](Store& store, RunId run, RecordOutcome& outcome) {
        auto log = [&](const std::string& line) {
            store.appendLog(run, "[warpscope] " + line + "\n");
        };
        switch (wait.state) {
            case ServerWait::Ready:
                log("the server answered after " + seconds(wait.waitedS));
                break;
            case ServerWait::Ended:
                out.failure = "the server ended before it answered /health or /v1/models at " +
                              endpointBase(load.endpoint) + ": " + howItEnded(outcome);
                break;
            case ServerWait::TimedOut:
                out.failure = "the server did not answer /health or /v1/models at " +
                              endpointBase(load.endpoint) + " within " + seconds(wait.waitedS) +
                              " (--server-timeout); last: " + wait.lastError;
                break;
            case ServerWait::Stopped:
                log("interrupted while waiting for the server; no load was sent");
                outcome.status = worse(outcome.status, RunStatus::Killed);
                break;
        }
        if (out.loadRan) {
            ServeRunInfo info = request_.info;
            if (mapping) {
                for (const auto& [key, value] : mapping->properties(clockSource))
                    store.setProperty(run, key, value);
                info.clock = clockSource == "cupti"
                                 ? "CLOCK_MONOTONIC moved onto the CUPTI clock by the offset "
                                   "measured before and after the load (clock.*)"
                                 : "CLOCK_MONOTONIC moved onto Unix time by the offset measured "
                                   "before and after the load (clock.*)";
            }
            if (!clockNote.empty()) log(clockNote);
            // Not stopped by the recorder: the server went first. Seen before
            // the load ran out, it ended during the load; seen only once the
            // load had run out (every request left failing at once) or while
            // it drained, before it was stopped.
            bool endedUnasked = endedEarly || !outcome.stoppedOnRequest;
            if (endedUnasked) out.load.interrupted = false;  // not a Ctrl-C: the server went away
            RunStatus loadStatus = writeServeRequests(store, run, load, out.load, info);
            outcome.status = worse(outcome.status, loadStatus);
            if (endedUnasked && wait.state == ServerWait::Ready)
                out.failure = std::string("the server ended ") +
                              (endedEarly ? "during the load: " : "before it was stopped: ") +
                              howItEnded(outcome) + "; the requests measured until then are kept";
        }
        if (!out.failure.empty()) {
            log(out.failure);
            store.setProperty(run, "serve.failure", out.failure);
            outcome.status = RunStatus::Failed;
        }
        if (outcome.stoppedOnRequest)
            log("the server was stopped after the load and ended with " + howItEnded(outcome));
    };
    record.companion = std::move(companion);

    Recorder recorder(std::move(record));
    recorder_ = &recorder;
    try {
        out.record = recorder.run();
    } catch (...) {
        recorder_ = nullptr;
        throw;
    }
    recorder_ = nullptr;
    return out;
}

}  // namespace ws
