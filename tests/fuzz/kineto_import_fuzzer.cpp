// libFuzzer harness: a PyTorch profiler (Kineto) Chrome-trace JSON imported
// into a fresh store, then read back as the GUI and report read it.
// Expected: std::runtime_error naming the file (nothing imported).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_store.h"
#include "fuzz_support.h"
#include "io/kineto_import.h"
#include "store/store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(ws::fuzz::bytes(data, size));
    ws::isKinetoTrace(text);
    ws::fuzz::expectOnlyRuntimeErrors("importKinetoTrace", [&] {
        ws::Store store(ws::fuzz::freshStore());
        auto result = ws::importKinetoTrace(store, "fuzz.json", text, "fuzz");
        ws::fuzz::readRun(store, result.run);
    });
    return 0;
}
