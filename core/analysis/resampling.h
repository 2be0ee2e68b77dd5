// Resampling for the bootstraps of compare and series compare: a generator
// that is the same on every standard library, and the mean of a resample
// drawn exactly for small samples and from its normal limit for large ones.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <vector>

namespace ws::resampling {

// splitmix64: the same sequence on every standard library
// (std::uniform_int_distribution is not), and always inlined, so resampling
// stays fast in the debug and sanitizer builds the tests run in.
struct Rng {
    std::uint64_t state;
    [[gnu::always_inline]] std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // An index in [0, n) for n < 2^32 (multiply-shift; bias below n / 2^32).
    [[gnu::always_inline]] std::size_t pick(std::size_t n) {
        return static_cast<std::size_t>(((next() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
    }
};

// A sample (one run's, or a side's pooled samples) and what resampling its
// mean needs.
struct Sample {
    const double* values = nullptr;
    std::size_t n = 0;
    double mean = 0;
    double squares = 0;  // Σ (x − mean)²

    explicit Sample(const std::vector<double>& v) : values(v.data()), n(v.size()) {
        for (double x : v)
            mean += x;
        if (n > 0) mean /= static_cast<double>(n);
        for (double x : v)
            squares += (x - mean) * (x - mean);
    }
    // The mean of n draws with replacement. Past kExactDraws samples (a
    // serving run's token gaps) it is drawn from its normal limit instead,
    // which has the same mean and variance (squares / n²), so a run of 100k
    // gaps costs what a run of 8 requests does.
    static constexpr std::size_t kExactDraws = 512;
    double resampledMean(Rng& rng) const {
        const auto size = static_cast<double>(n);
        if (n > kExactDraws) return mean + std::sqrt(squares) / size * standardNormal(rng);
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j)
            sum += values[rng.pick(n)];
        return sum / size;
    }
    static double standardNormal(Rng& rng) {  // Box–Muller, one of the pair
        const double u1 = (static_cast<double>(rng.next() >> 11) + 0.5) * 0x1.0p-53;
        const double u2 = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
        return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    }
};

}  // namespace ws::resampling
