// Builds the small fixture store the tests and tests/data/fixture.wsdb use:
// deterministic content covering every table and every run status.
#pragma once

#include <string>

#include "model/records.h"

namespace ws::testing {

// The device the fixture's runs were "recorded" on: an H200 as CUDA reports it.
DeviceInfo fixtureDevice();

struct FixtureRuns {
    RunId decoderOk = 0;      // ok, kernels on 2 streams, memcpys, ranges, tokens, samples
    RunId kernelFailed = 0;   // failed with exit code 3, a few kernels
    RunId commandKilled = 0;  // killed by SIGKILL
    RunId remoteRunning = 0;  // still running on another host
};

// Writes the fixture runs into the store at `path` (created if missing).
FixtureRuns writeFixtureStore(const std::string& path);

// Number of kernels per stream in the decoder run.
constexpr int kFixtureKernelsPerStream = 120;

}  // namespace ws::testing
