#include "support/cpu_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/temp_dir.h"

namespace ws::testing {

int freePort() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

CpuServer startCpuServer(const std::string& workloadBinary, const std::string& configPath,
                         std::chrono::seconds patience) {
    writeFile(configPath,
              "name = \"bench-model\"\nkind = \"serve\"\n[serve]\nmax_model_len = 20000\n"
              "num_blocks = 20000\n[serve.cpu]\nstep_us = 2000\nseq_us = 0\n"
              "prefill_token_us = 0\n");
    CpuServer s;
    s.process = std::make_unique<ChildProcess>(std::vector<std::string>{
        workloadBinary, "serve", "--backend", "cpu", "--port", "0", configPath});
    auto line = s.process->waitForLine("on http://127.0.0.1:", patience);
    if (!line || !s.process->waitForLine("warpscope-workload: ready", patience)) {
        ADD_FAILURE() << "the CPU server did not come up:\n" << s.process->output();
        return s;
    }
    s.port = std::stoi(line->substr(line->rfind(':') + 1));
    return s;
}

}  // namespace ws::testing
