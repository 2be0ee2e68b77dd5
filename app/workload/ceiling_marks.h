// The device's roofline ceilings, measured where a workload starts and marked
// as run properties (ceiling.copy_gbs, ceiling.bf16_tflops) inside an NVTX
// range, so the floors the analysis sets (decode steps, engine steps, the
// roofline) use this GPU's figures, not a spec sheet's.
#pragma once

#include <cuda_runtime.h>

namespace ws::workload {

struct MeasuredCeilings {
    double copyGBs = 0;
    double bf16Tflops = 0;
};
MeasuredCeilings markMeasuredCeilings(cudaStream_t stream);

}  // namespace ws::workload
