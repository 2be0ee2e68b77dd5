#include "serving/cpu_backend.h"

#include <cmath>
#include <stdexcept>
#include <thread>

#include "serving/byte_tokenizer.h"

namespace ws::serving {

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Order-dependent hash of a token sequence, one token at a time.
std::uint64_t absorb(std::uint64_t h, TokenId t) {
    return mix(h ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(t)) + 0x100000001ull));
}

constexpr std::uint64_t kHashStart = 0x243F6A8885A308D3ull;
constexpr TokenId kFirstPrintable = 32;
constexpr TokenId kLastPrintable = 126;
constexpr double kLogitScale = 8.0;

double unit(std::uint64_t x) {  // [0, 1)
    return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace

CpuBackend::CpuBackend(CpuPace pace) : pace_(pace) {}

int CpuBackend::vocabSize() const {
    return ByteTokenizer::kVocabSize;
}
TokenId CpuBackend::eosToken() const {
    return ByteTokenizer::kEos;
}

void CpuBackend::prepare(const EngineConfig& config) {
    blockSize_ = config.blockSize;
    kv_.assign(static_cast<std::size_t>(config.numBlocks) * config.blockSize, -1);
}

TokenId CpuBackend::pick(std::uint64_t history, double temperature, std::uint64_t seed,
                         int outputIndex) {
    constexpr int kCandidates = kLastPrintable - kFirstPrintable + 2;  // printable + EOS
    double logits[kCandidates];
    auto candidate = [](int i) {
        return i == kCandidates - 1 ? ByteTokenizer::kEos : kFirstPrintable + i;
    };
    int best = 0;
    for (int i = 0; i < kCandidates; ++i) {
        logits[i] =
            kLogitScale * unit(mix(history ^ mix(static_cast<std::uint64_t>(candidate(i)))));
        if (logits[i] > logits[best]) best = i;
    }
    if (temperature <= 0) return candidate(best);
    double total = 0;
    for (double& l : logits) {
        l = std::exp((l - logits[best]) / temperature);
        total += l;
    }
    double u = unit(mix(seed ^ mix(static_cast<std::uint64_t>(outputIndex) + 1))) * total;
    for (int i = 0; i < kCandidates; ++i) {
        u -= logits[i];
        if (u < 0) return candidate(i);
    }
    return candidate(best);
}

TokenId CpuBackend::nextToken(const std::vector<TokenId>& tokens, double temperature,
                              std::uint64_t seed, int outputIndex) {
    std::uint64_t h = kHashStart;
    for (TokenId t : tokens)
        h = absorb(h, t);
    return pick(h, temperature, seed, outputIndex);
}

std::vector<TokenId> CpuBackend::execute(const StepPlan& plan) {
    if (kv_.empty()) throw std::logic_error("CpuBackend::execute before prepare");
    const auto began = std::chrono::steady_clock::now();
    auto slot = [&](const ScheduledSeq& s, int position) -> TokenId& {
        auto block =
            static_cast<std::size_t>(s.blocks.at(static_cast<std::size_t>(position / blockSize_)));
        return kv_.at(block * static_cast<std::size_t>(blockSize_) +
                      static_cast<std::size_t>(position % blockSize_));
    };
    std::vector<TokenId> sampled;
    for (const auto& s : plan.seqs) {
        for (int i = 0; i < static_cast<int>(s.tokens.size()); ++i)
            slot(s, s.start + i) = s.tokens[static_cast<std::size_t>(i)];
        if (!s.sample) continue;
        // "Attention": every position so far, read back through the block table.
        std::uint64_t h = kHashStart;
        for (int p = 0; p < s.end(); ++p)
            h = absorb(h, slot(s, p));
        sampled.push_back(pick(h, s.temperature, s.seed, s.outputIndex));
    }
    const auto& st = plan.stats;
    std::this_thread::sleep_until(began + pace_.step +
                                  pace_.perSeq * (st.prefillSeqs + st.decodeSeqs) +
                                  pace_.perPrefillToken * st.prefillTokens);
    return sampled;
}

}  // namespace ws::serving
