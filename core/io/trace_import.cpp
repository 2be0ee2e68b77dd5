#include "io/trace_import.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/aiperf_import.h"
#include "io/genai_perf_import.h"
#include "io/guidellm_import.h"
#include "io/kineto_import.h"
#include "io/nsys_import.h"
#include "io/sglang_import.h"
#include "io/vllm_import.h"

namespace ws {

namespace {

// Up to this size a JSON file is read whole and recognised as before (its
// text stays in TraceFile::text); larger ones and every .json.gz are only
// sniffed here and streamed by the importer, so a trace of gigabytes is never
// held in memory.
constexpr std::int64_t kWholeFileBytes = 16 << 20;

ImportResult importAs(Store& store, const TraceFile& file, const std::string& label,
                      const ReadProgress& progress) {
    switch (file.format) {
        case TraceFormat::VllmResult:
            return importVllmResult(store, file.path, file.text, label);
        case TraceFormat::GuidellmReport:
            return importGuidellmReport(store, file.path, file.text, label);
        case TraceFormat::SglangResults:
            return importSglangResults(store, file.path, file.text, label);
        case TraceFormat::AiperfRecords:
            return importAiperfRecords(store, file.path, file.text, label);
        case TraceFormat::GenaiPerfExport:
            return importGenaiPerfExport(store, file.path, file.text, label);
        case TraceFormat::NsysSqlite:
            return importNsysExport(store, file.path, label);
        case TraceFormat::KinetoFolder:
            return importKinetoTraceFiles(store, file.path, file.files, label, progress);
        case TraceFormat::KinetoTrace:
            if (file.text.empty()) return importKinetoTraceFile(store, file.path, label, progress);
            return importKinetoTrace(store, file.path, file.text, label);
    }
    importError(file.path, "(file)", "unknown format");
}

}  // namespace

TraceFile readTraceFile(const std::string& path) {
    // A FIFO would block the import forever, a folder read as "not a format".
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        importError(path, "(file)", std::string("cannot be read: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        // AIPerf's artifacts folder: its per-request export (the aggregate
        // file beside it is read with it).
        auto records = std::filesystem::path(path) / "profile_export.jsonl";
        if (std::filesystem::is_regular_file(records)) return readTraceFile(records.string());
        // GenAI-Perf's: perf_analyzer's per-request export.
        auto exported = std::filesystem::path(path) / "profile_export.json";
        if (std::filesystem::is_regular_file(exported)) return readTraceFile(exported.string());
        // A profiler's folder (vLLM's torch_profiler_dir): a trace per rank.
        TraceFile folder{path, TraceFormat::KinetoFolder, {}, {}};
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
            const std::string name = entry.path().filename().string();
            auto endsWith = [&](std::string_view tail) {
                return name.size() >= tail.size() &&
                       name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
            };
            if (entry.is_regular_file(ec) && (endsWith(".json") || endsWith(".json.gz")) &&
                isKinetoTraceFile(entry.path().string()))
                folder.files.push_back(entry.path().string());
        }
        std::sort(folder.files.begin(), folder.files.end());
        if (!folder.files.empty()) return folder;
        importError(path, "(file)",
                    "is a folder, not a file (of folders, an AIPerf or GenAI-Perf artifacts folder "
                    "with profile_export.jsonl or profile_export.json, or one of PyTorch profiler "
                    "traces, .json or .json.gz, is imported)");
    }
    if (!S_ISREG(st.st_mode))
        importError(path, "(file)", "is not a regular file (a pipe, socket or device)");
    std::ifstream in(path, std::ios::binary);
    if (!in) importError(path, "(file)", "cannot be read");
    std::string head(16, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (isSqliteFile(head)) return {path, TraceFormat::NsysSqlite, {}, {}};
    if (isGzip(head) || static_cast<std::int64_t>(st.st_size) > kWholeFileBytes) {
        if (isKinetoTraceFile(path)) return {path, TraceFormat::KinetoTrace, {}, {}};
        if (isGzip(head))
            importError(path, "(file)",
                        "not a gzip-compressed PyTorch profiler trace (the one compressed "
                        "format Warpscope imports)");
    }
    in.clear();
    in.seekg(0);
    std::ostringstream buf;
    buf << in.rdbuf();
    TraceFile file{path, TraceFormat::SglangResults, buf.str(), {}};
    // Before vLLM's: an SGLang line with --output-details has vLLM's arrays too.
    if (isSglangResults(file.text)) return file;
    file.format = TraceFormat::AiperfRecords;
    if (isAiperfRecords(file.text)) return file;
    file.format = TraceFormat::GenaiPerfExport;
    if (isGenaiPerfExport(file.text)) return file;
    file.format = TraceFormat::VllmResult;
    if (isVllmResult(file.text)) return file;
    file.format = TraceFormat::GuidellmReport;
    if (isGuidellmReport(file.text)) return file;
    file.format = TraceFormat::KinetoTrace;
    if (isKinetoTrace(file.text)) return file;
    importError(path, "(file)",
                "not a format Warpscope imports (expected a vLLM `bench serve --save-result` "
                "JSON, a GuideLLM report JSON, SGLang bench_serving results or AIPerf's "
                "profile_export.jsonl (JSON Lines), GenAI-Perf's profile_export.json, an Nsight "
                "Systems SQLite export or a PyTorch profiler trace JSON)");
}

ImportResult importTrace(Store& store, const TraceFile& file, const std::string& label,
                         const ReadProgress& progress) {
    try {
        return importAs(store, file, label, progress);
    } catch (const nlohmann::json::exception& e) {
        // The importers name the fields they check; this names at least the file.
        importError(file.path, "(file)", std::string("unexpected JSON content: ") + e.what());
    }
}

}  // namespace ws
