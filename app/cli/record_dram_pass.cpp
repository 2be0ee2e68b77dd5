#include "cli/record_dram_pass.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "model/counter_metrics.h"
#include "record/dram_pass.h"
#include "store/store.h"

namespace ws::cli {

namespace {

constexpr const char* kMetricsVariable = "WARPSCOPE_METRICS=";

std::string scratchFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "warpscope-dram.XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a scratch folder");
    return pattern;
}

// What the pass found, for the run: where its DRAM bytes come from.
std::string passResult(RecordRequest& request, RunId run, const std::string& storePath,
                       const std::function<void(Recorder*)>& setActive) {
    Recorder pass(request);
    setActive(&pass);
    RecordOutcome outcome;
    try {
        outcome = pass.run();
    } catch (...) {
        setActive(nullptr);
        throw;
    }
    setActive(nullptr);
    if (outcome.status != RunStatus::Ok)
        return std::string("the replay passes (the DRAM pass ended ") + toString(outcome.status) +
               ")";
    Store target(storePath);
    Store scratch(request.storePath);
    DramMerge merge = mergeDramBytes(target, run, scratch, outcome.run);
    if (!merge.merged()) return "the replay passes (" + merge.problem + ")";
    return "a one-pass rerun (" + std::to_string(merge.kernels) + " kernels matched)";
}

}  // namespace

bool needsDramPass(const std::string& metricSpec) {
    if (metricSpec == "roofline") return true;
    bool dram = false, other = false;
    std::stringstream in(metricSpec);
    for (std::string name; std::getline(in, name, ',');) {
        bool isDram = name == counters::kDramRead || name == counters::kDramWrite;
        dram = dram || isDram;
        other = other || (!isDram && name != counters::kDuration);
    }
    return dram && other;
}

void recordDramPass(RecordRequest request, RunId run, ProgressMode mode,
                    const std::function<void(Recorder*)>& setActive) {
    const std::string storePath = request.storePath;
    emitNote(mode,
             "DRAM pass: running the program again with DRAM counters alone (one replay pass; "
             "the replay passes of a larger set count their own memory writebacks)");
    const std::string folder = scratchFolder();
    request.storePath = folder + "/dram-pass.wsdb";
    request.label = "DRAM pass of run " + std::to_string(run);
    request.properties.clear();
    request.echoOutput = false;
    std::replace_if(
        request.env.begin(), request.env.end(),
        [](const std::string& e) { return e.rfind(kMetricsVariable, 0) == 0; },
        std::string(kMetricsVariable) + "dram");
    std::string source;
    try {
        source = passResult(request, run, storePath, setActive);
    } catch (const std::exception& e) {
        source = std::string("the replay passes (the DRAM pass failed: ") + e.what() + ")";
    }
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
    Store target(storePath);
    target.setProperty(run, "capture.dram_source", source);
    target.appendLog(run, "[warpscope] DRAM bytes come from " + source + "\n");
    emitNote(mode, "DRAM bytes come from " + source);
}

}  // namespace ws::cli
