#include "support/ssh_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/child_process.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace ws::testing {

namespace {

namespace fs = std::filesystem;
constexpr const char* kSshd = "/usr/sbin/sshd";

int freePort() {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        ::close(s);
        throw std::runtime_error("no free port on 127.0.0.1");
    }
    ::close(s);
    return ntohs(addr.sin_port);
}

bool accepts(int port) {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(s);
    return ok;
}

void keygen(const std::string& path) {
    auto r = runProcess({"/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                         "warpscope-test", "-f", path});
    if (r.exitCode != 0) throw std::runtime_error("ssh-keygen failed: " + r.err);
}

std::string userName() {
    if (auto* pw = ::getpwuid(::geteuid())) return pw->pw_name;
    throw std::runtime_error("no user name for uid " + std::to_string(::geteuid()));
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

// Process ids below `root` whose command is `name` (any when empty), from /proc.
std::vector<pid_t> descendantsNamed(pid_t root, const std::string& name) {
    std::map<pid_t, std::pair<pid_t, std::string>> procs;  // pid -> (parent, comm)
    for (const auto& entry : fs::directory_iterator("/proc")) {
        pid_t pid = static_cast<pid_t>(std::atoi(entry.path().filename().c_str()));
        if (pid <= 0) continue;
        std::ifstream stat(entry.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(stat)), {});
        auto open = text.find('('), close = text.rfind(')');
        if (open == std::string::npos || close == std::string::npos) continue;
        pid_t parent = static_cast<pid_t>(std::atoi(text.c_str() + close + 4));
        procs[pid] = {parent, text.substr(open + 1, close - open - 1)};
    }
    std::vector<pid_t> found;
    for (const auto& [pid, info] : procs) {
        if (!name.empty() && info.second != name) continue;
        for (pid_t p = info.first; p > 1; p = procs.count(p) ? procs[p].first : 0)
            if (p == root) {
                found.push_back(pid);
                break;
            }
    }
    return found;
}

}  // namespace

std::optional<std::string> SshServer::unavailable() {
    if (::access(kSshd, X_OK) != 0)
        return std::string("sshd is not installed (") + kSshd +
               "; Debian's openssh-server, which scripts/install-deps.sh installs)";
    if (::access("/usr/bin/ssh", X_OK) != 0 || ::access("/usr/bin/ssh-keygen", X_OK) != 0)
        return std::string("the OpenSSH client is not installed (openssh-client)");
    return std::nullopt;
}

SshServer::SshServer(const std::string& dir, const std::string& remotePath) : dir_(dir) {
    // sshd running as root separates privileges into this folder, which its
    // service makes at boot; as any other user it is not needed.
    if (::geteuid() == 0) ::mkdir("/run/sshd", 0755);
    keygen(dir + "/host_key");
    keygen(dir + "/user_key");
    keygen(dir + "/stranger_key");
    writeFile(dir + "/authorized_keys", readFile(dir + "/user_key.pub"));
    const int port = freePort();
    const int closedPort = freePort();
    writeFile(dir + "/known_hosts",
              "[127.0.0.1]:" + std::to_string(port) + " " + readFile(dir + "/host_key.pub"));
    std::string config = "Port " + std::to_string(port) +
                         "\n"
                         "ListenAddress 127.0.0.1\n"
                         "HostKey " +
                         dir + "/host_key\nPidFile " + dir +
                         "/sshd.pid\n"
                         "AuthorizedKeysFile " +
                         dir +
                         "/authorized_keys\n"
                         "UsePAM no\nStrictModes no\nPasswordAuthentication no\n"
                         "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                         "PermitRootLogin prohibit-password\nLogLevel ERROR\n"
                         "SetEnv PATH=" +
                         remotePath + " XDG_CACHE_HOME=" + dir +
                         "/remote-cache XDG_DATA_HOME=" + dir + "/remote-data\n";
    writeFile(dir + "/sshd_config", config);
    auto host = [&](const std::string& alias, int p, const std::string& key) {
        return "Host " + alias + "\n  HostName 127.0.0.1\n  Port " + std::to_string(p) +
               "\n  User " + userName() + "\n  IdentityFile " + dir + "/" + key +
               "\n  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile " + dir +
               "/known_hosts\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n"
               "  ConnectTimeout 10\n  LogLevel ERROR\n";
    };
    clientConfig_ = dir + "/ssh_config";
    writeFile(clientConfig_, host("wstest", port, "user_key") +
                                 host("wstest-closed", closedPort, "user_key") +
                                 host("wstest-stranger", port, "stranger_key"));
    sshd_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{kSshd, "-D", "-e", "-f", dir + "/sshd_config"});
    for (int i = 0; i < 100 && !accepts(port); ++i) {
        if (sshd_->waitForExit(std::chrono::milliseconds(50)))
            throw std::runtime_error("sshd ended at start: " + trimmed(sshd_->output()));
    }
    if (!accepts(port))
        throw std::runtime_error("sshd does not listen on port " + std::to_string(port) + ": " +
                                 trimmed(sshd_->output()));
}

void SshServer::dropConnections() {
    for (pid_t pid : descendantsNamed(sshd_->pid(), "sshd"))
        ::kill(pid, SIGKILL);
}

SshServer::~SshServer() {
    // What the sessions started too: a recording left running must not
    // outlive the test.
    for (pid_t pid : descendantsNamed(sshd_->pid(), ""))
        ::kill(pid, SIGKILL);
    sshd_->signal(SIGTERM);
    sshd_->waitForExit(std::chrono::seconds(5));
}

}  // namespace ws::testing
