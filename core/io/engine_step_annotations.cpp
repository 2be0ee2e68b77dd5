#include "io/engine_step_annotations.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <regex>

namespace ws {

namespace {

// A count from the annotation, or nothing past an int (an engine would not
// schedule that many, and a damaged name must not wrap).
std::optional<std::int64_t> number(const std::string& text,
                                   std::int64_t most = std::numeric_limits<int>::max()) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > most)
        return std::nullopt;
    return v;
}

// Sums of squares and products (sqsq, sqsk) and KV lengths pass 2^31 on long
// contexts: up to 2^50 each, so their sums cannot overflow.
constexpr std::int64_t kMostSum = std::int64_t{1} << 50;

// Pairs a causal attention scores for requests of q new tokens over k
// positions in all: each new token at position p attends to p + 1 keys, so
// Σ q·k − Σ q(q − 1)/2 = sqsk − (sqsq − sq)/2.
std::int64_t attentionPairs(std::int64_t sq, std::int64_t sqsq, std::int64_t sqsk) {
    return sqsk - (sqsq - sq) / 2;
}

std::optional<EngineStepAnnotation> vllmStep(const std::string& name) {
    static const std::regex plain(R"(execute_context_(\d+)\((\d+)\)_generation_(\d+)\((\d+)\))");
    static const std::regex detailed(
        R"(execute_(\d+)_context_(\d+)\(sq(\d+)sk(\d+)sqsq(\d+)sqsk(\d+)\))"
        R"(_generation_(\d+)\(sq(\d+)sk(\d+)sqsq(\d+)sqsk(\d+)\))");
    std::smatch m;
    std::vector<std::int64_t> v;
    // Counts of requests and tokens fit an int; sk, sqsq and sqsk (the
    // detailed form's groups 4-6 and 9-11) are sums.
    auto numbers = [&](std::initializer_list<std::size_t> sums) {
        for (std::size_t i = 1; i < m.size(); ++i) {
            bool sum = std::find(sums.begin(), sums.end(), i) != sums.end();
            auto n = number(m[i].str(), sum ? kMostSum : std::numeric_limits<int>::max());
            if (!n) return false;
            v.push_back(*n);
        }
        return true;
    };
    EngineStepAnnotation s;
    s.engine = "vLLM";
    if (std::regex_match(name, m, plain)) {
        if (!numbers({})) return std::nullopt;
        s.prefillSeqs = static_cast<int>(v[0]), s.prefillTokens = static_cast<int>(v[1]);
        s.decodeSeqs = static_cast<int>(v[2]), s.decodeTokens = static_cast<int>(v[3]);
    } else if (std::regex_match(name, m, detailed)) {
        if (!numbers({4, 5, 6, 9, 10, 11})) return std::nullopt;
        s.prefillSeqs = static_cast<int>(v[1]), s.prefillTokens = static_cast<int>(v[2]);
        s.decodeSeqs = static_cast<int>(v[6]), s.decodeTokens = static_cast<int>(v[7]);
        s.kvReadTokens = v[3] + v[8];
        s.attentionPairs = attentionPairs(v[2], v[4], v[5]) + attentionPairs(v[7], v[9], v[10]);
    } else {
        return std::nullopt;
    }
    if (static_cast<std::int64_t>(s.prefillSeqs) + s.decodeSeqs > std::numeric_limits<int>::max())
        return std::nullopt;
    s.running = s.prefillSeqs + s.decodeSeqs;
    return s;
}

