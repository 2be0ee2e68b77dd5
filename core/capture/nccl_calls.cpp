#include "capture/nccl_calls.h"

#include <cupti.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/nccl_payload.h"

namespace ws::capture {

namespace {

using PushEx = int (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t*);
using Pop = int (*)(nvtxDomainHandle_t);
using RegisterString = nvtxStringHandle_t (*)(nvtxDomainHandle_t, const char*);

// What NVTX's table held before us (CUPTI's functions): one NVTX instance per
// library that includes NVTX, each asking the injection once; all of them
// get the same CUPTI functions, so one copy each.
PushEx cuptiPush = nullptr;
Pop cuptiPop = nullptr;
RegisterString cuptiRegister = nullptr;

std::function<void(const CollectiveCallRecord&)>* emitCall = nullptr;  // lives until exit

// NCCL names its ranges with registered strings; only the collectives' names
// are kept (a handful, registered once each).
std::mutex namesMutex;
std::unordered_map<nvtxStringHandle_t, std::string>* collectiveNames = nullptr;

std::int64_t now() {
    std::uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return static_cast<std::int64_t>(t);
}

// Per thread, one entry per domain range pushed through us: the NCCL call it
// opened, or an empty collective for any other range.
thread_local std::vector<CollectiveCallRecord> openRanges;

std::string rangeName(const nvtxEventAttributes_t& a) {
    if (a.messageType == NVTX_MESSAGE_TYPE_ASCII && a.message.ascii) return a.message.ascii;
    if (a.messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
        std::lock_guard lock(namesMutex);
        auto it = collectiveNames->find(a.message.registered);
        if (it != collectiveNames->end()) return it->second;
    }
    return {};
}

int pushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attr) {
    CollectiveCallRecord call;
    if (attr && attr->payloadType == NVTX_PAYLOAD_TYPE_EXT && attr->reserved0 >= 1 &&
        attr->payload.ullValue) {
        const auto* data = reinterpret_cast<const nvtxPayloadData_t*>(
            static_cast<std::uintptr_t>(attr->payload.ullValue));
        if (auto p = ncclPayload(rangeName(*attr), data->payload, data->size)) {
            call.collective = std::move(p->collective);
            call.communicator = p->communicator;
            call.bytes = p->bytes;
            call.startNs = now();
        }
    }
    openRanges.push_back(std::move(call));
    return cuptiPush(domain, attr);
}

int pop(nvtxDomainHandle_t domain) {
    int depth = cuptiPop(domain);
    if (openRanges.empty()) return depth;  // pushed before we were in front
    CollectiveCallRecord call = std::move(openRanges.back());
    openRanges.pop_back();
    if (!call.collective.empty()) {
        call.endNs = now();
        call.processId = static_cast<std::uint32_t>(::getpid());
        call.threadId = static_cast<std::uint32_t>(::syscall(SYS_gettid));
        (*emitCall)(call);
    }
    return depth;
}

nvtxStringHandle_t registerString(nvtxDomainHandle_t domain, const char* text) {
    nvtxStringHandle_t handle = cuptiRegister(domain, text);
    if (handle && text && ncclCallCollective(text)) {
        std::lock_guard lock(namesMutex);
        (*collectiveNames)[handle] = text;
    }
    return handle;
}

// Puts `ours` in front of the function in `slot`; false when the slot holds
// something other than what the first NVTX instance had there.
template <typename F>
bool takeSlot(NvtxFunctionPointer* slot, F& saved, F ours) {
    auto current = reinterpret_cast<F>(*slot);
    if (!current || current == ours) return current == ours;
    if (saved && saved != current) return false;
    saved = current;
    *slot = reinterpret_cast<NvtxFunctionPointer>(ours);
    return true;
}

}  // namespace

bool interposeNcclCalls(const void* (*getExportTable)(std::uint32_t),
                        std::function<void(const CollectiveCallRecord&)> emit) {
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
    if (!emitCall) {
        emitCall = new std::function<void(const CollectiveCallRecord&)>(std::move(emit));
        collectiveNames = new std::unordered_map<nvtxStringHandle_t, std::string>;
    }
    // The string slot first: a range named by a string registered before us
    // would not be recognised, but one pushed before us is popped harmlessly.
    return takeSlot(table[NVTX_CBID_CORE2_DomainRegisterStringA], cuptiRegister, &registerString) &&
           takeSlot(table[NVTX_CBID_CORE2_DomainRangePop], cuptiPop, &pop) &&
           takeSlot(table[NVTX_CBID_CORE2_DomainRangePushEx], cuptiPush, &pushEx);
}

}  // namespace ws::capture
