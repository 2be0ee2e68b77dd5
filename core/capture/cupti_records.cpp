#include "capture/cupti_records.h"

#include <cuda.h>

#include <cstring>

#include "l2_flush.h"

namespace ws::capture {

// Memcpy and memory kinds are copied from CUPTI's records by value: ours have
// CUPTI's order, and these keep it so (a CUDA update that renumbers them
// fails the build instead of mislabelling transfers).
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN) == int(MemcpyKind::Unknown));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD) == int(MemcpyKind::HtoD));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) == int(MemcpyKind::DtoH));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA) == int(MemcpyKind::HtoA));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH) == int(MemcpyKind::AtoH));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_ATOA) == int(MemcpyKind::AtoA));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD) == int(MemcpyKind::AtoD));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_DTOA) == int(MemcpyKind::DtoA));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD) == int(MemcpyKind::DtoD));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH) == int(MemcpyKind::HtoH));
static_assert(int(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP) == int(MemcpyKind::PtoP));
constexpr unsigned kLastMemcpyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
static_assert(int(CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN) == int(MemoryKind::Unknown));
static_assert(int(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE) == int(MemoryKind::Pageable));
static_assert(int(CUPTI_ACTIVITY_MEMORY_KIND_PINNED) == int(MemoryKind::Pinned));
static_assert(int(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) == int(MemoryKind::Device));
static_assert(int(CUPTI_ACTIVITY_MEMORY_KIND_ARRAY) == int(MemoryKind::Array));
static_assert(int(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED) == int(MemoryKind::Managed));
static_assert(int(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC) == int(MemoryKind::DeviceStatic));
static_assert(int(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC) == int(MemoryKind::ManagedStatic));
constexpr unsigned kLastMemoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC;

namespace {
const char* overheadName(CUpti_ActivityOverheadKind kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
            return "driver_compiler";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
            return "cupti_buffer_flush";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
            return "cupti_instrumentation";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
            return "cupti_resource";
        case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
            return "module_loading";
        case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
            return "lazy_function_loading";
        case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
            return "command_buffer_full";
        case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
            return "activity_buffer_request";
        default:
            return "other";
    }
}

const char* syncName(CUpti_ActivitySynchronizationType type) {
    switch (type) {
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
            return "cudaEventSynchronize";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
            return "cudaStreamWaitEvent";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
            return "cudaStreamSynchronize";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
            return "cudaDeviceSynchronize";
        default:
            return "synchronization";
    }
}

// The fields CUPTI's kernel, memcpy and memset records have in common.
template <typename R, typename Cupti>
void copyGpuFields(R& r, const Cupti& c) {
    r.startNs = static_cast<std::int64_t>(c.start);
    r.endNs = static_cast<std::int64_t>(c.end);
    r.deviceId = c.deviceId;
    r.contextId = c.contextId;
    r.streamId = c.streamId;
    r.correlationId = c.correlationId;
    r.graphId = c.graphId;
}

int attribute(CUdevice dev, CUdevice_attribute attr) {
    int v = 0;
    return cuDeviceGetAttribute(&v, attr, dev) == CUDA_SUCCESS ? v : 0;
}
}  // namespace

const std::string& RecordConverter::callbackName(CUpti_CallbackDomain domain, std::uint32_t cbid) {
    auto key = std::make_pair(static_cast<int>(domain), cbid);
    auto it = names_.find(key);
    if (it != names_.end()) return it->second;
    const char* name = nullptr;
    std::string value;
    if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name)
        value = name;
    else
        value = "cbid_" + std::to_string(cbid);
    return names_.emplace(key, std::move(value)).first->second;
}

