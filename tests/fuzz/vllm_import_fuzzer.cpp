// libFuzzer harness: a vLLM `bench serve --save-result` JSON imported into a
// fresh store, then read back as the GUI and report read it.
// Expected: std::runtime_error naming the file and field (nothing imported).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_store.h"
#include "fuzz_support.h"
#include "io/vllm_import.h"
#include "store/store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(ws::fuzz::bytes(data, size));
    ws::isVllmResult(text);
    ws::fuzz::expectOnlyRuntimeErrors("importVllmResult", [&] {
        ws::Store store(ws::fuzz::freshStore());
        auto result = ws::importVllmResult(store, "fuzz.json", text, "fuzz");
        ws::fuzz::readRun(store, result.run);
    });
    return 0;
}
