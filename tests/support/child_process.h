// A program started in the background (no shell), its stdout and stderr read
// through one pipe: for tests that talk to a server process, signal it and
// wait for its exit. Killed (SIGKILL) and reaped if still running at the end.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace ws::testing {

class ChildProcess {
  public:
    explicit ChildProcess(const std::vector<std::string>& argv);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return pid_; }
    // Reads output until a line containing `text` arrives; returns that line,
    // or nothing when the output ends or `timeout` passes first.
    std::optional<std::string> waitForLine(const std::string& text,
                                           std::chrono::milliseconds timeout);
    void signal(int sig);
    // Reads output until the process exits; returns its exit code (-1 when a
    // signal ended it), or nothing when `timeout` passes first.
    std::optional<int> waitForExit(std::chrono::milliseconds timeout);
    // Everything read so far.
    const std::string& output() const { return output_; }

  private:
    enum class Read { Data, Nothing, End };
    // Reads what is there, waiting up to `timeout` for something.
    Read readSome(std::chrono::milliseconds timeout);

    pid_t pid_ = -1;
    int fd_ = -1;
    std::string output_;
    std::size_t scanned_ = 0;  // output_ before this was searched by waitForLine
    std::optional<int> status_;
};

}  // namespace ws::testing
