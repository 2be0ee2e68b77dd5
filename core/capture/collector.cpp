#include "capture/collector.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "capture/capture_windows.h"
#include "capture/cupti_records.h"
#include "capture/graph_nodes.h"
#include "capture/nccl_calls.h"
#include "capture/pc_sampling.h"
#include "capture/profiler_api_windows.h"
#include "capture/query_calls.h"
#include "capture/range_profiler.h"
#include "model/pc_sampling.h"
#include "util/process_identity.h"
#include "wire/frames.h"

namespace ws::capture {

namespace {

// CUPTI returns a buffer only once every record in it is complete; with a
// steady stream of launches the newest records never are. Small buffers fill,
// complete and come back within tens of milliseconds.
constexpr std::size_t kDefaultBufferBytes = 1 << 20;
constexpr int kDefaultFlushMs = 100;

// Tuning knobs, read once from the environment (scripts/gpu/overhead-matrix.sh).
long envNumber(const char* name, long fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}
const std::size_t kBufferBytes =
    static_cast<std::size_t>(envNumber("WARPSCOPE_BUFFER_KB", kDefaultBufferBytes >> 10)) << 10;
const auto kFlushPeriod =
    std::chrono::milliseconds(envNumber("WARPSCOPE_FLUSH_MS", kDefaultFlushMs));
// CUPTI zeroes each buffer it is handed on the launching thread unless told
// they come zeroed; the writer thread zeroes them instead, off that path.
const bool kZeroedBuffers = envNumber("WARPSCOPE_ZEROED_BUFFERS", 0) != 0;
const long kDeviceBufferMb = envNumber("WARPSCOPE_DEVICE_BUFFER_MB", 0);
// Kernel timestamps written by the GPU straight into pinned host memory
// instead of device buffers that CUPTI copies back.
const bool kHostPinnedRecords = envNumber("WARPSCOPE_HOST_PINNED", 0) != 0;
const bool kSystemThreadIds = envNumber("WARPSCOPE_SYSTEM_TID", 1) != 0;

bool check(CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return true;
    const char* msg = nullptr;
    cuptiGetResultString(r, &msg);
    std::fprintf(stderr, "[warpscope] %s failed: %s\n", what, msg ? msg : "unknown error");
    return false;
}

// WARPSCOPE_KINDS_OFF=marker,synchronization,...: activity kinds left out, so
// torch-overhead-check.sh can measure what each costs a real program.
bool kindLeftOut(CUpti_ActivityKind kind) {
    static const std::string off = [] {
        const char* v = std::getenv("WARPSCOPE_KINDS_OFF");
        return v ? "," + std::string(v) + "," : std::string();
    }();
    const char* name = nullptr;
    switch (kind) {
        case CUPTI_ACTIVITY_KIND_RUNTIME:
            name = "runtime";
            break;
        case CUPTI_ACTIVITY_KIND_MARKER:
            name = "marker";
            break;
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
            name = "synchronization";
            break;
        case CUPTI_ACTIVITY_KIND_OVERHEAD:
            name = "overhead";
            break;
        case CUPTI_ACTIVITY_KIND_MEMSET:
            name = "memset";
            break;
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            name = "memcpy";
            break;
        default:
            return false;
    }
    return off.find("," + std::string(name) + ",") != std::string::npos;
}

// The activity kinds a recording traces, on or off together: all run long,
// or only inside capture windows (record --capture-range cudaProfilerApi).
// Not among them, traced all run long: device and context records (they
// describe the GPU) and NVTX markers (a range pushed inside a window and
// popped after it stays whole, and nesting depths stay right).
void setTracing(bool traced) {
    static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                               CUPTI_ACTIVITY_KIND_MEMCPY,
                                               CUPTI_ACTIVITY_KIND_MEMSET,
                                               CUPTI_ACTIVITY_KIND_RUNTIME,
                                               CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                               CUPTI_ACTIVITY_KIND_OVERHEAD};
    // Driver API records (what Triton and other direct driver users launch
    // with); WARPSCOPE_DRIVER_API=0 (record --no-driver-api) leaves them out.
    static const bool driver = [] {
        const char* v = std::getenv("WARPSCOPE_DRIVER_API");
        return !v || std::strcmp(v, "0") != 0;
    }();
    // WARPSCOPE_GRAPH_TRACE=graph (record --graph-trace graph): one record per
    // graph launch instead of one per node, the cheapest way to trace graphs.
    static const bool graphLevel = [] {
        const char* v = std::getenv("WARPSCOPE_GRAPH_TRACE");
        return v && std::strcmp(v, "graph") == 0;
    }();
    auto toggle = traced ? cuptiActivityEnable : cuptiActivityDisable;
    if (driver) toggle(CUPTI_ACTIVITY_KIND_DRIVER);
    for (auto kind : kinds) {
        if (kindLeftOut(kind)) continue;
        CUptiResult r = toggle(kind);
        if (r != CUPTI_SUCCESS && r != CUPTI_ERROR_NOT_COMPATIBLE)
            check(r, traced ? "cuptiActivityEnable" : "cuptiActivityDisable");
    }
    if (traced) leaveQueryCallsOut();
    countQueryCalls(traced, !kindLeftOut(CUPTI_ACTIVITY_KIND_RUNTIME), driver);
    if (!graphLevel) return;
    static bool reported = false;
    CUptiResult r = toggle(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    if (r != CUPTI_SUCCESS && traced && !std::exchange(reported, true)) {
        const char* why = nullptr;
        cuptiGetResultString(r, &why);
        std::fprintf(stderr,
                     "[warpscope] graph-level tracing not available (%s): kernels in CUDA "
                     "graphs are traced per node\n",
                     why ? why : "unknown error");
    }
}

struct Completed {
    std::uint8_t* data;
    std::size_t validBytes;
    std::size_t dropped;
};

class Collector {
  public:
    bool start();
    void stop();  // at exit: force a flush, drain, say goodbye
    void forgetAfterFork();
    // From the thread that made the NCCL call, at its end: queued, and sent by
    // the flusher thread, so the call never waits on the socket.
    void queueCollectiveCall(const CollectiveCallRecord& r);
    bool active() const { return active_; }

