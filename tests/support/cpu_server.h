// The serving engine's CPU backend as a real server for the load and sweep
// tests: `warpscope-workload serve --backend cpu` on a port of its choosing,
// with a config of fixed step costs (2 ms a step), so timings are known.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "support/child_process.h"

namespace ws::testing {

// A port nobody listens on now, for a server told to listen there.
int freePort();

struct CpuServer {
    std::unique_ptr<ChildProcess> process;
    int port = 0;  // 0 when it did not come up (the test has failed then)
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port); }
};

// Writes the config to `configPath` and starts `workloadBinary` serving it;
// returns once it said it is ready, or records a test failure with its output.
CpuServer startCpuServer(const std::string& workloadBinary, const std::string& configPath,
                         std::chrono::seconds patience);

}  // namespace ws::testing
