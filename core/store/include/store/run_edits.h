// Changes to a recorded run's records beyond appending them (StoreWriter
// appends): what a later pass over the same program adds to the first one.
#pragma once

#include <vector>

#include "model/records.h"

namespace ws {

class Store;

// Sets each metric of `run`'s kernels to the given value, replacing a value
// the kernel held for that metric (each kernel and metric once in `values`);
// one transaction, all or nothing.
void replaceKernelMetrics(Store& store, RunId run, const std::vector<KernelMetricRecord>& values);

}  // namespace ws
