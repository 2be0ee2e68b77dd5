#include "analysis/statistics.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace ws::stats {

double percentileSorted(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
    auto lo = static_cast<std::size_t>(std::floor(rank));
    auto hi = std::min(lo + 1, sorted.size() - 1);
    double frac = rank - static_cast<double>(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double percentile(std::vector<double> values, double p) {
    return percentileInPlace(values, p);
}

double percentileInPlace(std::vector<double>& values, double p) {
    // The two closest ranks by selection (linear time) instead of a sort:
    // the same values, the same interpolation as percentileSorted.
    if (values.empty()) return 0;
    double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
    auto lo = static_cast<std::size_t>(std::floor(rank));
    double frac = rank - static_cast<double>(lo);
    auto at = values.begin() + static_cast<std::ptrdiff_t>(lo);
    std::nth_element(values.begin(), at, values.end());
    const double low = *at;
    if (lo + 1 >= values.size() || frac == 0) return low;
    const double high = *std::min_element(at + 1, values.end());
    return low + (high - low) * frac;
}

Summary summarize(std::vector<double> values) {
    Summary s;
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    s.count = values.size();
    for (double v : values)
        s.sum += v;
    s.mean = s.sum / static_cast<double>(s.count);
    double sq = 0;
    for (double v : values)
        sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sq / static_cast<double>(s.count));
    s.median = percentileSorted(values, 50);
    s.min = values.front();
    s.max = values.back();
    return s;
}

std::int64_t Accumulator::roundDown(std::int64_t value) {
    const bool negative = value < 0;
    auto magnitude = negative ? ~static_cast<std::uint64_t>(value) + 1 : std::uint64_t(value);
    const int width = std::bit_width(magnitude);
    if (width > kSignificantBits) {
        const int drop = width - kSignificantBits;
        magnitude = magnitude >> drop << drop;
    }
    return negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
}

void Accumulator::flush() const {
    if (buffer_.empty()) return;
    std::vector<std::pair<std::int64_t, std::int64_t>> merged;
    merged.reserve(table_.size() + buffer_.size());
    auto put = [&](std::int64_t value, std::int64_t n) {
        if (!merged.empty() && merged.back().first == value)
            merged.back().second += n;
        else
            merged.emplace_back(value, n);
    };
    auto t = table_.begin();
    const auto [lo, hi] = std::minmax_element(buffer_.begin(), buffer_.end());
    const std::uint64_t span = static_cast<std::uint64_t>(*hi) - static_cast<std::uint64_t>(*lo);
    if (span < 4 * buffer_.size()) {
        // Values in a narrow span (durations of one kernel or call): counted
        // by value instead of sorted, the same table either way.
        thread_local std::vector<std::uint32_t> counts;
        const std::int64_t base = *lo;
        counts.assign(span + 1, 0);
        for (std::int64_t v : buffer_)
            ++counts[static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(base)];
        for (std::uint64_t i = 0; i <= span; ++i) {
            if (!counts[i]) continue;
            const auto v = static_cast<std::int64_t>(static_cast<std::uint64_t>(base) + i);
            for (; t != table_.end() && t->first <= v; ++t)
                put(t->first, t->second);
            put(v, counts[i]);
        }
    } else {
        std::sort(buffer_.begin(), buffer_.end());
        for (std::int64_t v : buffer_) {
            for (; t != table_.end() && t->first <= v; ++t)
                put(t->first, t->second);
            put(v, 1);
        }
    }
    for (; t != table_.end(); ++t)
        put(t->first, t->second);
    buffer_.clear();
    if (!rounded_ && merged.size() > kExactDistinct) {
        // Rounding keeps the order: equal neighbours fold together.
        rounded_ = true;
        std::vector<std::pair<std::int64_t, std::int64_t>> coarse;
        for (const auto& [value, n] : merged)
            if (auto r = roundDown(value); !coarse.empty() && coarse.back().first == r)
                coarse.back().second += n;
            else
                coarse.emplace_back(r, n);
        merged = std::move(coarse);
    }
    table_ = std::move(merged);
    buffer_.reserve(std::max(kBuffer, table_.size()));
}

void Accumulator::merge(const Accumulator& other) {
    if (other.count_ == 0) return;
    if (count_ == 0) {
        *this = other;
        return;
    }
    flush();
    other.flush();
    // Chan et al.'s pairwise update of the Welford terms.
    const double na = static_cast<double>(count_), nb = static_cast<double>(other.count_);
    const double delta = other.mean_ - mean_;
    mean_ += delta * nb / (na + nb);
    m2_ += other.m2_ + delta * delta * na * nb / (na + nb);
    count_ += other.count_;
    sum_ += other.sum_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
    const bool rounded = rounded_ || other.rounded_;
    std::vector<std::pair<std::int64_t, std::int64_t>> merged;
    merged.reserve(table_.size() + other.table_.size());
    auto put = [&](std::int64_t value, std::int64_t n) {
        if (rounded) value = roundDown(value);
        if (!merged.empty() && merged.back().first == value)
            merged.back().second += n;
        else
            merged.emplace_back(value, n);
    };
    auto a = table_.begin(), b = other.table_.begin();
    while (a != table_.end() || b != other.table_.end()) {
        if (b == other.table_.end() || (a != table_.end() && a->first <= b->first))
            put(a->first, a->second), ++a;
        else
            put(b->first, b->second), ++b;
    }
    table_ = std::move(merged);
    rounded_ = rounded;
    if (!rounded_ && table_.size() > kExactDistinct) {
        // As flush() rounds a table that grew past the limit.
        rounded_ = true;
        std::vector<std::pair<std::int64_t, std::int64_t>> coarse;
        for (const auto& [value, n] : table_)
            if (auto r = roundDown(value); !coarse.empty() && coarse.back().first == r)
                coarse.back().second += n;
            else
                coarse.emplace_back(r, n);
        table_ = std::move(coarse);
    }
}

Summary Accumulator::summary() const {
    Summary s;
    if (count_ == 0) return s;
    s.count = static_cast<std::size_t>(count_);
    s.sum = static_cast<double>(sum_);
    s.mean = s.sum / static_cast<double>(count_);
    s.min = static_cast<double>(min_);
    s.max = static_cast<double>(max_);
    flush();
    s.medianExact = !rounded_;
    const auto& sorted = table_;
    if (rounded_) {
        s.stddev = std::sqrt(m2_ / static_cast<double>(count_));
    } else {
        // As summarize() does: squared deviations from the mean, in value order.
        double sq = 0;
        for (const auto& [value, n] : sorted) {
            const double d = static_cast<double>(value) - s.mean;
            sq += static_cast<double>(n) * d * d;
        }
        s.stddev = std::sqrt(sq / static_cast<double>(count_));
    }
    // numpy's linear median: ranks floor and ceil of (n - 1) / 2.
    const std::int64_t lo = (count_ - 1) / 2, hi = count_ / 2;
    double atLo = 0, atHi = 0;
    std::int64_t seen = 0;
    for (const auto& [value, n] : sorted) {
        if (seen <= lo && lo < seen + n) atLo = static_cast<double>(value);
        if (seen <= hi && hi < seen + n) {
            atHi = static_cast<double>(value);
            break;
        }
        seen += n;
    }
    s.median = atLo + (atHi - atLo) * 0.5 * static_cast<double>(hi - lo);
    // Rounded values lie below the true ones; min and max are exact.
    s.median = std::clamp(s.median, s.min, s.max);
    return s;
}

double sumOf(std::vector<double>& values) {
    double total = 0;
    for (double x : values)
        total += x;
    return total;
}

double meanOf(std::vector<double>& values) {
    return values.empty() ? 0 : sumOf(values) / static_cast<double>(values.size());
}

double medianOf(std::vector<double>& values) {
    return percentileInPlace(values, 50);
}

double p90Of(std::vector<double>& values) {
    return percentileInPlace(values, 90);
}

double p99Of(std::vector<double>& values) {
    return percentileInPlace(values, 99);
}

}  // namespace ws::stats
