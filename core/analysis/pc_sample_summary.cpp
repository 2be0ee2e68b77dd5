#include "analysis/pc_sample_summary.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>

#include "model/pc_sampling.h"
#include "store/run_queries.h"
#include "util/format.h"

namespace ws {

namespace {

template <typename T>
void hottestFirst(std::vector<T>& rows, std::size_t shown) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const T& a, const T& b) { return a.samples > b.samples; });
    if (rows.size() > shown) rows.resize(shown);
}

std::string topOf(const std::map<std::string, std::int64_t>& byTitle) {
    auto best = byTitle.end();
    for (auto it = byTitle.begin(); it != byTitle.end(); ++it)
        if (best == byTitle.end() || it->second > best->second) best = it;
    return best == byTitle.end() ? "" : best->first;
}

// The records of one kernel, in any order.
KernelStalls summarizeKernel(const std::string& function,
                             const std::vector<const PcSampleRecord*>& records, std::size_t shown) {
    KernelStalls k;
    k.function = function;
    std::map<std::string, StallShare> reasons;
    struct Place {
        std::int64_t samples = 0;
        std::map<std::string, std::int64_t> byTitle;
        std::string file;
        std::uint32_t line = 0;
        std::string sass;
        int instructions = 0;
    };
    std::map<std::uint64_t, Place> byPc;
    std::map<std::pair<std::string, std::uint32_t>, Place> byLine;
    for (const auto* r : records) {
        const auto reason = pc_sampling::describeStallReason(r->stallReason);
        if (reason.notIssued) continue;
        k.samples += r->samples;
        auto& share = reasons[r->stallReason];
        share.reason = r->stallReason;
        share.title = reason.title;
        share.samples += r->samples;
        auto& pc = byPc[r->pcOffset];
        pc.samples += r->samples;
        pc.byTitle[reason.title] += r->samples;
        pc.file = r->sourceFile;
        pc.line = r->line;
        if (!r->sass.empty()) pc.sass = r->sass;
    }
    for (const auto& [offset, pc] : byPc) {
        k.instructions.push_back(
            {offset, pc.samples, 0, topOf(pc.byTitle), pc.file, pc.line, pc.sass});
        if (pc.line == 0) continue;
        auto& line = byLine[{pc.file, pc.line}];
        line.samples += pc.samples;
        for (const auto& [title, n] : pc.byTitle)
            line.byTitle[title] += n;
        ++line.instructions;
    }
    k.instructionCount = static_cast<int>(byPc.size());
    for (const auto& [where, line] : byLine)
        k.lines.push_back(
            {where.first, where.second, line.samples, 0, topOf(line.byTitle), line.instructions});
    for (auto& [name, share] : reasons)
        k.reasons.push_back(share);
    const double total = k.samples > 0 ? static_cast<double>(k.samples) : 1;
    for (auto& r : k.reasons)
        r.share = static_cast<double>(r.samples) / total;
    for (auto& i : k.instructions)
        i.share = static_cast<double>(i.samples) / total;
    for (auto& l : k.lines)
        l.share = static_cast<double>(l.samples) / total;
    hottestFirst(k.reasons, k.reasons.size());
    hottestFirst(k.instructions, shown);
    hottestFirst(k.lines, shown);
    return k;
}

}  // namespace

std::string sourceFileName(const std::string& file) {
    const auto slash = file.find_last_of('/');
    return slash == std::string::npos ? file : file.substr(slash + 1);
}

std::string sourceLineText(const std::string& file, std::uint32_t line) {
    return line == 0 ? "" : sourceFileName(file) + ":" + std::to_string(line);
}

std::string samplerCostText(const std::map<std::string, std::string>& properties,
                            std::int64_t runWallNs) {
    const auto found = properties.find(pc_sampling::kHostMs);
    if (found == properties.end()) return "";
    // Not stod: the GUI runs in the user's locale, whose decimal mark may be ','.
    double ms = 0;
    const auto& value = found->second;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), ms);
    if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(ms) || ms < 0)
        return "";
    std::string text =
        "the sampler's own time " + formatDuration(static_cast<std::int64_t>(ms * 1e6));
    if (runWallNs > 0)
        text += ", " + formatFixed(100 * ms * 1e6 / static_cast<double>(runWallNs), 1) +
                "% of the run's " + formatDuration(runWallNs);
    return text;
}

std::vector<KernelStalls> summarizePcSamples(const std::vector<PcSampleRecord>& records,
                                             std::size_t shown) {
    std::map<std::string, std::vector<const PcSampleRecord*>> byFunction;
    for (const auto& r : records)
        byFunction[r.function].push_back(&r);
    std::vector<KernelStalls> out;
    std::int64_t all = 0;
    for (const auto& [function, rs] : byFunction) {
        out.push_back(summarizeKernel(function, rs, shown));
        all += out.back().samples;
    }
    for (auto& k : out)
        k.runShare = all > 0 ? static_cast<double>(k.samples) / static_cast<double>(all) : 0;
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.samples > b.samples; });
    return out;
}

std::optional<KernelStalls> stallsOfKernel(const std::vector<PcSampleRecord>& records,
                                           std::string_view function, std::size_t shown) {
    std::vector<const PcSampleRecord*> mine;
    std::int64_t all = 0;
    for (const auto& r : records) {
        if (pc_sampling::describeStallReason(r.stallReason).notIssued) continue;
        all += r.samples;
        if (r.function == function) mine.push_back(&r);
    }
    if (mine.empty()) return std::nullopt;
    auto k = summarizeKernel(std::string(function), mine, shown);
    k.runShare = all > 0 ? static_cast<double>(k.samples) / static_cast<double>(all) : 0;
    return k;
}

std::optional<KernelStalls> stallsOfKernel(Store& store, std::int64_t run,
                                           const std::string& function, std::size_t shown) {
    auto k = stallsOfKernel(pcSamplesOf(store, run, function), function, shown);
    if (!k) return k;
    const auto all = pcSampleCount(store, run);
    k->runShare = all > 0 ? static_cast<double>(k->samples) / static_cast<double>(all) : 0;
    return k;
}

}  // namespace ws
