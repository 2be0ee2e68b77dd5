#include "util/process_identity.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace ws {

namespace {
std::int64_t startTicksOf(std::int64_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return -1;
    // The command name (field 2) may hold spaces and parentheses: skip past its last ')'.
    auto close = line.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    // Field 3 is the state; field 22 (starttime) is the 20th after the name.
    for (int i = 3; i <= 22; ++i) {
        if (!(rest >> field)) return -1;
    }
    return std::stoll(field);
}
}  // namespace

std::string hostName() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
    return buf;
}

std::int64_t unixNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

ProcessIdentity ProcessIdentity::current() {
    ProcessIdentity id;
    id.pid = getpid();
    id.startTicks = startTicksOf(id.pid);
    id.host = hostName();
    return id;
}

bool ProcessIdentity::isAlive() const {
    if (pid <= 0) return false;
    return startTicksOf(pid) == startTicks;
}

}  // namespace ws
