#include "capture/pc_sample_buffers.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>
#include <vector>

namespace ws::capture {

namespace {

constexpr char kMagic[] = "WSPCKEEP1";  // followed by records tagged 'R' or 'B'
// Bounds a damaged file cannot make the reader exceed.
constexpr std::uint64_t kMostPcs = std::uint64_t{1} << 24;
constexpr std::uint64_t kMostReasons = 1024;
constexpr std::uint64_t kMostName = 1 << 16;

template <typename T>
void put(std::FILE* f, T v) {
    std::fwrite(&v, sizeof v, 1, f);
}

void putText(std::FILE* f, const std::string& s) {
    put<std::uint32_t>(f, static_cast<std::uint32_t>(s.size()));
    std::fwrite(s.data(), 1, s.size(), f);
}

class Reader {
  public:
    explicit Reader(std::string bytes) : bytes_(std::move(bytes)) {}
    template <typename T>
    bool get(T& v) {
        if (bytes_.size() - at_ < sizeof v) return false;
        std::memcpy(&v, bytes_.data() + at_, sizeof v);
        at_ += sizeof v;
        return true;
    }
    bool text(std::string& s, std::uint64_t most) {
        std::uint32_t n = 0;
        if (!get(n) || n > most || bytes_.size() - at_ < n) return false;
        s.assign(bytes_.data() + at_, n);
        at_ += n;
        return true;
    }
    bool literal(std::string_view want) {
        if (bytes_.compare(at_, want.size(), want) != 0) return false;
        at_ += want.size();
        return true;
    }
    bool done() const { return at_ == bytes_.size(); }
    std::size_t at() const { return at_; }
    std::size_t left() const { return bytes_.size() - at_; }

