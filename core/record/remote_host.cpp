#include "record/remote_host.h"

#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>

#include "record/child_process.h"
#include "record/recorder.h"

extern char** environ;

namespace ws {

namespace {

bool plainWord(const std::string& a) {
    if (a.empty()) return false;
    for (unsigned char c : a)
        if (!std::isalnum(c) && !std::strchr("_./:@,+-%", c)) return false;
    return true;
}

// A folder for the ssh control sockets that only this user can reach: a
// socket there lets anyone who can open it run commands as us on the host.
std::string privateControlDir() {
    const auto uid = ::getuid();
    std::string dir;
    if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && runtime[0] == '/')
        dir = std::string(runtime) + "/warpscope-ssh";
    // A Unix socket path holds at most 107 bytes; ssh's %C is 40 more.
    if (dir.empty() || dir.size() + 41 > 100) dir = "/tmp/warpscope-ssh-" + std::to_string(uid);
    ::mkdir(dir.c_str(), 0700);
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        throw RemoteError(
            dir + ": cannot make the folder for ssh's shared connections: " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != uid || (st.st_mode & 077) != 0)
        throw RemoteError(dir +
                          ": the folder for ssh's shared connections is not a folder only you "
                          "can reach (owner, mode 0700); remove it and try again");
    return dir;
}

std::string lastLines(const std::string& text, int count) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' '))
        t.pop_back();
    auto at = t.size();
    for (int i = 0; i < count && at != std::string::npos && at > 0; ++i)
        at = t.rfind('\n', at - 1);
    std::string tail = at == std::string::npos ? t : t.substr(at + 1);
    for (auto& c : tail)
        if (c == '\n') c = ' ';
    for (auto& c : tail)
        if (c == '\r') c = ' ';
    return tail;
}

int exitCodeOf(int waitStatus) {
    if (WIFEXITED(waitStatus)) return WEXITSTATUS(waitStatus);
    if (WIFSIGNALED(waitStatus)) return 128 + WTERMSIG(waitStatus);
    return 255;
}

}  // namespace

