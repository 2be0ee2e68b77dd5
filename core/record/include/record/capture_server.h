// Where injected processes send their records: a Unix socket in a private
// folder (under $XDG_RUNTIME_DIR, else a fresh /tmp/warpscope-XXXXXX, mode
// 0700), so no other user can connect to it or plant one in its place, and a
// connection from another user (SO_PEERCRED) is refused all the same. Each
// connection gets its own wire decoder; a malformed or foreign stream drops
// that connection only, with the reason for the run's log. Memory is bounded
// across connections, and running out of descriptors never spins the loop.
#pragma once

#include <poll.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "wire/frames.h"

namespace ws {

class CaptureServer {
  public:
    // Creates the folder and listens. Throws RecordError on failure.
    // All connections together may hold `maxBufferedBytes` of partly received
    // frames; a connection that would go beyond it is dropped (a frame may be
    // 64 MiB, and many connections announcing one each once made the recorder
    // hold 1 GB).
    explicit CaptureServer(std::function<wire::Sink()> makeSink,
                           std::size_t maxBufferedBytes = std::size_t{256} << 20);
    ~CaptureServer();  // closes everything, removes the socket and its folder
    CaptureServer(const CaptureServer&) = delete;
    CaptureServer& operator=(const CaptureServer&) = delete;

    // What the injected library is told through WARPSCOPE_SOCKET.
    const std::string& socketPath() const { return socketPath_; }
    const std::string& folder() const { return folder_; }

    // The descriptors to poll: the listening socket and every connection.
    void addPollFds(std::vector<pollfd>& fds) const;
    // Handles one polled descriptor if it is ours (returns false if not).
    // Messages for the run's log are appended to `log`.
    bool handle(const pollfd& p, std::string& log);
    std::size_t connections() const { return connections_.size(); }
    // Bytes of partly received frames over all connections.
    std::size_t buffered() const;
    void closeConnections();

  private:
    std::function<wire::Sink()> makeSink_;
    std::size_t maxBufferedBytes_;
    std::string folder_, socketPath_;
    int listenFd_ = -1;
    std::map<int, std::unique_ptr<wire::Decoder>> connections_;
    std::chrono::steady_clock::time_point acceptPausedUntil_{};
    bool acceptPausedLogged_ = false;
};

}  // namespace ws
