// The profiled program as a child process: forked into its own process group,
// stdout and stderr on pipes, exec failures reported back through a
// close-on-exec pipe. Owning one means the program cannot outlive the
// recording unsupervised: destroying a ChildProcess that was not reaped kills
// its process group and reaps it, whatever unwound the recorder.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ws {

// A file descriptor closed when it goes out of scope.
class UniqueFd {
  public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    UniqueFd& operator=(UniqueFd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = std::exchange(o.fd_, -1);
        }
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    void reset(int fd = -1);

  private:
    int fd_ = -1;
};

struct ChildSpec {
    std::string program;            // resolved path (resolveProgram)
    std::vector<std::string> argv;  // argv[0] included, passed as given
    std::vector<std::string> env;   // the whole environment, KEY=VALUE
    std::string workingDir;         // empty: ours
};

class ChildProcess {
  public:
    // Starts the program. Throws RecordError naming the program and the
    // reason when it cannot be executed; the child is reaped then.
    explicit ChildProcess(const ChildSpec& spec);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return pid_; }
    // The read ends of its stdout and stderr; reset them at end of file.
    UniqueFd& output() { return out_; }
    UniqueFd& errors() { return err_; }

    // The wait status once it has ended (reaped), without blocking.
    std::optional<int> poll();
    // Blocks until it ends; returns the wait status.
    int wait();
    // Sends `sig` to its whole process group while it is not reaped.
    void signalGroup(int sig);
    // After it was reaped: whether processes it started (a forked server, a
    // shell's background job) still live in its group, and a signal to them.
    // Its id stays theirs while they live, so it cannot name anyone else.
    bool groupOutlivesIt() const;
    void signalWhatOutlivesIt(int sig);
    // SIGKILL to the group, then reaps: what the destructor does.
    void killAndReap();
    std::optional<int> status() const { return status_; }

  private:
    pid_t pid_ = -1;
    UniqueFd out_, err_;
    std::optional<int> status_;
};

}  // namespace ws
