// The recorder's memory over a long recording, without a GPU: records a copy
// of this program that streams `millions` million ~1 µs kernels on 16 streams
// from 16 threads over the real wire protocol, each with two API call records
// (cudaLaunchKernel_v7000 and cuKernelGetName, as a CUDA program under capture
// sends them), then prints this process's peak RSS (VmHWM) after each step.
// Run it in a release build:
//   record_memory_probe 5          # 5 M kernels + 10 M API calls
//   record_memory_probe 5 replayed # a counter pass: kernels without
//                                  # timestamps, each with its duration counted
// The recorder runs in this process, so VmHWM is the recorder's.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "model/counter_metrics.h"
#include "record/recorder.h"
#include "store/store.h"
#include "store_db.h"
#include "util/process_identity.h"
#include "wire/frames.h"

namespace {

long vmHwmKiB() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
    return -1;
}

void sendAll(int fd, const std::string& bytes) {
    for (std::size_t done = 0; done < bytes.size();) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) std::_Exit(3);
        done += static_cast<std::size_t>(n);
    }
}

// The program recorded: one process, `kernels` launches, written in pieces.
int flood(std::int64_t kernels, bool replayed) {
    const char* path = std::getenv("WARPSCOPE_SOCKET");
    if (!path) return 2;
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return 4;
    const std::int64_t t0 = ws::unixNowNs();
    ws::wire::Encoder out;
    out.hello({::getpid(), ::getppid(), t0, t0});
    ws::KernelRecord k;
    k.name = "void flood_kernel<float, 128>(float*, int)";
    k.gridX = 1;
    k.blockX = 128;
    k.registersPerThread = 16;
    ws::ApiCallRecord launch, getName;
    launch.processId = getName.processId = static_cast<std::uint32_t>(::getpid());
    launch.name = "cudaLaunchKernel_v7000";
    launch.kind = ws::ApiKind::Runtime;
    launch.callbackId = 211;
    getName.name = "cuKernelGetName";
    getName.kind = ws::ApiKind::Driver;
    getName.callbackId = 744;
    std::uint32_t correlation = 1;
    for (std::int64_t i = 0; i < kernels; ++i) {
        const std::uint32_t thread = static_cast<std::uint32_t>(i % 16);
        const std::int64_t t = t0 + i * 100;
        getName.threadId = launch.threadId = 1000 + thread;
        getName.correlationId = correlation++;
        getName.startNs = t;
        getName.endNs = t + 200;
        launch.correlationId = correlation++;
        launch.startNs = t + 300;
        launch.endNs = t + 2300;
        k.correlationId = launch.correlationId;
        k.streamId = 13 + thread;
        k.startNs = replayed ? 0 : t + 5000;
        k.endNs = replayed ? 0 : t + 6000;
        out.add(getName);
        out.add(launch);
        if (replayed) out.metric({k.correlationId, ws::counters::kDuration, 1000.0});
        out.add(k);
        if (out.bytes().size() > (1 << 20)) {
            sendAll(fd, out.bytes());
            out.clear();
        }
    }
    out.bye();
    sendAll(fd, out.bytes());
    ::close(fd);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--flood")
        return flood(std::atoll(argv[2]), std::string(argv[3]) == "replayed");
    const double millions = argc > 1 ? std::atof(argv[1]) : 1.0;
    const std::string mode = argc > 2 ? argv[2] : "timed";
    const auto kernels = static_cast<std::int64_t>(millions * 1e6);
    const auto dir = std::filesystem::temp_directory_path() /
                     ("record_memory_probe." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::printf("before: VmHWM %ld KiB\n", vmHwmKiB());
    ws::RecordRequest request;
    request.storePath = (dir / "runs.wsdb").string();
    request.argv = {"/proc/self/exe", "--flood", std::to_string(kernels), mode};
    request.argv[0] = std::filesystem::read_symlink("/proc/self/exe").string();
    request.echoOutput = false;
    request.sampleIntervalMs = 0;
    request.label = "memory probe";
    int rc = 0;
    try {
        ws::Recorder recorder(request);
        auto outcome = recorder.run();
        std::printf("recorded %lld kernels, %lld API calls, %lld dropped in %.1f s\n",
                    static_cast<long long>(outcome.totals.kernels),
                    static_cast<long long>(outcome.totals.apiCalls),
                    static_cast<long long>(outcome.totals.dropped), outcome.totals.elapsedNs / 1e9);
        if (outcome.totals.kernels != kernels || outcome.totals.apiCalls != 2 * kernels) rc = 1;
        // Every kernel stored, each at a time (a replayed one at its launch call).
        ws::Store store(request.storePath);
        const auto stored =
            storeDb(store).queryInt("SELECT SUM(count) FROM event_chunks WHERE kind = 1");
        const auto untimed = storeDb(store).queryInt(
            "SELECT COUNT(*) FROM event_chunks WHERE kind = 1 AND "
            "first_start_ns <= 0");
        std::printf("stored %lld kernels, %lld chunks starting at 0\n",
                    static_cast<long long>(stored), static_cast<long long>(untimed));
        if (stored != kernels || untimed != 0) rc = 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "record_memory_probe: %s\n", e.what());
        rc = 1;
    }
    const long hwm = vmHwmKiB();
    std::printf("after: VmHWM %ld KiB (%.1f MiB; %.1f MiB per million kernels)\n", hwm,
                hwm / 1024.0, hwm / 1024.0 / (millions > 0 ? millions : 1));
    std::filesystem::remove_all(dir);
    return rc;
}