    static void CUPTIAPI requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max);
    static void CUPTIAPI completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer,
                                   std::size_t size, std::size_t valid);

  private:
    void writerLoop();
    void flusherLoop();
    void send(const std::string& bytes);
    void sendMetric(const KernelMetricValue& v);
    void sendGraphNode(const GraphNodeRecord& r);
    void sendCollectiveCalls();
    std::uint8_t* takeBuffer();
    // All run long, or only inside the program's cudaProfilerStart/Stop
    // windows when the recording asks (model/capture_windows.h).
    void startTracing();
    // Closed windows go out through the writer thread's encoder, whose
    // string table their names need.
    void encodeClosedWindows(wire::Encoder& enc);

    wire::Encoder pcSamples_;  // sent whole when the sampler's totals come
    std::mutex sendMutex_;     // the writer thread and the kernel-counter callbacks both send
    std::mutex callsMutex_;
    std::vector<CollectiveCallRecord> calls_;  // NCCL calls not sent yet
    CaptureWindows* windows_ = nullptr;        // lives until exit, as the callbacks may
    std::vector<RangeRecord> closedWindows_;   // not sent yet; under callsMutex_
    bool windowsPending_ = false;              // under mutex_: wakes the writer
    int socket_ = -1;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable drained_;
    std::deque<Completed> queue_;
    std::vector<std::uint8_t*> pool_;
    std::thread writer_, flusher_;
    std::atomic<bool> stopping_{false};
    std::atomic<bool> active_{false};
    bool busy_ = false;
};

Collector collector;
// Set on threads doing the collector's own work; CUPTI callbacks made from
// them must not re-enter the collector.
thread_local bool insideCollector = false;

std::uint8_t* Collector::takeBuffer() {
    {
        std::lock_guard lock(mutex_);
        if (!pool_.empty()) {
            auto* b = pool_.back();
            pool_.pop_back();
            return b;
        }
    }
    auto* b = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    if (b && kZeroedBuffers) std::memset(b, 0, kBufferBytes);
    return b;
}

