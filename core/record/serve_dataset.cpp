// The random dataset and the arrival times of `bench serve`, as vLLM draws them.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>

#include "record/serve_load.h"

namespace ws {

namespace {

std::pair<int, int> lengthRange(int len, double ratio) {
    int low = static_cast<int>(std::floor(len * (1 - ratio)));
    int high = static_cast<int>(std::ceil(len * (1 + ratio)));
    return {std::max(low, 1), std::max(high, 1)};
}

}  // namespace

std::string requestUrl(const ServeLoadOptions& o) {
    auto scheme = o.endpoint.find("://");
    if (scheme == std::string::npos)
        throw std::runtime_error("--endpoint: '" + o.endpoint +
                                 "' is not a URL (http://HOST:PORT)");
    auto path = o.endpoint.find('/', scheme + 3);
    // "http://host:" is a valid URL meaning port 80: as a typo of
    // "http://host:8000" it would load whatever answers there.
    const std::string authority = o.endpoint.substr(scheme + 3, path - (scheme + 3));
    if (authority.empty() || authority.back() == ':')
        throw std::runtime_error("--endpoint: '" + o.endpoint + "' has " +
                                 (authority.empty() ? "no host" : "an empty port") +
                                 " (http://HOST:PORT)");
    if (path != std::string::npos && path + 1 < o.endpoint.size()) return o.endpoint;
    std::string base = o.endpoint.substr(0, path);
    return base + (o.backend == "openai-chat" ? "/v1/chat/completions" : "/v1/completions");
}

std::vector<ServePrompt> randomDataset(const ServeLoadOptions& o) {
    if (!(o.rangeRatio >= 0 && o.rangeRatio < 1))
        throw std::runtime_error("--random-range-ratio must be in [0, 1)");
    std::mt19937_64 rng(o.seed);
    auto [inLow, inHigh] = lengthRange(o.inputLen, o.rangeRatio);
    auto [outLow, outHigh] = lengthRange(o.outputLen, o.rangeRatio);
    std::uniform_int_distribution<int> inputLen(inLow, inHigh);
    std::uniform_int_distribution<int> outputLen(outLow, outHigh);
    std::uniform_int_distribution<int> printable(32, 126);
    std::vector<ServePrompt> out(static_cast<std::size_t>(std::max(o.numPrompts, 0)));
    const bool chat = o.backend == "openai-chat";
    for (auto& p : out) {
        p.inputLen = inputLen(rng);
        p.outputLen = outputLen(rng);
        if (chat)
            p.text.reserve(static_cast<std::size_t>(p.inputLen));
        else
            p.tokenIds.reserve(static_cast<std::size_t>(p.inputLen));
        for (int i = 0; i < p.inputLen; ++i) {
            int c = printable(rng);
            if (chat)
                p.text.push_back(static_cast<char>(c));
            else
                p.tokenIds.push_back(c);
        }
    }
    return out;
}

std::vector<double> arrivalOffsets(int count, double rate, double burstiness, std::uint64_t seed) {
    std::vector<double> out(static_cast<std::size_t>(std::max(count, 0)), 0.0);
    if (std::isinf(rate) || out.empty()) return out;
    if (!(rate > 0)) throw std::runtime_error("--request-rate must be positive or inf");
    if (!(burstiness > 0)) throw std::runtime_error("--burstiness must be positive");
    // Gamma with shape k and scale 1/(rate*k): mean 1/rate, CV 1/sqrt(k).
    std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
    std::gamma_distribution<double> gap(burstiness, 1.0 / (rate * burstiness));
    double t = 0;
    for (std::size_t i = 1; i < out.size(); ++i)
        out[i] = t += gap(rng);
    return out;
}

int ServeLoadResult::failed() const {
    int n = 0;
    for (const auto& r : requests)
        n += r.error.empty() ? 0 : 1;
    return n;
}

namespace {

// Nearest rank, as the percentiles of `stats`; reorders the values.
std::int64_t nearestRank(std::vector<std::int64_t>& v, double p) {
    if (v.empty()) return 0;
    auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
    k = std::max<std::size_t>(k, 1) - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

}  // namespace

EmitDelays emitDelays(const ServeLoadResult& result) {
    std::vector<std::int64_t> all, first, itl;
    for (const auto& r : result.requests) {
        all.insert(all.end(), r.emitDelayNs.begin(), r.emitDelayNs.end());
        // Only where each chunk carried a stamp do the two line up.
        if (r.emitDelayNs.empty() || r.emitDelayNs.size() != r.chunkNs.size()) continue;
        first.push_back(r.emitDelayNs.front());
        for (std::size_t i = 1; i < r.emitDelayNs.size(); ++i)
            itl.push_back(std::abs(r.emitDelayNs[i] - r.emitDelayNs[i - 1]));
    }
    EmitDelays d;
    d.chunks = all.size();
    if (all.empty()) return d;
    d.maxNs = *std::max_element(all.begin(), all.end());
    d.p50Ns = nearestRank(all, 0.50);
    d.p99Ns = nearestRank(all, 0.99);
    d.firstP50Ns = nearestRank(first, 0.50);
    d.firstP99Ns = nearestRank(first, 0.99);
    d.itlP50Ns = nearestRank(itl, 0.50);
    d.itlP99Ns = nearestRank(itl, 0.99);
    return d;
}

}  // namespace ws
