#include "analysis/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis/kernel_counters.h"
#include "analysis/kernel_summary.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws {

extern const char* const kDeviceSpecsJson;

std::vector<DeviceSpec> parseDeviceSpecs(const std::string& text) {
    auto j = nlohmann::json::parse(text);
    std::vector<DeviceSpec> out;
    int index = 0;
    for (const auto& e : j.at("devices")) {
        DeviceSpec d;
        try {
            d.name = e.at("name").get<std::string>();
            d.match = e.at("match").get<std::vector<std::string>>();
            d.dramGBs = e.at("dram_gbs").get<double>();
            d.fp32Tflops = e.at("fp32_tflops").get<double>();
            d.bf16TensorTflops = e.at("bf16_tensor_tflops").get<double>();
            d.source = e.at("source").get<std::string>();
        } catch (const nlohmann::json::exception& err) {
            throw std::runtime_error("device spec table, entry " + std::to_string(index) + " (" +
                                     d.name + "): " + err.what());
        }
        if (d.dramGBs <= 0 || d.bf16TensorTflops <= 0 || d.match.empty())
            throw std::runtime_error("device spec table, entry " + d.name +
                                     ": bandwidth, tensor peak and match must be set");
        out.push_back(std::move(d));
        ++index;
    }
    return out;
}

const std::vector<DeviceSpec>& deviceSpecs() {
    static const std::vector<DeviceSpec> specs = parseDeviceSpecs(kDeviceSpecsJson);
    return specs;
}

const DeviceSpec* findDeviceSpec(const std::string& deviceName) {
    for (const auto& d : deviceSpecs())
        for (const auto& m : d.match)
            if (deviceName.find(m) != std::string::npos) return &d;
    return nullptr;
}

double RooflineCeilings::attainableTflops(double intensity) const {
    return std::min(tensorTflops, dramGBs * intensity * 1e-3);
}

namespace {

struct DeclaredWork {
    std::string kernel;
    double flops = 0, bytes = 0;
};

// "<kernel>/<rung> flops=F bytes=B", parsed by hand: std::regex_match recursed
// per character and overflowed the stack on a 50,000-character range name.
std::optional<DeclaredWork> parseDeclaredWork(const std::string& name) {
    auto bytesAt = name.rfind(" bytes=");
    auto flopsAt = name.rfind(" flops=", bytesAt);
    if (bytesAt == std::string::npos || flopsAt == std::string::npos || flopsAt == 0)
        return std::nullopt;
    DeclaredWork w;
    w.kernel = name.substr(0, flopsAt);
    auto slash = w.kernel.find('/');
    if (slash == 0 || slash == std::string::npos || slash + 1 == w.kernel.size() ||
        w.kernel.find_first_of(" \t") != std::string::npos)
        return std::nullopt;
    auto number = [](const std::string& text, double& out) {
        if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos)
            return false;
        char* end = nullptr;
        out = std::strtod(text.c_str(), &end);
        return end == text.c_str() + text.size() && std::isfinite(out);
    };
    if (!number(name.substr(flopsAt + 7, bytesAt - flopsAt - 7), w.flops) ||
        !number(name.substr(bytesAt + 7), w.bytes))
        return std::nullopt;
    return w;
}

// Ceilings, FLOPs and bytes only count when positive.
struct Accumulator {
    std::string origin;
    double flops = 0, bytes = 0, totalNs = 0;
    std::int64_t instances = 0;
};

}  // namespace

