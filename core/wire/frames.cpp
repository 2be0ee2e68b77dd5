#include "wire/frames.h"

#include <cstring>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "model/device_fields.h"
#include "model/value_limits.h"
#include "wire/event_codec.h"
#include "wire/varint.h"

namespace ws::wire {

using varint::In;
using varint::Out;

void Encoder::frame(FrameType type, const std::string& payload) {
    out_.push_back(static_cast<char>(type));
    auto n = static_cast<std::uint32_t>(payload.size());
    for (int i = 0; i < 4; ++i)
        out_.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
    out_.append(payload);
}

std::int64_t Encoder::intern(std::string_view s) {
    auto it = ids_.find(std::string(s));
    if (it != ids_.end()) return it->second;
    auto id = static_cast<std::int64_t>(ids_.size()) + 1;
    ids_.emplace(std::string(s), id);
    std::string payload;
    Out o(payload);
    o.s(id);
    o.str(s);
    frame(FrameType::String, payload);
    return id;
}

void Encoder::hello(const Hello& h) {
    std::string p;
    p.append(kHelloMagic);
    Out o(p);
    o.u(h.protocolVersion);
    o.s(h.pid);
    o.s(h.parentPid);
    o.s(h.cuptiNs);
    o.s(h.unixNs);
    frame(FrameType::Hello, p);
}

void Encoder::device(const DeviceInfo& d) {
    std::string p;
    Out o(p);
    for (const auto& f : kDeviceFields) {
        if (f.text) o.str(d.*f.text);
        if (f.int32) o.s(d.*f.int32);
        if (f.int64) o.s(d.*f.int64);
    }
    frame(FrameType::Device, p);
}

void Encoder::overhead(const OverheadRecord& r) {
    std::string p;
    Out o(p);
    o.s(r.startNs);
    o.s(r.endNs);
    o.str(r.kind);
    frame(FrameType::Overhead, p);
}

void Encoder::dropped(std::int64_t count) {
    std::string p;
    Out(p).s(count);
    frame(FrameType::Dropped, p);
}

void Encoder::queryCalls(std::int64_t count) {
    std::string p;
    Out(p).s(count);
    frame(FrameType::QueryCalls, p);
}

void Encoder::metric(const KernelMetricRecord& r) {
    std::string p;
    Out o(p);
    o.u(r.correlationId);
    o.str(r.metric);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &r.value, sizeof bits);
    o.u(bits);
    frame(FrameType::Metric, p);
}

void Encoder::graphNode(const GraphNodeRecord& r) {
    std::string p;
    Out o(p);
    o.u(r.nodeId);
    o.u(r.originalNodeId);
    o.u(r.graphId);
    o.u(r.processId);
    o.u(r.threadId);
    o.s(r.timeNs);
    o.s(r.nodeType);
    frame(FrameType::GraphNode, p);
}

void Encoder::collectiveCall(const CollectiveCallRecord& r) {
    std::string p;
    Out o(p);
    o.u(r.processId);
    o.u(r.threadId);
    o.s(r.startNs);
    o.s(r.endNs);
    o.str(r.collective);
    o.u(r.communicator);
    o.s(r.bytes);
    frame(FrameType::CollectiveCall, p);
}

void Encoder::pcSamples(const std::vector<PcSampleRecord>& sameInstruction) {
    if (sameInstruction.empty()) return;
    const auto& first = sameInstruction.front();
    std::string p;
    Out o(p);
    o.str(first.function);
    o.u(first.pcOffset);
    o.str(first.sourceFile);
    o.u(first.line);
    o.str(first.sass);
    o.u(sameInstruction.size());
    for (const auto& r : sameInstruction) {
        o.str(r.stallReason);
        o.s(r.samples);
    }
    frame(FrameType::PcSamples, p);
}

void Encoder::pcSamplingTotals(const PcSamplingTotals& t) {
    std::string p;
    Out o(p);
    o.s(t.samples);
    o.s(t.droppedSamples);
    o.s(t.nonUserSamples);
    o.u(t.periodLog2);
    o.u(t.hardwareBufferFull ? 1 : 0);
    o.s(t.hostNs);
    frame(FrameType::PcSamplingTotals, p);
}

void Encoder::bye() {
    frame(FrameType::Bye, {});
}

template <typename T>
void Encoder::record(const T& r) {
    std::vector<const T*> one{&r};
    std::string blob;
    // Strings are interned first, so their frames precede the record's.
    codec::encode(
        one, [this](std::string_view s) { return intern(s); }, blob, codec::Format::Inline);
    auto lane = codec::laneOf(r);
    std::string p;
    Out o(p);
    o.u(static_cast<std::uint64_t>(codec::kindOf<T>()));
    o.u(lane.group);
    o.u(lane.lane);
    o.u(1);
    p.append(blob);
    frame(FrameType::Records, p);
}

void Encoder::add(const KernelRecord& r) {
    record(r);
}
void Encoder::add(const MemcpyRecord& r) {
    record(r);
}
void Encoder::add(const MemsetRecord& r) {
    record(r);
}
void Encoder::add(const ApiCallRecord& r) {
    record(r);
}
void Encoder::add(const RangeRecord& r) {
    record(r);
}

