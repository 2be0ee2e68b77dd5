#include "cli/remote_commands.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/bundle_commands.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/progress_output.h"
#include "io/run_bundle.h"
#include "record/child_process.h"
#include "record/recorder.h"
#include "record/remote_host.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "util/version.h"

extern char** environ;

namespace ws::cli {

namespace {

namespace fs = std::filesystem;

int cancelPipe[2] = {-1, -1};

void onSignal(int) {
    char c = 'c';
    [[maybe_unused]] auto n = ::write(cancelPipe[1], &c, 1);
}

// The options of record that say where things are here, not there.
bool localOnly(const std::string& option) {
    return option == "db" || option == "progress" || option == "host" || option == "remote-db" ||
           option == "remote-cli" || option == "workload";
}

std::string pullCommand(const std::string& host, RunId run, const Args& args) {
    std::vector<std::string> argv = {"warpscope-cli", "pull", host, std::to_string(run)};
    if (auto db = args.value("remote-db")) argv.insert(argv.end(), {"--remote-db", *db});
    if (auto cli = args.value("remote-cli")) argv.insert(argv.end(), {"--remote-cli", *cli});
    return shellCommandLine(argv);
}

std::string lastLine(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r'))
        t.pop_back();
    auto at = t.rfind('\n');
    return at == std::string::npos ? t : t.substr(at + 1);
}

// A temporary file for a bundle on its way in, removed at the end.
class TempFile {
  public:
    TempFile() {
        std::error_code ec;
        auto dir = fs::temp_directory_path(ec);
        path_ = ((ec ? fs::path("/tmp") : dir) / "warpscope-pull-XXXXXX").string();
        int fd = ::mkstemp(path_.data());
        if (fd < 0) throw std::runtime_error(path_ + ": cannot create: " + std::strerror(errno));
        ::close(fd);
    }
    ~TempFile() { ::unlink(path_.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

struct Pulled {
    RunId run = 0;
    RunInfo info;
};

// Streams run `remoteRun` there as a bundle into a temporary file and
// imports it here; nothing is stored unless the whole bundle arrived.
Pulled pullRun(const RemoteHost& remote, RunId remoteRun, const Args& args,
               const std::string& localDb) {
    std::vector<std::string> bundleArgs = {"bundle", std::to_string(remoteRun), "-o", "-"};
    if (auto db = args.value("remote-db")) bundleArgs.insert(bundleArgs.end(), {"--db", *db});
    TempFile file;
    auto r = remote.run(remote.cliCommand(bundleArgs), nullptr, file.path());
    const std::string later = "; the run stays in " + remote.host() +
                              "'s store: pull it later with `" +
                              pullCommand(remote.host(), remoteRun, args) + "`";
    if (r.exitCode == 255) throw RemoteError(remote.sshFailure(r.errors) + later);
    if (r.exitCode != 0)
        throw RemoteError(remote.host() + ": cannot send run " + std::to_string(remoteRun) + ": " +
                          lastLine(r.errors));
    const std::string name =
        "the bundle of run " + std::to_string(remoteRun) + " from " + remote.host();
    auto info = readBundleInfo(file.path(), name);
    std::vector<std::pair<std::string, std::string>> properties = {
        {"remote.host", remote.host()},
        {"remote.run", std::to_string(remoteRun)},
        {"remote.store", info.sourceStore}};
    auto imported = importBundleFile(file.path(), localDb, properties, name);
    Store store(localDb);
    return {imported.run, requireRun(store, imported.run)};
}

std::string describe(const RunInfo& run, const std::string& host, RunId remoteRun) {
    std::string text = "run " + std::to_string(run.id) + " " + toString(run.status);
    if (run.exitCode) text += ", exit code " + std::to_string(*run.exitCode);
    if (run.signal) text += ", signal " + std::to_string(*run.signal);
    return text + " (remote " + host + " run " + std::to_string(remoteRun) + ")";
}

void reportDone(const Pulled& pulled, const std::string& text, ProgressMode reporting) {
    if (reporting == ProgressMode::Json) {
        progress::Message done{progress::Kind::Done, text};
        done.run = pulled.run;
        done.exitCode = pulled.info.exitCode;
        emitMessage(done);
    } else {
        std::cerr << "[warpscope] " << text << '\n';
    }
}

// What the remote recording said and did, read from ssh's two streams.
struct RemoteRecording {
    std::optional<long> pid;
    RunId run = 0;  // from its progress messages, before it is done
    std::optional<progress::Message> done;
    std::string lastError;
    std::string sshErrors;  // lines that were not messages: ssh's own among them
};

class RemoteStream {
  public:
    RemoteStream(RemoteRecording& state, ProgressMode reporting, const std::string& host)
        : state_(state), reporting_(reporting), host_(host) {}

    void stdoutBytes(const char* data, std::size_t n) {
        if (state_.pid) {
            std::cout.write(data, static_cast<std::streamsize>(n)).flush();
            return;
        }
        // Its first line is the process id; the program's output follows.
        head_.append(data, n);
        auto eol = head_.find('\n');
        if (eol == std::string::npos) return;
        std::string line = head_.substr(0, eol);
        std::string rest = head_.substr(eol + 1);
        head_.clear();
        if (line.rfind(RemoteHost::kPidPrefix, 0) == 0) {
            state_.pid =
                std::strtol(line.c_str() + std::strlen(RemoteHost::kPidPrefix), nullptr, 10);
        } else {
            state_.pid = 0;  // not ours: pass it on
            rest = line + "\n" + rest;
        }
        if (!rest.empty()) std::cout.write(rest.data(), static_cast<std::streamsize>(rest.size()));
        std::cout.flush();
    }

    void stderrBytes(const char* data, std::size_t n) {
        tail_.append(data, n);
        for (auto eol = tail_.find('\n'); eol != std::string::npos; eol = tail_.find('\n')) {
            line(tail_.substr(0, eol));
            tail_.erase(0, eol + 1);
        }
    }
    void finish() {
        if (!tail_.empty()) line(tail_);
        tail_.clear();
    }

  private:
    void line(const std::string& text) {
        auto m = progress::parseJsonLine(text);
        if (!m) {
            std::cerr << text << '\n';
            state_.sshErrors += text + "\n";
            if (state_.sshErrors.size() > 16384) state_.sshErrors.erase(0, 8192);
            return;
        }
        switch (m->kind) {
            case progress::Kind::Record: {
                if (m->record.run) state_.run = m->record.run;
                auto counters = m->record;
                counters.run = 0;  // a remote id; the local run exists once pulled
                printRecordProgress(counters, reporting_);
                break;
            }
            case progress::Kind::Note:
                emitNote(reporting_, host_ + ": " + m->text);
                break;
            case progress::Kind::Error:
                state_.lastError = m->text;
                break;
            case progress::Kind::Done:
                state_.done = *m;
                if (m->run) state_.run = *m->run;
                break;
            default:
                break;
        }
    }

    RemoteRecording& state_;
    ProgressMode reporting_;
    std::string host_;
    std::string head_, tail_;
};

struct SignalForwarding {
    SignalForwarding() {
        if (::pipe2(cancelPipe, O_CLOEXEC | O_NONBLOCK) != 0)
            throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
        struct sigaction sa {};
        sa.sa_handler = onSignal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &oldInt);
        sigaction(SIGTERM, &sa, &oldTerm);
    }
    ~SignalForwarding() {
        sigaction(SIGINT, &oldInt, nullptr);
        sigaction(SIGTERM, &oldTerm, nullptr);
        ::close(cancelPipe[0]);
        ::close(cancelPipe[1]);
        cancelPipe[0] = cancelPipe[1] = -1;
    }
    struct sigaction oldInt {
    }, oldTerm{};
};

int exitCodeOf(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

// Runs the recording there until ssh ends; Ctrl-C or SIGTERM here becomes
// SIGINT to warpscope-cli there (through the shared connection), which
// cancels as it would locally and still finishes its run.
int streamRecording(const RemoteHost& remote, const std::vector<std::string>& remoteArgs,
                    RemoteRecording& state, ProgressMode reporting) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        env.emplace_back(*e);
    SignalForwarding signals;
    ChildProcess ssh(ChildSpec{
        resolveProgram("ssh"), remote.sshArgv(remote.trackedCliCommand(remoteArgs)), env, {}});
    RemoteStream stream(state, reporting, remote.host());
    int cancels = 0, sent = 0;
    std::optional<std::chrono::steady_clock::time_point> exitedAt;
    while (ssh.output().valid() || ssh.errors().valid()) {
        if (!exitedAt && ssh.poll()) exitedAt = std::chrono::steady_clock::now();
        if (exitedAt && std::chrono::steady_clock::now() - *exitedAt > std::chrono::seconds(2))
            break;
        std::vector<pollfd> fds = {{cancelPipe[0], POLLIN, 0}};
        if (ssh.output().valid()) fds.push_back({ssh.output().get(), POLLIN, 0});
        if (ssh.errors().valid()) fds.push_back({ssh.errors().get(), POLLIN, 0});
        ::poll(fds.data(), fds.size(), 200);
        for (const auto& p : fds) {
            if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (p.fd == cancelPipe[0]) {
                char drain[16];
                while (::read(cancelPipe[0], drain, sizeof drain) > 0)
                    ++cancels;
                continue;
            }
            char buf[65536];
            ssize_t n = ::read(p.fd, buf, sizeof buf);
            bool isOut = p.fd == ssh.output().get();
            if (n <= 0) {
                (isOut ? ssh.output() : ssh.errors()).reset();
                continue;
            }
            if (isOut)
                stream.stdoutBytes(buf, static_cast<std::size_t>(n));
            else
                stream.stderrBytes(buf, static_cast<std::size_t>(n));
        }
        // One SIGINT there per signal here: a second one makes the recorder
        // there kill the program, as a second Ctrl-C does locally.
        if (cancels > sent && state.pid && *state.pid > 0 && !exitedAt) {
            ++sent;
            emitNote(reporting, "cancelling: SIGINT sent to warpscope-cli on " + remote.host());
            auto r = remote.interrupt(*state.pid);
            if (r.exitCode != 0)
                emitNote(reporting, "could not signal warpscope-cli on " + remote.host() + ": " +
                                        lastLine(r.errors));
        }
    }
    stream.finish();
    return exitCodeOf(ssh.wait());
}

}  // namespace

int recordOnHost(const Args& args, const ArgSpec& spec) {
    const ProgressMode reporting = progressMode(args);
    const std::string localDb = storePath(args);
    if (args.passThrough().empty() && !args.value("workload"))
        throw UsageError("no program: give it after --, or --workload CONFIG");
    RemoteHost remote(*args.value("host"), args.valueOr("remote-cli", "warpscope-cli"));
    // The local store first: one that cannot take the run is refused before
    // anything runs there.
    {
        Store check(localDb);
        check.requireWritable("take a run from " + remote.host());
    }

    auto version = remote.checkVersion(kRunBundleVersion, kWarpscopeVersion);
    std::vector<std::string> remoteArgs = {"record", "--progress", "json"};
    if (auto db = args.value("remote-db")) remoteArgs.insert(remoteArgs.end(), {"--db", *db});
    for (const auto& flag : spec.flags)
        if (args.flag(flag)) remoteArgs.push_back("--" + flag);
    for (const auto& option : spec.valueOptions)
        if (!localOnly(option))
            if (auto value = args.value(option))
                remoteArgs.insert(remoteArgs.end(), {"--" + option, *value});
    if (auto config = args.value("workload")) {
        // The config is read here and recorded there from a copy.
        std::ifstream in(*config, std::ios::binary);
        if (!in) throw std::runtime_error(*config + ": cannot read the workload config");
        std::ostringstream text;
        text << in.rdbuf();
        remoteArgs.insert(remoteArgs.end(),
                          {"--workload", remote.upload(text.str(), fs::path(*config).filename())});
    }
    if (!args.passThrough().empty()) {
        remoteArgs.push_back("--");
        remoteArgs.insert(remoteArgs.end(), args.passThrough().begin(), args.passThrough().end());
    }
    emitNote(reporting, "recording on " + remote.host() + " (" + version + ")");

    RemoteRecording state;
    int exitCode = streamRecording(remote, remoteArgs, state, reporting);
    if (!state.done || !state.done->run) {
        if (exitCode == 255 && state.pid) {
            std::string which =
                state.run ? "run " + std::to_string(state.run) : std::string("its run");
            std::string how = state.run ? "`" + pullCommand(remote.host(), state.run, args) + "`"
                                        : "`warpscope-cli pull " + remote.host() +
                                              " RUN` (`warpscope-cli ls` there names it)";
            std::string said = lastLine(state.sshErrors);
            throw RemoteError("the connection to " + remote.host() + " dropped while " + which +
                              " was recording there" + (said.empty() ? "" : " (" + said + ")") +
                              "; the recording goes on there and keeps " + which + " in " +
                              remote.host() + "'s store: when it has finished, pull it with " +
                              how);
        }
        if (exitCode == 255) throw RemoteError(remote.sshFailure(state.sshErrors));
        std::string why = !state.lastError.empty() ? state.lastError : lastLine(state.sshErrors);
        if (exitCode == 2) throw UsageError(remote.host() + ": " + why);
        throw RemoteError(remote.host() + ": warpscope-cli record ended with exit code " +
                          std::to_string(exitCode) + " before a run was stored" +
                          (why.empty() ? "" : ": " + why));
    }
    const RunId remoteRun = *state.done->run;
    auto pulled = pullRun(remote, remoteRun, args, localDb);
    reportDone(pulled, describe(pulled.info, remote.host(), remoteRun), reporting);
    return pulled.info.status == RunStatus::Ok ? 0 : 1;
}

int cmdPull(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{}, {"db", "remote-db", "remote-cli", "progress"}, 2, 2});
    const ProgressMode reporting = progressMode(args);
    const std::string host = args.positional()[0];
    const RunId remoteRun = parseRunId(args.positional()[1]);
    const std::string localDb = storePath(args);
    RemoteHost remote(host, args.valueOr("remote-cli", "warpscope-cli"));
    {
        Store check(localDb);
        check.requireWritable("take a run from " + host);
    }
    remote.checkVersion(kRunBundleVersion, kWarpscopeVersion);
    auto pulled = pullRun(remote, remoteRun, args, localDb);
    std::string text = "pulled " + describe(pulled.info, host, remoteRun);
    if (reporting == ProgressMode::Json) {
        progress::Message done{progress::Kind::Done, text};
        done.run = pulled.run;
        emitMessage(done);
    }
    std::cout << text << '\n';
    return 0;
}

}  // namespace ws::cli
