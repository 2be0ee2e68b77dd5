#include "record/capture_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "record/recorder.h"
#include "store/store_error.h"

namespace ws {

namespace {

// Paths of the Unix sockets some process listens on now (/proc/net/unix).
std::set<std::string> listeningSocketPaths() {
    std::set<std::string> paths;
    std::ifstream in("/proc/net/unix");
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
        // Num RefCount Protocol Flags Type St Inode Path; Flags 00010000 = listening.
        std::istringstream fields(line);
        std::string num, refs, protocol, flags, type, state, inode, path;
        if (fields >> num >> refs >> protocol >> flags >> type >> state >> inode >> path &&
            flags == "00010000")
            paths.insert(path);
    }
    return paths;
}

// The folders of recorders that were killed (SIGKILL leaves no chance to
// clean up): this user's warpscope-XXXXXX folders whose capture.sock nobody
// listens on any more, removed before a new one is made beside them.
void sweepStaleFolders(const std::string& base) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto listening = listeningSocketPaths();
    for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("warpscope-", 0) != 0 || name.size() != sizeof "warpscope-XXXXXX" - 1)
            continue;
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != ::getuid())
            continue;
        const std::string socket = it->path().string() + "/capture.sock";
        struct stat sock {};
        // A minute old at least: another recorder may be between its bind and
        // its listen right now.
        if (::lstat(socket.c_str(), &sock) != 0 || !S_ISSOCK(sock.st_mode) ||
            listening.count(socket) || sock.st_mtime > ::time(nullptr) - 60)
            continue;
        ::unlink(socket.c_str());
        ::rmdir(it->path().c_str());  // only when nothing else is in it
    }
}

// $XDG_RUNTIME_DIR when it is a usable folder of ours (the per-user runtime
// folder, mode 0700 by specification); /tmp otherwise. Either way the socket
// lives in a fresh mkdtemp folder, so its path cannot be guessed in advance.
std::string privateFolder() {
    sockaddr_un addr{};
    const std::size_t room = sizeof addr.sun_path - sizeof "/warpscope-XXXXXX/capture.sock";
    std::string base = "/tmp";
    if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg) {
        struct stat st {};
        if (::stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() &&
            ::access(xdg, W_OK) == 0 && std::strlen(xdg) < room)
            base = xdg;
    }
    sweepStaleFolders(base);
    std::string templ = base + "/warpscope-XXXXXX";
    if (!::mkdtemp(templ.data()))  // mode 0700
        throw RecordError("cannot create a private folder in " + base + ": " +
                          std::strerror(errno));
    return templ;
}

// The peer's user: only processes of the recording user may send records.
std::optional<uid_t> peerUid(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return std::nullopt;
    return cred.uid;
}

}  // namespace

CaptureServer::CaptureServer(std::function<wire::Sink()> makeSink, std::size_t maxBufferedBytes)
    : makeSink_(std::move(makeSink)),
      maxBufferedBytes_(maxBufferedBytes),
      folder_(privateFolder()) {
    socketPath_ = folder_ + "/capture.sock";
    listenFd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socketPath_.c_str(), sizeof addr.sun_path - 1);
    if (listenFd_ < 0 || ::bind(listenFd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listenFd_, 64) != 0) {
        std::string reason = std::strerror(errno);
        if (listenFd_ >= 0) ::close(listenFd_);
        ::rmdir(folder_.c_str());
        throw RecordError("cannot listen on " + socketPath_ + ": " + reason);
    }
}

CaptureServer::~CaptureServer() {
    closeConnections();
    ::close(listenFd_);
    ::unlink(socketPath_.c_str());
    ::rmdir(folder_.c_str());
}

void CaptureServer::addPollFds(std::vector<pollfd>& fds) const {
    // Out of descriptors, the pending connection stays and would wake poll at
    // once, forever: skip the listening socket for a moment instead.
    if (std::chrono::steady_clock::now() >= acceptPausedUntil_)
        fds.push_back({listenFd_, POLLIN, 0});
    for (const auto& [fd, decoder] : connections_)
        fds.push_back({fd, POLLIN, 0});
}

bool CaptureServer::handle(const pollfd& p, std::string& log) {
    if (p.fd == listenFd_) {
        int c;
        while ((c = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0) {
            auto uid = peerUid(c);
            if (!uid || *uid != ::geteuid()) {
                log += "[warpscope] refused a capture connection from user " +
                       (uid ? std::to_string(*uid) : std::string("unknown")) +
                       ": only the recording user's processes may send records\n";
                ::close(c);
                continue;
            }
            connections_.emplace(c, std::make_unique<wire::Decoder>(makeSink_()));
        }
        if (errno == EMFILE || errno == ENFILE) {
            if (!acceptPausedLogged_)
                log += "[warpscope] out of file descriptors: new capture connections wait\n";
            acceptPausedLogged_ = true;
            acceptPausedUntil_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
        }
        return true;
    }
    auto it = connections_.find(p.fd);
    if (it == connections_.end()) return false;
    char buf[1 << 16];
    ssize_t n = ::read(p.fd, buf, sizeof buf);
    bool closeIt = n <= 0;
    if (n > 0) {
        try {
            it->second->feed(std::string_view(buf, static_cast<std::size_t>(n)));
            if (buffered() > maxBufferedBytes_)
                throw std::runtime_error(
                    "capture stream: the processes' partly received frames exceed " +
                    std::to_string(maxBufferedBytes_ >> 20) + " MiB");
        } catch (const StoreError&) {
            throw;  // the store failed, not the stream: the recorder decides
        } catch (const std::exception& e) {
            log += std::string("[warpscope] ") + e.what() + "; that process's stream was dropped\n";
            closeIt = true;
        }
    }
    if (closeIt) {
        ::close(p.fd);
        it->second->ended();
        connections_.erase(it);
    }
    return true;
}

std::size_t CaptureServer::buffered() const {
    std::size_t total = 0;
    for (const auto& [fd, decoder] : connections_)
        total += decoder->buffered();
    return total;
}

void CaptureServer::closeConnections() {
    for (const auto& [fd, decoder] : connections_) {
        ::close(fd);
        decoder->ended();
    }
    connections_.clear();
}

}  // namespace ws
