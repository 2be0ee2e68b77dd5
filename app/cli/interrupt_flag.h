// Ctrl-C (SIGINT) and SIGTERM for long commands that stop cleanly: the
// signal sets a flag the command polls between units of work (a block read,
// a batch of chunks), so it ends with the store as it should be and says so,
// instead of dying mid-write.
#pragma once

#include <atomic>

namespace ws::cli {

// Installs the handlers and returns the flag they set.
std::atomic<bool>& stopOnInterrupt();

}  // namespace ws::cli
