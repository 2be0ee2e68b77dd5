#include "model/records.h"

#include <array>

namespace ws {

namespace {
constexpr std::array<const char*, 11> kMemcpyNames = {
    "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
constexpr std::array<const char*, 8> kMemoryNames = {"unknown",       "pageable",      "pinned",
                                                     "device",        "array",         "managed",
                                                     "device_static", "managed_static"};
}  // namespace

const char* toString(RunStatus status) {
    return kRunStatusNames[static_cast<int>(status)];
}

std::optional<RunStatus> runStatusFromString(const std::string& text) {
    for (std::size_t i = 0; i < kRunStatusNames.size(); ++i)
        if (text == kRunStatusNames[i]) return static_cast<RunStatus>(i);
    return std::nullopt;
}

const char* toString(WorkloadKind kind) {
    return kWorkloadKindNames[static_cast<std::size_t>(kind)];
}

std::optional<WorkloadKind> workloadKindFromString(std::string_view text) {
    for (std::size_t i = 0; i < kWorkloadKindNames.size(); ++i)
        if (text == kWorkloadKindNames[i]) return static_cast<WorkloadKind>(i);
    return std::nullopt;
}

const char* toString(MemcpyKind kind) {
    return kMemcpyNames[static_cast<int>(kind)];
}
const char* toString(MemoryKind kind) {
    return kMemoryNames[static_cast<int>(kind)];
}

const char* toString(ApiKind kind) {
    return kind == ApiKind::Driver ? "driver" : "runtime";
}

}  // namespace ws
