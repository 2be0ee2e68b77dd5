// The capture stream: records survive encode → arbitrary splits → decode.
#include <gtest/gtest.h>

#include <limits>

#include "wire/frames.h"

namespace ws {
namespace {

struct Collected {
    std::vector<KernelRecord> kernels;
    std::vector<MemcpyRecord> memcpys;
    std::vector<ApiCallRecord> api;
    std::vector<RangeRecord> ranges;
    std::vector<DeviceInfo> devices;
    std::vector<wire::Hello> hellos;
    std::vector<GraphNodeRecord> graphNodes;
    std::vector<CollectiveCallRecord> collectiveCalls;
    std::vector<PcSampleRecord> pcSamples;
    std::vector<PcSamplingTotals> pcTotals;
    std::int64_t dropped = 0;
    std::int64_t queryCalls = 0;
    bool bye = false;
    wire::Sink sink() {
        wire::Sink s;
        s.kernel = [this](const KernelRecord& r) { kernels.push_back(r); };
        s.memcpy = [this](const MemcpyRecord& r) { memcpys.push_back(r); };
        s.apiCall = [this](const ApiCallRecord& r) { api.push_back(r); };
        s.range = [this](const RangeRecord& r) { ranges.push_back(r); };
        s.device = [this](const DeviceInfo& d) { devices.push_back(d); };
        s.hello = [this](const wire::Hello& h) { hellos.push_back(h); };
        s.graphNode = [this](const GraphNodeRecord& n) { graphNodes.push_back(n); };
        s.collectiveCall = [this](const CollectiveCallRecord& c) { collectiveCalls.push_back(c); };
        s.pcSample = [this](const PcSampleRecord& r) { pcSamples.push_back(r); };
        s.pcSamplingTotals = [this](const PcSamplingTotals& t) { pcTotals.push_back(t); };
        s.dropped = [this](std::int64_t n) { dropped += n; };
        s.queryCalls = [this](std::int64_t n) { queryCalls += n; };
        s.bye = [this] { bye = true; };
        return s;
    }
};

TEST(Wire, RoundTripInOneByteSlices) {
    wire::Encoder enc;
    enc.hello({42, 1, 1'000'000, 1'764'000'000'000'000'000});
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.ccMajor = 9;
    d.smCount = 132;
    d.memoryBytes = 150109880320;
    d.reservedSmemPerBlock = 1024;
    enc.device(d);
    for (int i = 0; i < 50; ++i) {
        KernelRecord k;
        k.startNs = 1000 + i * 10;
        k.endNs = k.startNs + 5;
        k.streamId = 7 + i % 2;
        k.correlationId = static_cast<std::uint32_t>(i);
        k.name = i % 2 ? "_Z11fill_kernelPffi" : "gemm";
        k.gridX = 64;
        k.blockX = 256;
        k.dynamicSharedBytes = 4096;
        k.clusterX = 2;
        enc.add(k);
    }
    MemcpyRecord m;
    m.bytes = 1 << 20;
    m.kind = MemcpyKind::HtoD;
    m.srcKind = MemoryKind::Pinned;
    enc.add(m);
    enc.add(ApiCallRecord{1, 2, 42, 43, 9, ApiKind::Runtime, 211, "cudaLaunchKernel_v7000", 0});
    enc.add(RangeRecord{5, 9, 42, 43, "ws.token:3", "", RangeKind::Mark, 0, 1});
    // Node ids use all 64 bits: CUPTI numbers them per process from a counter.
    enc.graphNode({0xfedcba9876543210ull, 17, 3, 42, 43, 1'764'000'000'000'000'123, 0});
    enc.collectiveCall({42, 44, 100, 250, "AllReduce", 0xfedcba9876543210ull, 16 << 20});
    // One instruction's samples per stall reason, its source line once.
    enc.pcSamples({{"_Z6decodePf", 0x1a40, "smsp__pcsamp_warps_issue_stalled_long_scoreboard", 812,
                    "/src/kernels/attention.cu", 118, "LDG.E.128 R8, desc[UR6][R2.64]"},
                   {"_Z6decodePf", 0x1a40, "smsp__pcsamp_warps_issue_stalled_selected", 40,
                    "/src/kernels/attention.cu", 118, "LDG.E.128 R8, desc[UR6][R2.64]"}});
    enc.pcSamplingTotals({900, 12, 30, 10, true, 4'500'000});
    enc.dropped(7);
    enc.queryCalls(5'000'000'000);  // a long run's count does not fit 32 bits
    enc.bye();

    Collected got;
    wire::Decoder dec(got.sink());
    const std::string& bytes = enc.bytes();
    for (char c : bytes)
        dec.feed(std::string_view(&c, 1));
    EXPECT_EQ(dec.buffered(), 0u);
    ASSERT_EQ(got.hellos.size(), 1u);
    EXPECT_EQ(got.hellos[0].pid, 42);
    EXPECT_EQ(got.hellos[0].unixNs, 1'764'000'000'000'000'000);
    ASSERT_EQ(got.devices.size(), 1u);
    EXPECT_EQ(got.devices[0].name, "NVIDIA H200");
    EXPECT_EQ(got.devices[0].memoryBytes, 150109880320);
    EXPECT_EQ(got.devices[0].reservedSmemPerBlock, 1024);
    ASSERT_EQ(got.kernels.size(), 50u);
    EXPECT_EQ(got.kernels[3].name, "_Z11fill_kernelPffi");
    EXPECT_EQ(got.kernels[3].streamId, 8u);
    EXPECT_EQ(got.kernels[3].startNs, 1030);
    EXPECT_EQ(got.kernels[3].clusterX, 2);
    EXPECT_EQ(got.kernels[3].dynamicSharedBytes, 4096);
    ASSERT_EQ(got.memcpys.size(), 1u);
    EXPECT_EQ(got.memcpys[0].kind, MemcpyKind::HtoD);
    EXPECT_EQ(got.memcpys[0].srcKind, MemoryKind::Pinned);
    ASSERT_EQ(got.api.size(), 1u);
    EXPECT_EQ(got.api[0].name, "cudaLaunchKernel_v7000");
    EXPECT_EQ(got.api[0].threadId, 43u);
    ASSERT_EQ(got.ranges.size(), 1u);
    EXPECT_EQ(got.ranges[0].kind, RangeKind::Mark);
    EXPECT_EQ(got.ranges[0].depth, 1);
    ASSERT_EQ(got.collectiveCalls.size(), 1u);
    EXPECT_EQ(got.collectiveCalls[0].processId, 42u);
    EXPECT_EQ(got.collectiveCalls[0].threadId, 44u);
    EXPECT_EQ(got.collectiveCalls[0].startNs, 100);
    EXPECT_EQ(got.collectiveCalls[0].endNs, 250);
    EXPECT_EQ(got.collectiveCalls[0].collective, "AllReduce");
    EXPECT_EQ(got.collectiveCalls[0].communicator, 0xfedcba9876543210ull);
    EXPECT_EQ(got.collectiveCalls[0].bytes, 16 << 20);
    ASSERT_EQ(got.graphNodes.size(), 1u);
    EXPECT_EQ(got.graphNodes[0].nodeId, 0xfedcba9876543210ull);
    EXPECT_EQ(got.graphNodes[0].originalNodeId, 17u);
    EXPECT_EQ(got.graphNodes[0].graphId, 3u);
    EXPECT_EQ(got.graphNodes[0].processId, 42u);
    EXPECT_EQ(got.graphNodes[0].threadId, 43u);
    EXPECT_EQ(got.graphNodes[0].timeNs, 1'764'000'000'000'000'123);
    ASSERT_EQ(got.pcSamples.size(), 2u);
    EXPECT_EQ(got.pcSamples[1].function, "_Z6decodePf");
    EXPECT_EQ(got.pcSamples[1].pcOffset, 0x1a40u);
    EXPECT_EQ(got.pcSamples[0].stallReason, "smsp__pcsamp_warps_issue_stalled_long_scoreboard");
    EXPECT_EQ(got.pcSamples[0].samples, 812);
    EXPECT_EQ(got.pcSamples[1].samples, 40);
    EXPECT_EQ(got.pcSamples[1].sourceFile, "/src/kernels/attention.cu");
    EXPECT_EQ(got.pcSamples[1].line, 118u);
    EXPECT_EQ(got.pcSamples[1].sass, "LDG.E.128 R8, desc[UR6][R2.64]");
    ASSERT_EQ(got.pcTotals.size(), 1u);
    EXPECT_EQ(got.pcTotals[0].samples, 900);
    EXPECT_EQ(got.pcTotals[0].droppedSamples, 12);
    EXPECT_EQ(got.pcTotals[0].nonUserSamples, 30);
    EXPECT_EQ(got.pcTotals[0].periodLog2, 10u);
    EXPECT_TRUE(got.pcTotals[0].hardwareBufferFull);
    EXPECT_EQ(got.pcTotals[0].hostNs, 4'500'000);
    EXPECT_EQ(got.dropped, 7);
    EXPECT_EQ(got.queryCalls, 5'000'000'000);
    EXPECT_TRUE(got.bye);
}

TEST(Wire, ACollectorOfAnotherProtocolVersionIsRefusedByName) {
    Collected got;
    wire::Encoder newer;
    wire::Hello h{};
    h.protocolVersion = wire::kProtocolVersion + 7;
    newer.hello(h);
    wire::Decoder d(got.sink());
    try {
        d.feed(newer.bytes());
        FAIL() << "a Hello of version " << h.protocolVersion << " was accepted";
    } catch (const std::runtime_error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("version " + std::to_string(wire::kProtocolVersion + 7)),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("speaks version " + std::to_string(wire::kProtocolVersion)),
                  std::string::npos)
            << what;
    }
    EXPECT_TRUE(got.hellos.empty());

    // A collector from before versioning: its Hello starts with the pid.
    std::string old = {char(wire::FrameType::Hello), 4, 0, 0, 0, 84, 2, 0, 0};
    wire::Decoder legacy(got.sink());
    try {
        legacy.feed(old);
        FAIL() << "an unversioned Hello was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("version 1 (before versioning)"), std::string::npos)
            << e.what();
    }
}

TEST(Wire, MalformedStreamsAreRejected) {
    Collected got;
    wire::Decoder unknownType(got.sink());
    std::string frame = {char(99), 0, 0, 0, 0};
    EXPECT_THROW(unknownType.feed(frame), std::runtime_error);
    wire::Decoder huge(got.sink());
    std::string big = {char(3), char(0xff), char(0xff), char(0xff), char(0x7f)};
    EXPECT_THROW(huge.feed(big), std::runtime_error);
    // A record naming a string the stream never defined.
    wire::Encoder enc;
    KernelRecord k;
    k.name = "k";
    enc.add(k);
    std::string bytes = enc.bytes();
    // Skip the String frame that precedes the record frame.
    auto stringFrameBytes = wire::kHeaderBytes + static_cast<std::uint8_t>(bytes[1]);
    ASSERT_EQ(bytes[stringFrameBytes], char(wire::FrameType::Records));
    auto recordFrame = bytes.substr(stringFrameBytes);
    wire::Decoder missing(got.sink());
    EXPECT_THROW(missing.feed(recordFrame), std::runtime_error);
    // A count below zero is a broken peer, not a number to add.
    wire::Encoder negative;
    negative.queryCalls(-3);
    wire::Decoder counted(got.sink());
    try {
        counted.feed(negative.bytes());
        ADD_FAILURE() << "a negative count was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("negative count of query calls (-3)"),
                  std::string::npos)
            << e.what();
    }
    // Dropped-record counts (release stores once held -2 and -1000) and
    // counts whose sum would overflow.
    for (const std::int64_t n : {std::int64_t{-2}, std::int64_t{-1000}, INT64_MAX}) {
        wire::Encoder dropped;
        dropped.dropped(n);
        wire::Decoder decoder(got.sink());
        EXPECT_THROW(decoder.feed(dropped.bytes()), std::runtime_error) << n;
    }
    // A hello whose clocks the recorder would subtract into an overflow.
    for (const std::int64_t clock : {INT64_MIN, std::int64_t{-1}, INT64_MAX}) {
        wire::Encoder hello;
        hello.hello({1, 0, clock, 1'700'000'000'000'000'000});
        wire::Decoder decoder(got.sink());
        try {
            decoder.feed(hello.bytes());
            ADD_FAILURE() << "a clock of " << clock << " was taken";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("clock reading"), std::string::npos) << e.what();
        }
    }
    // PC samples counted below zero, from a broken or hostile collector.
    wire::Encoder badSamples;
    badSamples.pcSamples({{"k", 0, "smsp__pcsamp_warps_issue_stalled_wait", -5, "", 0, ""}});
    wire::Decoder sampled(got.sink());
    try {
        sampled.feed(badSamples.bytes());
        ADD_FAILURE() << "a negative sample count was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("negative count of PC samples"), std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(got.pcSamples.empty());
    EXPECT_EQ(got.dropped, 0);
}

TEST(Wire, RecordsWithTimesOrSizesOutOfRangeAreDroppedWithAReason) {
    // Forged or damaged values once reached the store as runs of -153 million
    // minutes, or overflowed in the codec. One bad record costs only itself.
    KernelRecord backwards;
    backwards.name = "k";
    backwards.startNs = 100;
    backwards.endNs = 50;
    KernelRecord extreme;
    extreme.name = "k";
    extreme.startNs = std::numeric_limits<std::int64_t>::min();
    extreme.endNs = std::numeric_limits<std::int64_t>::max();
    MemcpyRecord huge;
    huge.startNs = 1;
    huge.endNs = 2;
    huge.bytes = std::numeric_limits<std::int64_t>::max();
    KernelRecord fine;
    fine.name = "k";
    fine.startNs = 1'700'000'000'000'000'000;
    fine.endNs = fine.startNs + 1000;
    wire::Encoder enc;
    enc.add(backwards);
    enc.add(extreme);
    enc.add(huge);
    enc.add(fine);
    enc.collectiveCall({1, 1, 10, 20, "AllReduce", 0, -5});  // a negative size
    Collected got;
    std::vector<std::string> reasons;
    auto sink = got.sink();
    sink.rejected = [&](const std::string& why) { reasons.push_back(why); };
    wire::Decoder dec(sink);
    EXPECT_NO_THROW(dec.feed(enc.bytes()));
    ASSERT_EQ(got.kernels.size(), 1u);
    EXPECT_EQ(got.kernels[0].startNs, fine.startNs);
    EXPECT_TRUE(got.memcpys.empty());
    ASSERT_EQ(reasons.size(), 4u);
    EXPECT_TRUE(got.collectiveCalls.empty());
    EXPECT_NE(reasons[3].find("NCCL call record out of range"), std::string::npos) << reasons[3];
    EXPECT_NE(reasons[0].find("kernel record out of range: ends before it starts"),
              std::string::npos)
        << reasons[0];
    EXPECT_NE(reasons[2].find("memcpy record out of range"), std::string::npos) << reasons[2];
}

}  // namespace
}  // namespace ws
