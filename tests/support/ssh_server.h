// A throwaway OpenSSH server for tests: Debian's /usr/sbin/sshd run as the
// current user on 127.0.0.1 at a free port, with its own host key, one user
// key allowed in, and an ssh client config naming it (Host aliases below).
// Everything lives in one folder; the server and its sessions end with it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

namespace ws::testing {

class ChildProcess;

class SshServer {
  public:
    // Why no server can be started here ("sshd is not installed ..."), or
    // nothing when one can.
    static std::optional<std::string> unavailable();

    // `dir`: a folder of the test's own. `remotePath`: the PATH its sessions
    // get (sshd's SetEnv), so a test decides which warpscope-cli is "there".
    SshServer(const std::string& dir, const std::string& remotePath);
    ~SshServer();
    SshServer(const SshServer&) = delete;
    SshServer& operator=(const SshServer&) = delete;

    // The client config: Host `wstest` reaches this server; `wstest-closed`
    // is the same address at a port nobody listens on; `wstest-stranger`
    // offers a key the server does not know.
    const std::string& clientConfig() const { return clientConfig_; }
    // SIGKILL to the server's per-connection processes: every connection
    // drops as if the network went away, and what they ran stays running.
    void dropConnections();

  private:
    std::string dir_;
    std::string clientConfig_;
    std::unique_ptr<ChildProcess> sshd_;
};

}  // namespace ws::testing
