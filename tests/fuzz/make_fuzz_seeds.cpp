// Writes the seeds that are made rather than checked in: capture streams and
// event chunks encoded by the code under test, the Nsight Systems export
// fixture as an SQLite file, and an empty store. scripts/fuzz.sh runs it into
// the working corpus: make_fuzz_seeds OUT_DIR NSYS_EXPORT_SQL
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codec_strings.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "wire/event_codec.h"
#include "wire/frames.h"

namespace {

namespace fs = std::filesystem;
using namespace ws;

constexpr std::int64_t kT0 = 5'000'000'000;

void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

std::vector<KernelRecord> kernels() {
    std::vector<KernelRecord> out;
    for (int i = 0; i < 6; ++i) {
        KernelRecord k;
        k.startNs = kT0 + i * 8'000;
        k.endNs = k.startNs + 5'000 + i * 10;
        k.deviceId = 7;
        k.streamId = 13;
        k.contextId = 1;
        k.correlationId = static_cast<std::uint32_t>(100 + i);
        k.name = "gemm_bf16";
        k.gridX = 132 * (1 + i % 2);
        k.blockX = 256;
        k.registersPerThread = 128;
        k.staticSharedBytes = 32768;
        k.dynamicSharedBytes = i % 3 ? 0 : 16384;
        k.graphId = i >= 4 ? 3 : 0;
        k.graphNodeId = i >= 4 ? static_cast<std::uint64_t>(i) : 0;
        out.push_back(k);
    }
    return out;
}

std::vector<MemcpyRecord> memcpys() {
    std::vector<MemcpyRecord> out;
    for (int i = 0; i < 4; ++i) {
        MemcpyRecord m;
        m.startNs = kT0 + i * 150'000;
        m.endNs = m.startNs + 40'000;
        m.deviceId = 7;
        m.streamId = 13;
        m.correlationId = static_cast<std::uint32_t>(500 + i);
        m.kind = i % 2 ? MemcpyKind::DtoH : MemcpyKind::HtoD;
        m.srcKind = i % 2 ? MemoryKind::Device : MemoryKind::Pinned;
        m.dstKind = i % 2 ? MemoryKind::Pinned : MemoryKind::Device;
        m.bytes = 16 << 20;
        out.push_back(m);
    }
    return out;
}

std::vector<MemsetRecord> memsets() {
    std::vector<MemsetRecord> out;
    for (int i = 0; i < 3; ++i) {
        MemsetRecord m;
        m.startNs = kT0 - 20'000 + i * 1'000;
        m.endNs = m.startNs + 500;
        m.deviceId = 7;
        m.streamId = 13;
        m.bytes = 1 << 20;
        m.memoryKind = MemoryKind::Device;
        out.push_back(m);
    }
    return out;
}

std::vector<ApiCallRecord> apiCalls() {
    std::vector<ApiCallRecord> out;
    for (int i = 0; i < 4; ++i)
        out.push_back(ApiCallRecord{kT0 - 3'000 + i * 8'000, kT0 + i * 8'000, 4242, 4243,
                                    static_cast<std::uint32_t>(100 + i),
                                    i == 3 ? ApiKind::Driver : ApiKind::Runtime, 211,
                                    "cudaLaunchKernel", 0});
    return out;
}

std::vector<RangeRecord> ranges() {
    std::vector<RangeRecord> out;
    out.push_back(
        {kT0, kT0 + 200'000, 4242, 4243, "decode step", "NVTX", RangeKind::PushPop, 0xff2196f3, 0});
    out.push_back({kT0 + 1'000, kT0 + 1'000, 4242, 4243, "ws.token:0", "", RangeKind::Mark, 0, 1});
    out.push_back({kT0 + 2'000, kT0 + 90'000, 4242, 4243, "ws.request:0", "torch.op",
                   RangeKind::StartEnd, 0, 0});
    return out;
}

// [kind][format][count u16][blob]: the event codec harness's input layout.
template <typename R>
void chunk(const fs::path& dir, const std::string& name, const std::vector<R>& records,
           codec::Format format) {
    std::vector<const R*> pointers;
    for (const auto& r : records)
        pointers.push_back(&r);
    codec::Intern intern = [](std::string_view s) -> std::int64_t {
        std::int64_t id = 1;
        for (const char* known : fuzz::kCodecStrings) {
            if (s == known) return id;
            ++id;
        }
        return 999;  // the harness refuses it: a seed for that path
    };
    std::string out;
    out.push_back(static_cast<char>(static_cast<int>(codec::kindOf<R>()) - 1));
    out.push_back(static_cast<char>(format));
    out.push_back(static_cast<char>(records.size() & 0xff));
    out.push_back(static_cast<char>(records.size() >> 8));
    codec::encode(pointers, intern, out, format);
    write(dir / (name + (format == codec::Format::Inline ? "-inline" : "-dictionary") + ".bin"),
          out);
}

void eventChunks(const fs::path& dir) {
    for (auto format : {codec::Format::Inline, codec::Format::Dictionary}) {
        chunk(dir, "kernels", kernels(), format);
        chunk(dir, "memcpys", memcpys(), format);
        chunk(dir, "memsets", memsets(), format);
        chunk(dir, "api-calls", apiCalls(), format);
        chunk(dir, "ranges", ranges(), format);
    }
}

// A collector's whole stream, behind the harness's cut byte.
void captureStreams(const fs::path& dir) {
    wire::Encoder e;
    e.hello({4242, 1, kT0, 1'764'684'000'000'000'000, wire::kProtocolVersion});
    write(dir / "hello.bin", std::string(1, '\0') + e.bytes());
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.uuid = "GPU-00000000-0000-0000-0000-000000000000";
    d.ccMajor = 9;
    d.smCount = 132;
    d.maxWarpsPerSm = 64;
    e.device(d);
    for (const auto& r : kernels())
        e.add(r);
    for (const auto& r : memcpys())
        e.add(r);
    for (const auto& r : memsets())
        e.add(r);
    for (const auto& r : apiCalls())
        e.add(r);
    for (const auto& r : ranges())
        e.add(r);
    e.overhead({kT0, kT0 + 1'000, "buffer flush"});
    e.dropped(3);
    e.queryCalls(120'000);
    e.metric({100, "dram__bytes.sum", 1.5e9});
    e.pcSamples({{"gemv", 0x80, "smsp__pcsamp_warps_issue_stalled_long_scoreboard", 700,
                  "/src/gemv.cu", 42, "LDG.E R4, desc[UR4][R2.64]"},
                 {"gemv", 0x80, "smsp__pcsamp_warps_issue_stalled_selected", 30, "/src/gemv.cu", 42,
                  "LDG.E R4, desc[UR4][R2.64]"}});
    e.pcSamplingTotals({730, 0, 12, 11, false, 2'500'000});
    e.bye();
    write(dir / "whole-stream.bin", std::string(1, '\0') + e.bytes());
    write(dir / "whole-stream-cut.bin", std::string(1, '\x25') + e.bytes());
    wire::Encoder old;
    old.hello({4242, 1, kT0, 0, 1});
    write(dir / "hello-version-1.bin", std::string(1, '\0') + old.bytes());
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: make_fuzz_seeds OUT_DIR NSYS_EXPORT_SQL\n");
        return 2;
    }
    fs::path out = argv[1];
    try {
        eventChunks(out / "event_codec");
        captureStreams(out / "wire_decoder");
        auto nsys = out / "nsys_import" / "nsys-export.sqlite";
        fs::create_directories(nsys.parent_path());
        fs::remove(nsys);
        {
            sql::Db db(nsys.string(), sql::Db::Mode::ReadWriteCreate);
            db.exec(readFile(argv[2]));
        }
        auto empty = out / "store_open" / "empty.wsdb";
        fs::create_directories(empty.parent_path());
        fs::remove(empty);
        { Store store(empty.string()); }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_fuzz_seeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
