// The SASS text of sampled instructions, as Nsight Compute's Source view
// shows it beside each PC: nvdisasm (CUDA toolkit) run over a module's
// cubin, its listing read back per function and byte offset. CUPTI has no
// disassembler, so without nvdisasm the instructions keep their offsets only.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace ws::capture {

// Instruction text ("LDG.E.128 R4, desc[UR6][R2.64]") by function (its
// mangled name, as CUPTI gives it) and byte offset from its first instruction.
using SassListing = std::map<std::string, std::map<std::uint64_t, std::string>>;

// Reads nvdisasm's listing (`nvdisasm -c`): a function starts at its
// `.text.NAME:` label, an instruction line is `/*OFFSET*/ TEXT ;`. Only the
// functions named in `functions` are kept, when given (a module's listing
// can run to millions of lines).
SassListing parseSassListing(std::string_view listing,
                             const std::set<std::string>* functions = nullptr);

// nvdisasm from WARPSCOPE_NVDISASM, CUDA_HOME's or CUDA_PATH's bin,
// /usr/local/cuda/bin, or PATH; "" when none is there.
std::string findNvdisasm();

// Runs `nvdisasm -c` over one cubin (written to a temporary file) and reads
// the listing of `functions`; nullopt with the reason in `why` when it
// cannot, or when nvdisasm runs past `timeout` (it is then killed).
std::optional<SassListing> disassembleCubin(const std::string& nvdisasm, std::string_view cubin,
                                            const std::set<std::string>& functions,
                                            std::chrono::milliseconds timeout, std::string& why);

}  // namespace ws::capture
