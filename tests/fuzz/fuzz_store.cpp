#include "fuzz_store.h"

#include <filesystem>

#include "analysis/run_analysis.h"
#include "fuzz_support.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace ws::fuzz {

std::string freshStore() {
    static const std::string empty = [] {
        auto path = scratchFile("empty.wsdb");
        { Store store(path); }  // closing checkpoints the WAL: one file
        return path;
    }();
    auto path = scratchFile("runs.wsdb");
    removeDatabase(path);
    std::filesystem::copy_file(empty, path);
    return path;
}

void readRun(Store& store, RunId run) {
    requireRun(store, run);
    runAggregates(store, run);
    runProperties(store, run);
    runDevice(store, run);
    analyzeRun(store, run);
}

}  // namespace ws::fuzz
