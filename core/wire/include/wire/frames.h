// The stream an injected process sends to the recording launcher over a Unix
// socket. Frames: [u8 type][u32 little-endian payload length][payload].
// Records travel as event_codec blobs; their strings travel once, as String
// frames, and are referred to by the sender's ids. Pure C++, no CUDA, so the
// launcher and the decoder are tested without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/records.h"

namespace ws::wire {

enum class FrameType : std::uint8_t {
    Hello = 1,            // pid, parent pid, CUPTI timestamp and Unix time at the same moment
    String = 2,           // id, text
    Records = 3,          // chunk kind, group, lane, count, event_codec blob
    Device = 4,           // DeviceInfo of a device the process uses
    Overhead = 5,         // CUPTI overhead interval
    Dropped = 6,          // records CUPTI dropped since the last report
    Bye = 7,              // the process flushed everything and is exiting
    Metric = 8,           // one hardware counter value of one kernel (name inline, not interned)
    GraphNode = 9,        // a CUDA graph node created or copied (GraphNodeRecord)
    CollectiveCall = 10,  // an NCCL call with its message size (CollectiveCallRecord, name inline)
    QueryCalls = 11,      // state-reading API calls made while traced, since the last report
    PcSamples = 12,       // one instruction's samples per stall reason (names inline)
    PcSamplingTotals = 13,  // what the PC sampler saw in the process (PcSamplingTotals)
};

// The protocol's version, carried by every Hello after a 4-byte magic. A
// collector of another version (an older libwarpscope_inject.so on
// LD_LIBRARY_PATH, say) is refused by name rather than misread. Version 1 was
// the stream before Hello carried a version. Raise it on any change to a
// frame's payload.
constexpr std::uint32_t kProtocolVersion = 7;
constexpr std::string_view kHelloMagic = "WSCP";

constexpr std::size_t kHeaderBytes = 5;
constexpr std::uint32_t kMaxPayload = 64u << 20;

struct Hello {
    std::int64_t pid = 0;
    std::int64_t parentPid = 0;
    std::int64_t cuptiNs = 0;
    std::int64_t unixNs = 0;
    std::uint32_t protocolVersion = kProtocolVersion;  // what the sender speaks
};

// Builds frames; strings are interned per encoder (one per connection).
class Encoder {
  public:
    void hello(const Hello& h);
    void device(const DeviceInfo& d);
    void overhead(const OverheadRecord& r);
    void dropped(std::int64_t count);
    void queryCalls(std::int64_t count);
    void bye();
    void metric(const KernelMetricRecord& r);
    void graphNode(const GraphNodeRecord& r);
    void collectiveCall(const CollectiveCallRecord& r);
    // One frame for the records of one instruction (same function, offset,
    // source line), which differ in stall reason and count.
    void pcSamples(const std::vector<PcSampleRecord>& sameInstruction);
    void pcSamplingTotals(const PcSamplingTotals& t);
    void add(const KernelRecord& r);
    void add(const MemcpyRecord& r);
    void add(const MemsetRecord& r);
    void add(const ApiCallRecord& r);
    void add(const RangeRecord& r);

    // Frames built so far; the caller writes them out and calls clear().
    const std::string& bytes() const { return out_; }
    void clear() { out_.clear(); }

  private:
    std::int64_t intern(std::string_view s);
    void frame(FrameType type, const std::string& payload);
    template <typename T>
    void record(const T& r);

    std::string out_;
    std::string scratch_;
    std::unordered_map<std::string, std::int64_t> ids_;
};

// What a decoder hands on: records with strings resolved, and control frames.
struct Sink {
    std::function<void(const Hello&)> hello;
    std::function<void(const DeviceInfo&)> device;
    std::function<void(const OverheadRecord&)> overhead;
    std::function<void(std::int64_t)> dropped;
    std::function<void(std::int64_t)> queryCalls;
    std::function<void()> bye;
    // The connection ended, after a Bye or without one (killed, crashed,
    // exec); called by the stream's owner through Decoder::ended.
    std::function<void()> closed;
    std::function<void(const KernelMetricRecord&)> metric;
    std::function<void(const GraphNodeRecord&)> graphNode;
    std::function<void(const CollectiveCallRecord&)> collectiveCall;
    std::function<void(const PcSampleRecord&)> pcSample;
    std::function<void(const PcSamplingTotals&)> pcSamplingTotals;
    std::function<void(const KernelRecord&)> kernel;
    std::function<void(const MemcpyRecord&)> memcpy;
    std::function<void(const MemsetRecord&)> memset;
    std::function<void(const ApiCallRecord&)> apiCall;
    std::function<void(const RangeRecord&)> range;
    // A record whose times or size are out of range (model/value_limits.h) is
    // not passed on: one bad record from a driver must not cost the rest of
    // the stream. Called with why, once per such record.
    std::function<void(const std::string&)> rejected;
};

// Consumes a byte stream in arbitrary pieces (one per connection).
class Decoder {
  public:
    explicit Decoder(Sink sink) : sink_(std::move(sink)) {}
    // Throws std::runtime_error on a malformed stream, or on a Hello of
    // another protocol version (the message names both versions).
    void feed(std::string_view bytes);
    // Bytes of an incomplete frame still waiting for the rest.
    std::size_t buffered() const { return buffer_.size(); }
    // The connection closed: tells the sink (Sink::closed).
    void ended() {
        if (sink_.closed) sink_.closed();
    }

  private:
    void dispatch(FrameType type, std::string_view payload);
    std::string buffer_;
    Sink sink_;
    std::unordered_map<std::int64_t, std::string> strings_;
};

}  // namespace ws::wire
