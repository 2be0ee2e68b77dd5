#include "capture/nccl_calls.h"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "model/nccl_payload.h"

namespace ws::capture {

namespace {

using PushEx = int (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t*);
using Pop = int (*)(nvtxDomainHandle_t);
using RegisterString = nvtxStringHandle_t (*)(nvtxDomainHandle_t, const char*);

// What NVTX's table held before us (CUPTI's functions). Every NVTX instance
// gets the same ones; an instance holding others is left alone.
std::atomic<PushEx> tracerPush{nullptr};
std::atomic<Pop> tracerPop{nullptr};
std::atomic<RegisterString> tracerRegister{nullptr};
NcclCallTracking* tracking = nullptr;  // set once under setupMutex, lives until exit
std::mutex setupMutex;

// NCCL names its ranges with registered strings. The collectives' handles are
// kept in a fixed table written under a lock (registration is rare) and read
// without one (every NCCL push), so a fork never leaves a reader waiting.
struct RegisteredName {
    std::atomic<nvtxStringHandle_t> handle{nullptr};
    std::string_view collective;
};
constexpr int kMaxNames = 64;
RegisteredName names[kMaxNames];
std::atomic<int> nameCount{0};
std::mutex namesMutex;

std::string_view registeredName(nvtxStringHandle_t handle) {
    const int n = nameCount.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i)
        if (names[i].handle.load(std::memory_order_acquire) == handle) return names[i].collective;
    return {};
}

// Per thread, the domain ranges pushed through us, innermost last: plain
// data, so nothing is destroyed at thread or process exit (NCCL may push from
// a static destructor after thread-locals are gone). Deeper nesting than
// kMaxDepth is counted but not kept.
struct OpenRange {
    nvtxDomainHandle_t domain;
    std::string_view collective;  // empty: not an NCCL call
    std::uint64_t communicator;
    std::int64_t bytes;
    std::int64_t startNs;
};
constexpr std::uint32_t kMaxDepth = 32;
struct OpenRanges {
    std::uint32_t depth;
    OpenRange ranges[kMaxDepth];
};
thread_local OpenRanges open;

std::optional<NcclPayload> payloadOf(const nvtxEventAttributes_t* a) {
    if (!a || a->payloadType != NVTX_PAYLOAD_TYPE_EXT || a->reserved0 < 1 || !a->payload.ullValue)
        return std::nullopt;
    std::string_view collective;
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii)
        collective = ncclCallCollective(a->message.ascii).value_or(std::string_view{});
    else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
        collective = registeredName(a->message.registered);
    if (collective.empty()) return std::nullopt;
    // Only now is the payload read: an NCCL collective's range carries one
    // nvtxPayloadData_t (NVTX_PAYLOAD_EVTATTR_SET_DATA).
    const auto* data = reinterpret_cast<const nvtxPayloadData_t*>(
        static_cast<std::uintptr_t>(a->payload.ullValue));
    return ncclCollectivePayload(collective, data->payload, data->size);
}

int pushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attr) noexcept {
    const std::uint32_t d = open.depth++;
    if (d < kMaxDepth) {
        OpenRange& r = open.ranges[d];
        r = {domain, {}, 0, 0, 0};
        if (auto p = payloadOf(attr)) {
            r.collective = p->collective;
            r.communicator = p->communicator;
            r.bytes = p->bytes;
            r.startNs = tracking->now();
        }
    }
    return tracerPush.load(std::memory_order_relaxed)(domain, attr);
}

int pop(nvtxDomainHandle_t domain) noexcept {
    const int result = tracerPop.load(std::memory_order_relaxed)(domain);
    if (open.depth == 0) return result;  // pushed before we were in front
    if (open.depth > kMaxDepth) {
        --open.depth;
        return result;
    }
    // The innermost range of this domain: NVTX pairs pushes and pops per
    // domain, and ranges of different domains may interleave.
    std::uint32_t i = open.depth;
    while (i > 0 && open.ranges[i - 1].domain != domain)
        --i;
    if (i == 0) return result;  // a pop of a range pushed before us
    const OpenRange r = open.ranges[i - 1];
    for (std::uint32_t j = i; j < open.depth; ++j)
        open.ranges[j - 1] = open.ranges[j];
    --open.depth;
    if (r.collective.empty()) return result;
    try {
        CollectiveCallRecord call;
        call.processId = static_cast<std::uint32_t>(::getpid());
        call.threadId = static_cast<std::uint32_t>(::syscall(SYS_gettid));
        call.startNs = r.startNs;
        call.endNs = tracking->now();
        call.collective = std::string(r.collective);
        call.communicator = r.communicator;
        call.bytes = r.bytes;
        tracking->emit(call);
    } catch (...) {
        // Never into NCCL: a lost size is better than a terminated program.
    }
    return result;
}

nvtxStringHandle_t registerString(nvtxDomainHandle_t domain, const char* text) noexcept {
    nvtxStringHandle_t handle = tracerRegister.load(std::memory_order_relaxed)(domain, text);
    if (!handle || !text) return handle;
    if (auto collective = ncclCallCollective(text)) {
        std::lock_guard lock(namesMutex);
        const int n = nameCount.load(std::memory_order_relaxed);
        if (n < kMaxNames) {
            names[n].collective = *collective;
            names[n].handle.store(handle, std::memory_order_release);
            nameCount.store(n + 1, std::memory_order_release);
        }
    }
    return handle;
}

// Whether `slot` may be stepped in front of: it holds the tracer's function,
// the same one earlier instances held (or ours already).
template <typename F>
bool takeable(NvtxFunctionPointer* slot, const std::atomic<F>& saved,
              std::type_identity_t<F> ours) {
    if (!slot || !*slot) return false;
    auto current = reinterpret_cast<F>(*slot);
    if (current == ours) return true;
    F first = saved.load();
    return (!first || first == current) &&
           tracking->isTracerFunction(reinterpret_cast<const void*>(current));
}

template <typename F>
void take(NvtxFunctionPointer* slot, std::atomic<F>& saved, std::type_identity_t<F> ours) {
    auto current = reinterpret_cast<F>(*slot);
    if (current == ours) return;
    saved.store(current);
    *slot = reinterpret_cast<NvtxFunctionPointer>(ours);
}

}  // namespace

bool interposeNcclCalls(const void* (*getExportTable)(std::uint32_t),
                        const NcclCallTracking& with) {
    std::lock_guard lock(setupMutex);
    if (!tracking) {
        if (!with.emit || !with.now || !with.isTracerFunction) return false;
        tracking = new NcclCallTracking(with);
    }
    const auto* callbacks =
        static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
    if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
        !callbacks->GetModuleFunctionTable)
        return false;
    NvtxFunctionTable table = nullptr;
    unsigned int size = 0;
    if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || !table ||
        size <= NVTX_CBID_CORE2_DomainRegisterStringA)
        return false;
    auto* pushSlot = table[NVTX_CBID_CORE2_DomainRangePushEx];
    auto* popSlot = table[NVTX_CBID_CORE2_DomainRangePop];
    auto* registerSlot = table[NVTX_CBID_CORE2_DomainRegisterStringA];
    if (!takeable(pushSlot, tracerPush, &pushEx) || !takeable(popSlot, tracerPop, &pop) ||
        !takeable(registerSlot, tracerRegister, &registerString))
        return false;
    // The string slot first, the push last: a pop or a registration through
    // us before our push is harmless, a push without our pop is not.
    take(registerSlot, tracerRegister, &registerString);
    take(popSlot, tracerPop, &pop);
    take(pushSlot, tracerPush, &pushEx);
    return true;
}

}  // namespace ws::capture
