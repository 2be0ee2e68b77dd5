#include "recording_session.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstring>

#include "conventions/run_conventions.h"

namespace ws {

namespace {

// Stopped from outside (Ctrl-C, kill, the OOM killer) is "killed"; a crash
// (SIGSEGV, SIGABRT, ...) is "failed".
bool isKillSignal(int sig) {
    return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

}  // namespace

RecordingSession::RecordingSession(Store& store, RunId run)
    : store_(store), run_(run), writer_(store, run, 1 << 16) {}

wire::Sink RecordingSession::sink() {
    wire::Sink s;
    s.hello = [this](const wire::Hello& h) {
        ++progress.processes;
        if (!clockOffset_) {
            clockOffset_ = h.cuptiNs - h.unixNs;
            store_.setProperty(run_, "cupti_clock_offset_ns", std::to_string(*clockOffset_));
            for (auto& sample : unplacedSamples_) {
                sample.timeNs += *clockOffset_;
                writer_.add(sample);
            }
            unplacedSamples_.clear();
        }
    };
    s.device = [this](const DeviceInfo& reported) {
        if (deviceStored_) return;
        DeviceInfo d = reported;
        if (d.driverVersion.empty()) d.driverVersion = driverVersion;
        store_.setDevice(run_, d);
        deviceStored_ = true;
    };
    s.overhead = [this](const OverheadRecord& r) { writer_.add(r); };
    s.metric = [this](const KernelMetricRecord& r) {
        replayed_.metric(r);
        writer_.add(r);
    };
    s.dropped = [this](std::int64_t n) {
        progress.dropped += n;
        droppedPending_ += n;
    };
    s.kernel = [this](const KernelRecord& r) {
        ++progress.kernels;
        if (!replayed_.hold(r)) writer_.add(r);
    };
    s.memcpy = [this](const MemcpyRecord& r) {
        ++progress.memcpys;
        progress.memcpyBytes += r.bytes;
        writer_.add(r);
    };
    s.memset = [this](const MemsetRecord& r) { writer_.add(r); };
    s.apiCall = [this](const ApiCallRecord& r) {
        ++progress.apiCalls;
        replayed_.apiCall(r);
        writer_.add(r);
    };
    s.range = [this](const RangeRecord& r) {
        ++progress.ranges;
        if (r.name.rfind("ws.token:", 0) == 0) ++progress.tokens;
        writer_.add(r);
    };
    return s;
}

void RecordingSession::addSamples(std::vector<SampleRecord> samples) {
    for (auto& s : samples) {
        if (clockOffset_) {
            s.timeNs += *clockOffset_;
            writer_.add(s);
        } else {
            unplacedSamples_.push_back(s);
        }
    }
}

void RecordingSession::flush() {
    writer_.flush();
    if (!pendingLog.empty()) {
        store_.appendLog(run_, pendingLog);
        pendingLog.clear();
    }
    if (droppedPending_) {
        store_.addDroppedRecords(run_, droppedPending_);
        droppedPending_ = 0;
    }
}

RecordOutcome RecordingSession::finish(int waitStatus, bool cancelled, std::int64_t elapsedNs) {
    RecordOutcome outcome;
    outcome.run = run_;
    if (WIFEXITED(waitStatus)) {
        outcome.exitCode = WEXITSTATUS(waitStatus);
        outcome.status = *outcome.exitCode == 0 ? RunStatus::Ok : RunStatus::Failed;
    } else if (WIFSIGNALED(waitStatus)) {
        outcome.signal = WTERMSIG(waitStatus);
        outcome.status = isKillSignal(*outcome.signal) ? RunStatus::Killed : RunStatus::Failed;
        pendingLog += "[warpscope] the program ended by signal " + std::to_string(*outcome.signal) +
                      " (" + strsignal(*outcome.signal) + ")\n";
    }
    if (cancelled) outcome.status = RunStatus::Killed;
    // No CUDA process reported its clock: keep the samples on Unix time.
    for (const auto& s : unplacedSamples_)
        writer_.add(s);
    unplacedSamples_.clear();
    for (const auto& k : replayed_.release())
        writer_.add(k);
    if (replayed_.unplaced() > 0)
        pendingLog += "[warpscope] " + std::to_string(replayed_.unplaced()) +
                      " replayed kernels had no launch call to place them at\n";
    flush();

    auto conventions = applyNvtxConventions(store_, run_, writer_);
    for (const auto& e : conventions.errors)
        pendingLog += "[warpscope] ignored " + e + "\n";
    progress.tokens = conventions.tokens;
    flush();

    store_.finishRun(run_, outcome.status, outcome.exitCode, outcome.signal);
    progress.elapsedNs = elapsedNs;
    progress.finished = true;
    outcome.totals = progress;
    return outcome;
}

}  // namespace ws
