// libFuzzer harness: other benchmark clients' results (a GuideLLM report,
// SGLang bench_serving JSON Lines, AIPerf's profile_export.jsonl) imported into a fresh store, then
// each run read back as the GUI and report read it. Both importers see every input, whichever
// format it resembles. Expected: std::runtime_error naming the file and field (nothing imported).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_store.h"
#include "fuzz_support.h"
#include "io/aiperf_import.h"
#include "io/guidellm_import.h"
#include "io/sglang_import.h"
#include "store/store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(ws::fuzz::bytes(data, size));
    ws::isGuidellmReport(text);
    ws::isSglangResults(text);
    ws::isAiperfRecords(text);
    ws::fuzz::expectOnlyRuntimeErrors("importGuidellmReport", [&] {
        ws::Store store(ws::fuzz::freshStore());
        auto result = ws::importGuidellmReport(store, "fuzz.json", text, "fuzz");
        for (auto run : result.runs)
            ws::fuzz::readRun(store, run);
    });
    ws::fuzz::expectOnlyRuntimeErrors("importSglangResults", [&] {
        ws::Store store(ws::fuzz::freshStore());
        auto result = ws::importSglangResults(store, "fuzz.jsonl", text, "fuzz");
        for (auto run : result.runs)
            ws::fuzz::readRun(store, run);
    });
    ws::fuzz::expectOnlyRuntimeErrors("importAiperfRecords", [&] {
        ws::Store store(ws::fuzz::freshStore());
        auto result = ws::importAiperfRecords(store, "fuzz.jsonl", text, "fuzz");
        for (auto run : result.runs)
            ws::fuzz::readRun(store, run);
    });
    return 0;
}
