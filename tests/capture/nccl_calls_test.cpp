// The collector's step in front of NVTX's domain range functions, on a table
// shaped as NVTX hands it to an injection, with a stand-in tracer where CUPTI
// would be: NCCL calls come out at their pops with their payload's size, in
// the right domain's pairing, and a table that cannot be taken whole is left
// as it was.
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "capture/nccl_calls.h"

namespace ws::capture {
namespace {

using PushEx = int (*)(nvtxDomainHandle_t, const nvtxEventAttributes_t*);
using Pop = int (*)(nvtxDomainHandle_t);
using RegisterString = nvtxStringHandle_t (*)(nvtxDomainHandle_t, const char*);

std::vector<std::string> tracerSaw;  // what the stand-in tracer was called with
int tracerPush(nvtxDomainHandle_t, const nvtxEventAttributes_t*) {
    tracerSaw.push_back("push");
    return 0;
}
int tracerPop(nvtxDomainHandle_t) {
    tracerSaw.push_back("pop");
    return 0;
}
int otherTracerPush(nvtxDomainHandle_t, const nvtxEventAttributes_t*) {
    return 0;
}
std::uintptr_t nextHandle = 0x1000;
nvtxStringHandle_t tracerRegister(nvtxDomainHandle_t, const char*) {
    return reinterpret_cast<nvtxStringHandle_t>(++nextHandle);
}

// One NVTX instance's CORE2 table: an array of pointers to its slots.
struct FakeNvtx {
    NvtxFunctionPointer slots[NVTX_CBID_CORE2_SIZE] = {};
    NvtxFunctionPointer* table[NVTX_CBID_CORE2_SIZE] = {};
    FakeNvtx() {
        for (int i = 0; i < NVTX_CBID_CORE2_SIZE; ++i)
            table[i] = &slots[i];
        slots[NVTX_CBID_CORE2_DomainRangePushEx] =
            reinterpret_cast<NvtxFunctionPointer>(&tracerPush);
        slots[NVTX_CBID_CORE2_DomainRangePop] = reinterpret_cast<NvtxFunctionPointer>(&tracerPop);
        slots[NVTX_CBID_CORE2_DomainRegisterStringA] =
            reinterpret_cast<NvtxFunctionPointer>(&tracerRegister);
    }
    int push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
        return reinterpret_cast<PushEx>(slots[NVTX_CBID_CORE2_DomainRangePushEx])(d, a);
    }
    int pop(nvtxDomainHandle_t d) {
        return reinterpret_cast<Pop>(slots[NVTX_CBID_CORE2_DomainRangePop])(d);
    }
    nvtxStringHandle_t registerString(nvtxDomainHandle_t d, const char* s) {
        return reinterpret_cast<RegisterString>(slots[NVTX_CBID_CORE2_DomainRegisterStringA])(d, s);
    }
};

FakeNvtx* asking = nullptr;  // the instance whose export table is handed out
int moduleTable(NvtxCallbackModule module, NvtxFunctionTable* out, unsigned int* size) {
    if (module != NVTX_CB_MODULE_CORE2) return 0;
    *out = asking->table;
    *size = NVTX_CBID_CORE2_SIZE;
    return 1;
}
const NvtxExportTableCallbacks callbacks{sizeof(NvtxExportTableCallbacks), &moduleTable};
const void* exportTable(std::uint32_t id) {
    return id == NVTX_ETID_CALLBACKS ? &callbacks : nullptr;
}

std::vector<CollectiveCallRecord> emitted;
std::int64_t clockNs = 0;
bool interpose(FakeNvtx& nvtx) {
    NcclCallTracking t;
    t.emit = [](const CollectiveCallRecord& r) { emitted.push_back(r); };
    t.now = [] { return clockNs += 10; };
    t.isTracerFunction = [](const void* f) {
        return f == reinterpret_cast<const void*>(&tracerPush) ||
               f == reinterpret_cast<const void*>(&tracerPop) ||
               f == reinterpret_cast<const void*>(&tracerRegister) ||
               f == reinterpret_cast<const void*>(&otherTracerPush);
    };
    asking = &nvtx;
    emitted.clear();
    tracerSaw.clear();
    return interposeNcclCalls(&exportTable, t);
}

// NCCL's later layout: communicator hash, size, reduction op.
struct AllReducePayload {
    std::uint64_t comm;
    std::size_t bytes;
    int op;
};

nvtxEventAttributes_t withPayload(nvtxStringHandle_t name, nvtxPayloadData_t* data) {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = name;
    a.payload.ullValue = reinterpret_cast<std::uintptr_t>(data);
    a.payloadType = NVTX_PAYLOAD_TYPE_EXT;
    a.reserved0 = 1;
    return a;
}

const auto ncclDomain = reinterpret_cast<nvtxDomainHandle_t>(0x10);
const auto otherDomain = reinterpret_cast<nvtxDomainHandle_t>(0x20);

TEST(NcclCalls, AnNcclCallComesOutAtItsPopWithItsSize) {
    FakeNvtx nvtx;
    ASSERT_TRUE(interpose(nvtx));
    EXPECT_NE(nvtx.slots[NVTX_CBID_CORE2_DomainRangePushEx],
              reinterpret_cast<NvtxFunctionPointer>(&tracerPush));
    auto name = nvtx.registerString(ncclDomain, "ncclAllReduce");
    AllReducePayload p{0xabcdef, 4 << 20, 0};
    nvtxPayloadData_t data{0x1000 + 5, sizeof p, &p};
    auto attr = withPayload(name, &data);
    nvtx.push(ncclDomain, &attr);
    nvtxEventAttributes_t plain{};
    plain.messageType = NVTX_MESSAGE_TYPE_ASCII;
    plain.message.ascii = "inner, another domain";
    nvtx.push(otherDomain, &plain);
    // NVTX pairs per domain: the NCCL pop ends the NCCL range, not the inner one.
    nvtx.pop(ncclDomain);
    ASSERT_EQ(emitted.size(), 1u);
    EXPECT_EQ(emitted[0].collective, "AllReduce");
    EXPECT_EQ(emitted[0].bytes, 4 << 20);
    EXPECT_EQ(emitted[0].communicator, 0xabcdefu);
    EXPECT_EQ(emitted[0].processId, static_cast<std::uint32_t>(::getpid()));
    EXPECT_LT(emitted[0].startNs, emitted[0].endNs);
    nvtx.pop(otherDomain);
    EXPECT_EQ(emitted.size(), 1u);
    // Every call reached the tracer behind us, in order.
    EXPECT_EQ(tracerSaw, (std::vector<std::string>{"push", "push", "pop", "pop"}));
}

TEST(NcclCalls, OtherRangesAndUnmatchedPopsGiveNothing) {
    FakeNvtx nvtx;
    ASSERT_TRUE(interpose(nvtx));
    nvtx.pop(ncclDomain);  // pushed before we were in front
    auto init = nvtx.registerString(ncclDomain, "ncclCommInitRank");
    AllReducePayload p{1, 2, 3};
    nvtxPayloadData_t data{0x1000, sizeof p, &p};
    auto attr = withPayload(init, &data);
    nvtx.push(ncclDomain, &attr);
    nvtx.pop(ncclDomain);
    EXPECT_TRUE(emitted.empty());
    // An ASCII-named call in NCCL 2.19's layout: the size alone.
    std::size_t gathered = 8192;
    nvtxPayloadData_t older{0x1000 + 4, sizeof gathered, &gathered};
    auto gather = withPayload(nullptr, &older);
    gather.messageType = NVTX_MESSAGE_TYPE_ASCII;
    gather.message.ascii = "ncclAllGather";
    nvtx.push(ncclDomain, &gather);
    nvtx.pop(ncclDomain);
    ASSERT_EQ(emitted.size(), 1u);
    EXPECT_EQ(emitted[0].collective, "AllGather");
    EXPECT_EQ(emitted[0].bytes, 8192);
    EXPECT_EQ(emitted[0].communicator, 0u);
    // Nesting deeper than is kept still pairs every pop with its push.
    for (int i = 0; i < 100; ++i)
        nvtx.push(otherDomain, &gather);
    for (int i = 0; i < 100; ++i)
        nvtx.pop(otherDomain);
    nvtx.push(ncclDomain, &gather);
    nvtx.pop(ncclDomain);
    EXPECT_EQ(emitted.size(), 2u + 32u);  // the 32 kept AllGather pushes, and the last
}

TEST(NcclCalls, ATableThatCannotBeTakenWholeIsLeftAsItWas) {
    FakeNvtx partial;
    partial.slots[NVTX_CBID_CORE2_DomainRegisterStringA] = nullptr;
    EXPECT_FALSE(interpose(partial));
    EXPECT_EQ(partial.slots[NVTX_CBID_CORE2_DomainRangePushEx],
              reinterpret_cast<NvtxFunctionPointer>(&tracerPush));
    EXPECT_EQ(partial.slots[NVTX_CBID_CORE2_DomainRangePop],
              reinterpret_cast<NvtxFunctionPointer>(&tracerPop));
    // A second library's NVTX with the same tracer functions is taken too;
    // one holding other functions is left alone.
    FakeNvtx first, second, other;
    other.slots[NVTX_CBID_CORE2_DomainRangePushEx] =
        reinterpret_cast<NvtxFunctionPointer>(&otherTracerPush);
    EXPECT_TRUE(interpose(first));
    EXPECT_TRUE(interpose(second));
    EXPECT_FALSE(interpose(other));
    EXPECT_EQ(other.slots[NVTX_CBID_CORE2_DomainRangePop],
              reinterpret_cast<NvtxFunctionPointer>(&tracerPop));
    EXPECT_TRUE(interpose(first));  // asked again: already ours
}

}  // namespace
}  // namespace ws::capture
