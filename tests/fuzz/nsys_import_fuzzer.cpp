// libFuzzer harness: the bytes as an Nsight Systems SQLite export file,
// imported into a fresh store, then read back as the GUI and report read it.
// Expected: std::runtime_error naming the file, table or column (nothing
// imported), ws::StoreError for a file SQLite refuses.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_store.h"
#include "fuzz_support.h"
#include "io/nsys_import.h"
#include "store/store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto bytes = ws::fuzz::bytes(data, size);
    ws::isSqliteFile(std::string(bytes.substr(0, 16)));
    static const std::string path = ws::fuzz::scratchFile("report.sqlite");
    ws::fuzz::removeDatabase(path);
    ws::fuzz::writeFile(path, bytes);
    ws::fuzz::expectOnlyRuntimeErrors("importNsysExport", [&] {
        ws::Store store(ws::fuzz::freshStore());
        auto result = ws::importNsysExport(store, path, "fuzz");
        ws::fuzz::readRun(store, result.run);
    });
    return 0;
}
