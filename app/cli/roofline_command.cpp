// warpscope-cli roofline: a run's ceilings and its points (kernel rungs,
// decoder phases; or, --by range, the NVTX ranges its counted kernels were
// launched or captured in, with their occupancy) with intensity, achieved
// FLOP/s and bandwidth, and the fraction of the attainable roof each reaches.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/roofline.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/open_store.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::cli {

int cmdRoofline(const std::vector<std::string>& argv) {
    auto args = Args::parse(argv, {{"json"}, {"db", "by"}, 1, 1});
    auto id = parseRunId(args.positional()[0]);
    const std::string by = args.valueOr("by", "kernel");
    if (by != "kernel" && by != "range")
        throw UsageError("--by must be kernel or range, not '" + by + "'");
    auto opened = openStore(args);
    requireRun(*opened, id);
    const bool byRange = by == "range";
    auto r = byRange ? computeRangeRoofline(*opened, id) : computeRoofline(*opened, id);
    const auto& c = r.ceilings;
    if (args.flag("json")) {
        nlohmann::ordered_json j;
        j["device"] = r.device;
        j["ceilings"] = {{"dram_gbs", c.dramGBs},           {"dram_source", c.dramSource},
                         {"tensor_tflops", c.tensorTflops}, {"tensor_source", c.tensorSource},
                         {"fp32_tflops", c.fp32Tflops},     {"fp32_source", c.fp32Source},
                         {"ridge_flop_per_byte", c.ridge()}};
        j["points"] = nlohmann::ordered_json::array();
        for (const auto& p : r.points) {
            nlohmann::ordered_json row = {{"name", p.name},
                                          {"origin", p.origin},
                                          {"flops", p.flops},
                                          {"bytes", p.bytes},
                                          {"mean_ns", p.meanNs},
                                          {"instances", p.instances},
                                          {"time_share", p.timeShare},
                                          {"intensity", p.intensity()},
                                          {"tflops", p.tflops()},
                                          {"gbs", p.gbs()}};
            if (c.known()) row["fraction_of_roof"] = p.tflops() / c.attainableTflops(p.intensity());
            if (p.theoreticalOccupancy) row["theoretical_occupancy"] = *p.theoreticalOccupancy;
            if (p.achievedOccupancy) row["achieved_occupancy"] = *p.achievedOccupancy;
            j["points"].push_back(row);
        }
        j["notes"] = r.notes;
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return 0;
    }
    std::printf("device %s\n", r.device.empty() ? "(none)" : r.device.c_str());
    if (c.known())
        std::printf(
            "ceilings: DRAM %.0f GB/s (%s), bf16 tensor %.1f TFLOP/s (%s); ridge %.1f FLOP/B\n",
            c.dramGBs, c.dramSource.c_str(), c.tensorTflops, c.tensorSource.c_str(), c.ridge());
    if (!r.points.empty()) {
        // The name last, as summary prints it: range names run long.
        std::printf("\n%-8s %10s %9s %9s %11s %6s %6s", "origin", "FLOP/B", "TFLOP/s", "GB/s",
                    "mean", "roof%", "time%");
        if (byRange) std::printf(" %8s %8s", "occ.theo", "occ.ach");
        std::printf("  %s\n", byRange ? "range" : "point");
    }
    auto percent = [](const std::optional<double>& v) {
        char text[16];
        std::snprintf(text, sizeof text, "%.1f", v.value_or(0) * 100);
        return v ? std::string(text) : std::string("-");
    };
    for (const auto& p : r.points) {
        double roof = c.known() ? 100 * p.tflops() / c.attainableTflops(p.intensity()) : 0;
        std::printf("%-8s %10.2f %9.2f %9.1f %8.3f ms %6.1f %6.1f", p.origin.c_str(), p.intensity(),
                    p.tflops(), p.gbs(), p.meanNs / 1e6, roof, 100 * p.timeShare);
        if (byRange)
            std::printf(" %8s %8s", percent(p.theoreticalOccupancy).c_str(),
                        percent(p.achievedOccupancy).c_str());
        std::printf("  %s\n", p.name.c_str());
    }
    for (const auto& n : r.notes)
        std::printf("note: %s\n", n.c_str());
    return 0;
}

}  // namespace ws::cli
