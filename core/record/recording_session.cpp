#include "recording_session.h"

#include <signal.h>
#include <sys/wait.h>
#include <limits>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

#include "conventions/run_conventions.h"
#include "model/capture_windows.h"
#include "model/pc_sampling.h"
#include "model/process_keys.h"
#include "model/query_calls.h"
#include "process_info.h"
#include "util/format.h"
#include "util/process_identity.h"

namespace ws {

bool isKillSignal(int sig) {
    return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
}

namespace {

// Records held in memory while the store is locked: about 300 MB at most.
constexpr std::size_t kMaxWaitingRecords = std::size_t{1} << 21;
// How long the end of a recording waits for a store that stays locked.
constexpr auto kFinalWait = std::chrono::minutes(10);

bool isBlocking(const StoreError& e) {
    return e.kind() == StoreError::Kind::Locked || e.kind() == StoreError::Kind::DiskFull;
}

}  // namespace

RecordingSession::RecordingSession(Store& store, RunId run)
    : store_(store), run_(run), writer_(store, run, 1 << 16) {
    progress.run = run;
    writer_.keepRecordsWhenBlocked(kMaxWaitingRecords);
    // Each periodic write waits this long for a lock, then tries again at the
    // next flush; the program's output and frames are read in between.
    store_.setBusyTimeout(200);
}

wire::Sink RecordingSession::sink() {
    wire::Sink s;
    // One sink per connection, one connection per process: its pid, from Hello.
    auto pid = std::make_shared<std::uint32_t>(0);
    auto saidBye = std::make_shared<bool>(false);
    s.hello = [this, pid](const wire::Hello& h) {
        *pid = static_cast<std::uint32_t>(h.pid);
        unsettledEnds_.erase(*pid);  // exec'd: the same process goes on
        ++progress.processes;
        // The process is alive and ours while it says hello: its command line
        // can be read now (exec'd children report again under the same pid).
        pendingProperties_.emplace_back(process_keys::parent(*pid), std::to_string(h.parentPid));
        if (auto command = commandLineOf(*pid); !command.empty())
            pendingProperties_.emplace_back(process_keys::command(*pid), command);
        // A rank of a distributed job (torchrun, mpirun, srun): its lanes and
        // the collective analysis name it.
        const auto env = distributedEnvOf(*pid);
        if (!env.rank.empty()) pendingProperties_.emplace_back(process_keys::rank(*pid), env.rank);
        if (!env.localRank.empty())
            pendingProperties_.emplace_back(process_keys::localRank(*pid), env.localRank);
        if (!env.worldSize.empty())
            pendingProperties_.emplace_back(process_keys::worldSize(*pid), env.worldSize);
        if (!reportingPids_.empty()) reportingPids_ += ",";
        reportingPids_ += std::to_string(h.pid) + "(" + std::to_string(h.parentPid) + ")";
        if (!clockOffset_) {
            clockOffset_ = h.cuptiNs - h.unixNs;
            pendingProperties_.emplace_back("cupti_clock_offset_ns", std::to_string(*clockOffset_));
            for (auto& sample : unplacedSamples_) {
                sample.timeNs += *clockOffset_;
                writer_.add(sample);
            }
            unplacedSamples_.clear();
            addGpuMetrics(std::exchange(unplacedGpuMetrics_, {}));
        }
    };
    s.device = [this](const DeviceInfo& reported) {
        if (deviceSeen_) return;
        DeviceInfo d = reported;
        if (d.driverVersion.empty()) d.driverVersion = driverVersion;
        pendingDevice_ = d;
        deviceSeen_ = true;
    };
    s.bye = [saidBye] { *saidBye = true; };
    s.closed = [this, pid, saidBye] { processEnded(*pid, *saidBye); };
    s.overhead = [this](const OverheadRecord& r) { writer_.add(r); };
    s.graphNode = [this](const GraphNodeRecord& r) { writer_.add(r); };
    s.collectiveCall = [this](const CollectiveCallRecord& r) { writer_.add(r); };
    s.metric = [this, pid](KernelMetricRecord r) {
        r.correlationId = correlationOf(*pid, r.correlationId);
        replayed_.metric(r);
        writer_.add(r);
        writePlacedKernels();
    };
    s.pcSample = [this](const PcSampleRecord& r) { writer_.add(r); };
    s.pcSamplingTotals = [this](const PcSamplingTotals& t) {
        auto& sum = pcSampling_;
        sum.samples += t.samples;
        sum.droppedSamples += t.droppedSamples;
        sum.nonUserSamples += t.nonUserSamples;
        sum.hardwareBufferFull = sum.hardwareBufferFull || t.hardwareBufferFull;
        // Processes sample side by side: the longest is what the run waited.
        sum.hostNs = std::max(sum.hostNs, t.hostNs);
        if (t.periodLog2) sum.periodLog2 = t.periodLog2;
        pendingProperties_.emplace_back(pc_sampling::kSamples, std::to_string(sum.samples));
        pendingProperties_.emplace_back(pc_sampling::kDropped, std::to_string(sum.droppedSamples));
        pendingProperties_.emplace_back(pc_sampling::kNonUser, std::to_string(sum.nonUserSamples));
        if (sum.periodLog2)
            pendingProperties_.emplace_back(pc_sampling::kPeriod, std::to_string(sum.periodLog2));
        if (sum.hardwareBufferFull)
            pendingProperties_.emplace_back(pc_sampling::kBufferFull, "yes");
        pendingProperties_.emplace_back(pc_sampling::kHostMs,
                                        formatFixed(static_cast<double>(sum.hostNs) / 1e6, 1));
    };
    s.rejected = [this](const std::string& why) {
        ++progress.dropped;
        ++droppedPending_;
        // The first few reasons in the log; every one is counted as dropped.
        if (++rejectedRecords_ <= 5)
            pendingLog += "[warpscope] capture stream: dropped " + why + "\n";
    };
    // Each frame's count is at most 2^40 (wire/frames.cpp); the sums saturate
    // rather than overflow however many frames a peer sends.
    auto add = [](auto& sum, std::int64_t n) {
        sum = n > std::numeric_limits<std::int64_t>::max() - sum
                  ? std::numeric_limits<std::int64_t>::max()
                  : sum + n;
    };
    s.dropped = [this, add](std::int64_t n) {
        add(progress.dropped, n);
        add(droppedPending_, n);
    };
    s.queryCalls = [this, add](std::int64_t n) {
        add(queryCalls_, n);
        queryCallsChanged_ = true;  // written with the run's rows, once per write
    };
    s.kernel = [this, pid](const KernelRecord& r) {
        ++progress.kernels;
        auto keep = [this](const KernelRecord& k) {
            if (!replayed_.hold(k)) return writer_.add(k);
            writePlacedKernels();
        };
        // Copied (name and all) only for a stream or id renumbered for another
        // process.
        auto stream = streamOf(*pid, r.deviceId, r.streamId);
        auto correlation = correlationOf(*pid, r.correlationId);
        if (stream == r.streamId && correlation == r.correlationId) return keep(r);
        KernelRecord renumbered = r;
        renumbered.streamId = stream;
        renumbered.correlationId = correlation;
        keep(renumbered);
    };
    s.memcpy = [this, pid](MemcpyRecord r) {
        ++progress.memcpys;
        progress.memcpyBytes += r.bytes;
        r.streamId = streamOf(*pid, r.deviceId, r.streamId);
        r.correlationId = correlationOf(*pid, r.correlationId);
        writer_.add(r);
    };
    s.memset = [this, pid](MemsetRecord r) {
        r.streamId = streamOf(*pid, r.deviceId, r.streamId);
        r.correlationId = correlationOf(*pid, r.correlationId);
        writer_.add(r);
    };
    s.apiCall = [this, pid](ApiCallRecord r) {
        ++progress.apiCalls;
        r.correlationId = correlationOf(*pid, r.correlationId);
        replayed_.apiCall(r);
        writer_.add(r);
        writePlacedKernels();
    };
    s.range = [this](const RangeRecord& r) {
        ++progress.ranges;
        if (r.name.rfind("ws.token:", 0) == 0) ++progress.tokens;
        if (r.threadId == 0 && r.name == capture_window::kName &&
            r.domain == capture_window::kDomain) {
            ++captureWindows_;
            captureWindowsNs_ += r.endNs - r.startNs;
            // A later value of a key wins: the last note holds the totals.
            pendingProperties_.emplace_back(capture_window::kCountProperty,
                                            std::to_string(captureWindows_));
            pendingProperties_.emplace_back(capture_window::kTracedNsProperty,
                                            std::to_string(captureWindowsNs_));
        }
        writer_.add(r);
    };
    return s;
}

void RecordingSession::writePlacedKernels() {
    if (!replayed_.havePlaced()) return;
    for (const auto& k : replayed_.takePlaced())
        writer_.add(k);
}

void RecordingSession::noteOutput(std::string_view bytes) {
    if (!cuptiConflict_.empty()) return;
    outputLine_.append(bytes);
    for (std::size_t nl; (nl = outputLine_.find('\n')) != std::string::npos;) {
        const std::string_view line(outputLine_.data(), nl);
        // CUPTI has one callback subscriber per process. Kineto (torch.profiler)
        // logs "... failed with error CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
        // the collector logs "[warpscope] cuptiSubscribe failed: ..." when it
        // came second.
        if (line.find("MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED") != std::string_view::npos) {
            const bool ours = line.find("[warpscope]") != std::string_view::npos;
            cuptiConflict_ = ours ? "warpscope" : "other";
            pendingLog +=
                ours ? "[warpscope] another profiler held CUPTI's callbacks first: CUDA graph "
                       "nodes and hardware counters are missing from this run\n"
                     : "[warpscope] another profiler in the program (torch.profiler or any CUPTI "
                       "client) could not subscribe to CUPTI while Warpscope held it: its own "
                       "trace lacks CUDA activity; this run is complete\n";
            pendingProperties_.emplace_back("capture.cupti_conflict", cuptiConflict_);
            outputLine_.clear();
            return;
        }
        outputLine_.erase(0, nl + 1);
    }
    if (outputLine_.size() > 4096) outputLine_.erase(0, outputLine_.size() - 4096);
}

void RecordingSession::processEnded(std::uint32_t pid, bool saidBye) {
    if (pid == 0) return;  // closed before its hello
    const std::int64_t now = unixNowNs();
    // Without a goodbye the process was killed or crashed, or exec replaced
    // it (the new image says hello again under the same pid). A killed
    // process's stream closes while it is still being torn down, so one that
    // still looks alive is judged again when the recording ends.
    if (!saidBye && stillRunning(pid)) {
        unsettledEnds_[pid] = now;
        return;
    }
    noteProcessEnd(pid, saidBye ? "exited" : "lost", now);
}

void RecordingSession::noteProcessEnd(std::uint32_t pid, const std::string& end,
                                      std::int64_t unixNs) {
    pendingProperties_.emplace_back(process_keys::end(pid), end);
    if (clockOffset_)
        pendingProperties_.emplace_back(process_keys::endNs(pid),
                                        std::to_string(unixNs + *clockOffset_));
    if (end == "lost")
        pendingLog += "[warpscope] process " + std::to_string(pid) +
                      " ended without flushing its capture stream (killed or crashed): its "
                      "last records, up to ~100 ms, are missing\n";
}

std::uint32_t RecordingSession::streamOf(std::uint32_t pid, std::uint32_t device,
                                         std::uint32_t stream) {
    std::optional<GpuStreamRecord> fresh;
    auto id = streams_.assign(pid, device, stream, fresh);
    if (fresh) writer_.add(*fresh);
    return id;
}

std::uint32_t RecordingSession::correlationOf(std::uint32_t pid, std::uint32_t id) {
    const std::uint32_t stored = correlations_.of(pid, id);
    if (!correlations_.anyUnseparated()) return stored;
    for (auto other : correlations_.takeUnseparated())
        pendingLog += "[warpscope] process " + std::to_string(other) +
                      ": its CUDA correlation ids could not be kept apart from another "
                      "process's (more than 16 processes launching, or over 268 M calls in "
                      "one): some of its kernels may be matched to another process's launch "
                      "calls and ranges\n";
    return stored;
}

void RecordingSession::addGpuMetrics(std::vector<GpuMetricSeries> series) {
    for (auto& s : series) {
        if (!clockOffset_) {
            unplacedGpuMetrics_.push_back(std::move(s));
            continue;
        }
        for (auto& sample : s.samples) {
            sample.startNs += *clockOffset_;
            sample.endNs += *clockOffset_;
        }
        writer_.add(s);
    }
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

// The run's own rows: log, dropped count, properties, device. False while
// the store is locked or full (what was not written stays pending).
bool RecordingSession::writeRunRows() {
    try {
        for (auto& line : writer_.takeProblems())
            pendingLog += "[warpscope] " + line + "\n";
        if (writer_.discarded() > discardedLogged_) {
            droppedPending_ += writer_.discarded() - discardedLogged_;
            discardedLogged_ = writer_.discarded();
        }
        if (!pendingLog.empty()) {
            store_.appendLog(run_, pendingLog);
            pendingLog.clear();
        }
        if (droppedPending_) {
            store_.addDroppedRecords(run_, droppedPending_);
            droppedPending_ = 0;
        }
        // In the order they were noted (a later value of a key wins); a store
        // error midway leaves the rest pending for the next try.
        while (!pendingProperties_.empty()) {
            store_.setProperty(run_, pendingProperties_.front().first,
                               pendingProperties_.front().second);
            pendingProperties_.erase(pendingProperties_.begin());
        }
        if (queryCallsChanged_) {
            store_.setProperty(run_, kQueryCallCountProperty, std::to_string(queryCalls_));
            queryCallsChanged_ = false;
        }
        if (pendingDevice_) {
            store_.setDevice(run_, *pendingDevice_);
            pendingDevice_.reset();
        }
        return true;
    } catch (const StoreError& e) {
        if (!isBlocking(e)) throw;
        noteBlocked(e.what());
        return false;
    }
}

void RecordingSession::noteBlocked(const std::string& reason) {
    if (blockedSince_) return;
    blockedSince_ = std::chrono::steady_clock::now();
    std::string line = "[warpscope] writing paused: " + reason +
                       "; records wait in memory (up to " + std::to_string(kMaxWaitingRecords) +
                       ", then newer ones are dropped and counted) and are written when the "
                       "store can be written again\n";
    pendingLog += line;
    std::cerr << line;
}

void RecordingSession::flush() {
    bool recordsWritten = writer_.tryFlush();
    if (!recordsWritten) noteBlocked(store_.path() + ": the store is locked by another process");
    if (!writeRunRows() || !recordsWritten) return;
    if (blockedSince_) {
        auto waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - *blockedSince_)
                .count();
        blockedSince_.reset();
        char line[160];
        std::snprintf(line, sizeof line,
                      "[warpscope] writing resumed after %.1f s; %lld records were dropped so "
                      "far\n",
                      waited, static_cast<long long>(writer_.discarded()));
        pendingLog += line;
        std::cerr << line;
        writeRunRows();
    }
}

// The program has ended: wait (bounded) for a store that is still locked, so
// a lock held by another process delays the end but costs nothing.
void RecordingSession::finalFlush() {
    const auto deadline = std::chrono::steady_clock::now() + kFinalWait;
    store_.setBusyTimeout(1000);
    for (;;) {
        flush();
        if (!blockedSince_ && writer_.pending() == 0) return;
        if (std::chrono::steady_clock::now() > deadline) {
            writer_.flush();  // throws the store's reason
            writeRunRows();
            return;
        }
    }
}

RecordOutcome RecordingSession::finish(const Ending& ending) {
    const int waitStatus = ending.waitStatus;
    RecordOutcome outcome;
    outcome.run = run_;
    outcome.errorTail = ending.errorTail;
    if (WIFEXITED(waitStatus)) {
        outcome.exitCode = WEXITSTATUS(waitStatus);
        outcome.status = *outcome.exitCode == 0 ? RunStatus::Ok : RunStatus::Failed;
    } else if (WIFSIGNALED(waitStatus)) {
        outcome.signal = WTERMSIG(waitStatus);
        outcome.status = isKillSignal(*outcome.signal) ? RunStatus::Killed : RunStatus::Failed;
        pendingLog += "[warpscope] the program ended by signal " + std::to_string(*outcome.signal) +
                      " (" + strsignal(*outcome.signal) + ")\n";
    }
    if (ending.stoppedOnRequest) {
        // Asked to stop, any exit code or stop signal is how it took that;
        // only a crash (SIGSEGV, SIGABRT, ...) on the way out fails the run.
        outcome.stoppedOnRequest = true;
        if (!outcome.signal || isKillSignal(*outcome.signal)) outcome.status = RunStatus::Ok;
    }
    if (ending.cancelled) outcome.status = RunStatus::Killed;
    if (ending.companionFailed) outcome.status = RunStatus::Failed;
    // Without a CUDA driver, or in a program that makes no CUDA or NVTX call,
    // the capture library is never loaded: say so instead of an empty timeline.
    for (const auto& [pid, unixNs] : unsettledEnds_)
        if (!stillRunning(pid)) noteProcessEnd(pid, "lost", unixNs);
    unsettledEnds_.clear();
    pendingProperties_.emplace_back("capture.processes", std::to_string(progress.processes));
    if (progress.processes == 0)
        pendingLog +=
            "[warpscope] no process reported to the capture (no CUDA driver here, or the "
            "program made no CUDA or NVTX call): the run holds its output and exit only\n";
    else
        pendingProperties_.emplace_back("capture.pids", reportingPids_);
    // No CUDA process reported its clock: keep the samples on Unix time.
    for (const auto& s : unplacedSamples_)
        writer_.add(s);
    unplacedSamples_.clear();
    for (const auto& s : unplacedGpuMetrics_)
        writer_.add(s);
    unplacedGpuMetrics_.clear();
    for (const auto& k : replayed_.release())
        writer_.add(k);
    if (replayed_.unplaced() > 0)
        pendingLog += "[warpscope] " + std::to_string(replayed_.unplaced()) +
                      " replayed kernels had no launch call to place them at\n";
    finalFlush();

    auto conventions = applyNvtxConventions(store_, run_, writer_);
    for (const auto& e : conventions.errors)
        pendingLog += "[warpscope] ignored " + e + "\n";
    progress.tokens = conventions.tokens;
    finalFlush();
    if (ending.companionFinish) {
        store_.setBusyTimeout(static_cast<int>(
            std::chrono::duration_cast<std::chrono::milliseconds>(kFinalWait).count()));
        ending.companionFinish(store_, run_, outcome);
        finalFlush();
    }

    const auto deadline = std::chrono::steady_clock::now() + kFinalWait;
    for (;;) {
        try {
            store_.finishRun(run_, outcome.status, outcome.exitCode, outcome.signal);
            break;
        } catch (const StoreError& e) {
            if (!isBlocking(e) || std::chrono::steady_clock::now() > deadline) throw;
        }
    }
    progress.elapsedNs = ending.elapsedNs;
    progress.finished = true;
    outcome.totals = progress;
    return outcome;
}

}  // namespace ws
