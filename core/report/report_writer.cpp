#include "report/report_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "analysis/capture_cost.h"
#include "analysis/client_measurement.h"
#include "analysis/statistics.h"
#include "model/gpu_metrics.h"
#include "util/format.h"
#include "util/version.h"

namespace ws {

namespace {

// The tracing cost was measured on one device only; a report of another
// device says so instead of borrowing the figure.
std::string coldStartNote(const ColdStartCheck& c) {
    if (!c.checked) return "cold starts inside TTFT: not checked (" + c.why + ")";
    if (c.hits.empty())
        return "cold starts inside TTFT: none in " + std::to_string(c.requests) +
               " requests (no module loading, JIT or context creation before a first token)";
    std::int64_t total = 0;
    for (const auto& h : c.hits)
        total += h.coldNs;
    return "cold starts inside TTFT: " + std::to_string(c.hits.size()) + " of " +
           std::to_string(c.requests) + " requests, " + formatDuration(total) +
           " in all — their TTFT includes start-up";
}

std::string captureCostNote(const ReportData& d) {
    if (auto measured = captureCostLine(d.properties)) return *measured;
    bool h200 = d.device && d.device->name.find("H200") != std::string::npos;
    if (h200)
        return "launch-bound programs run up to ~1.4–1.6× slower traced on the H200 (CUPTI's "
               "own per-launch cost, docs/benchmarks.md); kernel durations agree with CUDA "
               "events to 2%";
    return "tracing cost was measured on an NVIDIA H200 only (docs/benchmarks.md), not on " +
           (d.device ? d.device->name : std::string("this run's device")) +
           ": time the program untraced to know it here";
}

std::string escapeHtml(const std::string& s) {
    std::string out;
    for (char c : s)
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                // Control characters (a label's ESC, BEL, NUL) are not text in
                // HTML and act in a terminal showing Markdown: shown, as \x1b.
                if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') || c == 0x7f) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\x%02x",
                                  static_cast<unsigned char>(c));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    return out;
}

// Text in Markdown: renderers pass inline HTML through (a label holding
// <script> or <img onerror> ran in the reader's viewer) and act on link and
// emphasis syntax, so both are escaped; the text reads the same.
std::string escapeMarkdownText(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (std::string_view("\\`*_[]|").find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return escapeHtml(out);
}

std::string escapeMarkdownCell(const std::string& s) {
    std::string out = escapeMarkdownText(s);
    for (auto& c : out)
        if (c == '\n') c = ' ';
    return out;
}

// One emitter, two syntaxes: the report's structure is written once.
class Doc {
  public:
    explicit Doc(ReportFormat f) : html_(f == ReportFormat::Html) {}
    void heading(int level, const std::string& text) {
        if (html_)
            out_ << "<h" << level << ">" << escapeHtml(text) << "</h" << level << ">\n";
        else
            out_ << std::string(level, '#') << ' ' << escapeMarkdownText(text) << "\n\n";
    }
    void para(const std::string& text, const char* cssClass = nullptr) {
        if (html_)
            out_ << "<p" << (cssClass ? std::string(" class=\"") + cssClass + "\"" : "") << ">"
                 << escapeHtml(text) << "</p>\n";
        else
            out_ << escapeMarkdownText(text) << "\n\n";
    }
    void list(const std::vector<std::string>& items) {
        if (items.empty()) return;
        if (html_) {
            out_ << "<ul>\n";
            for (const auto& i : items)
                out_ << "<li>" << escapeHtml(i) << "</li>\n";
            out_ << "</ul>\n";
        } else {
            for (const auto& i : items)
                out_ << "- " << escapeMarkdownText(i) << '\n';
            out_ << '\n';
        }
    }
    // `classes` marks cells (pass/fail) in HTML: one per row, for the column `classColumn`.
    void table(const std::vector<std::string>& header,
               const std::vector<std::vector<std::string>>& rows, int classColumn = -1) {
        if (html_) {
            out_ << "<table>\n";
            bool named = false;
            for (const auto& h : header)
                named = named || !h.empty();
            if (named) {  // a key/value table has no header row
                out_ << "<tr>";
                for (const auto& h : header)
                    out_ << "<th>" << escapeHtml(h) << "</th>";
                out_ << "</tr>\n";
            }
            for (const auto& r : rows) {
                out_ << "<tr>";
                for (std::size_t i = 0; i < r.size(); ++i) {
                    std::string cls;
                    if (int(i) == classColumn)
                        cls = r[i] == "pass" ? "pass" : r[i] == "FAIL" ? "fail" : "unknown";
                    out_ << (cls.empty() ? "<td>" : "<td class=\"" + cls + "\">")
                         << escapeHtml(r[i]) << "</td>";
                }
                out_ << "</tr>\n";
            }
            out_ << "</table>\n";
        } else {
            out_ << '|';
            for (const auto& h : header)
                out_ << ' ' << escapeMarkdownCell(h) << " |";
            out_ << "\n|";
            for (std::size_t i = 0; i < header.size(); ++i)
                out_ << "---|";
            out_ << '\n';
            for (const auto& r : rows) {
                out_ << '|';
                for (const auto& c : r)
                    out_ << ' ' << escapeMarkdownCell(c) << " |";
                out_ << '\n';
            }
            out_ << '\n';
        }
    }
    void image(const std::string& src, const std::string& caption) {
        if (src.empty()) return;
        if (html_)
            out_ << "<figure><img alt=\"" << escapeHtml(caption) << "\" src=\"" << src
                 << "\"><figcaption>" << escapeHtml(caption) << "</figcaption></figure>\n";
        else
            out_ << "![" << escapeMarkdownText(caption) << "](" << src << ")\n\n";
    }
    void finding(const Finding& f) {
        if (html_) {
            out_ << "<div class=\"finding\"><b>" << escapeHtml(f.title) << "</b><br>"
                 << escapeHtml(f.evidence) << "<br><i>Next:</i> " << escapeHtml(f.next)
                 << "<br><span class=\"rule\">rule: " << escapeHtml(f.rule) << "</span></div>\n";
        } else {
            out_ << "- **" << escapeMarkdownText(f.title) << "** — "
                 << escapeMarkdownText(f.evidence) << ". *Next:* " << escapeMarkdownText(f.next)
                 << " (rule: " << escapeMarkdownText(f.rule) << ")\n";
        }
    }
    std::string str() const { return out_.str(); }
    bool html() const { return html_; }

  private:
    bool html_;
    std::ostringstream out_;
};

const char* kCss = R"css(
body { font-family: "DejaVu Sans", Arial, sans-serif; max-width: 1100px; margin: 24px auto; color: #1d1d1f; font-size: 14px; }
h1 { font-size: 24px; margin-bottom: 4px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; padding-bottom: 3px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0 16px; } th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f1f3f5; } td.pass { color: #1b7a33; font-weight: bold; } td.fail { color: #b3261e; font-weight: bold; }
td.unknown { color: #777; } .subtitle { color: #555; } .finding { border-left: 4px solid #e8a33d; padding: 6px 10px; margin: 8px 0; background: #fdf6ea; }
.rule { color: #777; font-size: 12px; } figure { margin: 12px 0; } img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #555; font-size: 12px; }
@media print { body { margin: 0; } h2 { page-break-after: avoid; } figure, table, .finding { page-break-inside: avoid; } }
)css";

std::string ms(double v) {
    return formatFixed(v, 3);
}

std::string optionalMs(std::optional<double> v) {
    return v ? formatFixed(*v, 2) : "—";
}

std::string share(double part, const ItlSplit& whole) {
    return whole.totalNs() > 0 ? formatFixed(100 * part / whole.totalNs(), 0) + "%" : "—";
}

std::vector<std::string> splitRow(const std::string& what, const ItlSplit& s) {
    return {what, share(s.prefillNs, s), share(s.kernelNs, s), share(s.launchGapNs, s),
            share(s.hostGapNs, s)};
}

// The slowest ITLs and what the server did meanwhile (analysis/itl_outliers.h).
void writeItlOutliers(Doc& doc, const ItlOutlierReport& o) {
    doc.heading(2, "ITL outliers");
    doc.para(std::to_string(o.itlCount) + " inter-token latencies over " +
             std::to_string(o.engineSteps) + " engine steps: p50 " + ms(o.p50Ms) + " ms, p99 " +
             ms(o.p99Ms) +
             " ms. Each is split into time in steps that ran prefill, kernel "
             "time and launch gaps (GPU idle) inside decode-only steps, and host gap outside "
             "any step (scheduling, output, delivery to the client).");
    if (!o.stepsDescribed)
        doc.para(
            "The server's engine.step ranges carry no prefill counts (docs/serving.md "
            "names the fields): prefill cannot be told apart from decode.");
    doc.table({"ITLs", "prefill", "kernels", "launch gap", "host gap"},
              {splitRow("every ITL", o.allTotal),
               splitRow(std::to_string(o.outlierCount) + " at or above p99", o.outlierTotal)});
    std::vector<std::vector<std::string>> rows;
    for (const auto& i : o.outliers)
        rows.push_back({std::to_string(i.requestId), std::to_string(i.tokenIndex), ms(i.ms()),
                        std::to_string(i.steps), std::to_string(i.prefillTokens),
                        std::to_string(i.maxRunning), share(i.split.prefillNs, i.split),
                        share(i.split.kernelNs, i.split), share(i.split.launchGapNs, i.split),
                        share(i.split.hostGapNs, i.split)});
    if (!rows.empty())
        doc.table({"request", "token", "ITL ms", "steps", "prefill tokens", "batch", "prefill",
                   "kernels", "launch gap", "host gap"},
                  rows);
}

// The sweep the run is a point of: its contract line, a row per point (this
// run's marked), and the Pareto chart when the caller renders one.
void writeSweep(Doc& doc, const SweepTable& t, RunId run, const std::string& paretoChart) {
    doc.heading(2, "Sweep");
    const std::string name = sweepParameterName(t.group.parameter);
    doc.para("This run is one point of sweep " + t.group.group + " over " + t.group.parameter +
             ": " + std::to_string(t.points.size()) + " of " +
             std::to_string(t.group.plannedPoints) + " points measured, each its own run" +
             (t.gpus > 1 ? ", " + std::to_string(t.gpus) + " GPUs" : "") + ".");
    auto contract = sweepContractLine(t);
    doc.para(contract.empty() ? "No latency targets: give bench serve --goodput to state where "
                                "the sweep stops meeting them."
                              : "Contract: " + contract + ".");
    const bool targets = t.targets.any();
    std::vector<std::string> header = {name,
                                       "run",
                                       "requests",
                                       "failed",
                                       "output tok/s" + std::string(t.gpus > 1 ? " per GPU" : ""),
                                       "TTFT p50",
                                       "TTFT p99",
                                       "TPOT p50",
                                       "TPOT p99"};
    if (targets) header.insert(header.end(), {"goodput req/s", "targets"});
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : t.points) {
        std::vector<std::string> row = {p.value + (p.run == run ? " (this run)" : ""),
                                        std::to_string(p.run),
                                        std::to_string(p.completed),
                                        std::to_string(p.failed),
                                        formatFixed(p.outputThroughputPerGpu, 1),
                                        optionalMs(p.ttftP50Ms),
                                        optionalMs(p.ttftP99Ms),
                                        optionalMs(p.tpotP50Ms),
                                        optionalMs(p.tpotP99Ms)};
        if (targets)
            row.insert(row.end(), {optionalMs(p.requestGoodput),
                                   p.meetsTargets.value_or(false) ? "pass" : "FAIL"});
        rows.push_back(std::move(row));
    }
    doc.table(header, rows, targets ? static_cast<int>(header.size()) - 1 : -1);
    doc.para(
        "Latencies in ms; a point meets the targets when no request failed and its p99 "
        "TTFT, TPOT and E2EL are within them.");
    doc.image(paretoChart, "Sweep: output throughput against TPOT and TTFT (Pareto)");
}

}  // namespace

// "What the next optimization buys": each option the run suggests with its
// predicted TPOT, TTFT and throughput and their intervals, best first.
void writeNextOptimizations(Doc& doc, const ReportData& d) {
    if (d.nextOptimizations.empty()) return;
    doc.heading(2, "What the next optimization buys");
    doc.para(
        "Predicted by replaying this run's own timeline with the change (launching "
        "threads, streams and synchronizations kept; docs/advisor.md states the model). "
        "Intervals are the 95 % spread over the run's requests, not the model's error. "
        "`warpscope-cli whatif " +
        std::to_string(d.run.id) + " FLAGS` gives the full table for any change.");
    auto cell = [](const PredictedValue* v, int digits) -> std::string {
        if (!v) return "—";
        const std::string interval = v->hasInterval ? " [" + formatFixed(v->ciLow, digits) + ", " +
                                                          formatFixed(v->ciHigh, digits) + "]"
                                                    : std::string();
        return formatFixed(v->predicted, digits) + interval + " (" + (v->change() >= 0 ? "+" : "") +
               formatFixed(100 * v->change(), 1) + " %)";
    };
    std::vector<std::vector<std::string>> rows;
    for (const auto& o : d.nextOptimizations)
        rows.push_back({o.change, o.gpuShare > 0 ? formatFixed(100 * o.gpuShare, 1) + " %" : "—",
                        cell(o.value("tpot", "mean"), 3), cell(o.value("tpot", "p99"), 3),
                        cell(o.value("ttft", "mean"), 3),
                        cell(o.value("output throughput", "tok/s"), 1), o.flags});
    doc.table({"option", "GPU time share", "TPOT mean ms", "TPOT p99 ms", "TTFT mean ms",
               "output tok/s", "whatif flags"},
              rows);
}

// Decode steps (token to token) against their floor, and where a step's
// time goes: kernels by class, launch gaps, host.
void writeTokenSteps(Doc& doc, const ReportData& d) {
    if (!d.tokenSteps) return;
    const auto& r = *d.tokenSteps;
    auto ms = [](double ns) { return formatFixed(ns / 1e6, 3) + " ms"; };
    doc.heading(2, "Decode steps against the speed of light");
    doc.para(std::to_string(r.steps) + " decode steps told from the tokens (token to token). " +
             (r.floor ? "Floor " + ms(r.floor->ns()) + " per step: " +
                            formatFixed(r.floor->bytes / 1e9, 2) + " GB at the measured " +
                            formatFixed(r.floor->bandwidthGbs, 0) + " GB/s copy bandwidth."
                      : std::string("No floor: the run does not declare its decode step's bytes "
                                    "(decoder.decode_step_bytes).")));
    std::vector<std::vector<std::string>> rows;
    auto pct = [&](double ns) {
        return formatFixed(r.meanNs > 0 ? 100 * ns / r.meanNs : 0, 1) + " %";
    };
    rows.push_back({"step (mean / p50 / p99)",
                    ms(r.meanNs) + " / " + ms(r.p50Ns) + " / " + ms(r.p99Ns),
                    r.floor ? "SOL " + formatFixed(r.solPercent(r.meanNs), 1) + " % / " +
                                  formatFixed(r.solPercent(r.p50Ns), 1) + " % / " +
                                  formatFixed(r.solPercent(r.p99Ns), 1) + " %"
                            : "—"});
    std::vector<std::pair<KernelClass, double>> classes(r.kernelNs.begin(), r.kernelNs.end());
    std::sort(classes.begin(), classes.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [kind, ns] : classes)
        rows.push_back({std::string(toString(kind)) + " kernels", ms(ns), pct(ns)});
    rows.push_back({"launch gaps inside the step", ms(r.launchGapNs), pct(r.launchGapNs)});
    rows.push_back({"host (before the first kernel, after the last)", ms(r.hostNs), pct(r.hostNs)});
    doc.table({"part of a step", "time", "share"}, rows);
    if (r.prefills > 0 && r.prefillFloor)
        doc.para("Prefill: " + std::to_string(r.prefills) + " prompts, TTFT " + ms(r.ttftMeanNs) +
                 " mean against a floor of " + ms(r.prefillFloor->ns()) + " a round (" +
                 formatFixed(r.prefillFloor->flops / 1e12, 2) + " TFLOP at the measured " +
                 formatFixed(r.prefillFloor->tflops, 0) +
                 " TFLOP/s, or the weights once, whichever is longer): SOL " +
                 formatFixed(r.prefillSolPercent(), 1) + " %.");
}

// A served run's engine steps against their floors, and where the serving
// window's time above them goes.
void writeEngineStepSol(Doc& doc, const ReportData& d) {
    if (!d.engineStepSol) return;
    const auto& sol = *d.engineStepSol;
    auto ms = [](double ns) { return formatFixed(ns / 1e6, 3) + " ms"; };
    auto pct = [](double v) { return formatFixed(v, 1) + " %"; };
    doc.heading(2, "Engine steps against the speed of light");
    doc.para(
        "Each step's floor: its weights once, the KV its attention reads and writes at the "
        "measured " +
        formatFixed(sol.cost.copyGbs, 0) + " GB/s copy bandwidth, or its FLOPs at " +
        formatFixed(sol.cost.tensorTflops, 0) +
        " TFLOP/s, whichever is longer, for the linear layers and attention apart." +
        (sol.stepsWithoutWork > 0 ? " " + std::to_string(sol.stepsWithoutWork) +
                                        " steps name no attention work and are left out."
                                  : std::string()));
    std::vector<std::vector<std::string>> kinds;
    for (const auto& k : sol.kinds)
        kinds.push_back({k.kind, std::to_string(k.steps), ms(k.stepNs), ms(k.floorNs),
                         pct(k.solPercent()), pct(k.solP50), pct(k.solP1)});
    doc.table({"steps", "count", "time", "floor", "SOL", "median step", "slowest 1 %"}, kinds);
    std::vector<std::vector<std::string>> parts;
    auto share = [&](double ns) { return pct(sol.windowNs > 0 ? 100 * ns / sol.windowNs : 0); };
    for (const auto& p : windowParts(sol))
        parts.push_back({p.what, ms(p.ns), share(p.ns)});
    parts.push_back({"of which decodes waited on prefill", ms(sol.prefillInterferenceNs),
                     share(sol.prefillInterferenceNs)});
    doc.table({"where the serving window goes", "time", "share"}, parts);
}

namespace {

std::string chartOf(const ChartSource& charts, const std::string& id) {
    return charts ? charts(id) : std::string();
}

// The workload contract: each target against what was measured.
void writeContract(Doc& doc, const ReportData& d) {
    doc.heading(2, "Workload contract");
    if (d.contract.empty()) {
        doc.para("No contract: the run was not started from a workload config.");
    } else {
        const auto& cfg = *d.config;
        const auto& c = cfg.contract;
        doc.para("Workload " + cfg.name + " (" + toString(cfg.kind) + "): prompt " +
                 std::to_string(c.promptTokens) + " tokens, output " +
                 std::to_string(c.outputTokens) + ", batch " + std::to_string(c.batch) +
                 (cfg.decoder ? ", model " + cfg.decoder->model + ", " + cfg.decoder->precision +
                                    ", variant " + cfg.decoder->variant +
                                    (cfg.decoder->cudaGraphs ? ", CUDA graphs" : "")
                              : ""));
        std::vector<std::vector<std::string>> rows;
        for (const auto& l : d.contract)
            rows.push_back({l.what, l.target, l.measured, toString(l.result), l.note});
        doc.table({"line", "target", "measured", "result", "note"}, rows, 3);
    }
}

// The GPU, its clocks, power, NVLink and the measured ceilings.
void writeEnvironment(Doc& doc, const ReportData& d) {
    doc.heading(2, "Environment");
    std::vector<std::vector<std::string>> env;
    if (d.device) {
        const auto& dev = *d.device;
        env.push_back({"GPU", dev.name + " (cc " + std::to_string(dev.ccMajor) + "." +
                                  std::to_string(dev.ccMinor) + ", " + std::to_string(dev.smCount) +
                                  " SMs, " + formatBytes(dev.memoryBytes) + ")"});
        env.push_back({"driver / CUDA", dev.driverVersion + " / " + dev.cudaVersion});
        env.push_back({"max clocks", "SM " + std::to_string(dev.smClockKhz / 1000) +
                                         " MHz, memory " +
                                         std::to_string(dev.memoryClockKhz / 1000) + " MHz"});
    }
    if (d.samples.smClockMinMhz)
        env.push_back({"SM clock seen", formatFixed(*d.samples.smClockMinMhz, 0) + "–" +
                                            formatFixed(*d.samples.smClockMaxMhz, 0) +
                                            " MHz over " + std::to_string(d.samples.count) +
                                            " samples"});
    if (d.samples.powerMeanW)
        env.push_back({"power", "mean " + formatFixed(*d.samples.powerMeanW, 1) + " W, max " +
                                    formatFixed(*d.samples.powerMaxW, 1) + " W"});
    if (d.samples.clockEvents.samplesWithReasons > 0) {
        std::string seen;
        for (const auto& r : d.samples.clockEvents.reasons)
            seen += (seen.empty() ? "" : ", ") + r.reason + " (" +
                    formatFixed(100 * r.sampleFraction, 0) + "%)";
        env.push_back({"clock event reasons",
                       seen.empty() ? "none: clocks were never held down" : seen + " of samples"});
    }
    // NVLink of the run's GPUs that were sampled over at least one interval.
    std::vector<std::pair<std::uint32_t, const NvlinkDeviceRates*>> nvlink;
    for (const auto& [device, r] : d.samples.nvlink)
        if (!r.points.empty() && d.samples.busyDevices.count(device))
            nvlink.push_back({device, &r});
    auto gb = [](double bytes) { return formatFixed(bytes / 1e9, 2) + " GB"; };
    auto gbs = [](double rate) { return formatFixed(rate / 1e9, 1) + " GB/s"; };
    for (const auto& [device, rates] : nvlink) {
        const auto& r = *rates;
        env.push_back(
            {nvlink.size() > 1 ? "NVLink, GPU " + std::to_string(device) : std::string("NVLink"),
             r.txBytes == 0 && r.rxBytes == 0
                 ? std::string("no traffic")
                 : "sent " + gb(static_cast<double>(r.txBytes)) + " (peak " +
                       gbs(r.peakTxBytesPerS) + "), received " +
                       gb(static_cast<double>(r.rxBytes)) + " (peak " + gbs(r.peakRxBytesPerS) +
                       ")"});
    }
    if (d.samples.temperatureMaxC)
        env.push_back({"temperature", "max " + formatFixed(*d.samples.temperatureMaxC, 0) + " °C"});
    auto measured = [&](const char* key, const char* what, const char* unit, int digits) {
        auto it = d.properties.find(key);
        if (it != d.properties.end())
            env.push_back(
                {what, formatFixed(std::strtod(it->second.c_str(), nullptr), digits) + unit});
    };
    measured("ceiling.copy_gbs", "measured copy bandwidth", " GB/s", 0);
    measured("ceiling.bf16_tflops", "measured cuBLAS bf16", " TFLOP/s", 1);
    env.push_back({"host", d.run.host});
    env.push_back({"recorded by", "Warpscope " + d.run.warpscopeVersion + " (report by Warpscope " +
                                      std::string(kWarpscopeVersion) + ")"});
    doc.table({"", ""}, env);
}

// Latency and throughput as vLLM reports them, the ITL outliers and the sweep.
void writeLatency(Doc& doc, const ReportData& d, const ChartSource& charts) {
    doc.heading(2, "Latency and throughput");
    const auto& l = d.latency;
    if (l.requests.empty()) {
        doc.para("No requests with token timestamps in this run.");
    } else {
        std::vector<std::vector<std::string>> rows;
        auto row = [&](const char* name, const std::vector<double>& v) {
            if (v.empty()) {
                rows.push_back({name, "—", "—", "—", "—", "—"});
                return;
            }
            auto s = stats::summarize(v);
            rows.push_back({name, ms(s.mean), ms(s.median), ms(stats::percentile(v, 90)),
                            ms(stats::percentile(v, 99)), ms(s.stddev)});
        };
        row("TTFT", l.ttftMs);
        row("TPOT", l.tpotMs);
        row("ITL", l.itlMs);
        row("E2E", l.e2elMs);
        doc.table({"ms", "mean", "median", "p90", "p99", "std"}, rows);
        std::vector<std::string> items = {
            std::to_string(l.requests.size()) + " requests completed, " +
                std::to_string(l.failedRequests) + " failed, over " + formatFixed(l.durationS, 3) +
                " s",
            "output throughput " + formatFixed(l.outputThroughput, 1) + " tok/s, total " +
                formatFixed(l.totalTokenThroughput, 1) + " tok/s, " +
                formatFixed(l.requestThroughput, 2) + " req/s"};
        if (l.requestGoodput)
            items.push_back("goodput " + formatFixed(*l.requestGoodput, 2) + " req/s");
        if (l.energyPerOutputTokenJ)
            items.push_back("energy " + formatFixed(*l.energyPerOutputTokenJ, 3) +
                            " J per output token");
        if (const auto& e = d.energySplit) {
            items.push_back(e->phases.empty()
                                ? "energy by phase: not split (" + e->whyNoPhases + ")"
                                : "energy by phase (" + e->phaseSource + "), J per output token: " +
                                      describeEnergyParts(*e, e->phases));
            items.push_back("energy by kernel class, J per output token: " +
                            describeEnergyParts(*e, e->classes) + " (" + describeEnergyModel(*e) +
                            ")");
        }
        if (auto client = clientMeasurementLine(d.properties)) items.push_back(*client);
        doc.list(items);
        doc.image(chartOf(charts, "latency"), "TTFT and TPOT distributions (CDF)");
        doc.image(chartOf(charts, "token-latency"), "Per-token latency across decode steps");
    }

    if (d.itlOutliers) writeItlOutliers(doc, *d.itlOutliers);
    if (d.sweep) writeSweep(doc, *d.sweep, d.run.id, chartOf(charts, "pareto"));
}

// The kernel table over the window.
void writeKernels(Doc& doc, const ReportData& d, const ChartSource& charts) {
    doc.heading(2, "Kernels");
    if (d.summary.kernels.empty()) {
        doc.para("No kernels recorded.");
    } else {
        doc.para(std::string(d.latency.requests.empty()
                                 ? "The whole run"
                                 : "While requests were served (set-up and checks left out)") +
                 ": GPU busy " + formatFixed(100 * d.summary.gpuBusyFraction, 1) + "% of " +
                 formatFixed(d.summary.gpuSpanNs / 1e6, 2) + " ms.");
        std::vector<std::vector<std::string>> rows;
        for (std::size_t i = 0; i < d.summary.kernels.size() && i < 12; ++i) {
            const auto& k = d.summary.kernels[i];
            rows.push_back({formatFixed(k.timePercent, 1), formatFixed(k.time.totalNs / 1e6, 3),
                            std::to_string(k.time.count), formatFixed(k.time.meanNs / 1e3, 2),
                            formatFixed(k.time.medianNs / 1e3, 2), k.name});
        }
        doc.table({"time %", "total ms", "instances", "mean µs", "median µs", "kernel"}, rows);
        doc.image(chartOf(charts, "kernels"), "Kernel breakdown");
    }
}

// The roofline: ceilings and points.
void writeRoofline(Doc& doc, const ReportData& d, const ChartSource& charts) {
    doc.heading(2, "Roofline");
    const auto& r = d.roofline;
    if (r.ceilings.known())
        doc.para("Ceilings: DRAM " + formatFixed(r.ceilings.dramGBs, 0) + " GB/s (" +
                 r.ceilings.dramSource + "), bf16 tensor " +
                 formatFixed(r.ceilings.tensorTflops, 1) + " TFLOP/s (" + r.ceilings.tensorSource +
                 "); ridge " + formatFixed(r.ceilings.ridge(), 1) + " FLOP/B.");
    if (!r.points.empty()) {
        std::vector<std::vector<std::string>> rows;
        for (const auto& p : r.points)
            rows.push_back(
                {p.name, p.origin, formatFixed(p.intensity(), 2), formatFixed(p.tflops(), 2),
                 formatFixed(p.gbs(), 0),
                 r.ceilings.known()
                     ? formatFixed(100 * p.tflops() / r.ceilings.attainableTflops(p.intensity()), 0)
                     : "—",
                 formatFixed(100 * p.timeShare, 1)});
        doc.table({"point", "origin", "FLOP/B", "TFLOP/s", "GB/s", "% of roof", "time %"}, rows);
        doc.image(chartOf(charts, "roofline"), "Roofline");
    }
    for (const auto& n : r.notes)
        doc.para(n);
}

// Theoretical occupancy of the top kernels.
// "2.27 (tail ≤ 33 %)": waves per SM and, with a partial last wave, the
// share of the kernel's time it may take (Nsight Compute's tail effect); a
// grid under one wave leaves SMs idle all its time.
std::string wavesCell(const std::optional<LaunchWaves>& w) {
    if (!w) return "—";
    if (w->hasTail() && w->fullWaves == 0)  // the grid does not fill the GPU once
        return formatFixed(w->wavesPerSm, 2) + " (SMs left idle)";
    return formatFixed(w->wavesPerSm, 2) +
           (w->hasTail() ? " (tail ≤ " + formatFixed(100 * w->tailDurationShare, 0) + " %)" : "");
}

void writeOccupancy(Doc& doc, const ReportData& d, const ChartSource& charts) {
    doc.heading(2, "Occupancy");
    if (d.occupancy.empty()) {
        doc.para("No kernels on a recorded device.");
    } else {
        std::vector<std::vector<std::string>> rows;
        for (const auto& o : d.occupancy)
            rows.push_back(
                {o.name, formatFixed(o.timePercent, 1), std::to_string(o.launch.threadsPerBlock),
                 std::to_string(o.launch.registersPerThread),
                 std::to_string(o.launch.sharedBytesPerBlock),
                 formatFixed(100 * o.occupancy.occupancy, 0) + "%",
                 o.achieved ? formatFixed(100 * *o.achieved, 0) + "%" : "—",
                 o.occupancy.problem.empty() ? describe(o.occupancy.limiter) : o.occupancy.problem,
                 wavesCell(o.waves)});
        doc.table({"kernel", "time %", "threads", "registers", "shared B", "theoretical",
                   "achieved", "limited by", "waves (tail)"},
                  rows);
        doc.para(
            "Theoretical occupancy by the CUDA occupancy calculator's rules, from one launch "
            "of each kernel; achieved occupancy from the sm__warps_active counter where the run "
            "was recorded with --metrics roofline (— otherwise). Waves: the grid over the blocks "
            "all SMs hold at once; a partial last wave leaves SMs idle for up to the share of "
            "the kernel's time in brackets.");
        doc.image(chartOf(charts, "occupancy"), "Theoretical occupancy of the top kernels");
    }
}

// GPU metrics over time (record --gpu-metrics): the window's mean, p99 and
// max per metric, then each top kernel's means.
void writeGpuMetrics(Doc& doc, const ReportData& d) {
    if (d.gpuMetrics.empty()) return;
    doc.heading(2, "GPU metrics");
    auto inUnits = [](const GpuMetricStats& s, double v) {
        const auto name = gpu_metrics::describe(s.metric);
        return formatFixed(v * name.scale, 1) +
               (name.unit.empty() ? "" : " " + std::string(name.unit));
    };
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : d.gpuMetrics)
        rows.push_back({std::string(gpu_metrics::describe(s.metric).label),
                        std::to_string(s.deviceIndex), inUnits(s, s.mean), inUnits(s, s.p99),
                        inUnits(s, s.max)});
    doc.table({"metric", "GPU", "mean", "p99", "max"}, rows);
    if (!d.gpuMetricsByKernel.empty()) {
        std::vector<std::string> header = {"kernel", "time"};
        const auto& first = d.gpuMetricsByKernel.front().stats;
        for (const auto& s : first) {
            // The unit in the header, so a narrow PDF column holds the number.
            const auto name = gpu_metrics::describe(s.metric);
            header.push_back(std::string(name.label) +
                             (name.unit.empty() ? "" : " " + std::string(name.unit)));
        }
        std::vector<std::vector<std::string>> kernels;
        for (const auto& g : d.gpuMetricsByKernel) {
            std::vector<std::string> row = {shortKernelName(demangle(g.name), true),
                                            formatDuration(g.totalNs)};
            for (const auto& h : first) {
                auto it = std::find_if(g.stats.begin(), g.stats.end(),
                                       [&](const auto& s) { return s.metric == h.metric; });
                row.push_back(
                    it == g.stats.end()
                        ? "—"
                        : formatFixed(it->mean * gpu_metrics::describe(it->metric).scale, 1));
            }
            kernels.push_back(std::move(row));
        }
        doc.table(header, kernels);
    }
    doc.para(
        "Sampled device-wide by the GPU's performance monitors (CUPTI PM sampling) while "
        "the program ran. A kernel's figures are the means over the samples that overlap "
        "its launches, each weighted by the time it shares with them: for kernels shorter "
        "than a sample they include what ran around them (warpscope-cli gpu-metrics RUN "
        "--by kernel says how much).");
}

// Where the most-sampled kernels stall (record --pc-sampling): each one's
// share of the run's samples, its top stall reasons and its hottest lines.
void writeStalls(Doc& doc, const ReportData& d) {
    if (d.stalls.empty()) return;
    doc.heading(2, "Where kernels stall");
    std::vector<std::vector<std::string>> rows;
    auto pct = [](double share) { return formatFixed(100 * share, 1) + "%"; };
    for (const auto& k : d.stalls) {
        std::string reasons;
        for (std::size_t i = 0; i < k.reasons.size() && i < 3; ++i)
            reasons += (i ? ", " : "") + k.reasons[i].title + " " + pct(k.reasons[i].share);
        std::string lines;
        for (const auto& l : k.lines)
            lines += (lines.empty() ? "" : ", ") + sourceLineText(l.sourceFile, l.line) + " " +
                     pct(l.share);
        rows.push_back({shortKernelName(demangle(k.function), true), pct(k.runShare), reasons,
                        lines.empty() ? "— (no -lineinfo)" : lines});
    }
    doc.table({"kernel", "share of samples", "top stall reasons", "hottest lines"}, rows);
    std::string about =
        "CUPTI's PC sampler looked at one warp per SM at a fixed period while the program ran "
        "and noted why it was not issuing (Nsight Compute's stall reasons). Shares are of each "
        "kernel's samples; warpscope-cli kernel RUN NAME lists every reason, line and "
        "instruction with its SASS text.";
    if (const auto cost = samplerCostText(d.properties, d.run.durationNs()); !cost.empty())
        about += " Sampling cost: " + cost +
                 " (draining CUPTI's buffers, source lines and SASS text; the hardware's "
                 "sampling itself is not in it).";
    doc.para(about);
}

// The run against its baseline.
void writeComparison(Doc& doc, const ReportData& d) {
    if (d.comparison) {
        doc.heading(2, "Against the baseline");
        const auto& c = *d.comparison;
        std::vector<std::vector<std::string>> rows;
        for (const auto& m : c.latency)
            rows.push_back(
                {m.metric, formatFixed(m.base, 3), formatFixed(m.candidate, 3),
                 "x" + formatFixed(m.speedup, 2),
                 m.ciLow ? "[" + formatFixed(*m.ciLow, 3) + ", " + formatFixed(*m.ciHigh, 3) + "]"
                         : "—",
                 toString(m.verdict)});
        if (!rows.empty())
            doc.table({"metric", "baseline", "this run", "speedup", "delta 95% CI", "verdict"},
                      rows);
        std::vector<std::vector<std::string>> kernels;
        for (std::size_t i = 0; i < c.kernels.size() && i < 10; ++i) {
            const auto& k = c.kernels[i];
            const bool both = k.presence == KernelDelta::Presence::Both;
            const std::string presence =
                k.presence == KernelDelta::Presence::New ? "new" : "vanished";
            kernels.push_back(
                {k.name,
                 std::to_string(k.baseLaunches) + " → " + std::to_string(k.candidateLaunches),
                 formatFixed(k.baseTotalNs / 1e6, 3) + " → " +
                     formatFixed(k.candidateTotalNs / 1e6, 3),
                 both ? toString(k.totalVerdict) : presence,
                 both ? formatFixed(k.baseMeanNs / 1e3, 2) + " → " +
                            formatFixed(k.candidateMeanNs / 1e3, 2)
                      : "—",
                 both ? toString(k.perLaunchVerdict) : presence});
        }
        if (!kernels.empty()) {
            doc.para(
                "Kernels while requests were served (the whole run when it has none). "
                "Total time and time per launch each carry their own verdict: fewer "
                "launches can lower the total while each launch got slower.");
            doc.table({"kernel", "launches", "total ms", "total verdict", "per launch µs",
                       "per launch verdict"},
                      kernels);
        }
        std::vector<std::vector<std::string>> memory;
        for (const auto& m : c.memory)
            memory.push_back({m.name, m.base ? formatBytes(std::int64_t(*m.base)) : "—",
                              m.candidate ? formatBytes(std::int64_t(*m.candidate)) : "—"});
        if (!memory.empty()) doc.table({"memory", "baseline", "this run"}, memory);
        for (const auto& n : c.notes)
            doc.para(n);
    }
}

// Output quality checks.
void writeQuality(Doc& doc, const ReportData& d) {
    doc.heading(2, "Output quality");
    if (d.quality.empty()) {
        doc.para(
            "No quality check in this run (the built-in decoder checks optimized and "
            "quantized variants against its reference variant).");
    } else {
        std::vector<std::vector<std::string>> rows;
        for (const auto& q : d.quality)
            rows.push_back({q.check, q.referenceVariant, formatFixed(q.tokenAgreement, 3),
                            formatFixed(q.maxLogitError, 4), formatFixed(q.tolerance, 4),
                            q.passed ? "pass" : "FAIL"});
        doc.table({"check", "against", "token agreement", "max logit error", "tolerance", "result"},
                  rows, 5);
    }
}

// What the capture recorded and what it cost.
void writeCapture(Doc& doc, const ReportData& d) {
    doc.heading(2, "Capture");
    // A run without a device traced nothing (a bench serve load without
    // --server, an imported result): no capture advice for it.
    std::vector<std::string> capture;
    if (!d.device)
        capture = {
            "nothing was traced: the run holds what a client measured (requests and "
            "tokens); record the server with bench serve --server to see its GPU side"};
    else
        capture = {"dropped records: " + std::to_string(d.run.droppedRecords) +
                       (d.run.droppedRecords ? " — the timeline is incomplete" : ""),
                   "CUPTI overhead intervals recorded: " + std::to_string(d.overheadCount),
                   coldStartNote(d.coldStart), captureCostNote(d)};
    if (auto range = captureRangeLine(d.properties, d.run.durationNs()))
        capture.push_back("capture range: " + *range);
    if (auto conflict = d.properties.find("capture.cupti_conflict"); conflict != d.properties.end())
        capture.push_back(conflict->second == "warpscope"
                              ? "another profiler held CUPTI's callbacks first: CUDA graph nodes "
                                "and hardware counters are missing"
                              : "another profiler in the program could not subscribe to CUPTI "
                                "while this run was recorded: its trace lacks CUDA activity, "
                                "this run is complete");
    doc.list(capture);
}

}  // namespace

std::string writeReport(const ReportData& d, ReportFormat format, const ChartSource& chartSource) {
    Doc doc(format);
    std::string title = "Warpscope report: run " + std::to_string(d.run.id) +
                        (d.run.label.empty() ? "" : " — " + d.run.label);
    doc.heading(1, title);
    std::string sub = std::string("status ") + toString(d.run.status) + " · started " +
                      formatTimestamp(d.run.startedAtNs) + " · " +
                      (d.device ? d.device->name : std::string("no device")) +
                      (d.baseline ? " · baseline run " + std::to_string(d.baseline->id) + " (" +
                                        d.baseline->label + ")"
                                  : "");
    doc.para(sub, "subtitle");

    if (!d.findings.empty()) {
        doc.heading(2, "Findings");
        for (const auto& f : d.findings)
            doc.finding(f);
        if (!doc.html()) doc.para("");
    }
    writeNextOptimizations(doc, d);
    writeTokenSteps(doc, d);
    writeEngineStepSol(doc, d);

    writeContract(doc, d);
    writeEnvironment(doc, d);
    writeLatency(doc, d, chartSource);
    writeKernels(doc, d, chartSource);
    writeRoofline(doc, d, chartSource);
    writeOccupancy(doc, d, chartSource);
    writeGpuMetrics(doc, d);
    writeStalls(doc, d);
    writeComparison(doc, d);
    writeQuality(doc, d);
    writeCapture(doc, d);

    doc.heading(2, "What this run does not have");
    doc.list(d.missing);

    if (!doc.html()) return doc.str();
    // The script only marks, once loaded, how many charts decoded: what the
    // headless-browser test of the report reads back.
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
           escapeHtml(title) + "</title><style>" + kCss + "</style></head><body>\n" + doc.str() +
           "<script>window.addEventListener('load', () => { const i = [...document.images];"
           " document.body.dataset.chartsDrawn = i.filter(x => x.naturalWidth > 0).length;"
           " document.body.dataset.brokenImages = i.filter(x => x.naturalWidth === 0).length;"
           " });</script>\n</body></html>\n";
}

}  // namespace ws
