// A served run with energy samples, engine steps and one kernel, whose energy
// split is worked out by hand in the tests that use it (cli_energy_test,
// dashboard_test).
#pragma once

#include "store/store.h"

namespace ws::testing {

// 0-100 ms: a prefill step (0-40 ms) then a decode step (40-100 ms); one
// matmul kernel 0-50 ms. The energy counter reads 0, 30 and 60 J at 0, 100
// and 200 ms, the power samples 200 to 400 W. Two requests of 3 output tokens.
RunId writeEnergyRun(Store& store);

}  // namespace ws::testing