void CUPTIAPI Collector::requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max) {
    *buffer = collector.takeBuffer();
    *size = *buffer ? kBufferBytes : 0;
    *max = 0;
}

void CUPTIAPI Collector::completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer,
                                   std::size_t, std::size_t valid) {
    // Return at once: the writer thread does the work.
    std::size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped);
    {
        std::lock_guard lock(collector.mutex_);
        collector.queue_.push_back({buffer, valid, dropped});
    }
    collector.wake_.notify_one();
}

void Collector::sendMetric(const KernelMetricValue& v) {
    // Metric frames carry their name inline, so they need no string table
    // shared with the writer thread's encoder.
    wire::Encoder enc;
    enc.metric({v.correlationId, v.metric, v.value});
    send(enc.bytes());
}

void Collector::sendGraphNode(const GraphNodeRecord& r) {
    // From the thread building the graph; like metric frames, no strings.
    wire::Encoder enc;
    enc.graphNode(r);
    send(enc.bytes());
}

void Collector::queueCollectiveCall(const CollectiveCallRecord& r) {
    std::lock_guard lock(callsMutex_);
    calls_.push_back(r);
}

void Collector::sendCollectiveCalls() {
    std::vector<CollectiveCallRecord> calls;
    {
        std::lock_guard lock(callsMutex_);
        calls.swap(calls_);
    }
    if (calls.empty()) return;
    wire::Encoder enc;  // the collective's name inline: no strings interned
    for (const auto& c : calls)
        enc.collectiveCall(c);
    send(enc.bytes());
}

void Collector::encodeClosedWindows(wire::Encoder& enc) {
    std::vector<RangeRecord> closed;
    {
        std::lock_guard lock(callsMutex_);
        closed.swap(closedWindows_);
    }
    for (const auto& w : closed)
        enc.add(w);
}

void Collector::startTracing() {
    // Subscribed now, not inside the program's first cudaProfilerStart.
    countQueryCalls(false, false, false);
    const char* range = std::getenv(capture_window::kEnvironment);
    if (!range || std::strcmp(range, capture_window::kProfilerApi) != 0) {
        setTracing(true);
        return;
    }
    CaptureWindowHooks hooks{setTracing,
                             [] {
                                 std::uint64_t t = 0;
                                 cuptiGetTimestamp(&t);
                                 return static_cast<std::int64_t>(t);
                             },
                             [this](const RangeRecord& r) {
                                 {
                                     std::lock_guard lock(callsMutex_);
                                     closedWindows_.push_back(r);
                                 }
                                 // Sent now, not with the next buffer: between
                                 // windows none may come before a kill.
                                 {
                                     std::lock_guard lock(mutex_);
                                     windowsPending_ = true;
                                 }
                                 wake_.notify_one();
                             }};
    windows_ = new CaptureWindows(std::move(hooks), static_cast<std::uint32_t>(::getpid()));
    if (startProfilerApiWindows(windows_)) return;
    std::fprintf(stderr,
                 "[warpscope] --capture-range cudaProfilerApi cannot be honoured (no CUPTI "
                 "callbacks): the whole run is traced\n");
    setTracing(true);
}

void Collector::send(const std::string& bytes) {
    std::lock_guard lock(sendMutex_);
    std::size_t off = 0;
    while (off < bytes.size() && socket_ >= 0) {
        ssize_t n = ::send(socket_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            // The launcher is gone: keep the program running, stop sending.
            ::close(socket_);
            socket_ = -1;
            return;
        }
        off += static_cast<std::size_t>(n);
    }
}