void Decoder::feed(std::string_view bytes) {
    buffer_.append(bytes);
    std::size_t pos = 0;
    while (buffer_.size() - pos >= kHeaderBytes) {
        auto type = static_cast<FrameType>(static_cast<std::uint8_t>(buffer_[pos]));
        std::uint32_t n = 0;
        for (int i = 0; i < 4; ++i)
            n |= std::uint32_t(static_cast<std::uint8_t>(buffer_[pos + 1 + i])) << (8 * i);
        if (n > kMaxPayload)
            throw std::runtime_error("capture stream: frame of " + std::to_string(n) +
                                     " bytes is larger than allowed");
        if (buffer_.size() - pos - kHeaderBytes < n) break;
        dispatch(type, std::string_view(buffer_).substr(pos + kHeaderBytes, n));
        pos += kHeaderBytes + n;
    }
    buffer_.erase(0, pos);
}

namespace {
template <typename T>
constexpr const char* recordKindName() {
    if constexpr (std::is_same_v<T, KernelRecord>) return "kernel";
    if constexpr (std::is_same_v<T, MemcpyRecord>) return "memcpy";
    if constexpr (std::is_same_v<T, MemsetRecord>) return "memset";
    if constexpr (std::is_same_v<T, ApiCallRecord>) return "API call";
    if constexpr (std::is_same_v<T, CollectiveCallRecord>) return "NCCL call";
    return "range";
}

template <typename T>
std::optional<std::string> valueProblem(const T& r) {
    auto problem = limits::spanProblem(r.startNs, r.endNs);
    if constexpr (requires { r.bytes; })
        if (!problem) problem = limits::bytesProblem(r.bytes);
    if (problem)
        return std::string("a ") + recordKindName<T>() + " record out of range: " + *problem;
    return std::nullopt;
}

// A count a collector reports in one frame: not negative, and far below
// what a sum of them could overflow (2^40, a trillion, per frame).
std::int64_t checkedCount(std::int64_t count, const char* what) {
    constexpr std::int64_t kMost = std::int64_t{1} << 40;
    if (count < 0)
        throw std::runtime_error("capture stream: a negative count of " + std::string(what) + " (" +
                                 std::to_string(count) + ")");
    if (count > kMost)
        throw std::runtime_error("capture stream: a count of " + std::string(what) + " (" +
                                 std::to_string(count) + ") past 2^40 in one frame");
    return count;
}

template <typename T>
void decodeRecords(In& in, const codec::Lane& lane, std::int64_t count, const codec::Lookup& lookup,
                   const std::function<void(const T&)>& visit,
                   const std::function<void(const std::string&)>& rejected) {
    std::vector<T> out;
    codec::decode(in.rest(), count, lane, lookup, out, codec::Format::Inline);
    for (const auto& r : out) {
        if (auto problem = valueProblem(r)) {
            if (rejected) rejected(*problem);
        } else if (visit) {
            visit(r);
        }
    }
}
}  // namespace

