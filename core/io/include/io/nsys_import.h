// Imports an Nsight Systems SQLite export (`nsys export --type sqlite`) as a
// run: kernels, memcpys, memsets, CUDA runtime and driver calls, NVTX ranges
// and marks with their domains, and the GPU's properties, so a trace taken
// with nsys compares with runs recorded here. Programs that follow the NVTX
// token conventions get their requests and token times as well.
#pragma once

#include <string>

#include "io/import_run.h"

namespace ws {

class Store;

// Schema versions this importer reads: EXPORT_SCHEMA_VERSION 3.x.
constexpr int kNsysSchemaMajor = 3;

// True when the file starts with the SQLite header.
bool isSqliteFile(const std::string& firstBytes);

// Throws std::runtime_error naming the file, the table or column and why (not
// an nsys export, an unsupported schema version, a required column missing);
// on any error nothing is added to the store.
ImportResult importNsysExport(Store& store, const std::string& path, const std::string& label);

}  // namespace ws
