#include "wire/event_codec.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "wire/varint.h"

namespace ws::codec {

namespace {

using varint::In;
using varint::Out;

// What a record of each kind stores beyond its timing, split in two: `shared`
// fields repeat across launches of one kernel or calls of one API (the
// dictionary format stores them once per chunk), `own` fields differ per
// record. The inline format writes shared then own for every record; its
// field order is the format of the first stores and must not change.
template <typename R>
struct Fields;

// What every kind shares: the lane names two of its fields, and it carries a
// correlation id and no per-record fields beyond its timing.
template <typename R, auto group, auto lane>
struct OnLane {
    static void place(R& r, Lane l) {
        r.*group = l.group;
        r.*lane = l.lane;
    }
    static std::uint32_t correlation(const R& r) { return r.correlationId; }
    static void setCorrelation(R& r, std::uint32_t c) { r.correlationId = c; }
    static void putOwn(Out&, const R&) {}
    static void getOwn(In&, R&) {}
};
template <typename R>
using OnStream = OnLane<R, &R::deviceId, &R::streamId>;
template <typename R>
using OnThread = OnLane<R, &R::processId, &R::threadId>;

template <>
struct Fields<KernelRecord> : OnStream<KernelRecord> {
    static void putShared(Out& o, const KernelRecord& r, const Intern& intern) {
        o.u(r.contextId);
        o.u(static_cast<std::uint64_t>(intern(r.name)));
        for (std::int32_t v : {r.gridX, r.gridY, r.gridZ, r.blockX, r.blockY, r.blockZ, r.clusterX,
                               r.clusterY, r.clusterZ, r.registersPerThread, r.staticSharedBytes,
                               r.dynamicSharedBytes, r.localBytesPerThread, r.sharedCarveoutBytes})
            o.s(v);
        o.s(r.localBytesTotal);
        o.u(r.graphId);
    }
    static void getShared(In& in, KernelRecord& r, const Lookup& lookup) {
        r.contextId = in.u32();
        r.name = lookup(static_cast<std::int64_t>(in.u()));
        for (std::int32_t* v :
             {&r.gridX, &r.gridY, &r.gridZ, &r.blockX, &r.blockY, &r.blockZ, &r.clusterX,
              &r.clusterY, &r.clusterZ, &r.registersPerThread, &r.staticSharedBytes,
              &r.dynamicSharedBytes, &r.localBytesPerThread, &r.sharedCarveoutBytes})
            *v = in.i32();
        r.localBytesTotal = in.s();
        r.graphId = in.u32();
    }
    static void putOwn(Out& o, const KernelRecord& r) { o.u(r.graphNodeId); }
    static void getOwn(In& in, KernelRecord& r) { r.graphNodeId = in.u(); }
};

// Decoding only: a kernel's timing, correlation and graph node, its name as
// an id; the launch configuration is stepped over (field for field as above).
template <>
struct Fields<KernelBrief> {
    static void place(KernelBrief&, Lane) {}
    static void setCorrelation(KernelBrief& r, std::uint32_t c) { r.correlationId = c; }
    static void getShared(In& in, KernelBrief& r, const Lookup&) {
        in.skip();  // context
        r.nameId = static_cast<std::int64_t>(in.u());
        for (int i = 0; i < 14 + 1; ++i)  // launch configuration, local bytes total
            in.skip();
        r.graphId = in.u32();
    }
    static void getOwn(In& in, KernelBrief& r) { r.graphNodeId = in.u(); }
};

template <>
struct Fields<MemcpyRecord> : OnStream<MemcpyRecord> {
    static void putShared(Out& o, const MemcpyRecord& r, const Intern&) {
        o.u(r.contextId);
        o.u(static_cast<std::uint64_t>(r.kind));
        o.u(static_cast<std::uint64_t>(r.srcKind));
        o.u(static_cast<std::uint64_t>(r.dstKind));
        o.s(r.bytes);
        o.u(r.graphId);
    }
    static void getShared(In& in, MemcpyRecord& r, const Lookup&) {
        r.contextId = in.u32();
        r.kind = static_cast<MemcpyKind>(std::min<std::uint64_t>(in.u(), 10));
        r.srcKind = static_cast<MemoryKind>(std::min<std::uint64_t>(in.u(), 7));
        r.dstKind = static_cast<MemoryKind>(std::min<std::uint64_t>(in.u(), 7));
        r.bytes = in.s();
        r.graphId = in.u32();
    }
};

template <>
struct Fields<MemsetRecord> : OnStream<MemsetRecord> {
    static void putShared(Out& o, const MemsetRecord& r, const Intern&) {
        o.u(r.contextId);
        o.s(r.bytes);
        o.u(r.value);
        o.u(static_cast<std::uint64_t>(r.memoryKind));
        o.u(r.graphId);
    }
    static void getShared(In& in, MemsetRecord& r, const Lookup&) {
        r.contextId = in.u32();
        r.bytes = in.s();
        r.value = in.u32();
        r.memoryKind = static_cast<MemoryKind>(std::min<std::uint64_t>(in.u(), 7));
        r.graphId = in.u32();
    }
};

template <>
struct Fields<ApiCallRecord> : OnThread<ApiCallRecord> {
    static void putShared(Out& o, const ApiCallRecord& r, const Intern& intern) {
        o.u(r.kind == ApiKind::Driver ? 1 : 0);
        o.u(r.callbackId);
        o.u(static_cast<std::uint64_t>(intern(r.name)));
        o.s(r.returnValue);
    }
    static void getShared(In& in, ApiCallRecord& r, const Lookup& lookup) {
        r.kind = in.u() ? ApiKind::Driver : ApiKind::Runtime;
        r.callbackId = in.u32();
        r.name = lookup(static_cast<std::int64_t>(in.u()));
        r.returnValue = in.i32();
    }
};

template <>
struct Fields<ApiCallBrief> : OnThread<ApiCallBrief> {
    static void getShared(In& in, ApiCallBrief& r, const Lookup&) {
        r.kind = in.u() ? ApiKind::Driver : ApiKind::Runtime;
        in.skip();  // callback id
        r.nameId = static_cast<std::int64_t>(in.u());
        r.returnValue = in.i32();
    }
};

template <>
struct Fields<RangeRecord> : OnThread<RangeRecord> {
    static std::uint32_t correlation(const RangeRecord&) { return 0; }
    static void setCorrelation(RangeRecord&, std::uint32_t) {}
    static void putShared(Out& o, const RangeRecord& r, const Intern& intern) {
        o.u(static_cast<std::uint64_t>(intern(r.name)));
        o.u(static_cast<std::uint64_t>(intern(r.domain)));
        o.u(static_cast<std::uint64_t>(r.kind));
        o.u(r.color);
        o.s(r.depth);
    }
    static void getShared(In& in, RangeRecord& r, const Lookup& lookup) {
        r.name = lookup(static_cast<std::int64_t>(in.u()));
        r.domain = lookup(static_cast<std::int64_t>(in.u()));
        r.kind = static_cast<RangeKind>(std::min<std::uint64_t>(in.u(), 2));
        r.color = in.u32();
        r.depth = in.i32();
    }
};

// Start and correlation id as deltas from the previous record of the chunk,
// then the duration; records are sorted by start, so the deltas stay short.
// Deltas wrap modulo 2^64 (defined for any input, exact on the way back), so
// a forged or damaged value cannot overflow here; ranges are checked where
// records come in (model/value_limits.h).
std::int64_t wrappingSub(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t wrappingAdd(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

struct Timing {
    std::int64_t start = 0;
    std::int64_t correlation = 0;
    void put(Out& o, std::int64_t startNs, std::int64_t endNs, std::int64_t corr) {
        o.s(wrappingSub(startNs, start));
        o.s(wrappingSub(endNs, startNs));
        o.s(wrappingSub(corr, correlation));
        start = startNs;
        correlation = corr;
    }
    struct Read {
        std::int64_t startNs, endNs;
        std::uint32_t correlation;
    };
    Read get(In& in) {
        start = wrappingAdd(start, in.s());
        Read r{start, wrappingAdd(start, in.s()), 0};
        correlation = wrappingAdd(correlation, in.s());
        r.correlation = static_cast<std::uint32_t>(correlation);
        return r;
    }
};

}  // namespace

template <typename R>
void encode(const std::vector<const R*>& records, const Intern& intern, std::string& out,
            Format format) {
    using F = Fields<R>;
    Out o(out);
    Timing timing;
    // Shared fields already written in this chunk → their 1-based reference.
    std::unordered_map<std::string, std::uint64_t> seen;
    std::string shared;
    for (const R* r : records) {
        timing.put(o, r->startNs, r->endNs, F::correlation(*r));
        if (format == Format::Inline) {
            F::putShared(o, *r, intern);
        } else {
            shared.clear();
            Out s(shared);
            F::putShared(s, *r, intern);
            auto [it, added] = seen.try_emplace(shared, seen.size() + 1);
            o.u(added ? 0 : it->second);
            if (added) out.append(shared);
        }
        F::putOwn(o, *r);
    }
}

template <typename R>
void decode(std::string_view blob, std::int64_t count, Lane lane, const Lookup& lookup,
            std::vector<R>& out, Format format) {
    using F = Fields<R>;
    if (format != Format::Inline && format != Format::Dictionary)
        throw std::runtime_error("unknown chunk format " +
                                 std::to_string(static_cast<int>(format)));
    In in(blob);
    Timing timing;
    std::vector<R> dictionary;
    for (std::int64_t i = 0; i < count; ++i) {
        auto t = timing.get(in);
        R r;
        auto reference = format == Format::Inline ? 0 : in.u();
        if (reference == 0) {
            F::getShared(in, r, lookup);
            if (format == Format::Dictionary) dictionary.push_back(r);
        } else {
            if (reference > dictionary.size())
                throw std::runtime_error("record refers to shared fields not yet in its chunk");
            r = dictionary[reference - 1];
        }
        r.startNs = t.startNs;
        r.endNs = t.endNs;
        F::setCorrelation(r, t.correlation);
        F::place(r, lane);
        F::getOwn(in, r);
        out.push_back(std::move(r));
    }
}

template void encode(const std::vector<const KernelRecord*>&, const Intern&, std::string&, Format);
template void encode(const std::vector<const MemcpyRecord*>&, const Intern&, std::string&, Format);
template void encode(const std::vector<const MemsetRecord*>&, const Intern&, std::string&, Format);
template void encode(const std::vector<const ApiCallRecord*>&, const Intern&, std::string&, Format);
template void encode(const std::vector<const RangeRecord*>&, const Intern&, std::string&, Format);
template void decode(std::string_view, std::int64_t, Lane, const Lookup&,
                     std::vector<KernelRecord>&, Format);
template void decode(std::string_view, std::int64_t, Lane, const Lookup&,
                     std::vector<MemcpyRecord>&, Format);
template void decode(std::string_view, std::int64_t, Lane, const Lookup&,
                     std::vector<MemsetRecord>&, Format);
template void decode(std::string_view, std::int64_t, Lane, const Lookup&,
                     std::vector<ApiCallRecord>&, Format);
template void decode(std::string_view, std::int64_t, Lane, const Lookup&, std::vector<RangeRecord>&,
                     Format);
template void decode(std::string_view, std::int64_t, Lane, const Lookup&, std::vector<KernelBrief>&,
                     Format);
template void decode(std::string_view, std::int64_t, Lane, const Lookup&,
                     std::vector<ApiCallBrief>&, Format);

}  // namespace ws::codec
