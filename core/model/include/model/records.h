// Plain records shared by the store, capture, analysis and UI. Times are int64
// nanoseconds on the CUPTI clock; run start/end are Unix-epoch nanoseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/closed_lists.h"

namespace ws {

using RunId = std::int64_t;

const char* toString(RunStatus status);
std::optional<RunStatus> runStatusFromString(const std::string& text);

struct DeviceInfo {
    std::string name;
    std::string uuid;
    int ccMajor = 0;
    int ccMinor = 0;
    int smCount = 0;
    std::int64_t memoryBytes = 0;
    int memoryBusWidthBits = 0;
    int memoryClockKhz = 0;
    int smClockKhz = 0;
    std::int64_t l2Bytes = 0;
    std::string driverVersion;
    std::string cudaVersion;
    int regsPerSm = 0;
    int regsPerBlock = 0;
    int smemPerSm = 0;
    int smemPerBlock = 0;
    int smemPerBlockOptin = 0;
    int reservedSmemPerBlock = 0;
    int maxWarpsPerSm = 0;
    int maxBlocksPerSm = 0;
    int maxThreadsPerBlock = 0;
    int warpSize = 32;
};

struct WorkloadInfo {
    std::string name;
    std::string kind;  // one of kWorkloadKindNames (model/closed_lists.h)
    std::string configText;
};

struct RunInfo {
    RunId id = 0;
    std::string label;
    std::string workload;      // workload name, empty when none
    std::string workloadKind;  // decoder | kernel | command | imported
    std::string device;        // device name, empty when none
    std::string variant;
    std::string tags;  // comma separated
    RunStatus status = RunStatus::Running;
    std::optional<int> exitCode;
    std::optional<int> signal;
    std::int64_t startedAtNs = 0;  // Unix epoch
    std::optional<std::int64_t> endedAtNs;
    std::string command;
    std::string host;
    std::int64_t droppedRecords = 0;
    std::string warpscopeVersion;
    std::int64_t durationNs() const { return endedAtNs ? *endedAtNs - startedAtNs : 0; }
};

// A kernel's launching API call shares its correlation id (unique within a
// process) and ran shortly before it: searches look this far either side.
inline constexpr std::int64_t kLaunchSearchWindowNs = 2'000'000'000;

struct KernelRecord {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint32_t deviceId = 0;
    std::uint32_t contextId = 0;
    std::uint32_t streamId = 0;
    std::uint32_t correlationId = 0;
    std::string name;
    std::int32_t gridX = 1, gridY = 1, gridZ = 1;
    std::int32_t blockX = 1, blockY = 1, blockZ = 1;
    std::int32_t clusterX = 0, clusterY = 0, clusterZ = 0;
    std::int32_t registersPerThread = 0;
    std::int32_t staticSharedBytes = 0;
    std::int32_t dynamicSharedBytes = 0;
    std::int32_t localBytesPerThread = 0;
    std::int64_t localBytesTotal = 0;
    std::int32_t sharedCarveoutBytes = 0;  // shared memory configured for the launch
    std::uint32_t graphId = 0;
    std::uint64_t graphNodeId = 0;
    std::int64_t durationNs() const { return endNs - startNs; }
    std::int64_t threadsPerBlock() const { return std::int64_t(blockX) * blockY * blockZ; }
};

// One NCCL call (ncclAllReduce, ncclSend, ...) as NCCL's NVTX range and its
// payload told it: the thread that made it, when, and the message size. The
// kernels launched inside [startNs, endNs] on that thread carry its bytes.
struct CollectiveCallRecord {
    std::uint32_t processId = 0;
    std::uint32_t threadId = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::string collective;          // "AllReduce", "AllGather", "Send", ...
    std::uint64_t communicator = 0;  // NCCL's communicator hash
    std::int64_t bytes = 0;          // NCCL's "message size [bytes]"
};

// A node CUDA put into a graph (by stream capture or an explicit
// cudaGraphAdd*Node call), or the copy of one that instantiation makes.
// Replayed kernels carry the node id of the copy; following originalNodeId
// back to the created node gives the thread and moment of its creation, and
// so the NVTX ranges that were open when it was captured.
struct GraphNodeRecord {
    std::uint64_t nodeId = 0;
    std::uint64_t originalNodeId = 0;  // the node this one was copied from; 0 when created
    std::uint32_t graphId = 0;
    std::uint32_t processId = 0;
    std::uint32_t threadId = 0;  // the creating (or instantiating) thread
    std::int64_t timeNs = 0;
    std::int32_t nodeType = 0;  // CUgraphNodeType: 0 kernel, 1 memcpy, 2 memset, ...
};

// The process a GPU stream's work came from. CUDA numbers streams per
// context, so two processes on one GPU both have a stream 7: the recorder
// keeps the first one's id and gives a stream first seen in another process
// a new one (streamId), with CUDA's own id beside it (cudaStreamId).
struct GpuStreamRecord {
    std::uint32_t deviceId = 0;
    std::uint32_t streamId = 0;  // as stored on kernel, memcpy and memset records
    std::uint32_t processId = 0;
    std::uint32_t cudaStreamId = 0;
};

enum class MemcpyKind { Unknown, HtoD, DtoH, HtoA, AtoH, AtoA, AtoD, DtoA, DtoD, HtoH, PtoP };
const char* toString(MemcpyKind kind);
enum class MemoryKind {
    Unknown,
    Pageable,
    Pinned,
    Device,
    Array,
    Managed,
    DeviceStatic,
    ManagedStatic
};
const char* toString(MemoryKind kind);

struct MemcpyRecord {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint32_t deviceId = 0;
    std::uint32_t contextId = 0;
    std::uint32_t streamId = 0;
    std::uint32_t correlationId = 0;
    MemcpyKind kind = MemcpyKind::Unknown;
    MemoryKind srcKind = MemoryKind::Unknown;
    MemoryKind dstKind = MemoryKind::Unknown;
    std::int64_t bytes = 0;
    std::uint32_t graphId = 0;
};

struct MemsetRecord {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint32_t deviceId = 0;
    std::uint32_t contextId = 0;
    std::uint32_t streamId = 0;
    std::uint32_t correlationId = 0;
    std::int64_t bytes = 0;
    std::uint32_t value = 0;
    MemoryKind memoryKind = MemoryKind::Unknown;
    std::uint32_t graphId = 0;
};

enum class ApiKind { Runtime, Driver };
const char* toString(ApiKind kind);

struct ApiCallRecord {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::uint32_t processId = 0;
    std::uint32_t threadId = 0;
    std::uint32_t correlationId = 0;
    ApiKind kind = ApiKind::Runtime;
    std::uint32_t callbackId = 0;
    std::string name;
    std::int32_t returnValue = 0;
};

enum class RangeKind { PushPop, StartEnd, Mark };

struct RangeRecord {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;  // equal to startNs for marks
    std::uint32_t processId = 0;
    std::uint32_t threadId = 0;
    std::string name;
    std::string domain;
    RangeKind kind = RangeKind::PushPop;
    std::uint32_t color = 0;
    std::int32_t depth = 0;  // nesting depth for push/pop ranges
};

struct RequestRecord {
    std::int64_t requestId = 0;
    std::int64_t startNs = 0;  // request arrival / submission
    std::int64_t endNs = 0;    // last output token
    std::int32_t promptTokens = 0;
    std::int32_t outputTokens = 0;
    bool success = true;
};

struct TokenRecord {
    std::int64_t requestId = 0;
    std::int32_t index = 0;  // 0 = first output token
    std::int64_t timeNs = 0;
};

struct SampleRecord {
    std::int64_t timeNs = 0;
    std::uint32_t deviceIndex = 0;
    std::optional<double> powerW;
    std::optional<double> smClockMhz;
    std::optional<double> memClockMhz;
    std::optional<double> temperatureC;
    std::optional<std::int64_t> memoryUsedBytes;
    std::optional<double> gpuUtilPercent;
    std::optional<double> memUtilPercent;
    std::optional<double> energyJ;  // cumulative since an arbitrary origin
    // NVML's nvmlClocksEventReason* bitmask: why clocks were below their maximum.
    std::optional<std::int64_t> clockEventReasons;
    // NVLink data sent and received over all links, cumulative since an
    // arbitrary origin (NVML counts KiB); empty where the GPU has no NVLink.
    std::optional<std::int64_t> nvlinkTxBytes;
    std::optional<std::int64_t> nvlinkRxBytes;
};

// The GPU's performance monitors read over one interval (CUPTI PM sampling):
// a metric's value over [startNs, endNs), on the capture clock. Samples of
// one metric follow each other without gaps while sampling keeps up.
struct GpuMetricSample {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    double value = 0;
};

// Consecutive samples of one metric of one GPU (CUDA device ordinal), by start.
struct GpuMetricSeries {
    std::uint32_t deviceIndex = 0;
    std::string metric;  // CUPTI's name, e.g. "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"
    std::vector<GpuMetricSample> samples;
};

// Samples of one SASS instruction with one warp state (`record --pc-sampling`,
// CUPTI PC sampling): how often a warp at `pcOffset` of `function` was found
// in `stallReason` when the sampler looked.
struct PcSampleRecord {
    std::string function;        // the kernel's name as CUPTI gives it (mangled)
    std::uint64_t pcOffset = 0;  // bytes from the function's first instruction
    std::string stallReason;     // CUPTI's name: smsp__pcsamp_warps_issue_stalled_*
    std::int64_t samples = 0;
    std::string sourceFile;  // with line information (nvcc -lineinfo); "" without
    std::uint32_t line = 0;  // 0 without line information
    std::string sass;        // the instruction's SASS text (nvdisasm); "" without
};

// What the PC sampler saw in one process over the whole run.
struct PcSamplingTotals {
    std::int64_t samples = 0;         // every sample, user kernels' or not, dropped included
    std::int64_t droppedSamples = 0;  // lost by the hardware (buffer full, back pressure)
    std::int64_t nonUserSamples = 0;  // in kernels CUPTI gives no PCs for (driver-internal)
    std::uint32_t periodLog2 = 0;     // a sample every 2^periodLog2 cycles per SM; 0 unknown
    bool hardwareBufferFull = false;  // some samples were lost to a full hardware buffer
    std::int64_t hostNs = 0;          // the sampler's own time in the process: drains, lines, SASS
};

struct OverheadRecord {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::string kind;  // e.g. "cupti_buffer_flush", "driver_compiler"
};

struct KernelMetricRecord {
    std::uint32_t correlationId = 0;
    std::string metric;
    double value = 0;
};

struct QualityRecord {
    std::string check;
    std::string referenceVariant;
    double tokenAgreement = 0;  // fraction 0..1
    double maxLogitError = 0;
    double tolerance = 0;
    bool passed = false;
};

// Live counters of a recording: what the recorder reports while it runs.
struct RecordProgress {
    std::int64_t elapsedNs = 0;
    std::int64_t kernels = 0;
    std::int64_t memcpys = 0;
    std::int64_t memcpyBytes = 0;
    std::int64_t apiCalls = 0;
    std::int64_t ranges = 0;
    std::int64_t tokens = 0;
    std::int64_t dropped = 0;
    int processes = 0;  // processes that connected (CUDA initialised in them)
    bool finished = false;
    RunId run = 0;  // the run being recorded (known from the first message on)
};

}  // namespace ws
