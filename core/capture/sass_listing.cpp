#include "capture/sass_listing.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

extern char** environ;

namespace ws::capture {

namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool executable(const std::string& path) {
    struct stat st {};
    return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

// A temporary file holding `bytes` (or empty), removed when this goes.
class TempFile {
  public:
    explicit TempFile(std::string_view bytes) {
        const char* dir = std::getenv("TMPDIR");
        std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/warpscope-sass-XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        const int fd = ::mkstemp(name.data());
        if (fd < 0) return;
        path_ = name.data();
        std::size_t done = 0;
        while (done < bytes.size()) {
            const auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                failed_ = true;
                break;
            }
            done += static_cast<std::size_t>(n);
        }
        ::close(fd);
    }
    ~TempFile() {
        if (!path_.empty()) ::unlink(path_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    bool ok() const { return !path_.empty() && !failed_; }
    const std::string& path() const { return path_; }
    std::string read() const {
        std::ifstream in(path_, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }

  private:
    std::string path_;
    bool failed_ = false;
};

// The traced process's environment less what would trace nvdisasm too.
std::vector<char*> childEnvironment() {
    std::vector<char*> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view v(*e);
        if (v.starts_with("CUDA_INJECTION64_PATH=") || v.starts_with("LD_PRELOAD=") ||
            v.starts_with("WARPSCOPE_"))
            continue;
        env.push_back(*e);
    }
    env.push_back(nullptr);
    return env;
}

}  // namespace

SassListing parseSassListing(std::string_view listing, const std::set<std::string>* functions) {
    SassListing out;
    std::map<std::uint64_t, std::string>* function = nullptr;
    std::size_t at = 0;
    while (at < listing.size()) {
        auto end = listing.find('\n', at);
        if (end == std::string_view::npos) end = listing.size();
        const auto line = trimmed(listing.substr(at, end - at));
        at = end + 1;
        if (line.starts_with(".text.") && line.ends_with(":")) {
            std::string name(line.substr(6, line.size() - 7));
            function = !functions || functions->count(name) ? &out[name] : nullptr;
            continue;
        }
        if (!function || !line.starts_with("/*")) continue;
        const auto close = line.find("*/");
        if (close == std::string_view::npos || close < 3) continue;
        const auto offsetText = line.substr(2, close - 2);
        std::uint64_t offset = 0;
        bool hex = !offsetText.empty();
        for (char c : offsetText) {
            const int d = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
            if (d < 0) {
                hex = false;
                break;
            }
            offset = offset * 16 + static_cast<std::uint64_t>(d);
        }
        if (!hex) continue;
        // The text runs to its ';'; an encoding comment (/* 0x… */) may follow.
        auto text = line.substr(close + 2);
        if (const auto semi = text.find(';'); semi != std::string_view::npos)
            text = text.substr(0, semi);
        text = trimmed(text);
        if (text.empty()) continue;
        // Columns of spaces between predicate, opcode and operands become one.
        std::string compact;
        for (char c : text) {
            if ((c == ' ' || c == '\t') && !compact.empty() && compact.back() == ' ') continue;
            compact.push_back(c == '\t' ? ' ' : c);
        }
        (*function)[offset] = std::move(compact);
    }
    return out;
}

std::string findNvdisasm() {
    if (const char* set = std::getenv("WARPSCOPE_NVDISASM"); set && *set)
        return executable(set) ? set : "";
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(var); home && *home)
            if (auto p = std::string(home) + "/bin/nvdisasm"; executable(p)) return p;
    if (executable("/usr/local/cuda/bin/nvdisasm")) return "/usr/local/cuda/bin/nvdisasm";
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "";
    while (!dirs.empty()) {
        const auto colon = dirs.find(':');
        const auto dir = dirs.substr(0, colon);
        if (!dir.empty())
            if (auto p = std::string(dir) + "/nvdisasm"; executable(p)) return p;
        if (colon == std::string_view::npos) break;
        dirs.remove_prefix(colon + 1);
    }
    return "";
}

std::optional<SassListing> disassembleCubin(const std::string& nvdisasm, std::string_view cubin,
                                            const std::set<std::string>& functions,
                                            std::chrono::milliseconds timeout, std::string& why) {
    TempFile input(cubin), output({}), errors({});
    if (!input.ok() || !output.ok() || !errors.ok()) {
        why = "no temporary file for nvdisasm (TMPDIR): " + std::string(std::strerror(errno));
        return std::nullopt;
    }
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&files, 1, output.path().c_str(), O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_addopen(&files, 2, errors.path().c_str(), O_WRONLY | O_TRUNC, 0);
    std::string program = nvdisasm, codeOnly = "-c", file = input.path();
    char* argv[] = {program.data(), codeOnly.data(), file.data(), nullptr};
    auto env = childEnvironment();
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, nvdisasm.c_str(), &files, nullptr, argv, env.data());
    posix_spawn_file_actions_destroy(&files);
    if (spawned != 0) {
        why = "cannot run " + nvdisasm + ": " + std::strerror(spawned);
        return std::nullopt;
    }
    // Waited for with a deadline: this runs as the traced program exits,
    // which a stuck nvdisasm must not hold up.
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) {  // reaped elsewhere (a SIGCHLD handler)
            why = "waiting for " + nvdisasm + ": " + std::strerror(errno);
            return std::nullopt;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            why = nvdisasm + " took longer than " + std::to_string(timeout.count()) +
                  " ms and was stopped";
            return std::nullopt;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        auto err = errors.read();
        if (auto nl = err.find('\n'); nl != std::string::npos) err.resize(nl);
        why = nvdisasm +
              (WIFEXITED(status) ? " exited with " + std::to_string(WEXITSTATUS(status))
                                 : std::string(" was killed")) +
              (err.empty() ? "" : ": " + err);
        return std::nullopt;
    }
    return parseSassListing(output.read(), &functions);
}

}  // namespace ws::capture
