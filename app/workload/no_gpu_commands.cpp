// This build has no CUDA: the kernel ladders, the decoder and the bench are
// not in it (serve --backend cpu is).
#include <iostream>
#include <stdexcept>

#include "workload_commands.h"

namespace ws::workload {

namespace {
int noCuda(const std::string& what) {
    std::cerr << "warpscope-workload: " << what
              << " needs CUDA, and this build has none (it was configured without a CUDA "
                 "toolkit); `warpscope-workload serve --backend cpu` works without\n";
    return 3;
}
}  // namespace

int gpuCommand(const std::string& command, bool) {
    return noCuda("`" + command + "`");
}

int launchCostCommand(int, int) {
    return noCuda("`launch-cost`");
}

int runGpuWorkload(const WorkloadConfig& config) {
    return noCuda(std::string("a ") + toString(config.kind) + " workload");
}

std::unique_ptr<serving::Backend> makeGpuBackend(const DecoderParams&, const ServeParams&,
                                                 serving::EngineConfig&) {
    throw std::runtime_error(
        "the gpu backend needs CUDA, and this build has none (it was configured without a CUDA "
        "toolkit); --backend cpu serves without a GPU");
}

std::function<std::string(bool start)> gpuProfilerSwitch() {
    return {};
}

}  // namespace ws::workload
