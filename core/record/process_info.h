// What the recorder reads about a process that reported to the capture, from
// /proc while it runs (the recorder and the program share a machine).
#pragma once

#include <cstdint>
#include <string>

namespace ws {

// Its arguments joined by spaces, at most 4096 bytes; empty when unreadable.
std::string commandLineOf(std::uint32_t pid);
// Running, not a zombie waiting to be reaped.
bool stillRunning(std::uint32_t pid);

}  // namespace ws
