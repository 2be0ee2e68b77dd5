// Identifies a process well enough to tell, later and from another process,
// whether it is still alive: pid alone is reused, pid + start time is not.
#pragma once

#include <cstdint>
#include <string>

namespace ws {

struct ProcessIdentity {
    std::int64_t pid = 0;
    std::int64_t startTicks = 0;  // field 22 of /proc/<pid>/stat
    std::string host;

    static ProcessIdentity current();
    // True when a process with this pid and start time still runs on this host.
    bool isAlive() const;
};

std::string hostName();
std::int64_t unixNowNs();

}  // namespace ws
