// Run properties that describe each process that reported to the capture,
// written by the recorder (docs/schema.md, "Processes of a run"):
//   process.<pid>.parent   its parent's pid
//   process.<pid>.command  its command line, arguments joined by spaces
//   process.<pid>.end      "exited": it said goodbye (flushed its records);
//                          "lost": its stream ended without (killed, crashed)
//   process.<pid>.end_ns   when its stream ended, on the run's clock
//   process.<pid>.rank, .local_rank, .world_size
//                          from its environment (RANK, LOCAL_RANK, WORLD_SIZE
//                          as torchrun sets them; MPI and Slurm names too)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws {

namespace process_keys {
inline constexpr const char* kPrefix = "process.";
inline std::string parent(std::uint32_t pid) {
    return kPrefix + std::to_string(pid) + ".parent";
}
inline std::string command(std::uint32_t pid) {
    return kPrefix + std::to_string(pid) + ".command";
}
inline std::string end(std::uint32_t pid) {
    return kPrefix + std::to_string(pid) + ".end";
}
inline std::string endNs(std::uint32_t pid) {
    return kPrefix + std::to_string(pid) + ".end_ns";
}
inline std::string rank(std::uint32_t pid) {
    return kPrefix + std::to_string(pid) + ".rank";
}
inline std::string localRank(std::uint32_t pid) {
    return kPrefix + std::to_string(pid) + ".local_rank";
}
inline std::string worldSize(std::uint32_t pid) {
    return kPrefix + std::to_string(pid) + ".world_size";
}
}  // namespace process_keys

struct ProcessInfo {
    std::uint32_t pid = 0;
    std::uint32_t parent = 0;
    std::string command;
    std::string end;  // "exited", "lost", or empty while unknown
    std::int64_t endNs = 0;
    // From its environment; -1 when it had none (not a distributed job).
    int rank = -1;
    int localRank = -1;
    int worldSize = -1;
};

// The processes a run's properties describe, by pid.
std::vector<ProcessInfo> processesFromProperties(
    const std::map<std::string, std::string>& properties);

// A short name for a lane or table: the program's file name, or the script's
// for an interpreter ("python3 -m vllm.entrypoints..." → "vllm.entrypoints...",
// "/usr/bin/python3 worker.py --x" → "worker.py").
std::string shortCommand(const std::string& command);

}  // namespace ws
