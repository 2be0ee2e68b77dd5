#include "decoder/decoder_quality.h"

#include <algorithm>
#include <cmath>

namespace ws::kernels {

QualityRecord checkQuality(const DecoderOptions& candidate, const std::vector<int>& prompt,
                           const std::vector<int>& generatedTokens,
                           const std::vector<float>& candidateLogits, int steps, double tolerance,
                           cudaStream_t stream) {
    DecoderOptions refOpt = candidate;
    refOpt.variant = DecoderVariant::Reference;
    refOpt.precision = WeightPrecision::Bf16;
    refOpt.batch = 1;
    refOpt.capacity = refOpt.maxPrefillTokens = int(prompt.size()) + steps - 1;
    refOpt.logitSlots = steps;
    // The reference is the whole model on this GPU, whatever the candidate's ranks.
    refOpt.rank = 0;
    refOpt.ranks = 1;
    refOpt.allReduce = nullptr;
    Decoder reference(refOpt, stream);
    std::vector<int> tokens = prompt;
    tokens.insert(tokens.end(), generatedTokens.begin(), generatedTokens.begin() + (steps - 1));
    auto refLogits = reference.promptLogits(tokens, steps);

    int vocab = candidate.shape.vocab, agree = 0;
    double maxErr = 0, sum = 0, sumSq = 0;
    for (float v : refLogits) {
        sum += v;
        sumSq += double(v) * v;
    }
    double mean = sum / refLogits.size();
    double stdev = std::sqrt(std::max(0.0, sumSq / refLogits.size() - mean * mean));
    for (int s = 0; s < steps; ++s) {
        const float* r = &refLogits[std::size_t(s) * vocab];
        const float* c = &candidateLogits[std::size_t(s) * vocab];
        int best = int(std::max_element(r, r + vocab) - r);
        if (best == generatedTokens[s]) ++agree;
        for (int i = 0; i < vocab; ++i) {
            double e = std::isfinite(c[i]) ? std::abs(double(c[i]) - r[i]) : INFINITY;
            maxErr = std::max(maxErr, e);
        }
    }
    QualityRecord q;
    q.check = "greedy tokens and logits, first " + std::to_string(steps) + " steps of request 0";
    q.referenceVariant = "reference (bf16)";
    q.tokenAgreement = double(agree) / steps;
    q.maxLogitError = stdev > 0 ? maxErr / stdev : maxErr;  // in units of the logits' spread
    q.tolerance = tolerance;
    q.passed = std::isfinite(q.maxLogitError) && q.maxLogitError <= tolerance;
    return q;
}

}  // namespace ws::kernels
