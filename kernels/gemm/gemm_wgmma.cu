// Hopper GEMM rung: TMA loads into 128-byte-swizzled shared memory and
// wgmma.mma_async on it, warp-specialized. A block computes a 128×BN tile of C
// (BN = 256, or 192 / 128 where those leave fewer SMs idle in the last wave):
// one producer warpgroup issues the TMA copies of a 4-stage ring (A 128×64 and
// B BN×64 per stage), two consumer warpgroups each multiply 64 rows with
// m64nBNk16 and hand the stage back through an mbarrier. The producer gives
// registers to the consumers (setmaxnreg) so their BN/2 accumulators fit.
// C[m×n] = A[m×k] · B[n×k]ᵀ, both operands K-major as wgmma wants them; edges
// are zero-filled by TMA and masked at the store. k must be a multiple of 8
// (the TMA row pitch is a multiple of 16 bytes).
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/cuda_check.h"
#include "common/mbarrier.cuh"
#include "common/mma.cuh"
#include "gemm/gemm.h"

namespace ws::kernels {

namespace {

constexpr int BM = 128, BK = 64, kStages = 4, kConsumers = 2;
constexpr int kThreads = (kConsumers + 1) * 128;

template <int BN>
struct alignas(1024) Stages {
    __nv_bfloat16 a[kStages][BM * BK];  // 16 KiB per stage, 1024-byte aligned (swizzle atoms)
    __nv_bfloat16 b[kStages][BN * BK];  // up to 32 KiB per stage
    unsigned long long full[kStages], empty[kStages];
};
template <int BN>
constexpr int kSmemBytes = int(sizeof(Stages<BN>)) + 1024;  // room to align the base

__device__ __forceinline__ void tmaLoad(void* dst, const CUtensorMap* map, int inner, int outer,
                                        unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(smemAddress(dst)),
        "l"(map), "r"(inner), "r"(outer), "r"(smemAddress(bar))
        : "memory");
}

// Shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups
// 1024 bytes apart.
__device__ __forceinline__ std::uint64_t descriptor(const void* p) {
    std::uint64_t address = smemAddress(p);
    return ((address & 0x3FFFF) >> 4) | (std::uint64_t(1) << 16) |
           (std::uint64_t(1024 >> 4) << 32) | (std::uint64_t(1) << 62);
}

// d (64×N fp32, this thread's N/2) += A (64×16) · B (16×N), both K-major in
// shared memory with the 128-byte swizzle.
template <int N>
__device__ void wgmma(float (&d)[N / 2], std::uint64_t descA, std::uint64_t descB);
template <>
__device__ __forceinline__ void wgmma<128>(float (&d)[64], std::uint64_t descA,
                                           std::uint64_t descB) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, "
        "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, "
        "%55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63])
        : "l"(descA), "l"(descB));
}
template <>
__device__ __forceinline__ void wgmma<192>(float (&d)[96], std::uint64_t descA,
                                           std::uint64_t descB) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, "
        "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, "
        "%55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, "
        "%73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, "
        "%91, %92, %93, %94, %95}, "
        "%96, %97, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(descA), "l"(descB));
}
template <>
__device__ __forceinline__ void wgmma<256>(float (&d)[128], std::uint64_t descA,
                                           std::uint64_t descB) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, "
        "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, "
        "%55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, "
        "%73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, "
        "%91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, "
        "%107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, "
        "%122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(descA), "l"(descB));
}

template <int BN>
__global__ void __launch_bounds__(kThreads, 1)
    gemmWgmmaKernel(const __grid_constant__ CUtensorMap mapA,
                    const __grid_constant__ CUtensorMap mapB, __nv_bfloat16* __restrict__ c, int m,
                    int n, int k) {
    extern __shared__ unsigned char raw[];
    auto& st = *reinterpret_cast<Stages<BN>*>(raw + ((1024 - (smemAddress(raw) & 1023)) & 1023));
    const int warpgroup = threadIdx.x / 128, tid = threadIdx.x % 128;
    // M tiles vary fastest: the blocks of one wave share a few B tiles (weights,
    // the large operand) and the whole of A stays in L2.
    const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
    const int kTiles = (k + BK - 1) / BK;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            barrierInit(&st.full[s], 1);
            barrierInit(&st.empty[s], kConsumers);
        }
        barrierInitFence();
    }
    __syncthreads();

    if (warpgroup == 0) {  // producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0) {
            for (int kt = 0; kt < kTiles; ++kt) {
                int s = kt % kStages;
                if (kt >= kStages) barrierWait(&st.empty[s], ((kt / kStages) - 1) & 1);
                barrierExpect(&st.full[s], (BM + BN) * BK * 2);
                tmaLoad(st.a[s], &mapA, kt * BK, m0, &st.full[s]);
                tmaLoad(st.b[s], &mapB, kt * BK, n0, &st.full[s]);
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    const int consumer = warpgroup - 1;
    float d[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
        d[i] = 0;
    for (int kt = 0; kt < kTiles; ++kt) {
        int s = kt % kStages;
        barrierWait(&st.full[s], (kt / kStages) & 1);
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk)
            wgmma<BN>(d, descriptor(&st.a[s][consumer * 64 * BK + kk * 16]),
                      descriptor(&st.b[s][kk * 16]));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        if (tid == 0) barrierArrive(&st.empty[s]);
    }
    // Accumulator layout of m64nNk16: warp w holds rows 16w…16w+15; per 8
    // columns j, (row g, cols 2t, 2t+1) and (row g + 8, same cols).
    const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    const int row = m0 + consumer * 64 + warp * 16 + g;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        int col = n0 + j * 8 + 2 * t;
        if (col >= n) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            int r = row + 8 * h;
            if (r >= m) continue;
            __nv_bfloat16* out = c + std::size_t(r) * n + col;
            if (col + 1 < n)
                *reinterpret_cast<__nv_bfloat162*>(out) =
                    __floats2bfloat162_rn(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
            else
                *out = __float2bfloat16(d[4 * j + 2 * h]);
        }
    }
}

