// Reads that carry the time their bytes reached this host: the kernel stamps
// each arriving TCP segment (SO_TIMESTAMPING, software receive time) and
// recvmsg returns the stamp of the last segment it read. A client that reads
// many sockets one after another then still knows when each chunk arrived.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace ws {

// Asks the kernel to stamp what arrives on `fd`; false where it refuses.
bool enableReceiveStamps(int fd);

struct StampedRead {
    long bytes = 0;  // recvmsg's result: > 0 read, 0 end of stream, < 0 error (see error)
    int error = 0;   // errno when bytes < 0
    std::optional<std::int64_t> unixNs;  // arrival (CLOCK_REALTIME) of the last byte read
};

// One non-blocking recvmsg of up to `size` bytes.
StampedRead receiveStamped(int fd, char* buffer, std::size_t size);

// Linux turns receive stamps on lazily: the first socket that asks schedules
// the switch on a workqueue, so segments arriving in the next microseconds to
// milliseconds carry no stamp, and the last socket to close turns them off
// again. Holding one of these keeps stamps on, and its constructor waits
// (up to `limit`) until a datagram sent to itself over loopback comes back
// stamped, so a client's first reads are stamped like the rest.
class ReceiveStampsOn {
  public:
    explicit ReceiveStampsOn(std::chrono::milliseconds limit = std::chrono::milliseconds(200));
    ~ReceiveStampsOn();
    ReceiveStampsOn(const ReceiveStampsOn&) = delete;
    ReceiveStampsOn& operator=(const ReceiveStampsOn&) = delete;
    bool live() const { return live_; }  // a stamp came back within the limit

  private:
    int fd_ = -1;
    bool live_ = false;
};

}  // namespace ws
