// Summary statistics as numpy computes them: population standard deviation
// and percentiles interpolated linearly between closest ranks.
#pragma once

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
};

// All zeros for an empty sample, as vLLM reports an empty list.
Summary summarize(std::vector<double> values);
// numpy.percentile(values, p) with the default 'linear' method; p in [0, 100].
double percentile(std::vector<double> values, double p);
// The same on values already sorted ascending.
double percentileSorted(const std::vector<double>& sorted, double p);

}  // namespace ws::stats