PFN_cuTensorMapEncodeTiled_v12000 encodeFunction() {
    static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        WS_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                 cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || !p)
            throw std::runtime_error("gemm wgmma: the driver has no cuTensorMapEncodeTiled");
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    }();
    return fn;
}

// A row-major [rows × k] bf16 matrix read in boxes of boxRows × 64.
CUtensorMap tensorMap(const __nv_bfloat16* base, int rows, int k, int boxRows) {
    CUtensorMap map{};
    cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
    cuuint64_t strides[1] = {cuuint64_t(k) * 2};
    cuuint32_t box[2] = {BK, cuuint32_t(boxRows)};
    cuuint32_t elementStrides[2] = {1, 1};
    CUresult r = encodeFunction()(
        &map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(base), dims, strides,
        box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw std::runtime_error("gemm wgmma: cuTensorMapEncodeTiled failed (" +
                                 std::to_string(int(r)) + ")");
    return map;
}

int hopperSms() {  // 0 where the GPU is not compute capability 9.0
    static const int sms = [] {
        if (deviceAttribute(cudaDevAttrComputeCapabilityMajor) != 9 ||
            deviceAttribute(cudaDevAttrComputeCapabilityMinor) != 0)
            return 0;
        for (auto [kernel, bytes] : {std::pair{&gemmWgmmaKernel<128>, kSmemBytes<128>},
                                     std::pair{&gemmWgmmaKernel<192>, kSmemBytes<192>},
                                     std::pair{&gemmWgmmaKernel<256>, kSmemBytes<256>}})
            WS_CUDA(
                cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        return deviceAttribute(cudaDevAttrMultiProcessorCount);
    }();
    return sms;
}

// The tile width with the best expected throughput: whole waves of tiles
// (one block per SM) times how well a tile of that width keeps the tensor
// cores busy (narrower tiles reuse A less). WARPSCOPE_WGMMA_TILE_N forces one.
int tileWidth(int m, int n, int sms) {
    if (const char* forced = std::getenv("WARPSCOPE_WGMMA_TILE_N")) {
        int w = std::atoi(forced);
        if (w == 128 || w == 192 || w == 256) return w;
    }
    int best = 256;
    double bestScore = 0;
    for (auto [width, tileEfficiency] : {std::pair{256, 1.0}, {192, 0.96}, {128, 0.88}}) {
        long tiles = long((m + BM - 1) / BM) * ((n + width - 1) / width);
        long waves = (tiles + sms - 1) / sms;
        double score = tileEfficiency * double(tiles) / double(waves * sms) * double(n) /
                       double((n + width - 1) / width * width);  // edge waste
        if (score > bestScore + 1e-9) {
            bestScore = score;
            best = width;
        }
    }
    return best;
}

template <int BN>
void launch(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n, int k,
            cudaStream_t stream) {
    CUtensorMap mapA = tensorMap(a, m, k, BM), mapB = tensorMap(b, n, k, BN);
    dim3 grid((m + BM - 1) / BM, (n + BN - 1) / BN);
    gemmWgmmaKernel<BN><<<grid, kThreads, kSmemBytes<BN>, stream>>>(mapA, mapB, c, m, n, k);
    WS_CUDA_LAUNCHED();
}

}  // namespace

bool gemmWgmmaAvailable() {
    return hopperSms() > 0;
}

void gemmWgmma(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c, int m, int n,
               int k, cudaStream_t stream) {
    int sms = hopperSms();
    if (sms == 0)
        throw std::invalid_argument("gemm wgmma: needs a compute capability 9.0 GPU (H100, H200)");
    switch (tileWidth(m, n, sms)) {
        case 128:
            launch<128>(a, b, c, m, n, k, stream);
            break;
        case 192:
            launch<192>(a, b, c, m, n, k, stream);
            break;
        default:
            launch<256>(a, b, c, m, n, k, stream);
    }
}

}  // namespace ws::kernels
