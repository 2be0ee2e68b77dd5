// Runs a program (no shell) and collects its exit code, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace ws::testing {

struct ProcessResult {
    int exitCode = -1;  // -1 when killed by a signal
    int signal = 0;
    std::string out;
    std::string err;
};

ProcessResult runProcess(const std::vector<std::string>& argv,
                         const std::vector<std::string>& extraEnv = {});

}  // namespace ws::testing
