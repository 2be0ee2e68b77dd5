#include "tensor_parallel_ranks.h"

#include <cuda_runtime.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "common/cuda_check.h"

extern char** environ;

namespace ws::workload {

namespace {

int rankFromEnvironment(int ranks) {
    const char* text = std::getenv("WARPSCOPE_TP_RANK");
    if (!text) return 0;
    char* end = nullptr;
    long rank = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || rank < 1 || rank >= ranks)
        throw std::runtime_error(std::string("WARPSCOPE_TP_RANK=") + text +
                                 ": not a rank between 1 and " + std::to_string(ranks - 1));
    return int(rank);
}

std::string howItEnded(int status) {
    if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
    return "ended (status " + std::to_string(status) + ")";
}

// The variables each rank gets its own value of.
bool setForRanks(const char* entry) {
    for (const char* name : {"WARPSCOPE_TP_", "RANK=", "LOCAL_RANK=", "WORLD_SIZE="})
        if (std::strncmp(entry, name, std::strlen(name)) == 0) return true;
    return false;
}

}  // namespace

TensorParallelRanks::TensorParallelRanks(int ranks, const std::string& configPath)
    : rank_(rankFromEnvironment(ranks)), ranks_(ranks) {
    std::string id;
    if (rank_ > 0) {
        const char* given = std::getenv("WARPSCOPE_TP_ID");
        if (!given) throw std::runtime_error("WARPSCOPE_TP_RANK is set without WARPSCOPE_TP_ID");
        id = given;
    } else {
        int devices = 0;
        if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
        if (devices < ranks)
            throw std::runtime_error(
                "tensor_parallel = " + std::to_string(ranks) + " needs " + std::to_string(ranks) +
                " GPUs, one per rank; this machine has " + std::to_string(devices));
        auto nccl = kernels::ncclInfo();
        std::printf("tensor parallel: %d ranks on GPUs 0–%d, NCCL %s (%s)\n", ranks, ranks - 1,
                    nccl.version.c_str(), nccl.path.c_str());
        std::fflush(stdout);
        id = kernels::ncclIdToHex(kernels::newNcclId());
        ::signal(SIGCHLD, SIG_DFL);  // an inherited SIG_IGN would leave no status to reap
        startOthers(configPath, id);
        watcher_ = std::thread([this] { watch(); });
    }
    try {
        WS_CUDA(cudaSetDevice(rank_));
        comm_ = std::make_unique<kernels::NcclAllReduce>(kernels::ncclIdFromHex(id), ranks_, rank_);
    } catch (...) {
        stopOthers();
        throw;
    }
}

// Reached with a communicator only when the run failed: it is left to the
// process's end (a peer may be gone, and freeing it waits for peers), and the
// ranks still running are stopped.
TensorParallelRanks::~TensorParallelRanks() {
    (void)comm_.release();
    stopOthers();
}

void TensorParallelRanks::stopOthers() {
    if (!watcher_.joinable()) return;
    {
        std::lock_guard lock(reaping_);
        stopping_ = true;
        for (std::size_t i = 0; i < others_.size(); ++i)
            if (!reaped_[i]) ::kill(others_[i], SIGTERM);
    }
    watcher_.join();
}

// The environment is built before fork(): between fork and exec the child
// calls only what is safe in a copy of a threaded process.
void TensorParallelRanks::startOthers(const std::string& configPath, const std::string& id) {
    const pid_t parent = ::getpid();
    for (int r = 1; r < ranks_; ++r) {
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e)
            if (!setForRanks(*e)) env.emplace_back(*e);
        env.push_back("WARPSCOPE_TP_RANK=" + std::to_string(r));
        env.push_back("WARPSCOPE_TP_ID=" + id);
        env.push_back("RANK=" + std::to_string(r));
        env.push_back("LOCAL_RANK=" + std::to_string(r));
        env.push_back("WORLD_SIZE=" + std::to_string(ranks_));
        std::vector<char*> envp;
        for (auto& e : env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        std::string self = "warpscope-workload", run = "run", config = configPath;
        char* argv[] = {self.data(), run.data(), config.data(), nullptr};
        pid_t pid = ::fork();
        if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork rank");
        if (pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // no rank outlives rank 0
            if (::getppid() != parent) ::_exit(1);
            ::execve("/proc/self/exe", argv, envp.data());
            ::_exit(127);
        }
        others_.push_back(pid);
        reaped_.push_back(false);
    }
}

// Rank 0's watcher reaps the other ranks (each by its pid: rank 0's other
// children are not its business). A rank that ends badly ends the run: rank 0
// may be waiting inside NCCL, or replaying a graph that does, for a peer that
// is gone, and nothing short of leaving releases it. The run's log says which
// rank ended how; the collector has sent what it had up to its last flush.
void TensorParallelRanks::watch() {
    for (;;) {
        {
            std::lock_guard lock(reaping_);
            bool running = false;
            for (std::size_t i = 0; i < others_.size(); ++i) {
                if (reaped_[i]) continue;
                int status = 0;
                pid_t pid = ::waitpid(others_[i], &status, WNOHANG);
                if (pid == 0) {
                    running = true;
                    continue;
                }
                reaped_[i] = true;
                if (pid < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0) || stopping_)
                    continue;
                std::string what = "rank " + std::to_string(i + 1) + " (pid " +
                                   std::to_string(others_[i]) + "): " + howItEnded(status);
                failures_.push_back(what);
                if (!finishing_) {
                    std::fprintf(stderr, "warpscope-workload: %s; stopping the run\n",
                                 what.c_str());
                    std::fflush(stderr);
                    std::_Exit(3);
                }
            }
            if (!running) return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

std::vector<std::string> TensorParallelRanks::finish() {
    {
        std::lock_guard lock(reaping_);
        finishing_ = true;  // every rank's rounds are done: an end now only gets reported
    }
    comm_.reset();  // every rank frees its communicator as its rounds end
    if (watcher_.joinable()) watcher_.join();
    std::lock_guard lock(reaping_);
    return failures_;
}

}  // namespace ws::workload
