// `vllm bench serve` command lines, run as they are: vLLM's flags that mean
// the same here are rewritten to what bench serve's parser reads, flags that
// change nothing here (a tokenizer, a progress bar) are taken with a note,
// and each flag vLLM has and Warpscope does not is refused in one line that
// names it and says what to use instead. vLLM's flags as read from
// vllm/benchmarks/serve.py (vllm-project/vllm 009e6d4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ws::cli {

struct VllmBenchLine {
    std::vector<std::string> argv;   // for Args::parse
    std::vector<std::string> notes;  // flags taken without effect, one line each
};

// Rewrites, before parsing (options after `--` are the server's, left alone):
//   --flag=value                  → --flag value
//   --save-result FILE            → --save-result --result-filename FILE (Warpscope's
//                                   older spelling; vLLM's --save-result is a switch)
//   --goodput ttft:200 tpot:20    → --goodput ttft:200,tpot:20 (vLLM's lists are
//   --metadata k=v k=v              separate words; so are --metadata's)
// Throws UsageError, in one line, for a vLLM flag or value not implemented.
VllmBenchLine translateVllmBenchArgs(const std::vector<std::string>& argv);

// vLLM's result file name when --save-result comes without --result-filename:
// LABEL-RATEqps[-concurrencyN]-MODEL-YYYYmmdd-HHMMSS.json, the label being
// --label or the backend, RATE as Python prints a float (inf, 10.0, 0.5), MODEL
// the part of the model's name after its last '/'.
std::string vllmResultFileName(const std::string& label, double requestRate, int maxConcurrency,
                               const std::string& model, std::int64_t unixSeconds);

}  // namespace ws::cli
