#include "record/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "record/recorder.h"

namespace ws {

void UniqueFd::reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

namespace {

struct Pipe {
    UniqueFd read, write;
};

Pipe makePipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw RecordError(std::string("cannot create a pipe: ") + std::strerror(errno));
    return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace

ChildProcess::ChildProcess(const ChildSpec& spec) {
    Pipe out = makePipe(), err = makePipe(), exec = makePipe();
    // Built before fork: the child may only make async-signal-safe calls.
    std::vector<std::string> argStrings = spec.argv, envStrings = spec.env;
    std::vector<char*> argv, envp;
    for (auto& a : argStrings)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    const pid_t parent = ::getpid();
    pid_t child = ::fork();
    if (child < 0)
        throw RecordError("cannot start " + spec.program +
                          ": fork failed: " + std::strerror(errno));
    if (child == 0) {
        ::setpgid(0, 0);  // its own group: cancelling forwards to all of it
        // Killed with the recorder (kill -9 of warpscope-cli), not left running
        // unsupervised with nobody reading its output.
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);  // the recorder died before prctl
        ::dup2(out.write.get(), 1);
        ::dup2(err.write.get(), 2);
        int devnull = ::open("/dev/null", O_RDONLY);
        if (devnull >= 0) ::dup2(devnull, 0);
        int failure = 0;
        if (!spec.workingDir.empty() && ::chdir(spec.workingDir.c_str()) != 0) {
            failure = errno;
        } else {
            ::signal(SIGINT, SIG_DFL);
            ::signal(SIGTERM, SIG_DFL);
            // A recording started over ssh ignores SIGPIPE so that it outlives
            // a dropped connection; the program it records keeps the default.
            ::signal(SIGPIPE, SIG_DFL);
            ::execve(spec.program.c_str(), argv.data(), envp.data());
            failure = errno;
        }
        [[maybe_unused]] auto n = ::write(exec.write.get(), &failure, sizeof failure);
        ::_exit(127);
    }
    pid_ = child;
    ::setpgid(child, child);  // also here: no race with the child's own call
    out.write.reset();
    err.write.reset();
    exec.write.reset();
    int execErr = 0;
    if (::read(exec.read.get(), &execErr, sizeof execErr) == sizeof execErr) {
        wait();
        throw RecordError("cannot start " + spec.program + ": " + std::strerror(execErr));
    }
    out_ = std::move(out.read);
    err_ = std::move(err.read);
}

ChildProcess::~ChildProcess() {
    killAndReap();
}

std::optional<int> ChildProcess::poll() {
    if (!status_ && pid_ > 0) {
        int st = 0;
        if (::waitpid(pid_, &st, WNOHANG) == pid_) status_ = st;
    }
    return status_;
}

int ChildProcess::wait() {
    while (!status_ && pid_ > 0) {
        int st = 0;
        pid_t r = ::waitpid(pid_, &st, 0);
        if (r == pid_)
            status_ = st;
        else if (r < 0 && errno != EINTR)
            status_ = 0;  // not ours to reap any more
    }
    return status_.value_or(0);
}

bool ChildProcess::groupOutlivesIt() const {
    return pid_ > 0 && status_ && ::kill(-pid_, 0) == 0;
}

void ChildProcess::signalWhatOutlivesIt(int sig) {
    if (pid_ > 0 && status_) ::kill(-pid_, sig);
}

void ChildProcess::signalGroup(int sig) {
    if (!status_ && pid_ > 0) ::kill(-pid_, sig);
}

void ChildProcess::killAndReap() {
    if (status_ || pid_ <= 0) return;
    signalGroup(SIGKILL);
    wait();
}

}  // namespace ws
