#include "record/recorder.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <thread>

#include "record/capture_server.h"
#include "record/child_process.h"
#include "record/nvml_sampler.h"
#include "recording_session.h"
#include "store/recording_intent.h"
#include "store/store.h"
#include "util/process_identity.h"

extern char** environ;

namespace ws {

namespace {

using Clock = std::chrono::steady_clock;

std::string errnoText(int err) {
    return std::strerror(err);
}

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

std::string shellQuoted(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        bool plain =
            !a.empty() && a.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;!#~") == std::string::npos;
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a)
            out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

}  // namespace

std::string resolveProgram(const std::string& program) {
    if (program.empty()) throw RecordError("no program given");
    auto check = [&](const std::string& path) -> int {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) return ENOENT;
        if (S_ISDIR(st.st_mode)) return EISDIR;
        if (::access(path.c_str(), X_OK) != 0) return EACCES;
        return 0;
    };
    auto fail = [&](const std::string& path, int err) -> std::string {
        if (err == ENOENT) throw RecordError(path + ": no such file");
        if (err == EISDIR) throw RecordError(path + ": is a folder, not a program");
        throw RecordError(path + ": not executable (permission denied)");
    };
    if (program.find('/') != std::string::npos) {
        if (int err = check(program)) return fail(program, err);
        return program;
    }
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    int firstError = ENOENT;
    std::size_t begin = 0;
    while (begin <= dirs.size()) {
        auto end = dirs.find(':', begin);
        if (end == std::string::npos) end = dirs.size();
        std::string dir = dirs.substr(begin, end - begin);
        std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
        int err = check(candidate);
        if (err == 0) return candidate;
        if (err != ENOENT && firstError == ENOENT) firstError = err;
        begin = end + 1;
    }
    if (firstError == ENOENT) throw RecordError(program + ": command not found in PATH");
    return fail(program, firstError);
}

namespace {

// The environment the program runs in: ours, the request's extras, and the
// variables that load the capture library and tell it where to connect.
std::vector<std::string> childEnvironment(const RecordRequest& request,
                                          const std::string& socketPath) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        env.emplace_back(*e);
    for (const auto& e : request.env)
        env.push_back(e);
    env.push_back("WARPSCOPE_SOCKET=" + socketPath);
    if (!request.injectLibrary.empty()) {
        env.push_back("CUDA_INJECTION64_PATH=" + request.injectLibrary);
        env.push_back("NVTX_INJECTION64_PATH=" + request.injectLibrary);
    }
    return env;
}

// A store error stopped the recording: the program was killed and reaped;
// the run keeps what was flushed and says why it ended. Best effort, as the
// store may still refuse writes (the run is then found abandoned later).
void markStoppedByStoreError(Store& store, RunId run, const StoreError& e) {
    try {
        store.appendLog(
            run, std::string("[warpscope] recording stopped, the program was killed: ") + e.what() +
                     "\n");
        store.finishRun(run, RunStatus::Failed, std::nullopt, SIGKILL);
    } catch (const std::exception&) {
    }
}

// The last lines a program wrote to stderr, for an error message when it
// ended too early: the last 4 KiB kept, cut to whole lines at the end.
void keepTail(std::string& tail, const char* data, std::size_t n) {
    constexpr std::size_t kKept = 4096;
    tail.append(data, n);
    if (tail.size() > kKept) tail.erase(0, tail.size() - kKept);
}

