#include "record/capture_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "record/recorder.h"
#include "store/store_error.h"

namespace ws {

namespace {

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
    std::string templ = base + "/warpscope-XXXXXX";
    if (!::mkdtemp(templ.data()))  // mode 0700
        throw RecordError("cannot create a private folder in " + base + ": " +
                          std::strerror(errno));
    return templ;
}

}  // namespace

CaptureServer::CaptureServer(std::function<wire::Sink()> makeSink)
    : makeSink_(std::move(makeSink)), folder_(privateFolder()) {
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
    fds.push_back({listenFd_, POLLIN, 0});
    for (const auto& [fd, decoder] : connections_)
        fds.push_back({fd, POLLIN, 0});
}

bool CaptureServer::handle(const pollfd& p, std::string& log) {
    if (p.fd == listenFd_) {
        int c;
        while ((c = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0)
            connections_.emplace(c, std::make_unique<wire::Decoder>(makeSink_()));
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
        } catch (const StoreError&) {
            throw;  // the store failed, not the stream: the recorder decides
        } catch (const std::runtime_error& e) {
            log += std::string("[warpscope] ") + e.what() + "; that process's stream was dropped\n";
            closeIt = true;
        }
    }
    if (closeIt) {
        ::close(p.fd);
        connections_.erase(it);
    }
    return true;
}

void CaptureServer::closeConnections() {
    for (const auto& [fd, decoder] : connections_)
        ::close(fd);
    connections_.clear();
}

}  // namespace ws
