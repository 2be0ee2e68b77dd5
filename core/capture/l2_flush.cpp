#include "l2_flush.h"

#include <cstdlib>
#include <string>

namespace ws::capture {

namespace {

// PTX, so the library needs no CUDA compiler and the driver builds it for
// whatever GPU it finds. Each thread XORs 16-byte loads over a grid-stride
// loop; the result is stored only when it equals a value a zeroed buffer
// never gives, so the loads stay and nothing is written.
constexpr const char* kPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry warpscope_l2_flush(.param .u64 p_buf, .param .u64 p_vectors, .param .u64 p_sink)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [p_buf];
    ld.param.u64 %rd2, [p_vectors];
    ld.param.u64 %rd3, [p_sink];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %nctaid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    mul.wide.u32 %rd6, %r4, %r2;
    mov.u32 %r5, 0;
LOOP:
    setp.ge.u64 %p1, %rd4, %rd2;
    @%p1 bra DONE;
    shl.b64 %rd7, %rd4, 4;
    add.u64 %rd8, %rd1, %rd7;
    ld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd8];
    xor.b32 %r5, %r5, %r6;
    xor.b32 %r5, %r5, %r7;
    xor.b32 %r5, %r5, %r8;
    xor.b32 %r5, %r5, %r9;
    add.u64 %rd4, %rd4, %rd6;
    bra LOOP;
DONE:
    setp.ne.u32 %p2, %r5, 0x9e3779b9;
    @%p2 bra END;
    st.global.u32 [%rd3], %r5;
END:
    ret;
}
)";

constexpr unsigned kThreads = 256;

bool check(CUresult r, const char* what, std::string& error) {
    if (r == CUDA_SUCCESS) return true;
    const char* msg = nullptr;
    cuGetErrorString(r, &msg);
    error = std::string(what) + ": " + (msg ? msg : "unknown error");
    return false;
}

}  // namespace

bool L2Flush::prepare(std::string& error) {
    CUdevice device = 0;
    int l2 = 0, sms = 0;
    if (!check(cuCtxGetDevice(&device), "cuCtxGetDevice", error) ||
        !check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device), "L2 size",
               error) ||
        !check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
               "SM count", error) ||
        !check(cuModuleLoadData(&module_, kPtx), "loading the L2 flush kernel", error) ||
        !check(cuModuleGetFunction(&function_, module_, kL2FlushKernelName), "the L2 flush kernel",
               error))
        return false;
    std::size_t bytes = 2 * static_cast<std::size_t>(l2);
    if (!check(cuMemAlloc(&buffer_, bytes), "allocating the L2 flush buffer", error) ||
        !check(cuMemAlloc(&sink_, 16), "allocating the L2 flush buffer", error) ||
        !check(cuMemsetD8(buffer_, 0, bytes), "clearing the L2 flush buffer", error) ||
        !check(cuCtxSynchronize(), "clearing the L2 flush buffer", error))
        return false;
    vectors_ = bytes / 16;
    blocks_ = static_cast<unsigned>(sms) * 4;
    return true;
}

int L2Flush::run(std::string& error) {
    if (!function_) return 0;
    if (!check(cuCtxSynchronize(), "waiting before the L2 flush", error)) return 0;
    auto launch = [&](CUfunction f, void** args) {
        return check(cuLaunchKernel(f, blocks_, 1, 1, kThreads, 1, 1, 0, nullptr, args, nullptr),
                     "launching the L2 flush", error);
    };
    void* args[] = {&buffer_, &vectors_, &sink_};
    if (!launch(function_, args)) return 0;
    return check(cuCtxSynchronize(), "running the L2 flush", error) ? 1 : 0;
}

void L2Flush::release() {
    if (buffer_) cuMemFree(buffer_);
    if (sink_) cuMemFree(sink_);
    if (module_) cuModuleUnload(module_);
    *this = L2Flush();
}

}  // namespace ws::capture
