#include "tensor_parallel_ranks.h"

#include <cuda_runtime.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
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
        startOthers(configPath, id);
        watcher_ = std::thread([this] { watch(); });
    }
    WS_CUDA(cudaSetDevice(rank_));
    auto comm = std::make_unique<kernels::NcclAllReduce>(kernels::ncclIdFromHex(id), ranks_, rank_);
    std::lock_guard lock(ended_);
    comm_ = std::move(comm);
    if (!failures_.empty()) comm_->abort();  // a rank ended while this one was joining
}

// Reached with a communicator only when the run failed: abort it, as a peer
// may be gone, and stop the ranks still running.
TensorParallelRanks::~TensorParallelRanks() {
    {
        std::lock_guard lock(ended_);
        if (comm_) comm_->abort();
        comm_.reset();
        for (std::size_t i = 0; i < others_.size(); ++i)
            if (!reaped_[i]) ::kill(others_[i], SIGTERM);
    }
    if (watcher_.joinable()) watcher_.join();
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
        running_.fetch_add(1);
    }
}

// Rank 0's watcher: reaps the other ranks; the first that ends badly ends the
// run (its communicator aborted, so rank 0's wait for that peer returns).
void TensorParallelRanks::watch() {
    while (running_.load() > 0) {
        int status = 0;
        pid_t pid = ::waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        std::lock_guard lock(ended_);
        int r = 0;
        for (std::size_t i = 0; i < others_.size(); ++i)
            if (others_[i] == pid) {
                r = int(i) + 1;
                reaped_[i] = true;
            }
        if (r == 0) continue;  // not a rank
        running_.fetch_sub(1);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
        std::string what = "rank " + std::to_string(r) + " (pid " + std::to_string(pid) +
                           "): " + howItEnded(status);
        std::fprintf(stderr, "warpscope-workload: %s; stopping the run\n", what.c_str());
        failures_.push_back(what);
        if (comm_) comm_->abort();
    }
}

std::vector<std::string> TensorParallelRanks::finish() {
    {
        std::lock_guard lock(ended_);
        comm_.reset();  // every rank frees its communicator as its rounds end
    }
    if (watcher_.joinable()) watcher_.join();
    std::lock_guard lock(ended_);
    return failures_;
}

}  // namespace ws::workload
