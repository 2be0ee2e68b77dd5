// CUPTI's PC-sampling buffers read into samples per instruction and stall
// reason, and kept in a file for reading again without a GPU: the collector
// writes every buffer CUPTI hands it when WARPSCOPE_PC_SAMPLING_KEEP names a
// folder (DIR/pc-sampling-PID.bin, one per sampled process), and tests read a
// buffer recorded on a GPU (tests/data) through the same code the collector
// uses.
#pragma once

#include <cupti_pcsampling.h>

#include <compare>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "model/records.h"

namespace ws::capture {

// Where a sample landed: a kernel's instruction in one module.
struct SampledInstruction {
    std::string function;
    std::uint64_t cubinCrc = 0;
    std::uint64_t pcOffset = 0;
    auto operator<=>(const SampledInstruction&) const = default;
};

// Samples per instruction, per stall reason (CUPTI's name).
using PcSampleTable = std::map<SampledInstruction, std::map<std::string, std::int64_t>>;

// Adds one buffer CUPTI filled (cuptiPCSamplingGetData, or the configured
// buffer at disable) to `table` and `totals`; reasons are named through
// `reasonNames` (CUPTI's index → name), an unknown index as "stall reason N".
void absorbPcSamplingData(const CUpti_PCSamplingData& data,
                          const std::map<std::uint32_t, std::string>& reasonNames,
                          PcSampleTable& table, PcSamplingTotals& totals);

// The file kept by WARPSCOPE_PC_SAMPLING_KEEP: the stall-reason table once
// per context, then each buffer as CUPTI filled it (only its filled PCs).
inline constexpr const char* kKeepEnvironment = "WARPSCOPE_PC_SAMPLING_KEEP";
void keepStallReasons(std::FILE* file, const std::map<std::uint32_t, std::string>& reasonNames);
void keepPcSamplingData(std::FILE* file, const CUpti_PCSamplingData& data);

// Reads a kept file through absorbPcSamplingData; false with `why` (what is
// wrong, at which byte) for a file that is not one or is cut short.
bool readKeptPcSampling(const std::string& path, PcSampleTable& table, PcSamplingTotals& totals,
                        std::string& why);

}  // namespace ws::capture