Roofline computeRoofline(Store& store, RunId id) {
    Roofline r;
    auto device = runDevice(store, id);
    r.device = device ? device->name : "";
    auto props = runProperties(store, id);
    const DeviceSpec* spec = device ? findDeviceSpec(device->name) : nullptr;
    // In a counter pass every kernel is replayed: what the run measured
    // (ceilings, phase times) is not performance; only counted kernel
    // durations are.
    bool counterPass = props.count("capture.metrics") > 0;
    std::optional<double> copyGBs, bf16Tflops;
    if (!counterPass) {
        copyGBs = positiveProperty(props, "ceiling.copy_gbs");
        bf16Tflops = positiveProperty(props, "ceiling.bf16_tflops");
    }
    if (auto bw = copyGBs) {
        r.ceilings.dramGBs = *bw;
        r.ceilings.dramSource = "measured device-to-device copy in this run";
    } else if (spec) {
        r.ceilings.dramGBs = spec->dramGBs;
        r.ceilings.dramSource = spec->name + " datasheet";
    }
    if (auto tf = bf16Tflops) {
        r.ceilings.tensorTflops = *tf;
        r.ceilings.tensorSource = "measured cuBLAS bf16 GEMM in this run";
    } else if (spec) {
        r.ceilings.tensorTflops = spec->bf16TensorTflops;
        r.ceilings.tensorSource = spec->name + " datasheet";
    }
    if (spec) {
        r.ceilings.fp32Tflops = spec->fp32Tflops;
        r.ceilings.fp32Source = spec->name + " datasheet";
    }
    if (!r.ceilings.known())
        r.notes.push_back(device ? "no ceilings: '" + device->name +
                                       "' is not in the device table and the run measured none"
                                 : "no ceilings: the run has no device");

    std::map<std::string, Accumulator> points;
    // Hardware counters, where the run has them: one point per kernel.
    auto counted = kernelCounterStats(store, id);
    for (const auto& [mangled, c] : counted) {
        // A kernel without FLOPs (a copy) has no place on a log-log roofline.
        if (c.meanNs <= 0 || c.meanFlops <= 0 || c.meanDramBytes <= 0) continue;
        auto& p = points[shortKernelName(demangle(mangled))];
        // Kernels sharing a short name (template instances) pool their launches.
        double n = double(p.instances + c.instances);
        p.origin = "counters";
        p.flops = (p.flops * double(p.instances) + c.meanFlops * double(c.instances)) / n;
        p.bytes = (p.bytes * double(p.instances) + c.meanDramBytes * double(c.instances)) / n;
        p.totalNs += c.meanNs * double(c.instances);
        p.instances += c.instances;
    }
    // Kernel ladders: "<kernel>/<rung> flops=F bytes=B" around the timed launches;
    // counters of the same kernels make them redundant.
    auto ranges = rangesIn(store, id);
    std::vector<double> steps;
    std::optional<RangeRecord> prefill;
    for (const auto& range : ranges) {
        std::optional<DeclaredWork> declared;
        if (counted.empty() && (declared = parseDeclaredWork(range.name))) {
            auto& p = points[declared->kernel];
            p.origin = "declared";
            p.flops = declared->flops;
            p.bytes = declared->bytes;
            forEachKernel(store, id, TimeWindow{range.startNs, range.endNs}, std::nullopt,
                          [&](const KernelRecord& k) {
                              if (k.startNs < range.startNs || k.endNs > range.endNs) return;
                              p.totalNs += double(k.endNs - k.startNs);
                              ++p.instances;
                          });
        } else if (range.name == "prefill") {
            prefill = range;
        } else if (range.name.rfind("decode step ", 0) == 0) {
            steps.push_back(double(range.endNs - range.startNs));
        }
    }
    // The decoder: its phases as points from the model's FLOPs and bytes.
    auto prefillFlops = positiveProperty(props, "decoder.prefill_flops");
    auto weightBytes = positiveProperty(props, "model.weight_bytes");
    if (prefill && prefillFlops && weightBytes && !counterPass) {
        auto& p = points["prefill"];
        p.origin = "model";
        p.flops = *prefillFlops;
        p.bytes = *weightBytes;
        p.totalNs = double(prefill->endNs - prefill->startNs);
        p.instances = 1;
    }
    auto stepFlops = positiveProperty(props, "decoder.decode_step_flops");
    auto stepBytes = positiveProperty(props, "decoder.decode_step_bytes");
    if (!steps.empty() && stepFlops && stepBytes && !counterPass) {
        auto& p = points["decode step"];
        p.origin = "model";
        p.flops = *stepFlops;
        p.bytes = *stepBytes;
        for (double s : steps)
            p.totalNs += s;
        p.instances = std::int64_t(steps.size());
    }
    double total = 0;
    for (const auto& [name, a] : points)
        if (a.instances > 0) total += a.totalNs;
    for (const auto& [name, a] : points) {
        if (a.instances == 0 || a.totalNs <= 0) continue;
        RooflinePoint p;
        p.name = name;
        p.origin = a.origin;
        p.flops = a.flops;
        p.bytes = a.bytes;
        p.instances = a.instances;
        p.meanNs = a.totalNs / double(a.instances);
        p.timeShare = total > 0 ? a.totalNs / total : 0;
        r.points.push_back(p);
    }
    std::sort(r.points.begin(), r.points.end(), [](const auto& a, const auto& b) {
        return a.meanNs * double(a.instances) > b.meanNs * double(b.instances);
    });
    if (!counted.empty())
        r.notes.push_back(
            "kernel points from hardware counters (kernel replay): their times come from "
            "replayed launches");
    if (r.points.empty())
        r.notes.push_back(
            "no points: no hardware counters, no kernel ranges declaring FLOPs and bytes, no "
            "decoder phases in this run");
    return r;
}

}  // namespace ws