std::optional<EngineStepAnnotation> sglangStep(const std::string& name) {
    static const std::regex form(R"(step\[([A-Z_]+) bs=(\d+)((?: [a-z_]+=\d+)*)\])");
    static const std::regex field(R"( ([a-z_]+)=(\d+))");
    std::smatch m;
    if (!std::regex_match(name, m, form)) return std::nullopt;
    const std::string mode = m[1].str();
    auto bs = number(m[2].str());
    if (!bs) return std::nullopt;
    std::map<std::string, std::int64_t> f;
    const std::string rest = m[3].str();
    for (std::sregex_iterator it(rest.begin(), rest.end(), field), end; it != end; ++it) {
        const std::string key = (*it)[1].str();
        bool sum = key.size() > 2 &&
                   (key.substr(2) == "sk" || key.substr(2) == "sqsq" || key.substr(2) == "sqsk");
        auto n = number((*it)[2].str(), sum ? kMostSum : std::numeric_limits<int>::max());
        if (!n) return std::nullopt;
        f[key] = *n;
    }
    auto get = [&](const char* key, std::int64_t otherwise) {
        auto it = f.find(key);
        return it == f.end() ? otherwise : it->second;
    };
    EngineStepAnnotation s;
    s.engine = "SGLang";
    s.running = static_cast<int>(*bs);
    if (mode == "EXTEND" || mode == "PREFILL") {
        s.prefillSeqs = static_cast<int>(*bs), s.decodeSeqs = 0, s.decodeTokens = 0;
        s.prefillTokens = static_cast<int>(get("toks", get("c_sq", -1)));
    } else if (mode == "DECODE" || mode == "TARGET_VERIFY") {
        s.prefillSeqs = 0, s.prefillTokens = 0, s.decodeSeqs = static_cast<int>(*bs);
        s.decodeTokens = static_cast<int>(get("g_sq", *bs));
    } else if (mode == "MIXED") {
        s.prefillSeqs = static_cast<int>(get("c", -1));
        s.decodeSeqs = static_cast<int>(get("g", -1));
        s.prefillTokens = static_cast<int>(get("c_sq", -1));
        s.decodeTokens = static_cast<int>(get("g_sq", -1));
    } else {
        return std::nullopt;  // IDLE and the like: no batch
    }
    bool prefillDetail =
        f.count("c_sk") && f.count("c_sq") && f.count("c_sqsq") && f.count("c_sqsk");
    bool decodeDetail =
        f.count("g_sk") && f.count("g_sq") && f.count("g_sqsq") && f.count("g_sqsk");
    if (prefillDetail || decodeDetail) {
        s.kvReadTokens = get("c_sk", 0) + get("g_sk", 0);
        s.attentionPairs = 0;
        if (prefillDetail) s.attentionPairs += attentionPairs(f["c_sq"], f["c_sqsq"], f["c_sqsk"]);
        if (decodeDetail) s.attentionPairs += attentionPairs(f["g_sq"], f["g_sqsq"], f["g_sqsk"]);
    }
    return s;
}

}  // namespace

std::optional<EngineStepAnnotation> parseEngineStepAnnotation(std::string_view name) {
    // The engines' names are ~100 characters; libstdc++'s regex recurses per
    // character, so a hostile trace's megabyte-long name never reaches it.
    constexpr std::size_t kLongest = 512;
    if (name.size() > kLongest) return std::nullopt;
    // Most annotations are neither: a prefix test before any regex.
    if (name.substr(0, 8) == "execute_") return vllmStep(std::string(name));
    if (name.substr(0, 5) == "step[") return sglangStep(std::string(name));
    return std::nullopt;
}

std::string engineStepRangeName(const EngineStepAnnotation& s, std::int64_t index) {
    std::string out =
        "engine.step:" + std::to_string(index) + ";running=" + std::to_string(s.running);
    auto add = [&](const char* key, std::int64_t v) {
        if (v >= 0) out += std::string(";") + key + "=" + std::to_string(v);
    };
    add("prefill_seqs", s.prefillSeqs);
    add("prefill_tokens", s.prefillTokens);
    add("decode_seqs", s.decodeSeqs);
    add("decode_tokens", s.decodeTokens);
    add("kv_read_tokens", s.kvReadTokens);
    add("attention_pairs", s.attentionPairs);
    return out;
}

}  // namespace ws
