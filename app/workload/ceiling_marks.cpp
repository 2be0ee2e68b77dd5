#include "ceiling_marks.h"

#include <cublas_v2.h>

#include "ceilings/ceilings.h"
#include "common/cuda_check.h"
#include "nvtx_marks.h"

namespace ws::workload {

MeasuredCeilings markMeasuredCeilings(cudaStream_t stream) {
    MeasuredCeilings c;
    {
        NvtxRange range("ceilings (copy bandwidth, cuBLAS bf16)");
        c.copyGBs = kernels::measureCopyBandwidth(std::size_t(512) << 20, 10, stream).best();
        cublasHandle_t h;
        WS_CUBLAS(cublasCreate(&h));
        WS_CUBLAS(cublasSetStream(h, stream));
        c.bf16Tflops = kernels::measureCublasBf16Tflops(4096, 10, h, stream);
        cublasDestroy(h);
    }
    markProperty("ceiling.copy_gbs", c.copyGBs);
    markProperty("ceiling.bf16_tflops", c.bf16Tflops);
    return c;
}

}  // namespace ws::workload
