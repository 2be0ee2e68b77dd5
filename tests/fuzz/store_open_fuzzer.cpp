// libFuzzer harness: the bytes as a store file, opened read-only (listed, each
// run read and analysed) and then read-write (migrated, abandoned runs
// recovered, listed, the first run analysed), as the GUI and CLI open stores.
// Expected: ws::StoreError (not SQLite, foreign, newer, damaged) and the
// std::runtime_error the event codec throws on a damaged chunk.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_store.h"
#include "fuzz_support.h"
#include "store/run_queries.h"
#include "store/store.h"

namespace {

// Enough to reach every run of the seed stores, few enough to stay fast.
constexpr std::size_t kRunsRead = 4;

void readRuns(ws::Store& store, std::size_t limit) {
    auto runs = ws::listRuns(store);
    for (std::size_t i = 0; i < runs.size() && i < limit; ++i)
        ws::fuzz::expectOnlyRuntimeErrors("reading a run",
                                          [&] { ws::fuzz::readRun(store, runs[i].id); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string path = ws::fuzz::scratchFile("input.wsdb");
    ws::fuzz::removeDatabase(path);
    ws::fuzz::writeFile(path, ws::fuzz::bytes(data, size));
    ws::fuzz::expectOnlyRuntimeErrors("Store (read-only)", [&] {
        ws::Store store(path, {.readOnly = true});
        readRuns(store, kRunsRead);
    });
    ws::fuzz::expectOnlyRuntimeErrors("Store (read-write)", [&] {
        ws::Store store(path);
        readRuns(store, 1);
    });
    ws::fuzz::removeDatabase(path);
    return 0;
}
