#include "process_info.h"

#include <fcntl.h>
#include <unistd.h>

namespace ws {

namespace {

// Up to `limit` bytes of a /proc file; empty when it cannot be read. Plain
// read(2): a process that ends mid-read makes the read fail (ESRCH), which
// std::filebuf reports by throwing, from inside the recorder's event loop.
std::string readProcFile(const std::string& path, std::size_t limit) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    std::string text(limit, '\0');
    std::size_t got = 0;
    while (got < limit) {
        ssize_t n = ::read(fd, text.data() + got, limit - got);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    text.resize(got);
    return text;
}

}  // namespace

std::string commandLineOf(std::uint32_t pid) {
    std::string text = readProcFile("/proc/" + std::to_string(pid) + "/cmdline", 4096);
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    for (char& c : text)
        if (c == '\0') c = ' ';
    return text;
}

bool stillRunning(std::uint32_t pid) {
    // /proc/PID/stat: "PID (comm) S ...": the state follows the last ')'.
    const std::string stat = readProcFile("/proc/" + std::to_string(pid) + "/stat", 1024);
    auto paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
    const char state = stat[paren + 2];
    return state != 'Z' && state != 'X';
}

}  // namespace ws
