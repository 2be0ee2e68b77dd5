// Processes that report to `warpscope-cli record` as the injected capture
// library does (the real wire protocol over $WARPSCOPE_SOCKET), without CUDA:
// the parent starts two children, each says hello and sends, inside an NVTX
// range named after its rank, a launch call and its kernel on stream 7, both
// with correlation id 1 (CUDA numbers them per process); the first says
// goodbye and exits (having sent a 5 µs capture window as well), the second
// is killed (SIGKILL) before it can. Each reports 6 state-reading calls, the
// first in two frames (4 + 2). Tests of how a run keeps each
// process and its end use it. Each child is this program exec'd again with RANK, LOCAL_RANK and
// WORLD_SIZE set as torchrun sets them (rank 0, then 1), so the recorder
// finds them in /proc/PID/environ.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "util/process_identity.h"
#include "wire/frames.h"

namespace {

void sendAll(int fd, const std::string& bytes) {
    for (std::size_t done = 0; done < bytes.size();) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) std::_Exit(3);
        done += static_cast<std::size_t>(n);
    }
}

[[noreturn]] void child(bool sayGoodbye) {
    const char* path = std::getenv("WARPSCOPE_SOCKET");
    if (!path) std::_Exit(2);
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) std::_Exit(4);
    const std::int64_t now = ws::unixNowNs();
    ws::wire::Encoder out;
    out.hello({::getpid(), ::getppid(), now, now});
    const auto self = static_cast<std::uint32_t>(::getpid());
    const char* rank = std::getenv("RANK");
    out.add(ws::RangeRecord{now, now + 10'000, self, self,
                            std::string("rank") + (rank ? rank : "?"), "", ws::RangeKind::PushPop,
                            0, 0});
    out.add(ws::ApiCallRecord{now + 100, now + 200, self, self, 1, ws::ApiKind::Runtime, 0,
                              "cudaLaunchKernel", 0});
    // As record --capture-range stores a traced window: process-wide.
    if (sayGoodbye)
        out.add(ws::RangeRecord{now + 50, now + 5'050, self, 0, "capture range", "Warpscope",
                                ws::RangeKind::StartEnd, 0, 0});
    ws::KernelRecord k;
    k.startNs = now + 1000;
    k.endNs = now + 2000;
    k.streamId = 7;
    k.correlationId = 1;
    k.name = sayGoodbye ? "goodbye_kernel" : "killed_kernel";
    out.add(k);
    out.queryCalls(sayGoodbye ? 4 : 6);
    if (sayGoodbye) out.queryCalls(2);
    if (sayGoodbye) out.bye();
    sendAll(fd, out.bytes());
    // Alive a moment after hello, as any process doing GPU work is: the
    // recorder reads its command line from /proc meanwhile.
    ::usleep(500'000);
    if (!sayGoodbye) ::raise(SIGKILL);
    ::close(fd);
    std::_Exit(0);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--child") child(std::string(argv[2]) == "goodbye");
    int rank = 0;
    for (bool goodbye : {true, false}) {
        pid_t pid = ::fork();
        if (pid == 0) {
            const std::string r = std::to_string(rank);
            ::setenv("RANK", r.c_str(), 1);
            ::setenv("LOCAL_RANK", r.c_str(), 1);
            ::setenv("WORLD_SIZE", "2", 1);
            const char* mode = goodbye ? "goodbye" : "killed";
            ::execl("/proc/self/exe", "wire_peer", "--child", mode, static_cast<char*>(nullptr));
            std::_Exit(5);
        }
        ++rank;
        int status = 0;
        ::waitpid(pid, &status, 0);  // one after the other: their order is known
    }
    std::puts("wire_peer: two children reported");
    return 0;
}
