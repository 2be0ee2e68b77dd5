#include "record/recorder.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>

#include "conventions/run_conventions.h"
#include "record/nvml_sampler.h"
#include "record/replayed_kernels.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "util/process_identity.h"
#include "wire/frames.h"

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

bool isKillSignal(int sig) {
    return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT;
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

// Everything one recording holds while the program runs.
struct Recorder::Session {
    Session(const RecordRequest& req, Store& s, RunId r)
        : request(req), store(s), run(r), writer(s, r, 1 << 16) {}

    const RecordRequest& request;
    Store& store;
    RunId run;
    StoreWriter writer;
    RecordProgress progress;
    std::map<int, std::unique_ptr<wire::Decoder>> connections;
    std::string pendingLog;
    std::optional<std::int64_t> clockOffset;  // CUPTI clock minus Unix time
    std::vector<SampleRecord> unplacedSamples;
    bool deviceStored = false;
    std::string driverVersion;  // from NVML; CUDA reports only its API version
    std::int64_t droppedPending = 0;
    ReplayedKernels replayed;  // a counter pass's kernels, until they can be placed

    wire::Sink sink() {
        wire::Sink s;
        s.hello = [this](const wire::Hello& h) {
            ++progress.processes;
            if (!clockOffset) {
                clockOffset = h.cuptiNs - h.unixNs;
                store.setProperty(run, "cupti_clock_offset_ns", std::to_string(*clockOffset));
                for (auto& sample : unplacedSamples) {
                    sample.timeNs += *clockOffset;
                    writer.add(sample);
                }
                unplacedSamples.clear();
            }
        };
        s.device = [this](const DeviceInfo& reported) {
            if (deviceStored) return;
            DeviceInfo d = reported;
            if (d.driverVersion.empty()) d.driverVersion = driverVersion;
            store.setDevice(run, d);
            deviceStored = true;
        };
        s.overhead = [this](const OverheadRecord& r) { writer.add(r); };
        s.metric = [this](const KernelMetricRecord& r) {
            replayed.metric(r);
            writer.add(r);
        };
        s.dropped = [this](std::int64_t n) {
            progress.dropped += n;
            droppedPending += n;
        };
        s.kernel = [this](const KernelRecord& r) {
            ++progress.kernels;
            if (!replayed.hold(r)) writer.add(r);
        };
        s.memcpy = [this](const MemcpyRecord& r) {
            ++progress.memcpys;
            progress.memcpyBytes += r.bytes;
            writer.add(r);
        };
        s.memset = [this](const MemsetRecord& r) { writer.add(r); };
        s.apiCall = [this](const ApiCallRecord& r) {
            ++progress.apiCalls;
            replayed.apiCall(r);
            writer.add(r);
        };
        s.range = [this](const RangeRecord& r) {
            ++progress.ranges;
            if (r.name.rfind("ws.token:", 0) == 0) ++progress.tokens;
            writer.add(r);
        };
        return s;
    }

    void addSamples(std::vector<SampleRecord> samples) {
        for (auto& s : samples) {
            if (clockOffset) {
                s.timeNs += *clockOffset;
                writer.add(s);
            } else {
                unplacedSamples.push_back(s);
            }
        }
    }

    void flush() {
        writer.flush();
        if (!pendingLog.empty()) {
            store.appendLog(run, pendingLog);
            pendingLog.clear();
        }
        if (droppedPending) {
            store.addDroppedRecords(run, droppedPending);
            droppedPending = 0;
        }
    }
};

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

RecordOutcome Recorder::run() {
    if (request_.argv.empty()) throw RecordError("no program given");
    const std::string program = resolveProgram(request_.argv[0]);
    if (!request_.workingDir.empty()) {
        struct stat st {};
        if (::stat(request_.workingDir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            throw RecordError(request_.workingDir + ": working folder does not exist");
    }
    if (!request_.injectLibrary.empty() && ::access(request_.injectLibrary.c_str(), R_OK) != 0)
        throw RecordError(request_.injectLibrary + ": capture library not found");

    Store store(request_.storePath);
    store.requireWritable("record a run");

    // The socket the injected library connects to, one per recording.
    std::string socketPath = "/tmp/warpscope-" + std::to_string(::getpid()) + "-" +
                             std::to_string(unixNowNs() % 1000000007) + ".sock";
    int listenFd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socketPath.c_str(), sizeof addr.sun_path - 1);
    if (listenFd < 0 || ::bind(listenFd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listenFd, 64) != 0) {
        int err = errno;
        if (listenFd >= 0) ::close(listenFd);
        throw RecordError("cannot listen on " + socketPath + ": " + errnoText(err));
    }
    struct Cleanup {
        int& fd;
        std::string path;
        ~Cleanup() {
            closeFd(fd);
            ::unlink(path.c_str());
        }
    } cleanup{listenFd, socketPath};

    int outPipe[2], errPipe[2], execPipe[2];
    if (::pipe2(outPipe, O_CLOEXEC) || ::pipe2(errPipe, O_CLOEXEC) || ::pipe2(execPipe, O_CLOEXEC))
        throw RecordError("cannot create pipes: " + errnoText(errno));

    NewRun nr;
    nr.label = request_.label;
    nr.workload = request_.workload;
    nr.variant = request_.variant;
    nr.command = shellQuoted(request_.argv);
    RunId runId = store.beginRun(nr);
    for (const auto& [key, value] : request_.properties)
        store.setProperty(runId, key, value);

    // Environment: ours, the request's extras, and the injection variables.
    std::vector<std::string> envStrings;
    for (char** e = environ; *e; ++e)
        envStrings.emplace_back(*e);
    for (const auto& e : request_.env)
        envStrings.push_back(e);
    envStrings.push_back("WARPSCOPE_SOCKET=" + socketPath);
    if (!request_.injectLibrary.empty()) {
        envStrings.push_back("CUDA_INJECTION64_PATH=" + request_.injectLibrary);
        envStrings.push_back("NVTX_INJECTION64_PATH=" + request_.injectLibrary);
    }
    std::vector<char*> envp, argv;
    for (auto& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = request_.argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    pid_t child = ::fork();
    if (child < 0) {
        store.deleteRun(runId);
        throw RecordError("cannot start " + program + ": fork failed: " + errnoText(errno));
    }
    if (child == 0) {
        ::setpgid(0, 0);  // its own group: our Ctrl-C handling forwards to all of it
        ::dup2(outPipe[1], 1);
        ::dup2(errPipe[1], 2);
        int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, 0);
        if (!request_.workingDir.empty() && ::chdir(request_.workingDir.c_str()) != 0) {
            int err = errno;
            [[maybe_unused]] auto n = ::write(execPipe[1], &err, sizeof err);
            ::_exit(127);
        }
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::execve(program.c_str(), argv.data(), envp.data());
        int err = errno;
        [[maybe_unused]] auto n = ::write(execPipe[1], &err, sizeof err);
        ::_exit(127);
    }
    ::setpgid(child, child);
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    ::close(execPipe[1]);
    int execErr = 0;
    if (::read(execPipe[0], &execErr, sizeof execErr) == sizeof execErr) {
        ::close(execPipe[0]);
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        ::waitpid(child, nullptr, 0);
        store.deleteRun(runId);
        throw RecordError("cannot start " + program + ": " + errnoText(execErr));
    }
    ::close(execPipe[0]);

    Session session(request_, store, runId);
    NvmlSampler sampler;
    session.driverVersion = sampler.driverVersion();
    if (request_.sampleIntervalMs <= 0)
        session.pendingLog += "[warpscope] device samples off (--sample-ms 0)\n";
    else if (!sampler.available())
        session.pendingLog +=
            "[warpscope] no device samples: " + sampler.unavailableReason() + "\n";

    const auto started = Clock::now();
    auto nextFlush = started, nextSample = started, nextProgress = started;
    std::optional<int> status;
    std::optional<Clock::time_point> exitedAt;
    int cancelRequests = 0;
    int fdOut = outPipe[0], fdErr = errPipe[0];

    auto readOutput = [&](int& fd, std::ostream& echo) {
        char buf[65536];
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) {
            closeFd(fd);
            return;
        }
        session.pendingLog.append(buf, static_cast<std::size_t>(n));
        if (request_.echoOutput) echo.write(buf, n).flush();
    };

    for (;;) {
        if (!status) {
            int st = 0;
            if (::waitpid(child, &st, WNOHANG) == child) {
                status = st;
                exitedAt = Clock::now();
            }
        }
        // Done once the program exited and every stream it held is closed, or
        // a grace period later (a daemonised grandchild may hold them forever).
        bool drained = fdOut < 0 && fdErr < 0 && session.connections.empty();
        if (status && (drained || Clock::now() - *exitedAt > std::chrono::seconds(5))) break;

        std::vector<pollfd> fds;
        fds.push_back({listenFd, POLLIN, 0});
        fds.push_back({cancelPipe_[0], POLLIN, 0});
        if (fdOut >= 0) fds.push_back({fdOut, POLLIN, 0});
        if (fdErr >= 0) fds.push_back({fdErr, POLLIN, 0});
        for (auto& [fd, dec] : session.connections)
            fds.push_back({fd, POLLIN, 0});
        ::poll(fds.data(), fds.size(), 10);

        for (const auto& p : fds) {
            if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (p.fd == listenFd) {
                int c;
                while ((c = ::accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC)) >= 0)
                    session.connections.emplace(c, std::make_unique<wire::Decoder>(session.sink()));
            } else if (p.fd == cancelPipe_[0]) {
                char drain[16];
                while (::read(cancelPipe_[0], drain, sizeof drain) > 0)
                    ++cancelRequests;
                if (!status) ::kill(-child, cancelRequests > 1 ? SIGKILL : SIGINT);
                session.pendingLog += cancelRequests > 1
                                          ? "[warpscope] cancelled again: SIGKILL sent\n"
                                          : "[warpscope] cancelled: SIGINT sent\n";
            } else if (p.fd == fdOut) {
                readOutput(fdOut, std::cout);
            } else if (p.fd == fdErr) {
                readOutput(fdErr, std::cerr);
            } else {
                auto it = session.connections.find(p.fd);
                if (it == session.connections.end()) continue;
                char buf[1 << 16];
                ssize_t n = ::read(p.fd, buf, sizeof buf);
                bool closeIt = n <= 0;
                if (n > 0) {
                    try {
                        it->second->feed(std::string_view(buf, static_cast<std::size_t>(n)));
                    } catch (const std::runtime_error& e) {
                        session.pendingLog += std::string("[warpscope] ") + e.what() +
                                              "; that process's stream was dropped\n";
                        closeIt = true;
                    }
                }
                if (closeIt) {
                    ::close(p.fd);
                    session.connections.erase(it);
                }
            }
        }

        auto now = Clock::now();
        if (request_.sampleIntervalMs > 0 && now >= nextSample) {
            session.addSamples(sampler.sample(unixNowNs()));
            nextSample = now + std::chrono::milliseconds(request_.sampleIntervalMs);
        }
        if (now >= nextFlush) {
            session.flush();
            nextFlush = now + std::chrono::milliseconds(request_.flushIntervalMs);
        }
        if (request_.onProgress && now >= nextProgress) {
            session.progress.elapsedNs =
                std::chrono::duration_cast<std::chrono::nanoseconds>(now - started).count();
            request_.onProgress(session.progress);
            nextProgress = now + std::chrono::milliseconds(request_.progressIntervalMs);
        }
    }
    if (!status) {
        int st = 0;
        ::waitpid(child, &st, 0);
        status = st;
    }
    closeFd(fdOut);
    closeFd(fdErr);
    for (auto& [fd, dec] : session.connections)
        ::close(fd);
    session.connections.clear();

    RecordOutcome outcome;
    outcome.run = runId;
    if (WIFEXITED(*status)) {
        outcome.exitCode = WEXITSTATUS(*status);
        outcome.status = *outcome.exitCode == 0 ? RunStatus::Ok : RunStatus::Failed;
    } else if (WIFSIGNALED(*status)) {
        outcome.signal = WTERMSIG(*status);
        // Stopped from outside (Ctrl-C, kill, OOM killer) is "killed"; a
        // crash (SIGSEGV, SIGABRT, ...) is "failed".
        outcome.status = isKillSignal(*outcome.signal) ? RunStatus::Killed : RunStatus::Failed;
        session.pendingLog += "[warpscope] the program ended by signal " +
                              std::to_string(*outcome.signal) + " (" + strsignal(*outcome.signal) +
                              ")\n";
    }
    if (cancelRequests > 0) outcome.status = RunStatus::Killed;
    if (!session.unplacedSamples.empty()) {
        // No CUDA process reported its clock: keep the samples on Unix time.
        for (const auto& s : session.unplacedSamples)
            session.writer.add(s);
        session.unplacedSamples.clear();
    }
    for (const auto& k : session.replayed.release())
        session.writer.add(k);
    if (session.replayed.unplaced() > 0)
        session.pendingLog += "[warpscope] " + std::to_string(session.replayed.unplaced()) +
                              " replayed kernels had no launch call to place them at\n";
    session.flush();

    auto conventions = applyNvtxConventions(store, runId, session.writer);
    for (const auto& e : conventions.errors)
        session.pendingLog += "[warpscope] ignored " + e + "\n";
    session.progress.tokens = conventions.tokens;
    session.flush();

    store.finishRun(runId, outcome.status, outcome.exitCode, outcome.signal);
    session.progress.elapsedNs =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started).count();
    session.progress.finished = true;
    if (request_.onProgress) request_.onProgress(session.progress);
    outcome.totals = session.progress;
    return outcome;
}

}  // namespace ws
