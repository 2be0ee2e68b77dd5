#include "model/pc_sampling.h"

#include <cctype>

namespace ws::pc_sampling {

namespace {

struct Known {
    std::string_view suffix, title, hint;
};

// Nsight Compute's "Warp Stall Sampling" names and its profiling guide's
// reading of each (docs.nvidia.com/nsight-compute/ProfilingGuide).
constexpr Known kKnown[] = {
    {"long_scoreboard", "Long Scoreboard", "waits on a global or local memory (L1TEX) result"},
    {"short_scoreboard", "Short Scoreboard", "waits on shared memory or a special math result"},
    {"barrier", "Barrier", "waits at a barrier (__syncthreads) for the block's other warps"},
    {"math_pipe_throttle", "Math Pipe Throttle", "the math pipe it needs is busy"},
    {"mio_throttle", "MIO Throttle", "the shared memory / special math queue is full"},
    {"lg_throttle", "LG Throttle", "the local and global memory queue is full"},
    {"tex_throttle", "Tex Throttle", "the texture unit's queue is full"},
    {"not_selected", "Not Selected", "ready, but the scheduler issued another warp"},
    {"selected", "Selected", "issued an instruction"},
    {"wait", "Wait", "a fixed-latency dependency"},
    {"no_instructions", "No Instruction", "no instruction fetched (instruction cache miss)"},
    {"imc_miss", "IMC Miss", "constant cache miss"},
    {"branch_resolving", "Branch Resolving", "waits for a branch target"},
    {"dispatch_stall", "Dispatch Stall", "the dispatcher held the instruction back"},
    {"drain", "Drain", "waits for its memory stores to drain at exit"},
    {"membar", "Membar", "waits at a memory barrier"},
    {"sleeping", "Sleeping", "its threads sleep or wait to converge"},
    {"misc", "Misc", "another reason"},
    {"gmma", "GMMA", "waits on a warpgroup matrix multiply (wgmma)"},
    {"warpgroup_arrive", "Warpgroup Arrive", "waits for its warpgroup at a wgmma arrive fence"},
};

constexpr std::string_view kPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

}  // namespace

StallReason describeStallReason(std::string_view cupti) {
    StallReason out;
    std::string_view rest = cupti;
    if (rest.starts_with(kPrefix)) rest.remove_prefix(kPrefix.size());
    if (rest.ends_with(kNotIssued)) {
        out.notIssued = true;
        rest.remove_suffix(kNotIssued.size());
    }
    for (const auto& k : kKnown)
        if (rest == k.suffix) {
            out.title = k.title;
            out.hint = k.hint;
            out.issuing = rest == "selected";
            return out;
        }
    bool start = true;
    for (char c : rest) {
        if (c == '_') {
            out.title += ' ';
            start = true;
            continue;
        }
        out.title += start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        start = false;
    }
    if (out.title.empty()) out.title = std::string(cupti);
    return out;
}

}  // namespace ws::pc_sampling
