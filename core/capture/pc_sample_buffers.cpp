#include "capture/pc_sample_buffers.h"

#include <algorithm>
#include <vector>

#include "kept_file.h"

namespace ws::capture {

namespace {

constexpr char kMagic[] = "WSPCKEEP1";  // followed by records tagged 'R' or 'B'
// Bounds a damaged file cannot make the reader exceed.
constexpr std::uint64_t kMostPcs = std::uint64_t{1} << 24;
constexpr std::uint64_t kMostReasons = 1024;
constexpr std::uint64_t kMostName = 1 << 16;

void putText(std::FILE* f, const std::string& s) {
    kept::putBytes(f, s.data(), s.size());
}

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
    kept::put<char>(f, 'R');
    kept::put<std::uint32_t>(f, static_cast<std::uint32_t>(reasonNames.size()));
    for (const auto& [index, name] : reasonNames) {
        kept::put<std::uint32_t>(f, index);
        putText(f, name);
    }
    std::fflush(f);
}

void keepPcSamplingData(std::FILE* f, const CUpti_PCSamplingData& d) {
    if (std::ftell(f) == 0) std::fwrite(kMagic, 1, sizeof kMagic - 1, f);
    const std::uint64_t pcs = std::min<std::uint64_t>(d.totalNumPcs, d.collectNumPcs);
    kept::put<char>(f, 'B');
    kept::put<std::uint64_t>(f, d.totalSamples);
    kept::put<std::uint64_t>(f, d.droppedSamples);
    kept::put<std::uint64_t>(f, d.nonUsrKernelsTotalSamples);
    kept::put<std::uint8_t>(f, d.hardwareBufferFull);
    kept::put<std::uint64_t>(f, pcs);
    for (std::uint64_t i = 0; i < pcs; ++i) {
        const CUpti_PCSamplingPCData& pc = d.pPcData[i];
        kept::put<std::uint64_t>(f, pc.cubinCrc);
        kept::put<std::uint64_t>(f, pc.pcOffset);
        putText(f, pc.functionName ? pc.functionName : "");
        const std::uint64_t count = pc.stallReason ? pc.stallReasonCount : 0;
        kept::put<std::uint64_t>(f, count);
        for (std::uint64_t j = 0; j < count && pc.stallReason; ++j) {
            const CUpti_PCSamplingStallReason r = pc.stallReason[j];
            kept::put<std::uint32_t>(f, r.pcSamplingStallReasonIndex);
            kept::put<std::uint32_t>(f, r.samples);
        }
    }
    std::fflush(f);
}

bool readKeptPcSampling(const std::string& path, PcSampleTable& table, PcSamplingTotals& totals,
                        std::string& why) {
    auto opened = kept::Reader::open(path);
    if (!opened) {
        why = path + ": cannot be read";
        return false;
    }
    auto& r = *opened;
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
                if (!r.get(index) || !r.bytes(name, kMostName))
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
        // The smallest PC record is 32 bytes: a count past what the file
        // holds is refused before anything is allocated for it.
        if (!r.get(samples) || !r.get(dropped) || !r.get(nonUser) || !r.get(full) || !r.get(pcs) ||
            pcs > kMostPcs || pcs > r.left() / 32)
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
            if (!r.get(crc) || !r.get(offset) || !r.bytes(names[i], kMostName) || !r.get(count) ||
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
