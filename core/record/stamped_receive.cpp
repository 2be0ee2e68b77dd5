#include "record/stamped_receive.h"

#include <time.h>
// after time.h: errqueue.h uses struct timespec
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

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

}  // namespace ws
