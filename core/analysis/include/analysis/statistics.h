// Summary statistics as numpy computes them: population standard deviation
// and percentiles interpolated linearly between closest ranks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ws::stats {

struct Summary {
    std::size_t count = 0;
    double mean = 0;
    double median = 0;
    double stddev = 0;  // population (numpy's np.std default)
    double min = 0;
    double max = 0;
    double sum = 0;
    // False when the median came from rounded values (see Accumulator).
    bool medianExact = true;
};

// All zeros for an empty sample, as vLLM reports an empty list.
Summary summarize(std::vector<double> values);
// numpy.percentile(values, p) with the default 'linear' method; p in [0, 100].
double percentile(std::vector<double> values, double p);
// The same, reordering `values` (no copy, linear time): for loops that
// reuse one buffer, as a bootstrap does.
double percentileInPlace(std::vector<double>& values, double p);
// Statistics of one resample for a bootstrap (compare, whatif): each may
// reorder its scratch buffer, none copies it.
double meanOf(std::vector<double>& values);
double sumOf(std::vector<double>& values);
double medianOf(std::vector<double>& values);
double p90Of(std::vector<double>& values);
double p99Of(std::vector<double>& values);
// The same on values already sorted ascending.
double percentileSorted(const std::vector<double>& sorted, double p);

// summarize() of integer samples (nanosecond durations) one at a time, in
// memory bounded by how many distinct values there are, not how many samples:
// a count per distinct value, so the median is exactly numpy's. Past
// kExactDistinct distinct values (wide-spread durations of one kernel over a
// very long run), values are rounded down to kSignificantBits significant
// bits from then on, existing ones included: the table then holds at most
// 2^kSignificantBits values per power of two (under 300 k entries for any
// int64), and the median is low by less than 2^-(kSignificantBits-1) of its
// value (0.025 %), with medianExact false. Count, sum, mean, min, max and the
// standard deviation stay exact either way (std from a running Welford sum
// once rounded; from the exact table before).
class Accumulator {
  public:
    static constexpr std::size_t kExactDistinct = std::size_t(1) << 18;
    static constexpr int kSignificantBits = 13;

    void add(std::int64_t value) {
        ++count_;
        sum_ += value;
        if (count_ == 1 || value < min_) min_ = value;
        if (count_ == 1 || value > max_) max_ = value;
        const double delta = static_cast<double>(value) - mean_;
        mean_ += delta / static_cast<double>(count_);
        m2_ += delta * (static_cast<double>(value) - mean_);
        buffer_.push_back(rounded_ ? roundDown(value) : value);
        if (buffer_.size() >= std::max<std::size_t>(kBuffer, table_.size())) flush();
    }
    std::int64_t count() const { return count_; }
    std::int64_t sum() const { return sum_; }
    bool exact() const { return !rounded_; }
    // Entries in the table of distinct values: what the memory depends on.
    std::size_t distinct() const {
        flush();
        return table_.size();
    }
    Summary summary() const;
    // Takes in `other`'s samples (summaries of a run's slices made into the
    // run's): count, sum, min, max and the table come out as one accumulator
    // fed both would have them, rounded exactly when the two hold more than
    // kExactDistinct distinct values together. The Welford terms (the standard
    // deviation once rounded) depend on the order of the samples: merged, the
    // deviation matches one accumulator's in all but the last bits.
    void merge(const Accumulator& other);
    // Keeps kSignificantBits significant bits of `value` (its magnitude's).
    static std::int64_t roundDown(std::int64_t value);

  private:
    static constexpr std::size_t kBuffer = 4096;
    // Counts the buffered values into the table (sorting a batch and merging
    // it is several times faster than a hash table for scattered values).
    void flush() const;

    std::int64_t count_ = 0, sum_ = 0, min_ = 0, max_ = 0;
    double mean_ = 0, m2_ = 0;  // Welford
    mutable bool rounded_ = false;
    // Distinct values ascending, with their counts; values not yet counted.
    mutable std::vector<std::pair<std::int64_t, std::int64_t>> table_;
    mutable std::vector<std::int64_t> buffer_;
};

}  // namespace ws::stats
