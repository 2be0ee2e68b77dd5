// warpscope-cli on another machine, through the system's OpenSSH client: the
// user's keys, agent and ~/.ssh/config, BatchMode (a prompt would hang a
// GUI), and one multiplexed connection per host (ControlMaster) shared by
// the version check, the recording, a cancel and the pull.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

// ssh could not run the command there, or the far side is not a Warpscope
// we can talk to; the message names the host and what ssh said.
class RemoteError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// What a finished ssh command left: its exit code (255: ssh itself failed),
// and its stderr.
struct RemoteResult {
    int exitCode = 0;
    std::string errors;
};

class RemoteHost {
  public:
    // `host`: user@host, host or an ssh config alias (never starting with
    // '-', which ssh would read as an option). `remoteCli`: the
    // warpscope-cli to run there (a name looked up in its PATH, or a path).
    // $WARPSCOPE_SSH_CONFIG names an ssh config file to use instead of
    // ~/.ssh/config (ssh -F).
    RemoteHost(std::string host, std::string remoteCli);

    const std::string& host() const { return host_; }

    // ssh's argv running `command` (one shell command line) there.
    std::vector<std::string> sshArgv(const std::string& command) const;
    // The shell command line running warpscope-cli with `args` there.
    std::string cliCommand(const std::vector<std::string>& args) const;
    // The same, started so that its process id comes first on its stdout
    // ("warpscope-remote-pid N"; the cli then replaces the shell under that
    // id), with SIGPIPE ignored: when the connection drops, the recording
    // goes on there and finishes its run instead of dying on its next line.
    std::string trackedCliCommand(const std::vector<std::string>& args) const;
    static constexpr const char* kPidPrefix = "warpscope-remote-pid ";

    // Runs `command` there; stdout is appended to `output` (or, with
    // `outputFile`, written to that file). Throws RemoteError when ssh cannot
    // be started.
    RemoteResult run(const std::string& command, std::string* output,
                     const std::string& outputFile = {}) const;

    // `warpscope-cli --version` there; throws RemoteError when ssh fails, no
    // warpscope-cli is found there, or its run bundle version is not
    // `bundleVersion` (naming both versions). Returns its version line.
    std::string checkVersion(int bundleVersion, const std::string& localVersion) const;

    // Writes `text` to a new file under ~/.cache/warpscope/remote there
    // (named after `name`) and returns its path there.
    std::string upload(const std::string& text, const std::string& name) const;

    // SIGINT to process `pid` there (a recording cancels as on Ctrl-C).
    RemoteResult interrupt(long pid) const;

    // "cannot reach H: <ssh's last lines>" for an exit status of 255.
    std::string sshFailure(const std::string& errors) const;

  private:
    std::string host_;
    std::string remoteCli_;
    std::string config_;
    std::string controlDir_;
};

// Quotes `argv` for a POSIX shell: words of plain characters as they are,
// anything else in single quotes. What a remote shell runs is exactly argv.
std::string shellCommandLine(const std::vector<std::string>& argv);

}  // namespace ws
