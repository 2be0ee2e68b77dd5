#include "support/unprivileged.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace ws::testing {

namespace {
constexpr uid_t kNobody = 65534;
}

void allowOthersToReach(const std::string& folder) {
    for (std::filesystem::path p = folder; !p.empty() && p != p.root_path(); p = p.parent_path()) {
        struct stat st {};
        if (stat(p.c_str(), &st) == 0) chmod(p.c_str(), st.st_mode | S_IXOTH | S_IROTH);
    }
}

std::string runUnprivileged(const std::function<std::string()>& check) {
    if (geteuid() != 0) return check();
    int pipeFds[2];
    if (pipe(pipeFds) != 0) return std::string("pipe: ") + std::strerror(errno);
    pid_t pid = fork();
    if (pid < 0) return std::string("fork: ") + std::strerror(errno);
    if (pid == 0) {
        close(pipeFds[0]);
        std::string result;
        if (setgid(kNobody) != 0 || setuid(kNobody) != 0)
            result = std::string("cannot become nobody: ") + std::strerror(errno);
        else
            result = check();
        if (!result.empty()) (void)!write(pipeFds[1], result.data(), result.size());
        _exit(0);
    }
    close(pipeFds[1]);
    std::string result;
    char buf[512];
    for (ssize_t n; (n = read(pipeFds[0], buf, sizeof buf)) > 0;)
        result.append(buf, static_cast<std::size_t>(n));
    close(pipeFds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        result += "the check died of signal " + std::to_string(WTERMSIG(status));
    return result;
}

}  // namespace ws::testing
