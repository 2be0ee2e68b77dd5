#include "io/trace_import.h"

#include <fstream>
#include <sstream>

#include "io/kineto_import.h"
#include "io/nsys_import.h"
#include "io/vllm_import.h"

namespace ws {

TraceFile readTraceFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) importError(path, "(file)", "cannot be read");
    std::string head(16, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    if (isSqliteFile(head)) return {path, TraceFormat::NsysSqlite, {}};
    in.clear();
    in.seekg(0);
    std::ostringstream buf;
    buf << in.rdbuf();
    TraceFile file{path, TraceFormat::VllmResult, buf.str()};
    if (isVllmResult(file.text)) return file;
    file.format = TraceFormat::KinetoTrace;
    if (isKinetoTrace(file.text)) return file;
    importError(path, "(file)",
                "not a format Warpscope imports (expected a vLLM `bench serve --save-result` "
                "JSON, an Nsight Systems SQLite export or a PyTorch profiler trace JSON)");
}

ImportResult importTrace(Store& store, const TraceFile& file, const std::string& label) {
    switch (file.format) {
        case TraceFormat::VllmResult:
            return importVllmResult(store, file.path, file.text, label);
        case TraceFormat::NsysSqlite:
            return importNsysExport(store, file.path, label);
        case TraceFormat::KinetoTrace:
            return importKinetoTrace(store, file.path, file.text, label);
    }
    importError(file.path, "(file)", "unknown format");
}

}  // namespace ws