void Collector::writerLoop() {
    insideCollector = true;
    auto tid = static_cast<std::uint32_t>(::syscall(SYS_gettid));
    wire::Encoder enc;
    RecordConverter converter(static_cast<std::uint32_t>(::getpid()), tid);
    std::set<std::uint32_t> devicesSent;
    std::vector<std::uint32_t> devices;
    for (;;) {
        std::optional<Completed> c;
        bool last = false;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return !queue_.empty() || stopping_ || windowsPending_; });
            windowsPending_ = false;
            if (!queue_.empty()) {
                c = queue_.front();
                queue_.pop_front();
                busy_ = true;
            } else if (stopping_) {
                busy_ = false;
                drained_.notify_all();
                last = true;
            }
        }
        if (c) {
            CUpti_Activity* record = nullptr;
            while (cuptiActivityGetNextRecord(c->data, c->validBytes, &record) == CUPTI_SUCCESS)
                converter.convert(record, enc, devices);
            for (auto id : devices)
                if (devicesSent.insert(id).second) enc.device(describeDevice(id));
            devices.clear();
            if (c->dropped) enc.dropped(static_cast<std::int64_t>(c->dropped));
        }
        if (auto queries = takeQueryCallCount()) enc.queryCalls(queries);
        encodeClosedWindows(enc);
        send(enc.bytes());
        enc.clear();
        if (last) return;
        if (!c) continue;
        if (kZeroedBuffers) std::memset(c->data, 0, kBufferBytes);
        {
            std::lock_guard lock(mutex_);
            pool_.push_back(c->data);
            busy_ = false;
            if (queue_.empty()) drained_.notify_all();
        }
    }
}

void Collector::flusherLoop() {
    insideCollector = true;
    if (kFlushPeriod.count() <= 0) return;
    while (!stopping_) {
        std::this_thread::sleep_for(kFlushPeriod);
        if (!stopping_) cuptiActivityFlushAll(0);
        sendCollectiveCalls();
    }
}

bool Collector::start() {
    const char* path = std::getenv("WARPSCOPE_SOCKET");
    if (!path || !*path) {
        std::fprintf(stderr,
                     "[warpscope] capture library loaded without WARPSCOPE_SOCKET; start the "
                     "program with `warpscope-cli record -- PROGRAM` to record it\n");
        return false;
    }
    socket_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (socket_ < 0 || ::connect(socket_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        std::fprintf(stderr, "[warpscope] cannot reach the recorder at %s: %s\n", path,
                     std::strerror(errno));
        if (socket_ >= 0) ::close(socket_);
        socket_ = -1;
        return false;
    }
    std::uint64_t cuptiNow = 0;
    cuptiGetTimestamp(&cuptiNow);
    wire::Encoder hello;
    hello.hello({::getpid(), ::getppid(), static_cast<std::int64_t>(cuptiNow), unixNowNs()});
    send(hello.bytes());

    // Thread ids as the kernel numbers them, so they match what tools show.
    // (WARPSCOPE_SYSTEM_TID=0 keeps CUPTI's default ids, for overhead-matrix.sh.)
    if (kSystemThreadIds) cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (kZeroedBuffers) {
        std::uint8_t one = 1;
        std::size_t size = sizeof one;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &one);
    }
    if (kHostPinnedRecords) {
        std::uint8_t one = 1;
        std::size_t size = sizeof one;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size, &one);
    }
    if (kDeviceBufferMb > 0) {
        std::size_t bytes = static_cast<std::size_t>(kDeviceBufferMb) << 20;
        std::size_t size = sizeof bytes;
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &bytes);
    }
    if (!check(cuptiActivityRegisterCallbacks(&Collector::requested, &Collector::completed),
               "cuptiActivityRegisterCallbacks"))
        return false;
    for (auto kind :
         {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_MARKER}) {
        if (kindLeftOut(kind)) continue;
        CUptiResult r = cuptiActivityEnable(kind);
        if (r != CUPTI_SUCCESS && r != CUPTI_ERROR_NOT_COMPATIBLE) check(r, "cuptiActivityEnable");
    }
    startTracing();
    // Before the first graph is built: nodes made earlier could not be traced.
    if (envNumber("WARPSCOPE_GRAPH_NODES", 1) != 0 &&
        !startGraphNodeTracking([this](const GraphNodeRecord& r) {
            if (!insideCollector) sendGraphNode(r);
        }))
        std::fprintf(stderr,
                     "[warpscope] CUDA graph nodes not tracked: kernels replayed from graphs "
                     "will not be traced to the ranges that captured them\n");
    if (std::getenv("WARPSCOPE_METRICS"))
        startKernelCounters([this](const KernelMetricValue& v) { sendMetric(v); },
                            [](const std::string& message) {
                                std::fprintf(stderr, "[warpscope] kernel counters: %s\n",
                                             message.c_str());
                            });
    if (std::getenv(pc_sampling::kEnvironment))
        startPcSampling({[this](const std::vector<PcSampleRecord>& r) { pcSamples_.pcSamples(r); },
                         [this](const PcSamplingTotals& t) {
                             pcSamples_.pcSamplingTotals(t);
                             send(pcSamples_.bytes());
                             pcSamples_.clear();
                         },
                         [](const std::string& message) {
                             std::fprintf(stderr, "[warpscope] PC sampling: %s\n", message.c_str());
                         }});
    writer_ = std::thread([this] { writerLoop(); });
    flusher_ = std::thread([this] { flusherLoop(); });
    active_ = true;
    std::atexit([] { collector.stop(); });
    // The send lock is held across fork(), so the child never inherits it
    // locked by a thread that does not exist there, nor a half-sent frame.
    pthread_atfork([] { collector.sendMutex_.lock(); }, [] { collector.sendMutex_.unlock(); },
                   [] {
                       collector.forgetAfterFork();
                       collector.sendMutex_.unlock();
                   });
    return true;
}

