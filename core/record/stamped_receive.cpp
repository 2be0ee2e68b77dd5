#include "record/stamped_receive.h"

#include <time.h>
// after time.h: errqueue.h uses struct timespec
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace ws {

bool enableReceiveStamps(int fd) {
    int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0;
}

StampedRead receiveStamped(int fd, char* buffer, std::size_t size) {
    msghdr msg{};
    iovec iov{buffer, size};
    alignas(cmsghdr) char control[256];
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    StampedRead r;
    r.bytes = ::recvmsg(fd, &msg, MSG_DONTWAIT);
    if (r.bytes < 0) {
        r.error = errno;
        return r;
    }
    for (cmsghdr* m = CMSG_FIRSTHDR(&msg); m; m = CMSG_NXTHDR(&msg, m)) {
        if (m->cmsg_level != SOL_SOCKET || m->cmsg_type != SCM_TIMESTAMPING) continue;
        scm_timestamping ts;
        std::memcpy(&ts, CMSG_DATA(m), sizeof ts);
        const std::int64_t ns =
            static_cast<std::int64_t>(ts.ts[0].tv_sec) * 1'000'000'000 + ts.ts[0].tv_nsec;
        if (ns > 0) r.unixNs = ns;
    }
    return r;
}

ReceiveStampsOn::ReceiveStampsOn(std::chrono::milliseconds limit) {
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0 || !enableReceiveStamps(fd_)) return;
    sockaddr_in self{};
    self.sin_family = AF_INET;
    self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof self;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&self), sizeof self) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&self), &length) != 0)
        return;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    char byte = 0;
    while (!live_ && std::chrono::steady_clock::now() < deadline) {
        if (::sendto(fd_, &byte, 1, 0, reinterpret_cast<sockaddr*>(&self), sizeof self) != 1)
            return;
        // Loopback delivers within the send; a short wait covers a busy host.
        // Every datagram queued so far is read: any one stamped will do.
        for (int tries = 0; tries < 100 && !live_; ++tries) {
            StampedRead r;
            while (!live_ && (r = receiveStamped(fd_, &byte, 1)).bytes == 1)
                live_ = r.unixNs.has_value();
            if (!live_) std::this_thread::sleep_for(std::chrono::microseconds(10));
        }
    }
}

ReceiveStampsOn::~ReceiveStampsOn() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace ws
