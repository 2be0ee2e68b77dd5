// Latency of a stored run, with goodput targets from its workload contract
// unless the caller gives others.
#pragma once

#include "analysis/latency.h"

namespace ws {

class Store;

LatencyTargets contractTargets(Store& store, RunId run);
LatencyReport runLatency(Store& store, RunId run, const LatencyTargets& targets);

}  // namespace ws
