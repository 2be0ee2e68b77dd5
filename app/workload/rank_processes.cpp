#include "rank_processes.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <system_error>

extern char** environ;

namespace ws::workload {

namespace {

// The variables each rank gets its own value of.
bool setPerRank(const char* entry) {
    for (const char* name : {"WARPSCOPE_TP_RANK=", "RANK=", "LOCAL_RANK=", "WORLD_SIZE="})
        if (std::strncmp(entry, name, std::strlen(name)) == 0) return true;
    return false;
}

std::string howItEnded(int status) {
    if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
    return "ended (status " + std::to_string(status) + ")";
}

}  // namespace

// Everything the child needs is built before fork(): between fork and exec
// it calls only what is safe in a copy of a threaded process.
RankProcesses::RankProcesses(int ranks, const std::string& program,
                             const std::vector<std::string>& argv,
                             const std::vector<std::string>& sharedEnv, OnEnd onBadEnd)
    : onBadEnd_(std::move(onBadEnd)) {
    ::signal(SIGCHLD, SIG_DFL);  // an inherited SIG_IGN would leave no status to reap
    const pid_t parent = ::getpid();
    try {
        for (int r = 1; r < ranks; ++r) {
            std::vector<std::string> env;
            for (char** e = environ; *e; ++e)
                if (!setPerRank(*e)) env.emplace_back(*e);
            env.insert(env.end(), sharedEnv.begin(), sharedEnv.end());
            for (const char* name : {"WARPSCOPE_TP_RANK=", "RANK=", "LOCAL_RANK="})
                env.push_back(name + std::to_string(r));
            env.push_back("WORLD_SIZE=" + std::to_string(ranks));
            std::vector<char*> envp, args;
            for (auto& e : env)
                envp.push_back(e.data());
            envp.push_back(nullptr);
            std::vector<std::string> argCopy = argv;
            for (auto& a : argCopy)
                args.push_back(a.data());
            args.push_back(nullptr);
            pid_t pid = ::fork();
            if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
            if (pid == 0) {
                ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // no rank outlives the one that started it
                if (::getppid() != parent) ::_exit(1);
                ::execve(program.c_str(), args.data(), envp.data());
                ::_exit(127);
            }
            pids_.push_back(pid);
            reaped_.push_back(false);
        }
    } catch (...) {
        for (pid_t pid : pids_) {
            ::kill(pid, SIGTERM);
            ::waitpid(pid, nullptr, 0);
        }
        throw;
    }
    watcher_ = std::thread([this] { watch(); });
}

RankProcesses::~RankProcesses() {
    {
        std::lock_guard lock(reaping_);
        stopping_ = true;
        for (std::size_t i = 0; i < pids_.size(); ++i)
            if (!reaped_[i]) ::kill(pids_[i], SIGTERM);
    }
    if (watcher_.joinable()) watcher_.join();
}

// Polls each rank by pid (the starting process's other children are not the
// watcher's to reap) until all have ended.
void RankProcesses::watch() {
    for (;;) {
        std::vector<std::string> report;
        bool running = false;
        {
            std::lock_guard lock(reaping_);
            for (std::size_t i = 0; i < pids_.size(); ++i) {
                if (reaped_[i]) continue;
                int status = 0;
                pid_t pid = ::waitpid(pids_[i], &status, WNOHANG);
                if (pid == 0) {
                    running = true;
                    continue;
                }
                reaped_[i] = true;
                if (pid < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0) || stopping_)
                    continue;
                std::string what = "rank " + std::to_string(i + 1) + " (pid " +
                                   std::to_string(pids_[i]) + "): " + howItEnded(status);
                failures_.push_back(what);
                if (!finishing_) report.push_back(what);
            }
        }
        for (const auto& what : report)
            onBadEnd_(what);  // outside the lock: it may end the process
        if (!running) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

std::vector<std::string> RankProcesses::finish() {
    {
        std::lock_guard lock(reaping_);
        finishing_ = true;
    }
    if (watcher_.joinable()) watcher_.join();
    std::lock_guard lock(reaping_);
    return failures_;
}

}  // namespace ws::workload