void Collector::stop() {
    if (!active_.exchange(false)) return;
    insideCollector = true;
    if (windows_) windows_->finish();
    flushKernelCounters();
    finishPcSampling();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    {
        std::unique_lock lock(mutex_);
        drained_.wait_for(lock, std::chrono::seconds(10), [&] { return queue_.empty() && !busy_; });
    }
    {
        // Under the writer's lock: set between its check and its wait, the
        // wake-up would be lost and the join below would never return.
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (writer_.joinable()) writer_.join();
    if (flusher_.joinable()) flusher_.join();
    sendCollectiveCalls();
    wire::Encoder bye;
    bye.bye();
    send(bye.bytes());
    std::lock_guard lock(sendMutex_);
    if (socket_ >= 0) ::close(socket_);
    socket_ = -1;
}

void Collector::forgetAfterFork() {
    // The child shares the parent's socket; it must not write into its
    // stream, and the collector's threads do not exist in it. A child that
    // execs a CUDA program is injected afresh with its own connection.
    // Runs in the child with sendMutex_ held (see the pthread_atfork in start).
    if (!active_) return;
    active_ = false;
    if (socket_ >= 0) ::close(socket_);
    socket_ = -1;
    writer_.detach();
    flusher_.detach();
}

}  // namespace

namespace {

std::int64_t cuptiNow() {
    std::uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return static_cast<std::int64_t>(t);
}

// Whether `function` lies in the libcupti this process uses.
bool inCupti(const void* function) {
    Dl_info cupti{}, other{};
    return dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &cupti) && cupti.dli_fbase &&
           dladdr(function, &other) && other.dli_fbase == cupti.dli_fbase;
}

}  // namespace

bool trackNcclCalls(const void* (*getExportTable)(std::uint32_t)) {
    // WARPSCOPE_NCCL_SIZES=0 leaves NVTX's table as CUPTI set it.
    if (envNumber("WARPSCOPE_NCCL_SIZES", 1) == 0) return true;
    NcclCallTracking tracking;
    tracking.emit = [](const CollectiveCallRecord& r) {
        if (!insideCollector && collector.active()) collector.queueCollectiveCall(r);
    };
    tracking.now = &cuptiNow;
    tracking.isTracerFunction = &inCupti;
    return interposeNcclCalls(getExportTable, tracking);
}

bool startCollector() {
    static std::once_flag once;
    static bool started = false;
    if (insideCollector) return started;
    std::call_once(once, [] { started = collector.start(); });
    return started;
}

}  // namespace ws::capture