std::string lastLines(const std::string& text, std::size_t count) {
    std::vector<std::string> lines;
    std::size_t begin = 0;
    while (begin < text.size()) {
        auto end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        if (end > begin) lines.push_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
    std::string out;
    for (auto i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
        out += lines[i] + "\n";
    return out;
}

// Ends a program whose companion is done: SIGINT to its process group (what
// Ctrl-C sends; servers drain on it), SIGTERM after the grace period, SIGKILL
// after as long again.
class ProgramStopper {
  public:
    explicit ProgramStopper(int graceMs) : grace_(std::chrono::milliseconds(graceMs)) {}
    void step(ChildProcess& child, std::string& log) {
        static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGKILL};
        static constexpr const char* kNames[] = {"SIGINT", "SIGTERM", "SIGKILL"};
        auto now = Clock::now();
        if (endedFirst_ || sent_ == 3 || (sent_ > 0 && now - last_ < grace_)) return;
        // Gone already (killed, or exited, after the supervisor last looked):
        // it was not stopped, and its group is not signalled for it.
        if (sent_ == 0 && child.poll()) {
            endedFirst_ = true;
            return;
        }
        child.signalGroup(kSignals[sent_]);
        log += std::string("[warpscope] ") +
               (sent_ == 0 ? "the work beside the program is done: "
                           : "the program has not ended yet: ") +
               kNames[sent_] + " sent\n";
        ++sent_;
        last_ = now;
    }
    // Why the program's ending was not the stop, or "" when it was. A crash
    // on the way out (SIGSEGV, SIGABRT) is how it took the stop; a kill
    // signal this stopper never sent (a server killed from outside just as
    // its load ran out, or by the OOM killer while it drained) is not.
    std::string notTheStop(int waitStatus) const {
        if (endedFirst_) return "the program had ended before it was stopped";
        if (!WIFSIGNALED(waitStatus) || !isKillSignal(WTERMSIG(waitStatus))) return "";
        static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGKILL};
        for (int i = 0; i < sent_; ++i)
            if (kSignals[i] == WTERMSIG(waitStatus)) return "";
        return "the program was ended by signal " + std::to_string(WTERMSIG(waitStatus)) +
               ", which Warpscope did not send, while it was being stopped";
    }

  private:
    Clock::duration grace_;
    int sent_ = 0;
    bool endedFirst_ = false;
    Clock::time_point last_;
};

// A program with a companion (bench serve --server) is ours to stop whole:
// what it left in its process group (a shell's background server, a server's
// forked workers, SIGINT-deaf as a shell's background jobs are) gets SIGTERM,
// then SIGKILL after the grace period; past one more second (zombies nobody
// reaps) it is left, and the log says so.
void stopWhatOutlivesIt(ChildProcess& child, int graceMs, std::string& log) {
    auto waitGone = [&](std::chrono::milliseconds patience) {
        const auto deadline = Clock::now() + patience;
        while (child.groupOutlivesIt() && Clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return !child.groupOutlivesIt();
    };
    if (!child.groupOutlivesIt()) return;
    log += "[warpscope] the program exited but left processes in its group: SIGTERM sent\n";
    child.signalWhatOutlivesIt(SIGTERM);
    if (waitGone(std::chrono::milliseconds(graceMs))) return;
    log += "[warpscope] they have not ended yet: SIGKILL sent\n";
    child.signalWhatOutlivesIt(SIGKILL);
    if (!waitGone(std::chrono::seconds(1)))
        log += "[warpscope] processes of the program's group remain after SIGKILL\n";
}

// The companion's thread: joined however supervise() is left, after telling
// the companion the program is gone so that it returns.
class CompanionThread {
  public:
    CompanionThread(Companion& companion, std::string& failure)
        : companion_(companion), thread_([this, &failure] {
              try {
                  companion_.run();
              } catch (const std::exception& e) {
                  failure = e.what();
              } catch (...) {
                  failure = "unknown error";
              }
              done_ = true;
          }) {}
    ~CompanionThread() {
        if (!thread_.joinable()) return;
        programEnded();  // an error unwound supervise(): the program is being killed
        thread_.join();
    }
    bool done() const { return done_; }
    void programEnded() {
        if (notified_ || done_) return;
        notified_ = true;
        if (companion_.programEnded) companion_.programEnded();
    }
    void join() { thread_.join(); }

  private:
    Companion& companion_;
    std::atomic<bool> done_{false};
    bool notified_ = false;
    std::thread thread_;
};

}  // namespace

Recorder::Recorder(RecordRequest request) : request_(std::move(request)) {
    if (::pipe2(cancelPipe_, O_CLOEXEC | O_NONBLOCK) != 0)
        throw RecordError("cannot create a pipe: " + errnoText(errno));
}

Recorder::~Recorder() {
    closeFd(cancelPipe_[0]);
    closeFd(cancelPipe_[1]);
}

void Recorder::cancel() {
    char c = 'c';
    [[maybe_unused]] auto n = ::write(cancelPipe_[1], &c, 1);
}