void RecordConverter::marker(const CUpti_ActivityMarker2& m, wire::Encoder& out) {
    std::uint32_t thread =
        m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m.objectId.pt.threadId : 0;
    std::uint32_t process =
        m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m.objectId.pt.processId : processId_;
    auto ts = static_cast<std::int64_t>(m.timestamp);
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        RangeRecord r;
        r.startNs = r.endNs = ts;
        r.processId = process;
        r.threadId = thread;
        r.name = m.name ? m.name : "";
        r.domain = m.domain ? m.domain : "";
        r.kind = RangeKind::Mark;
        r.depth = depthByThread_[thread];
        out.add(r);
        return;
    }
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        OpenRange o;
        o.range.startNs = ts;
        o.range.processId = process;
        o.range.threadId = thread;
        o.range.name = m.name ? m.name : "";
        o.range.domain = m.domain ? m.domain : "";
        o.range.depth = depthByThread_[thread]++;
        open_[m.id] = std::move(o);
        return;
    }
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        auto it = open_.find(m.id);
        if (it == open_.end()) return;
        RangeRecord r = std::move(it->second.range);
        open_.erase(it);
        auto& depth = depthByThread_[r.threadId];
        if (depth > 0) --depth;
        r.endNs = ts;
        // A range ended on the thread that started it behaves as push/pop.
        r.kind = thread == r.threadId ? RangeKind::PushPop : RangeKind::StartEnd;
        out.add(r);
    }
}

void RecordConverter::convert(const CUpti_Activity* record, wire::Encoder& out,
                              std::vector<std::uint32_t>& devices) {
    switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            const auto& k = *reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            // The counter pass's own L2 flush (l2_flush.h) is not the program's.
            if (k.name &&
                std::strncmp(k.name, kL2FlushKernelName, std::strlen(kL2FlushKernelName)) == 0)
                return;
            KernelRecord r;
            copyGpuFields(r, k);
            r.name = k.name ? k.name : "<unnamed kernel>";
            r.gridX = k.gridX;
            r.gridY = k.gridY;
            r.gridZ = k.gridZ;
            r.blockX = k.blockX;
            r.blockY = k.blockY;
            r.blockZ = k.blockZ;
            r.clusterX = static_cast<std::int32_t>(k.clusterX);
            r.clusterY = static_cast<std::int32_t>(k.clusterY);
            r.clusterZ = static_cast<std::int32_t>(k.clusterZ);
            r.registersPerThread = k.registersPerThread;
            r.staticSharedBytes = k.staticSharedMemory;
            r.dynamicSharedBytes = k.dynamicSharedMemory;
            r.localBytesPerThread = static_cast<std::int32_t>(k.localMemoryPerThread);
            r.localBytesTotal = static_cast<std::int64_t>(k.localMemoryTotal_v2);
            r.sharedCarveoutBytes = static_cast<std::int32_t>(k.sharedMemoryExecuted);
            r.graphNodeId = k.graphNodeId;
            out.add(r);
            return;
        }
        case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
            // record --graph-trace graph: one record per graph launch, its
            // nodes unseen. Stored on the stream as a kernel named for the
            // graph, as Nsight Systems draws graph-level traces.
            const auto& g = *reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record);
            if (g.start == 0 && g.end == 0) return;  // CUPTI could not time it
            KernelRecord r;
            copyGpuFields(r, g);
            r.name =
                "cuda_graph_" + std::to_string(g.graphId);  // one word: kept whole as a short name
            out.add(r);
            return;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const auto& m = *reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            MemcpyRecord r;
            copyGpuFields(r, m);
            // CUPTI's enumerations have the order of ours (asserted above).
            r.kind = static_cast<MemcpyKind>(m.copyKind <= kLastMemcpyKind ? m.copyKind : 0);
            r.srcKind = static_cast<MemoryKind>(m.srcKind <= kLastMemoryKind ? m.srcKind : 0);
            r.dstKind = static_cast<MemoryKind>(m.dstKind <= kLastMemoryKind ? m.dstKind : 0);
            r.bytes = static_cast<std::int64_t>(m.bytes);
            out.add(r);
            return;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto& m = *reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            MemsetRecord r;
            copyGpuFields(r, m);
            r.bytes = static_cast<std::int64_t>(m.bytes);
            r.value = m.value;
            r.memoryKind =
                static_cast<MemoryKind>(m.memoryKind <= kLastMemoryKind ? m.memoryKind : 0);
            out.add(r);
            return;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            const auto& a = *reinterpret_cast<const CUpti_ActivityAPI*>(record);
            if (a.threadId == ownThread_) return;
            // Begun before tracing was turned on (at a capture window's
            // start): CUPTI has no start time for it.
            if (a.start == 0) return;
            bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
            ApiCallRecord r;
            r.startNs = static_cast<std::int64_t>(a.start);
            r.endNs = static_cast<std::int64_t>(a.end);
            r.processId = a.processId;
            r.threadId = a.threadId;
            r.correlationId = a.correlationId;
            r.kind = driver ? ApiKind::Driver : ApiKind::Runtime;
            r.callbackId = a.cbid;
            r.name = callbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
                                  a.cbid);
            r.returnValue = static_cast<std::int32_t>(a.returnValue);
            out.add(r);
            return;
        }
        case CUPTI_ACTIVITY_KIND_MARKER:
            marker(*reinterpret_cast<const CUpti_ActivityMarker2*>(record), out);
            return;
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
            const auto& s = *reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
            RangeRecord r;
            r.startNs = static_cast<std::int64_t>(s.start);
            r.endNs = static_cast<std::int64_t>(s.end);
            r.processId = processId_;
            r.threadId = 0;  // CUPTI does not say which thread waited
            r.name = syncName(s.type);
            r.domain = "CUDA synchronization";
            r.kind = RangeKind::StartEnd;
            out.add(r);
            return;
        }
        case CUPTI_ACTIVITY_KIND_OVERHEAD: {
            const auto& o = *reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
            out.overhead({static_cast<std::int64_t>(o.start), static_cast<std::int64_t>(o.end),
                          overheadName(o.overheadKind)});
            return;
        }
        case CUPTI_ACTIVITY_KIND_DEVICE:
            devices.push_back(reinterpret_cast<const CUpti_ActivityDevice5*>(record)->id);
            return;
        default:
            return;
    }
}

