// What the recorder reads about a process that reported to the capture, from
// /proc while it runs (the recorder and the program share a machine).
#pragma once

#include <cstdint>
#include <string>

namespace ws {

// Its arguments joined by spaces, at most 4096 bytes; empty when unreadable.
std::string commandLineOf(std::uint32_t pid);
// Where a process stands in a distributed job, from the environment it was
// started with (/proc/PID/environ): torchrun's RANK, LOCAL_RANK and
// WORLD_SIZE, else Open MPI's, PMI's or Slurm's names for them. Each is
// empty when absent or unreadable.
struct DistributedEnv {
    std::string rank, localRank, worldSize;
};
DistributedEnv distributedEnvOf(std::uint32_t pid);
// Running, not a zombie waiting to be reaped.
bool stillRunning(std::uint32_t pid);

}  // namespace ws
