// Runs a check as a user without write access to what the test made read-only.
// Root ignores file modes, and CI runs as root, so there the check runs in a
// forked child that has dropped to `nobody`; otherwise it runs in place.
#pragma once

#include <functional>
#include <string>

namespace ws::testing {

// `check` returns "" on success or what went wrong; the result is returned
// (a child's crash or exit becomes a description).
std::string runUnprivileged(const std::function<std::string()>& check);

// Makes a folder and everything above it up to / traversable by others, so a
// child running as `nobody` reaches the files of a TempDir.
void allowOthersToReach(const std::string& folder);

}  // namespace ws::testing
