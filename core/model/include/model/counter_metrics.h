// The hardware counters `record --metrics roofline` collects per kernel
// (CUPTI range profiler, kernel replay), and what they mean. Capture asks for
// these names; analysis turns their values into FLOPs, DRAM bytes and
// achieved occupancy. Names are Nsight Compute's (PerfWorks) metric names.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>

namespace ws::counters {

// FP32 and FP16 non-tensor work: thread-level SASS instruction counts with
// predicate on; an FMA is two FLOPs (as Nsight Compute's roofline counts).
inline constexpr const char* kFadd = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum";
inline constexpr const char* kFmul = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum";
inline constexpr const char* kFfma = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum";
inline constexpr const char* kHadd = "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum";
inline constexpr const char* kHmul = "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum";
inline constexpr const char* kHfma = "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum";
// Tensor-core work, which Nsight Compute's default roofline leaves out.
inline constexpr const char* kTensorBf16 = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
inline constexpr const char* kTensorFp16 = "sm__ops_path_tensor_src_fp16.sum";
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
inline constexpr const char* kAchievedOccupancy =
    "sm__warps_active.avg.pct_of_peak_sustained_active";

// Kernel replay leaves kernel records without timestamps: this is their duration.
inline constexpr const char* kDuration = "gpu__time_duration.sum";

// clang-format off
inline constexpr std::array<const char*, 12> kRoofline = {
    kFadd, kFmul, kFfma, kHadd, kHmul, kHfma, kTensorBf16, kTensorFp16,
    kDramRead, kDramWrite, kAchievedOccupancy, kDuration};
// clang-format on

// DRAM bytes alone: one replay pass, so no replay saves and restores memory
// around the kernel and, with L2 emptied before it, its bytes are its own:
// they agree with Nsight Compute's (--cache-control all) on the H200, where
// the 12 roofline metrics take 4 passes and their writes carry the replay's
// own writebacks (docs/benchmarks.md, scripts/gpu/dram-vs-ncu.sh).
inline constexpr std::array<const char*, 3> kDram = {kDramRead, kDramWrite, kDuration};

// FLOPs one tensor "op" of the metrics above stands for (a multiply-add is two
// FLOPs); checked on the H200 against 2·M·N·K of the GEMM ladder
// (docs/benchmarks.md).
inline constexpr double kFlopsPerTensorOp = 1.0;

struct KernelCounters {
    double fp32Flops = 0;
    double fp16Flops = 0;
    double tensorFlops = 0;
    double dramBytes = 0;
    std::optional<double> achievedOccupancy;  // 0..1
    bool flopsCounted = false;                // any FLOP metric was among the values
    double flops() const { return fp32Flops + fp16Flops + tensorFlops; }
};

// From one kernel's metric values; nullopt when none of the roofline metrics is there.
std::optional<KernelCounters> fromMetrics(const std::map<std::string, double>& values);

}  // namespace ws::counters