std::string shellCommandLine(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        if (plainWord(a)) {
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

RemoteHost::RemoteHost(std::string host, std::string remoteCli)
    : host_(std::move(host)), remoteCli_(std::move(remoteCli)) {
    if (host_.empty() || host_.front() == '-' ||
        host_.find_first_of(" \t\n\r'\"\\") != std::string::npos)
        throw RemoteError("'" + host_ +
                          "' is not a host: give user@host, host or an ssh config alias");
    if (remoteCli_.empty()) throw RemoteError("--remote-cli is empty");
    if (const char* config = std::getenv("WARPSCOPE_SSH_CONFIG"); config && *config)
        config_ = config;
    controlDir_ = privateControlDir();
}

std::vector<std::string> RemoteHost::sshArgv(const std::string& command) const {
    std::vector<std::string> argv = {"ssh"};
    if (!config_.empty()) argv.insert(argv.end(), {"-F", config_});
    argv.insert(argv.end(), {"-o", "BatchMode=yes", "-o", "ControlMaster=auto", "-o",
                             "ControlPath=" + controlDir_ + "/%C", "-o", "ControlPersist=60", "-o",
                             "ServerAliveInterval=15", "--", host_, command});
    return argv;
}

std::string RemoteHost::cliCommand(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {remoteCli_};
    argv.insert(argv.end(), args.begin(), args.end());
    return shellCommandLine(argv);
}

std::string RemoteHost::trackedCliCommand(const std::vector<std::string>& args) const {
    // sh -c whatever the login shell is; `exec` keeps the process id it printed.
    std::vector<std::string> argv = {
        "sh", "-c", "trap '' PIPE; echo \"" + std::string(kPidPrefix) + "$$\"; exec \"$@\"", "sh",
        remoteCli_};
    argv.insert(argv.end(), args.begin(), args.end());
    return shellCommandLine(argv);
}

RemoteResult RemoteHost::run(const std::string& command, std::string* output,
                             const std::string& outputFile) const {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        env.emplace_back(*e);
    std::string ssh;
    try {
        ssh = resolveProgram("ssh");
    } catch (const RecordError& e) {
        throw RemoteError(std::string("no OpenSSH client (ssh) here: ") + e.what());
    }
    std::ofstream file;
    if (!outputFile.empty()) {
        file.open(outputFile, std::ios::binary | std::ios::trunc);
        if (!file) throw RemoteError(outputFile + ": cannot write");
    }
    ChildProcess child(ChildSpec{ssh, sshArgv(command), env, {}});
    RemoteResult result;
    std::optional<std::chrono::steady_clock::time_point> exitedAt;
    // Until both streams end; a process ssh left behind holding them (a
    // connection master) is given a moment after ssh exits, not forever.
    while (child.output().valid() || child.errors().valid()) {
        if (!exitedAt && child.poll()) exitedAt = std::chrono::steady_clock::now();
        if (exitedAt && std::chrono::steady_clock::now() - *exitedAt > std::chrono::seconds(2))
            break;
        std::vector<pollfd> fds;
        if (child.output().valid()) fds.push_back({child.output().get(), POLLIN, 0});
        if (child.errors().valid()) fds.push_back({child.errors().get(), POLLIN, 0});
        ::poll(fds.data(), fds.size(), 100);
        for (const auto& p : fds) {
            if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[65536];
            ssize_t n = ::read(p.fd, buf, sizeof buf);
            bool isOut = p.fd == child.output().get();
            if (n <= 0) {
                (isOut ? child.output() : child.errors()).reset();
                continue;
            }
            if (!isOut)
                result.errors.append(buf, static_cast<std::size_t>(n));
            else if (file.is_open())
                file.write(buf, n);
            else if (output)
                output->append(buf, static_cast<std::size_t>(n));
        }
    }
    result.exitCode = exitCodeOf(child.wait());
    if (file.is_open()) {
        file.flush();
        if (!file) throw RemoteError(outputFile + ": write failed (disk full?)");
    }
    return result;
}

std::string RemoteHost::sshFailure(const std::string& errors) const {
    std::string said = lastLines(errors, 2);
    return "cannot reach " + host_ + " through ssh" + (said.empty() ? "" : ": " + said) +
           " (BatchMode: ssh uses your keys and agent and never asks for a password)";
}

std::string RemoteHost::checkVersion(int bundleVersion, const std::string& localVersion) const {
    std::string out;
    auto r = run(cliCommand({"--version"}), &out);
    const std::string here =
        localVersion + " (run bundle version " + std::to_string(bundleVersion) + ")";
    if (r.exitCode == 255) throw RemoteError(sshFailure(r.errors));
    if (r.exitCode == 127 || r.exitCode == 126)
        throw RemoteError(host_ + ": no " + remoteCli_ + " to run there (" +
                          lastLines(r.errors, 1) + "); install Warpscope " + here + " on " + host_ +
                          ", or give its path with --remote-cli PATH (a non-interactive "
                          "ssh session may not read the profile that sets PATH)");
    std::smatch m;
    static const std::regex pattern(
        R"(^warpscope-cli (\S+)(?: \(run bundle version (\d+)\))?\s*$)");
    std::string line = lastLines(out, 1);
    if (r.exitCode != 0 || !std::regex_match(line, m, pattern))
        throw RemoteError(host_ + ": `" + remoteCli_ + " --version` " +
                          (r.exitCode != 0 ? "failed with exit code " + std::to_string(r.exitCode)
                                           : std::string("printed '") + line + "'") +
                          ", not a Warpscope version" +
                          (r.errors.empty() ? "" : ": " + lastLines(r.errors, 2)));
    if (!m[2].matched)
        throw RemoteError(host_ + " has Warpscope " + m[1].str() +
                          ", which cannot send runs (no run bundles); this is Warpscope " + here +
                          ": install the same version on " + host_);
    if (std::stoi(m[2].str()) != bundleVersion)
        throw RemoteError(host_ + " has Warpscope " + m[1].str() + " (run bundle version " +
                          m[2].str() + "); this is Warpscope " + here +
                          ": runs cannot move between them; install the same version on both");
    return line;
}

std::string RemoteHost::upload(const std::string& text, const std::string& name) const {
    std::string safe;
    for (unsigned char c : name)
        safe += std::isalnum(c) || c == '.' || c == '-' || c == '_' ? static_cast<char>(c) : '_';
    const std::string script =
        "d=\"${XDG_CACHE_HOME:-$HOME/.cache}/warpscope/remote\" && mkdir -p \"$d\" && "
        "f=\"$d/$(date +%Y%m%d-%H%M%S)-$$-$2\" && printf '%s' \"$1\" > \"$f\" && "
        "printf '%s\\n' \"$f\"";
    std::string out;
    auto r = run(shellCommandLine({"sh", "-c", script, "sh", text, safe}), &out);
    if (r.exitCode == 255) throw RemoteError(sshFailure(r.errors));
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
        out.pop_back();
    if (r.exitCode != 0 || out.empty() || out.find('\n') != std::string::npos)
        throw RemoteError(host_ + ": cannot write " + name + " there (exit code " +
                          std::to_string(r.exitCode) + "): " + lastLines(r.errors, 2));
    return out;
}

RemoteResult RemoteHost::interrupt(long pid) const {
    return run(shellCommandLine({"kill", "-INT", std::to_string(pid)}), nullptr);
}

}  // namespace ws
