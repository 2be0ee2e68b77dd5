// libFuzzer harness: other benchmark clients' results (a GuideLLM report,
// SGLang bench_serving JSON Lines, AIPerf's profile_export.jsonl, GenAI-Perf's
// profile_export.json) imported into a fresh store, then each run read back
// as the GUI and report read it. All four importers see every input, whichever format it resembles
// (the AIPerf file in no folder, so no aggregate file is read beside it). Expected:
// std::runtime_error naming the file and field (nothing imported).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_store.h"
#include "fuzz_support.h"
#include "io/aiperf_import.h"
#include "io/genai_perf_import.h"
#include "io/guidellm_import.h"
#include "io/sglang_import.h"
#include "store/store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(ws::fuzz::bytes(data, size));
    ws::isGuidellmReport(text);
    ws::isSglangResults(text);
    ws::isAiperfRecords(text);
    ws::isGenaiPerfExport(text);
    // One store for the four (a fresh one costs more than an import): a
    // refused file leaves it as it was, which the next import relies on.
    ws::Store store(ws::fuzz::freshStore());
    auto readBack = [&](const ws::ImportResult& result) {
        for (auto run : result.runs)
            ws::fuzz::readRun(store, run);
    };
    ws::fuzz::expectOnlyRuntimeErrors("importGuidellmReport", [&] {
        readBack(ws::importGuidellmReport(store, "fuzz.json", text, "fuzz"));
    });
    ws::fuzz::expectOnlyRuntimeErrors("importSglangResults", [&] {
        readBack(ws::importSglangResults(store, "fuzz.jsonl", text, "fuzz"));
    });
    ws::fuzz::expectOnlyRuntimeErrors("importAiperfRecords", [&] {
        readBack(ws::importAiperfRecords(store, "/nonexistent/fuzz.jsonl", text, "fuzz"));
    });
    ws::fuzz::expectOnlyRuntimeErrors("importGenaiPerfExport", [&] {
        readBack(ws::importGenaiPerfExport(store, "fuzz.json", text, "fuzz"));
    });
    return 0;
}
