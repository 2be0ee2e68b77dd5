// warpscope-cli compare: runs against a baseline, with confidence intervals.
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/compare.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "cli/window_arg.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::cli {

namespace {
nlohmann::ordered_json optJson(const std::optional<double>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json metricJson(const MetricDelta& d) {
    return {{"metric", d.metric},
            {"base", d.base},
            {"candidate", d.candidate},
            {"delta", d.delta},
            {"speedup", d.speedup},
            {"ci95_low", optJson(d.ciLow)},
            {"ci95_high", optJson(d.ciHigh)},
            {"verdict", toString(d.verdict)}};
}

const char* presence(KernelDelta::Presence p) {
    switch (p) {
        case KernelDelta::Presence::New:
            return "new";
        case KernelDelta::Presence::Vanished:
            return "vanished";
        default:
            return "both";
    }
}
}  // namespace

int cmdCompare(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "top", "window"}, 2, 64});
    auto opened = openStore(args);
    Store& store = *opened;
    auto base = parseRunId(args.positional()[0]);
    requireRun(store, base);
    auto window = parseWindowArg(args, WindowChoice::Kind::Requests);
    auto top = static_cast<std::size_t>(
        args.value("top") ? parseInteger("top", *args.value("top"), 1, 100000) : 15);
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (std::size_t i = 1; i < args.positional().size(); ++i) {
        auto cand = parseRunId(args.positional()[i]);
        requireRun(store, cand);
        auto c = compareRuns(store, base, cand, kComparisonResamples, window);
        if (args.flag("json")) {
            nlohmann::ordered_json j = {{"base", base}, {"candidate", cand}};
            j["latency"] = nlohmann::ordered_json::array();
            for (const auto& d : c.latency)
                j["latency"].push_back(metricJson(d));
            j["kernel_window"] = {
                {"spec", toSpec(window)}, {"base", c.baseWindow}, {"candidate", c.candidateWindow}};
            j["total_kernel_time"] = c.totalKernelTime ? metricJson(*c.totalKernelTime) : nullptr;
            j["kernels"] = nlohmann::ordered_json::array();
            for (const auto& k : c.kernels)
                j["kernels"].push_back(
                    {{"name", k.name},
                     {"presence", presence(k.presence)},
                     {"launches", {{"base", k.baseLaunches}, {"candidate", k.candidateLaunches}}},
                     {"total_ns",
                      {{"base", k.baseTotalNs},
                       {"candidate", k.candidateTotalNs},
                       {"delta", k.candidateTotalNs - k.baseTotalNs},
                       {"ci95_low", optJson(k.totalCiLow)},
                       {"ci95_high", optJson(k.totalCiHigh)},
                       {"verdict", toString(k.totalVerdict)}}},
                     {"per_launch_ns",
                      {{"base", k.baseMeanNs},
                       {"candidate", k.candidateMeanNs},
                       {"delta", k.candidateMeanNs - k.baseMeanNs},
                       {"ci95_low", optJson(k.ciLow)},
                       {"ci95_high", optJson(k.ciHigh)},
                       {"verdict", toString(k.perLaunchVerdict)}}}});
            j["memory"] = nlohmann::ordered_json::array();
            for (const auto& m : c.memory)
                j["memory"].push_back({{"name", m.name},
                                       {"base", optJson(m.base)},
                                       {"candidate", optJson(m.candidate)}});
            j["quality"] = nlohmann::ordered_json::array();
            for (const auto& q : c.quality) {
                auto side = [](const std::optional<QualityRecord>& r) -> nlohmann::ordered_json {
                    if (!r) return nullptr;
                    return {{"token_agreement", r->tokenAgreement},
                            {"max_logit_error", r->maxLogitError},
                            {"tolerance", r->tolerance},
                            {"passed", r->passed}};
                };
                j["quality"].push_back(
                    {{"check", q.check}, {"base", side(q.base)}, {"candidate", side(q.candidate)}});
            }
            j["notes"] = c.notes;
            all.push_back(j);
            continue;
        }
        std::cout << "run " << cand << " against baseline " << base << "\n";
        std::cout << std::fixed << std::setprecision(3);
        for (const auto& d : c.latency) {
            std::cout << "  " << std::left << std::setw(20) << d.metric << std::right
                      << std::setw(11) << d.base << " -> " << std::setw(11) << d.candidate << "  x"
                      << std::setprecision(2) << d.speedup << std::setprecision(3);
            if (d.ciLow) std::cout << "  delta 95% CI [" << *d.ciLow << ", " << *d.ciHigh << "]";
            std::cout << "  " << toString(d.verdict) << '\n';
        }
        if (c.totalKernelTime)
            std::cout << "  total kernel time  " << c.totalKernelTime->base << " ms -> "
                      << c.totalKernelTime->candidate << " ms  x" << std::setprecision(2)
                      << c.totalKernelTime->speedup << '\n';
        if (!c.kernels.empty())
            std::cout << "  kernels, each quantity with its own verdict; window: baseline "
                      << c.baseWindow << ", candidate " << c.candidateWindow
                      << "\n"
                      // setw counts bytes: one more for the two bytes of µ.
                      << "    " << std::left << std::setw(15) << "launches" << std::setw(43)
                      << "total µs (delta, verdict)" << std::setw(36)
                      << "per launch µs (delta, verdict)"
                      << "kernel\n"
                      << std::right;
        for (std::size_t k = 0; k < c.kernels.size() && k < top; ++k) {
            const auto& d = c.kernels[k];
            std::ostringstream launches, total, perLaunch;
            launches << d.baseLaunches << " -> " << d.candidateLaunches;
            total << std::fixed << std::setprecision(1) << d.baseTotalNs / 1e3 << " -> "
                  << d.candidateTotalNs / 1e3;
            if (d.presence == KernelDelta::Presence::Both) {
                total << " (" << std::showpos << (d.candidateTotalNs - d.baseTotalNs) / 1e3
                      << std::noshowpos << ", " << toString(d.totalVerdict) << ")";
                perLaunch << std::fixed << std::setprecision(2) << d.baseMeanNs / 1e3 << " -> "
                          << d.candidateMeanNs / 1e3 << " (" << std::showpos
                          << (d.candidateMeanNs - d.baseMeanNs) / 1e3 << std::noshowpos << ", "
                          << toString(d.perLaunchVerdict) << ")";
            } else {
                total << " (" << presence(d.presence) << ")";
                perLaunch << "-";
            }
            std::cout << "    " << std::left << std::setw(15) << launches.str() << std::setw(42)
                      << total.str() << std::setw(35) << perLaunch.str() << d.name << std::right
                      << '\n';
        }
        for (const auto& m : c.memory) {
            auto gib = [](const std::optional<double>& v) {
                std::ostringstream s;
                if (v)
                    s << std::fixed << std::setprecision(3) << *v / 1073741824.0 << " GiB";
                else
                    s << "-";
                return s.str();
            };
            std::cout << "  " << std::left << std::setw(26) << m.name << std::right << std::setw(12)
                      << gib(m.base) << " -> " << std::setw(12) << gib(m.candidate) << '\n';
        }
        for (const auto& q : c.quality) {
            auto side = [](const std::optional<QualityRecord>& r) {
                std::ostringstream s;
                if (!r) return std::string("-");
                s << std::setprecision(3) << "agreement " << r->tokenAgreement << ", error "
                  << r->maxLogitError << (r->passed ? " (passed)" : " (FAILED)");
                return s.str();
            };
            std::cout << "  quality: " << side(q.base) << " -> " << side(q.candidate) << "  ["
                      << q.check << "]\n";
        }
        for (const auto& n : c.notes)
            std::cout << "  note: " << n << '\n';
    }
    if (args.flag("json"))
        std::cout << all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return 0;
}

}  // namespace ws::cli