std::string Recorder::checkRequest() const {
    if (request_.argv.empty()) throw RecordError("no program given");
    std::string program = resolveProgram(request_.argv[0]);
    if (!request_.workingDir.empty()) {
        struct stat st {};
        if (::stat(request_.workingDir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            throw RecordError(request_.workingDir + ": working folder does not exist");
    }
    if (!request_.injectLibrary.empty() && ::access(request_.injectLibrary.c_str(), R_OK) != 0)
        throw RecordError(request_.injectLibrary + ": capture library not found");
    return program;
}

RecordOutcome Recorder::run() {
    const std::string program = checkRequest();
    Store store(request_.storePath);
    store.requireWritable("record a run");

    std::unique_ptr<RecordingSession> session;
    CaptureServer server([&session] { return session->sink(); });

    // Announced before the first write, so a compact of this store steps
    // aside; beginRun then waits for the lock rather than failing.
    RecordingIntent intent(request_.storePath);
    store.setBusyTimeout(60'000);
    NewRun nr;
    nr.label = request_.label;
    nr.workload = request_.workload;
    nr.variant = request_.variant;
    nr.command = shellQuoted(request_.argv);
    RunId runId = store.beginRun(nr);
    std::optional<ChildProcess> child;
    // Sampling starts before the program, so its first kernels are covered.
    std::string gpuMetricsLog;
    std::optional<GpuMetricsSampler> gpuMetrics;
    if (request_.gpuMetrics)
        gpuMetrics.emplace(*request_.gpuMetrics, [&gpuMetricsLog](std::string line) {
            gpuMetricsLog += "[warpscope] " + line + "\n";
        });
    try {
        for (const auto& [key, value] : request_.properties)
            store.setProperty(runId, key, value);
        child.emplace(ChildSpec{program, request_.argv,
                                childEnvironment(request_, server.socketPath()),
                                request_.workingDir});
    } catch (const RecordError&) {
        store.deleteRun(runId);  // never started: nothing to keep
        throw;
    }
    // The program's own pid, so the run names it even when no process of it
    // ever reports to the capture (no CUDA driver, no CUDA or NVTX call).
    store.setProperty(runId, "capture.program_pid", std::to_string(child->pid()));
    session = std::make_unique<RecordingSession>(store, runId);
    try {
        return supervise(*child, server, *session, gpuMetrics ? &*gpuMetrics : nullptr,
                         gpuMetricsLog);
    } catch (const StoreError& e) {
        child->killAndReap();
        server.closeConnections();
        markStoppedByStoreError(store, runId, e);
        throw;
    }
}

RecordOutcome Recorder::supervise(ChildProcess& child, CaptureServer& server,
                                  RecordingSession& session, GpuMetricsSampler* gpuMetrics,
                                  std::string& gpuMetricsLog) {
    auto takeGpuMetrics = [&](std::vector<GpuMetricSeries> series) {
        session.addGpuMetrics(std::move(series));
        session.pendingLog += gpuMetricsLog;
        gpuMetricsLog.clear();
    };
    if (gpuMetrics && gpuMetrics->sampling())
        session.pendingLog += "[warpscope] sampling GPU metrics\n";
    NvmlSampler sampler;
    session.driverVersion = sampler.driverVersion();
    if (request_.sampleIntervalMs <= 0)
        session.pendingLog += "[warpscope] device samples off (--sample-ms 0)\n";
    else if (!sampler.available())
        session.pendingLog +=
            "[warpscope] no device samples: " + sampler.unavailableReason() + "\n";

    const auto started = Clock::now();
    auto nextFlush = started, nextSample = started, nextProgress = started;
    std::optional<Clock::time_point> exitedAt;
    int cancelRequests = 0;
    std::string errorTail;

    auto readOutput = [&](UniqueFd& fd, std::ostream& echo) {
        char buf[65536];
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n <= 0) {
            fd.reset();
            return;
        }
        session.pendingLog.append(buf, static_cast<std::size_t>(n));
        session.noteOutput(std::string_view(buf, static_cast<std::size_t>(n)));
        if (&fd == &child.errors()) keepTail(errorTail, buf, static_cast<std::size_t>(n));
        if (request_.echoOutput) echo.write(buf, n).flush();
    };
    auto elapsedNs = [&] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started).count();
    };

    std::string companionFailure;
    std::optional<CompanionThread> companion;
    if (request_.companion) companion.emplace(*request_.companion, companionFailure);
    std::optional<ProgramStopper> stopper;

    for (;;) {
        if (!exitedAt && child.poll()) {
            exitedAt = Clock::now();
            if (companion && !stopper) companion->programEnded();
        }
        if (companion && companion->done() && !exitedAt) {
            if (!stopper) stopper.emplace(request_.companion->stopGraceMs);
            stopper->step(child, session.pendingLog);
        }
        // Done once the program exited and every stream it held is closed, or
        // a grace period later (a daemonised grandchild may hold them forever),
        // and the companion returned.
        bool drained =
            !child.output().valid() && !child.errors().valid() && server.connections() == 0;
        if (exitedAt && (drained || Clock::now() - *exitedAt > std::chrono::seconds(5)) &&
            (!companion || companion->done()))
            break;

        std::vector<pollfd> fds;
        server.addPollFds(fds);
        fds.push_back({cancelPipe_[0], POLLIN, 0});
        if (child.output().valid()) fds.push_back({child.output().get(), POLLIN, 0});
        if (child.errors().valid()) fds.push_back({child.errors().get(), POLLIN, 0});
        ::poll(fds.data(), fds.size(), 10);

        for (const auto& p : fds) {
            if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (p.fd == cancelPipe_[0]) {
                char drain[16];
                while (::read(cancelPipe_[0], drain, sizeof drain) > 0)
                    ++cancelRequests;
                child.signalGroup(cancelRequests > 1 ? SIGKILL : SIGINT);
                session.pendingLog += cancelRequests > 1
                                          ? "[warpscope] cancelled again: SIGKILL sent\n"
                                          : "[warpscope] cancelled: SIGINT sent\n";
            } else if (p.fd == child.output().get()) {
                readOutput(child.output(), request_.echoOutputToStderr ? std::cerr : std::cout);
            } else if (p.fd == child.errors().get()) {
                readOutput(child.errors(), std::cerr);
            } else {
                server.handle(p, session.pendingLog);
            }
        }

        auto now = Clock::now();
        if (request_.sampleIntervalMs > 0 && now >= nextSample) {
            session.addSamples(sampler.sample(unixNowNs()));
            nextSample = now + std::chrono::milliseconds(request_.sampleIntervalMs);
        }
        if (now >= nextFlush) {
            if (gpuMetrics) takeGpuMetrics(gpuMetrics->take());
            session.flush();
            nextFlush = now + std::chrono::milliseconds(request_.flushIntervalMs);
        }
        if (request_.onProgress && now >= nextProgress) {
            session.progress.elapsedNs = elapsedNs();
            request_.onProgress(session.progress);
            nextProgress = now + std::chrono::milliseconds(request_.progressIntervalMs);
        }
    }
    int status = child.wait();
    if (gpuMetrics) takeGpuMetrics(gpuMetrics->stop());
    if (request_.companion)
        stopWhatOutlivesIt(child, request_.companion->stopGraceMs, session.pendingLog);
    child.output().reset();
    child.errors().reset();
    server.closeConnections();
    if (companion) companion->join();
    companion.reset();
    if (!companionFailure.empty()) {
        session.pendingLog +=
            "[warpscope] the work beside the program failed: " + companionFailure + "\n";
    }

    RecordingSession::Ending ending;
    ending.waitStatus = status;
    ending.cancelled = cancelRequests > 0;
    const std::string notStopped =
        stopper && cancelRequests == 0 ? stopper->notTheStop(status) : "";
    ending.stoppedOnRequest = stopper && notStopped.empty();
    if (!notStopped.empty()) session.pendingLog += "[warpscope] " + notStopped + "\n";
    ending.elapsedNs = elapsedNs();
    if (request_.companion) ending.companionFinish = request_.companion->finish;
    ending.companionFailed = !companionFailure.empty();
    ending.errorTail = lastLines(errorTail, 10);
    auto outcome = session.finish(ending);
    if (request_.onProgress) request_.onProgress(outcome.totals);
    return outcome;
}

}  // namespace ws