void Decoder::dispatch(FrameType type, std::string_view payload) {
    In in(payload);
    switch (type) {
        case FrameType::Hello: {
            if (payload.substr(0, kHelloMagic.size()) != kHelloMagic)
                throw std::runtime_error(
                    "capture stream: the collector speaks capture protocol version 1 (before "
                    "versioning); this recorder speaks version " +
                    std::to_string(kProtocolVersion) +
                    ": use the libwarpscope_inject.so installed with this warpscope-cli");
            In versioned(payload.substr(kHelloMagic.size()));
            Hello h;
            h.protocolVersion = static_cast<std::uint32_t>(versioned.u());
            if (h.protocolVersion != kProtocolVersion)
                throw std::runtime_error(
                    "capture stream: the collector speaks capture protocol version " +
                    std::to_string(h.protocolVersion) + "; this recorder speaks version " +
                    std::to_string(kProtocolVersion) +
                    ": use the libwarpscope_inject.so installed with this warpscope-cli");
            h.pid = versioned.s();
            h.parentPid = versioned.s();
            h.cuptiNs = versioned.s();
            h.unixNs = versioned.s();
            // The recorder subtracts them (the clock offset) and adds the
            // offset to every sample: both must be plain times.
            for (const std::int64_t clock : {h.cuptiNs, h.unixNs})
                if (clock < 0 || clock > limits::kLatestTimeNs)
                    throw std::runtime_error("capture stream: the hello's clock reading " +
                                             std::to_string(clock) +
                                             " ns is outside 0 .. 2100-01-01");
            if (sink_.hello) sink_.hello(h);
            return;
        }
        case FrameType::String: {
            auto id = in.s();
            strings_[id] = in.str();
            return;
        }
        case FrameType::Device: {
            DeviceInfo d;
            for (const auto& f : kDeviceFields) {
                if (f.text) d.*f.text = in.str();
                if (f.int32) d.*f.int32 = in.i32();
                if (f.int64) d.*f.int64 = in.s();
            }
            if (sink_.device) sink_.device(d);
            return;
        }
        case FrameType::Overhead: {
            OverheadRecord r;
            r.startNs = in.s();
            r.endNs = in.s();
            r.kind = in.str();
            if (auto problem = limits::spanProblem(r.startNs, r.endNs))
                throw std::runtime_error(
                    "capture stream: an overhead record's value is out of "
                    "range: " +
                    *problem);
            if (sink_.overhead) sink_.overhead(r);
            return;
        }
        case FrameType::Dropped: {
            const std::int64_t count = checkedCount(in.s(), "dropped records");
            if (sink_.dropped) sink_.dropped(count);
            return;
        }
        case FrameType::QueryCalls: {
            const std::int64_t count = checkedCount(in.s(), "query calls");
            if (sink_.queryCalls) sink_.queryCalls(count);
            return;
        }
        case FrameType::Bye:
            if (sink_.bye) sink_.bye();
            return;
        case FrameType::Metric: {
            KernelMetricRecord r;
            r.correlationId = in.u32();
            r.metric = in.str();
            std::uint64_t bits = in.u();
            std::memcpy(&r.value, &bits, sizeof bits);
            if (sink_.metric) sink_.metric(r);
            return;
        }
        case FrameType::GraphNode: {
            GraphNodeRecord r;
            r.nodeId = in.u();
            r.originalNodeId = in.u();
            r.graphId = in.u32();
            r.processId = in.u32();
            r.threadId = in.u32();
            r.timeNs = in.s();
            r.nodeType = in.i32();
            if (auto problem = limits::spanProblem(r.timeNs, r.timeNs)) {
                if (sink_.rejected) sink_.rejected("a graph node record out of range: " + *problem);
                return;
            }
            if (sink_.graphNode) sink_.graphNode(r);
            return;
        }
        case FrameType::CollectiveCall: {
            CollectiveCallRecord r;
            r.processId = in.u32();
            r.threadId = in.u32();
            r.startNs = in.s();
            r.endNs = in.s();
            r.collective = in.str();
            r.communicator = in.u();
            r.bytes = in.s();
            if (auto problem = valueProblem(r)) {
                if (sink_.rejected) sink_.rejected(*problem);
                return;
            }
            if (sink_.collectiveCall) sink_.collectiveCall(r);
            return;
        }
        case FrameType::PcSamples: {
            PcSampleRecord r;
            r.function = in.str();
            r.pcOffset = in.u();
            r.sourceFile = in.str();
            r.line = in.u32();
            r.sass = in.str();
            const std::int64_t reasons =
                checkedCount(static_cast<std::int64_t>(in.u()), "stall reasons of one instruction");
            for (std::int64_t i = 0; i < reasons; ++i) {
                r.stallReason = in.str();
                r.samples = checkedCount(in.s(), "PC samples");
                if (sink_.pcSample) sink_.pcSample(r);
            }
            return;
        }
        case FrameType::PcSamplingTotals: {
            PcSamplingTotals t;
            t.samples = checkedCount(in.s(), "PC samples");
            t.droppedSamples = checkedCount(in.s(), "dropped PC samples");
            t.nonUserSamples = checkedCount(in.s(), "non-user PC samples");
            t.periodLog2 = in.u32();
            t.hardwareBufferFull = in.u() != 0;
            // A time, not a count: a long run's may pass the counts' bound.
            t.hostNs = in.s();
            if (t.hostNs < 0) throw std::runtime_error("negative PC sampler time in the stream");
            if (sink_.pcSamplingTotals) sink_.pcSamplingTotals(t);
            return;
        }
        case FrameType::Records: {
            auto kind = static_cast<codec::ChunkKind>(in.u());
            codec::Lane lane{in.u32(), in.u32()};
            auto count = static_cast<std::int64_t>(in.u());
            codec::Lookup lookup = [this](std::int64_t id) -> const std::string& {
                auto it = strings_.find(id);
                if (it == strings_.end())
                    throw std::runtime_error("capture stream: record names unknown string " +
                                             std::to_string(id));
                return it->second;
            };
            switch (kind) {
                case codec::ChunkKind::Kernel:
                    return decodeRecords<KernelRecord>(in, lane, count, lookup, sink_.kernel,
                                                       sink_.rejected);
                case codec::ChunkKind::Memcpy:
                    return decodeRecords<MemcpyRecord>(in, lane, count, lookup, sink_.memcpy,
                                                       sink_.rejected);
                case codec::ChunkKind::Memset:
                    return decodeRecords<MemsetRecord>(in, lane, count, lookup, sink_.memset,
                                                       sink_.rejected);
                case codec::ChunkKind::ApiCall:
                    return decodeRecords<ApiCallRecord>(in, lane, count, lookup, sink_.apiCall,
                                                        sink_.rejected);
                case codec::ChunkKind::Range:
                    return decodeRecords<RangeRecord>(in, lane, count, lookup, sink_.range,
                                                      sink_.rejected);
            }
            throw std::runtime_error("capture stream: unknown record kind " +
                                     std::to_string(static_cast<int>(kind)));
        }
    }
    throw std::runtime_error("capture stream: unknown frame type " +
                             std::to_string(static_cast<int>(type)));
}

}  // namespace ws::wire
