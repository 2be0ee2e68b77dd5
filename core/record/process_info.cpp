#include "process_info.h"

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <string_view>

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

DistributedEnv distributedEnvOf(std::uint32_t pid) {
    // A Python job's environment can be large; 256 KiB holds any usual one.
    const std::string block = readProcFile("/proc/" + std::to_string(pid) + "/environ", 256 * 1024);
    std::map<std::string, std::string, std::less<>> env;
    for (std::size_t at = 0; at < block.size();) {
        std::size_t end = block.find('\0', at);
        if (end == std::string::npos) end = block.size();
        std::string_view entry(block.data() + at, end - at);
        if (auto eq = entry.find('='); eq != std::string_view::npos)
            env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
        at = end + 1;
    }
    auto first = [&](std::initializer_list<const char*> names) -> std::string {
        for (const char* n : names)
            if (auto it = env.find(n); it != env.end() && !it->second.empty()) return it->second;
        return {};
    };
    return {first({"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}),
            first({"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}),
            first({"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})};
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