DeviceInfo describeDevice(std::uint32_t deviceId) {
    DeviceInfo d;
    CUdevice dev = 0;
    if (cuDeviceGet(&dev, static_cast<int>(deviceId)) != CUDA_SUCCESS) return d;
    char name[256] = {};
    cuDeviceGetName(name, sizeof name, dev);
    d.name = name;
    CUuuid uuid{};
    if (cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) {
        static const char* hex = "0123456789abcdef";
        d.uuid = "GPU-";
        for (int i = 0; i < 16; ++i) {
            if (i == 4 || i == 6 || i == 8 || i == 10) d.uuid += '-';
            auto b = static_cast<unsigned char>(uuid.bytes[i]);
            d.uuid += hex[b >> 4];
            d.uuid += hex[b & 15];
        }
    }
    size_t mem = 0;
    cuDeviceTotalMem(&mem, dev);
    d.memoryBytes = static_cast<std::int64_t>(mem);
    int driver = 0;
    cuDriverGetVersion(&driver);
    d.cudaVersion = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
    d.ccMajor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    d.ccMinor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    d.smCount = attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    d.memoryBusWidthBits = attribute(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    d.memoryClockKhz = attribute(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    d.smClockKhz = attribute(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    d.l2Bytes = attribute(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    d.regsPerSm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    d.regsPerBlock = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    d.smemPerSm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    d.smemPerBlock = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    d.smemPerBlockOptin = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    d.reservedSmemPerBlock = attribute(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    d.maxWarpsPerSm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) /
                      std::max(1, attribute(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE));
    d.maxBlocksPerSm = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    d.maxThreadsPerBlock = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    d.warpSize = attribute(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    return d;
}

}  // namespace ws::capture