  private:
    std::string bytes_;
    std::size_t at_ = 0;
};

}  // namespace

void absorbPcSamplingData(const CUpti_PCSamplingData& d,
                          const std::map<std::uint32_t, std::string>& reasonNames,
                          PcSampleTable& table, PcSamplingTotals& totals) {
    totals.samples += static_cast<std::int64_t>(d.totalSamples);
    totals.droppedSamples += static_cast<std::int64_t>(d.droppedSamples);
    totals.nonUserSamples += static_cast<std::int64_t>(d.nonUsrKernelsTotalSamples);
    if (d.hardwareBufferFull) totals.hardwareBufferFull = true;
    for (std::size_t i = 0; i < d.totalNumPcs && i < d.collectNumPcs; ++i) {
        // Copies of the fields: the CUPTI structs are packed.
        const CUpti_PCSamplingPCData& pc = d.pPcData[i];
        const char* name = pc.functionName;
        const std::size_t count = pc.stallReasonCount;
        const CUpti_PCSamplingStallReason* reasons = pc.stallReason;
        auto& byReason = table[{name ? name : "", pc.cubinCrc, pc.pcOffset}];
        for (std::size_t j = 0; j < count && reasons; ++j) {
            const CUpti_PCSamplingStallReason r = reasons[j];
            if (r.samples == 0) continue;
            auto it = reasonNames.find(r.pcSamplingStallReasonIndex);
            byReason[it != reasonNames.end()
                         ? it->second
                         : "stall reason " + std::to_string(r.pcSamplingStallReasonIndex)] +=
                r.samples;
        }
    }
}

void keepStallReasons(std::FILE* f, const std::map<std::uint32_t, std::string>& reasonNames) {
    if (std::ftell(f) == 0) std::fwrite(kMagic, 1, sizeof kMagic - 1, f);
    put<char>(f, 'R');
    put<std::uint32_t>(f, static_cast<std::uint32_t>(reasonNames.size()));
    for (const auto& [index, name] : reasonNames) {
        put<std::uint32_t>(f, index);
        putText(f, name);
    }
    std::fflush(f);
}

void keepPcSamplingData(std::FILE* f, const CUpti_PCSamplingData& d) {
    if (std::ftell(f) == 0) std::fwrite(kMagic, 1, sizeof kMagic - 1, f);
    const std::uint64_t pcs = std::min<std::uint64_t>(d.totalNumPcs, d.collectNumPcs);
    put<char>(f, 'B');
    put<std::uint64_t>(f, d.totalSamples);
    put<std::uint64_t>(f, d.droppedSamples);
    put<std::uint64_t>(f, d.nonUsrKernelsTotalSamples);
    put<std::uint8_t>(f, d.hardwareBufferFull);
    put<std::uint64_t>(f, pcs);
    for (std::uint64_t i = 0; i < pcs; ++i) {
        const CUpti_PCSamplingPCData& pc = d.pPcData[i];
        put<std::uint64_t>(f, pc.cubinCrc);
        put<std::uint64_t>(f, pc.pcOffset);
        putText(f, pc.functionName ? pc.functionName : "");
        const std::uint64_t count = pc.stallReason ? pc.stallReasonCount : 0;
        put<std::uint64_t>(f, count);
        for (std::uint64_t j = 0; j < count && pc.stallReason; ++j) {
            const CUpti_PCSamplingStallReason r = pc.stallReason[j];
            put<std::uint32_t>(f, r.pcSamplingStallReasonIndex);
            put<std::uint32_t>(f, r.samples);
        }
    }
    std::fflush(f);
}

bool readKeptPcSampling(const std::string& path, PcSampleTable& table, PcSamplingTotals& totals,
                        std::string& why) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why = path + ": cannot be read";
        return false;
    }
    Reader r(std::string(std::istreambuf_iterator<char>(in), {}));
    auto bad = [&](const std::string& what) {
        why = path + ": " + what + " at byte " + std::to_string(r.at());
        return false;
    };
    if (!r.literal(kMagic)) return bad("not a kept PC-sampling file (no WSPCKEEP1)");
    std::map<std::uint32_t, std::string> reasons;
    while (!r.done()) {
        char tag = 0;
        r.get(tag);
        if (tag == 'R') {
            std::uint32_t n = 0;
            if (!r.get(n) || n > kMostReasons) return bad("a stall-reason table cut short");
            reasons.clear();
            for (std::uint32_t i = 0; i < n; ++i) {
                std::uint32_t index = 0;
                std::string name;
                if (!r.get(index) || !r.text(name, kMostName))
                    return bad("a stall-reason table cut short");
                reasons[index] = name;
            }
            continue;
        }
        if (tag != 'B') return bad("an unknown record");
        CUpti_PCSamplingData d{};
        d.size = sizeof d;
        std::uint64_t samples = 0, dropped = 0, nonUser = 0, pcs = 0;
        std::uint8_t full = 0;
        // The smallest PC record is 28 bytes: a count past what the file
        // holds is refused before anything is allocated for it.
        if (!r.get(samples) || !r.get(dropped) || !r.get(nonUser) || !r.get(full) || !r.get(pcs) ||
            pcs > kMostPcs || pcs > r.left() / 28)
            return bad("a buffer's header cut short");
        d.totalSamples = samples;
        d.droppedSamples = dropped;
        d.nonUsrKernelsTotalSamples = nonUser;
        d.hardwareBufferFull = full;
        std::vector<CUpti_PCSamplingPCData> pcData(pcs);
        std::vector<std::string> names(pcs);
        std::vector<std::vector<CUpti_PCSamplingStallReason>> slots(pcs);
        for (std::uint64_t i = 0; i < pcs; ++i) {
            std::uint64_t crc = 0, offset = 0, count = 0;
            if (!r.get(crc) || !r.get(offset) || !r.text(names[i], kMostName) || !r.get(count) ||
                count > kMostReasons)
                return bad("a PC cut short");
            slots[i].resize(count);
            for (auto& s : slots[i]) {
                std::uint32_t index = 0, n = 0;
                if (!r.get(index) || !r.get(n)) return bad("a PC's stall reasons cut short");
                s.pcSamplingStallReasonIndex = index;
                s.samples = n;
            }
            auto& pc = pcData[i];
            pc.size = sizeof pc;
            pc.cubinCrc = crc;
            pc.pcOffset = offset;
            pc.functionName = names[i].data();
            pc.stallReasonCount = count;
            pc.stallReason = slots[i].data();
        }
        d.collectNumPcs = pcs;
        d.totalNumPcs = pcs;
        d.pPcData = pcData.data();
        absorbPcSamplingData(d, reasons, table, totals);
    }
    return true;
}

}  // namespace ws::capture
