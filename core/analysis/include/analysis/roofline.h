// The roofline of a run: ceilings (measured by the run where it has them, else
// the device spec table in resources/devices/gpu_specs.json) and points, one
// per kernel rung or decoder phase, each with FLOPs, DRAM bytes and time.
// Point sources, best first: hardware counters (kernel_metrics), the FLOPs and
// bytes a kernel declares in its NVTX range ("<kernel>/<rung> flops=F bytes=B"),
// the decoder model (prefill and decode step).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/records.h"

namespace ws {

class Store;

struct DeviceSpec {
    std::string name;
    std::vector<std::string> match;
    double dramGBs = 0, fp32Tflops = 0, bf16TensorTflops = 0;
    std::string source;
};

// The table compiled from resources/devices/gpu_specs.json.
const std::vector<DeviceSpec>& deviceSpecs();
// Parses a table in that format; throws std::runtime_error naming the entry and field.
std::vector<DeviceSpec> parseDeviceSpecs(const std::string& json);
const DeviceSpec* findDeviceSpec(const std::string& deviceName);

struct RooflineCeilings {
    double dramGBs = 0;
    double fp32Tflops = 0;
    double tensorTflops = 0;
    std::string dramSource, tensorSource, fp32Source;  // "measured …" or the spec entry
    bool known() const { return dramGBs > 0 && tensorTflops > 0; }
    // The ridge point: FLOP per byte where the tensor roof meets the DRAM slope.
    double ridge() const { return dramGBs > 0 ? tensorTflops * 1e3 / dramGBs : 0; }
    // Attainable TFLOP/s at an arithmetic intensity under the tensor roof.
    double attainableTflops(double intensity) const;
};

struct RooflinePoint {
    std::string name;    // kernel/rung or phase
    std::string origin;  // "counters", "declared" or "model"
    double flops = 0;    // per instance
    double bytes = 0;    // per instance
    double meanNs = 0;   // per instance
    std::int64_t instances = 0;
    double timeShare = 0;  // of the points' total time
    // Points by range: their kernels' occupancy, weighted by kernel time
    // (theoretical from each launch's resources; achieved where counted).
    std::optional<double> theoreticalOccupancy, achievedOccupancy;
    double intensity() const { return bytes > 0 ? flops / bytes : 0; }
    double tflops() const { return meanNs > 0 ? flops / meanNs * 1e-3 : 0; }
    double gbs() const { return meanNs > 0 ? bytes / meanNs : 0; }
};

struct Roofline {
    std::string device;
    RooflineCeilings ceilings;
    std::vector<RooflinePoint> points;  // by total time, largest first
    std::vector<std::string> notes;     // what is missing and why
};

Roofline computeRoofline(Store& store, RunId id);

// The same ceilings with a point per NVTX range instead of per kernel: the
// counted kernels launched inside each innermost range (or, replayed from a
// CUDA graph, captured inside it) pooled, so the roofline shows a model's
// operations (attention, MLP, …) rather than its kernels. Needs hardware
// counters (record --metrics roofline); notes say what is missing. The
// ceilings come from `byKernel`, the run's computeRoofline, when given.
Roofline computeRangeRoofline(Store& store, RunId id, const Roofline* byKernel = nullptr);

}  // namespace ws
