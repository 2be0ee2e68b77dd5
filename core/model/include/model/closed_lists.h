#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace ws {

// The closed lists that a store, a workload config, the Launch panel and the
// docs must agree on, each spelled once here. The store's CHECK constraints
// are tested against these arrays (tests/core/closed_lists_test.cpp), so a
// name added here without a schema migration, or the reverse, fails a test.

// A run's status moves running → ok | failed | killed. Index = RunStatus.
enum class RunStatus { Running, Ok, Failed, Killed };
inline constexpr std::array<const char*, 4> kRunStatusNames = {"running", "ok", "failed", "killed"};

// What a run's workload is. The first four come from a workload config's
// `kind`; `imported` marks runs read from another tool's files and is never
// written in a config. Index = WorkloadKind.
enum class WorkloadKind { Decoder, Kernel, Command, Serve, Imported };
inline constexpr std::array<const char*, 5> kWorkloadKindNames = {"decoder", "kernel", "command",
                                                                  "serve", "imported"};
inline constexpr std::size_t kConfigurableWorkloadKinds = 4;  // the first four

const char* toString(WorkloadKind kind);
std::optional<WorkloadKind> workloadKindFromString(std::string_view text);

}  // namespace ws
