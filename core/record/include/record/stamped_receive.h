// Reads that carry the time their bytes reached this host: the kernel stamps
// each arriving TCP segment (SO_TIMESTAMPING, software receive time) and
// recvmsg returns the stamp of the last segment it read. A client that reads
// many sockets one after another then still knows when each chunk arrived.
#pragma once

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

}  // namespace ws
