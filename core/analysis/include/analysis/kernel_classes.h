// Kernel classes: the groups an inference engineer reasons in ("attention is
// 30 % of the step", "make the GEMVs faster"), told from a kernel's name. The
// advisor's what-if takes a class where a user would rather not list names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

enum class KernelClass {
    Matmul,       // GEMM and GEMV: cuBLAS (nvjet, sm90_xmma), CUTLASS, Triton matmuls, ours
    Attention,    // flash / paged / decode attention, prefill attention
    Elementwise,  // norms, activations, rotary embeddings, residual adds, embeddings
    Sampling,     // argmax, top-k / top-p, softmax over the vocabulary
    Collective,   // NCCL
    Copy,         // fills and copies run as kernels (input initialisation, cache moves)
    Other
};

const char* toString(KernelClass k);
std::optional<KernelClass> kernelClassFromString(std::string_view name);
// Every class name, as the CLI's help and errors list them.
const std::vector<std::string>& kernelClassNames();
// The class of a kernel from its name (demangled when there is one: templates
// and namespaces say more than a mangled prefix). Case does not matter.
KernelClass classifyKernel(std::string_view name);
// With --graph-trace graph a CUDA graph's replay is one record named
// cuda_graph_ID: a span over its kernels, not a kernel of any class.
bool isGraphSpanName(std::string_view name);

}  // namespace ws
