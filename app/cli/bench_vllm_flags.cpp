#include "cli/bench_vllm_flags.h"

#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <sstream>

#include "cli/cli_args.h"

namespace ws::cli {

namespace {

// vLLM flags whose lists are separate words (argparse nargs '+' or '*').
const std::set<std::string> kListFlags = {"goodput", "metadata"};

// Taken, changing nothing here: why, in the note printed once.
const std::map<std::string, std::string> kNoEffect = {
    {"tokenizer",
     "prompts are token ids or text and token counts come from the server's usage, so no "
     "tokenizer is loaded"},
    {"tokenizer-mode", "no tokenizer is loaded (token counts come from the server's usage)"},
    {"trust-remote-code", "no model code is loaded"},
    {"disable-tqdm", "bench serve prints a line per finished point, not a progress bar"},
    {"skip-chat-template", "openai-chat sends the prompt as one user message, no template"},
};
// Switches among them (the others take a value).
const std::set<std::string> kNoEffectSwitches = {"trust-remote-code", "disable-tqdm",
                                                 "skip-chat-template"};

// vLLM's flags that Warpscope does not implement, each with what to use.
const std::map<std::string, std::string> kNotImplemented = {
    {"request-id-prefix", "requests are numbered in the run (`show RUN` lists them)"},
    {"header", "only OPENAI_API_KEY is sent (as Authorization: Bearer)"},
    {"extra-body", "the body holds model, prompt, max_tokens, temperature, ignore_eos"},
    {"chat-template-kwargs", "openai-chat sends the prompt as one user message"},
    {"top-p", "the body holds temperature only; --temperature"},
    {"top-k", "the body holds temperature only; --temperature"},
    {"min-p", "the body holds temperature only; --temperature"},
    {"frequency-penalty", "the body holds temperature only; --temperature"},
    {"presence-penalty", "the body holds temperature only; --temperature"},
    {"repetition-penalty", "the body holds temperature only; --temperature"},
    {"logprobs", "tokens are timed, not scored"},
    {"use-beam-search", "requests are sampled as sent; --temperature"},
    {"lora-modules", "every request names --model (or --served-model-name)"},
    {"lora-assignment", "every request names --model (or --served-model-name)"},
    {"ramp-up-strategy", "a fixed --request-rate, or --sweep request-rate=R1,R2,..."},
    {"ramp-up-start-rps", "a fixed --request-rate, or --sweep request-rate=R1,R2,..."},
    {"ramp-up-end-rps", "a fixed --request-rate, or --sweep request-rate=R1,R2,..."},
    {"probe-request-rate", "--sweep request-rate=R1,R2,... measures each rate as its own run"},
    {"self-timed", "arrivals follow --request-rate and --burstiness"},
    {"no-self-timed", "arrivals follow --request-rate and --burstiness"},
    {"plot-timeline",
     "the GUI's Requests tab draws the run's request timeline (warpscope --select RUN)"},
    {"timeline-itl-thresholds", "the GUI's Requests tab draws the run's request timeline"},
    {"plot-dataset-stats", "`show RUN` and the report list the prompt and output lengths"},
    {"skip-tokenizer-init", "no tokenizer is loaded anyway"},
    {"insecure", "https endpoints are checked as libcurl checks them"},
    {"no-stream", "requests are streamed, to time every token"},
    {"no-oversample", "a dataset shorter than --num-prompts is repeated"},
    {"enable-multimodal-chat", "prompts are text"},
    {"endpoint-type", "vLLM itself dropped it; --backend openai-chat"},
};

// vLLM's backends that generate text (vllm is openai: /v1/completions).
const std::set<std::string> kBackends = {"vllm", "openai", "openai-chat"};

const std::set<std::string> kDatasets = {"random", "sharegpt", "custom", "jsonl"};

std::string pythonFloat(double v) {
    if (std::isinf(v)) return "inf";
    std::ostringstream out;
    out << v;
    std::string s = out.str();
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

}  // namespace

VllmBenchLine translateVllmBenchArgs(const std::vector<std::string>& argv) {
    VllmBenchLine line;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        std::string a = argv[i];
        if (a == "--") {
            line.argv.insert(line.argv.end(), argv.begin() + static_cast<long>(i), argv.end());
            break;
        }
        if (a.rfind("--", 0) != 0) {
            line.argv.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        auto next = [&]() -> std::optional<std::string> {
            if (inlineValue) return inlineValue;
            if (i + 1 < argv.size() && argv[i + 1].rfind("--", 0) != 0) return argv[++i];
            return std::nullopt;
        };
        if (name == "random-prefix-len") {
            // vLLM's auto_tune.sh passes 0: no shared prefix, as here.
            auto v = next();
            if (!v) throw UsageError("option --random-prefix-len needs a value");
            if (*v == "0") continue;
            throw UsageError("--random-prefix-len " + *v +
                             " (vLLM's) is not implemented in bench serve: prompts share no "
                             "prefix here; vary --random-input-len");
        }
        if (auto it = kNotImplemented.find(name); it != kNotImplemented.end())
            throw UsageError("--" + name +
                             " (vLLM's) is not implemented in bench serve: " + it->second);
        if (auto it = kNoEffect.find(name); it != kNoEffect.end()) {
            if (!kNoEffectSwitches.count(name) && !next())
                throw UsageError("option --" + name + " needs a value");
            line.notes.push_back("--" + name + " taken, no effect here: " + it->second);
            continue;
        }
        if (name == "save-result") {
            line.argv.push_back("--save-result");
            // Warpscope's older --save-result FILE: a following word that is not a flag.
            if (auto file = next()) line.argv.insert(line.argv.end(), {"--result-filename", *file});
            continue;
        }
        if (kListFlags.count(name)) {
            std::string joined;
            if (inlineValue) joined = *inlineValue;
            while (!inlineValue && i + 1 < argv.size() && argv[i + 1].rfind("--", 0) != 0)
                joined += (joined.empty() ? "" : ",") + argv[++i];
            if (joined.empty()) throw UsageError("option --" + name + " needs a value");
            line.argv.insert(line.argv.end(), {"--" + name, joined});
            continue;
        }
        if (name == "backend" || name == "dataset-name") {
            auto v = next();
            if (!v) throw UsageError("option --" + name + " needs a value");
            if (name == "backend" && !kBackends.count(*v))
                throw UsageError("--backend " + *v +
                                 " is not implemented in bench serve: it measures text "
                                 "generation (vllm, openai: /v1/completions; openai-chat: "
                                 "/v1/chat/completions)");
            if (name == "dataset-name" && !kDatasets.count(*v))
                throw UsageError("--dataset-name " + *v +
                                 " is not implemented in bench serve: random, sharegpt, or "
                                 "custom (JSON Lines, --dataset-path FILE)");
            line.argv.insert(line.argv.end(), {"--" + name, *v});
            continue;
        }
        line.argv.push_back("--" + name);
        if (inlineValue) line.argv.push_back(*inlineValue);
    }
    return line;
}

std::string vllmResultFileName(const std::string& label, double requestRate, int maxConcurrency,
                               const std::string& model, std::int64_t unixSeconds) {
    std::string name = label + "-" + pythonFloat(requestRate) + "qps";
    if (maxConcurrency > 0) name += "-concurrency" + std::to_string(maxConcurrency);
    const auto slash = model.rfind('/');
    name += "-" + (slash == std::string::npos ? model : model.substr(slash + 1));
    const std::time_t t = static_cast<std::time_t>(unixSeconds);
    std::tm local{};
    localtime_r(&t, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
    return name + "-" + stamp + ".json";
}

}  // namespace ws::cli
