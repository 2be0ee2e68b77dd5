// Store helpers for the harnesses that import into, or open, a store.
#pragma once

#include <string>

#include "model/records.h"

namespace ws {
class Store;
}

namespace ws::fuzz {

// Path of an empty, current-schema store made for this input: a copy of one
// created once per process (creating the schema on every input would cost
// more than the import).
std::string freshStore();

// Reads a run back the way its readers do: the run, its aggregates, its
// properties and device, and analyzeRun (latency, kernel summary, roofline,
// occupancy), which the GUI, the report and `compare` share.
void readRun(Store& store, RunId run);

}  // namespace ws::fuzz
