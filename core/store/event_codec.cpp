#include "store/event_codec.h"

#include <algorithm>

#include "store/varint.h"

namespace ws::codec {

namespace {

using varint::In;
using varint::Out;

// Start times, durations and correlation ids are encoded as deltas from the
// previous record of the chunk; everything else as plain varints.
struct Deltas {
    std::int64_t start = 0;
    std::int64_t correlation = 0;
    void put(Out& o, std::int64_t startNs, std::int64_t endNs, std::int64_t corr) {
        o.s(startNs - start);
        o.s(endNs - startNs);
        o.s(corr - correlation);
        start = startNs;
        correlation = corr;
    }
    void get(In& in, std::int64_t& startNs, std::int64_t& endNs, std::uint32_t& corr) {
        start += in.s();
        startNs = start;
        endNs = start + in.s();
        correlation += in.s();
        corr = static_cast<std::uint32_t>(correlation);
    }
    // The fields every GPU record (kernel, memcpy, memset) starts with; the
    // device and stream come from the chunk's lane.
    template <typename R>
    void putGpu(Out& o, const R& r) {
        put(o, r.startNs, r.endNs, r.correlationId);
        o.u(r.contextId);
    }
    template <typename R>
    void getGpu(In& in, const Lane& lane, R& r) {
        r.deviceId = lane.group;
        r.streamId = lane.lane;
        get(in, r.startNs, r.endNs, r.correlationId);
        r.contextId = in.u32();
    }
};

}  // namespace

void encode(const std::vector<const KernelRecord*>& records, const Intern& intern,
            std::string& out) {
    Out o(out);
    Deltas d;
    for (const auto* r : records) {
        d.putGpu(o, *r);
        o.u(static_cast<std::uint64_t>(intern(r->name)));
        for (std::int32_t v :
             {r->gridX, r->gridY, r->gridZ, r->blockX, r->blockY, r->blockZ, r->clusterX,
              r->clusterY, r->clusterZ, r->registersPerThread, r->staticSharedBytes,
              r->dynamicSharedBytes, r->localBytesPerThread, r->sharedCarveoutBytes})
            o.s(v);
        o.s(r->localBytesTotal);
        o.u(r->graphId);
        o.u(r->graphNodeId);
    }
}

void decode(std::string_view blob, std::int64_t count, Lane lane, const Lookup& lookup,
            std::vector<KernelRecord>& out) {
    In in(blob);
    Deltas d;
    for (std::int64_t i = 0; i < count; ++i) {
        KernelRecord r;
        d.getGpu(in, lane, r);
        r.name = lookup(static_cast<std::int64_t>(in.u()));
        for (std::int32_t* v :
             {&r.gridX, &r.gridY, &r.gridZ, &r.blockX, &r.blockY, &r.blockZ, &r.clusterX,
              &r.clusterY, &r.clusterZ, &r.registersPerThread, &r.staticSharedBytes,
              &r.dynamicSharedBytes, &r.localBytesPerThread, &r.sharedCarveoutBytes})
            *v = in.i32();
        r.localBytesTotal = in.s();
        r.graphId = in.u32();
        r.graphNodeId = in.u();
        out.push_back(std::move(r));
    }
}

void encode(const std::vector<const MemcpyRecord*>& records, const Intern&, std::string& out) {
    Out o(out);
    Deltas d;
    for (const auto* r : records) {
        d.putGpu(o, *r);
        o.u(static_cast<std::uint64_t>(r->kind));
        o.u(static_cast<std::uint64_t>(r->srcKind));
        o.u(static_cast<std::uint64_t>(r->dstKind));
        o.s(r->bytes);
        o.u(r->graphId);
    }
}

void decode(std::string_view blob, std::int64_t count, Lane lane, const Lookup&,
            std::vector<MemcpyRecord>& out) {
    In in(blob);
    Deltas d;
    for (std::int64_t i = 0; i < count; ++i) {
        MemcpyRecord r;
        d.getGpu(in, lane, r);
        r.kind = static_cast<MemcpyKind>(std::min<std::uint64_t>(in.u(), 10));
        r.srcKind = static_cast<MemoryKind>(std::min<std::uint64_t>(in.u(), 7));
        r.dstKind = static_cast<MemoryKind>(std::min<std::uint64_t>(in.u(), 7));
        r.bytes = in.s();
        r.graphId = in.u32();
        out.push_back(r);
    }
}

void encode(const std::vector<const MemsetRecord*>& records, const Intern&, std::string& out) {
    Out o(out);
    Deltas d;
    for (const auto* r : records) {
        d.putGpu(o, *r);
        o.s(r->bytes);
        o.u(r->value);
        o.u(static_cast<std::uint64_t>(r->memoryKind));
        o.u(r->graphId);
    }
}

void decode(std::string_view blob, std::int64_t count, Lane lane, const Lookup&,
            std::vector<MemsetRecord>& out) {
    In in(blob);
    Deltas d;
    for (std::int64_t i = 0; i < count; ++i) {
        MemsetRecord r;
        d.getGpu(in, lane, r);
        r.bytes = in.s();
        r.value = in.u32();
        r.memoryKind = static_cast<MemoryKind>(std::min<std::uint64_t>(in.u(), 7));
        r.graphId = in.u32();
        out.push_back(r);
    }
}

void encode(const std::vector<const ApiCallRecord*>& records, const Intern& intern,
            std::string& out) {
    Out o(out);
    Deltas d;
    for (const auto* r : records) {
        d.put(o, r->startNs, r->endNs, r->correlationId);
        o.u(r->kind == ApiKind::Driver ? 1 : 0);
        o.u(r->callbackId);
        o.u(static_cast<std::uint64_t>(intern(r->name)));
        o.s(r->returnValue);
    }
}

void decode(std::string_view blob, std::int64_t count, Lane lane, const Lookup& lookup,
            std::vector<ApiCallRecord>& out) {
    In in(blob);
    Deltas d;
    for (std::int64_t i = 0; i < count; ++i) {
        ApiCallRecord r;
        r.processId = lane.group;
        r.threadId = lane.lane;
        d.get(in, r.startNs, r.endNs, r.correlationId);
        r.kind = in.u() ? ApiKind::Driver : ApiKind::Runtime;
        r.callbackId = in.u32();
        r.name = lookup(static_cast<std::int64_t>(in.u()));
        r.returnValue = in.i32();
        out.push_back(std::move(r));
    }
}

void encode(const std::vector<const RangeRecord*>& records, const Intern& intern,
            std::string& out) {
    Out o(out);
    Deltas d;
    for (const auto* r : records) {
        d.put(o, r->startNs, r->endNs, 0);
        o.u(static_cast<std::uint64_t>(intern(r->name)));
        o.u(static_cast<std::uint64_t>(intern(r->domain)));
        o.u(static_cast<std::uint64_t>(r->kind));
        o.u(r->color);
        o.s(r->depth);
    }
}

void decode(std::string_view blob, std::int64_t count, Lane lane, const Lookup& lookup,
            std::vector<RangeRecord>& out) {
    In in(blob);
    Deltas d;
    for (std::int64_t i = 0; i < count; ++i) {
        RangeRecord r;
        r.processId = lane.group;
        r.threadId = lane.lane;
        std::uint32_t unused = 0;
        d.get(in, r.startNs, r.endNs, unused);
        r.name = lookup(static_cast<std::int64_t>(in.u()));
        r.domain = lookup(static_cast<std::int64_t>(in.u()));
        r.kind = static_cast<RangeKind>(std::min<std::uint64_t>(in.u(), 2));
        r.color = in.u32();
        r.depth = in.i32();
        out.push_back(std::move(r));
    }
}

}  // namespace ws::codec
