// Keeps from toml++ 3.3.0 (Debian 12) the input that crashes it: the text
// parseWorkloadConfig hands it, or the position of what cannot be passed.
#pragma once

#include <optional>
#include <string>

#include "config/workload_config.h"

namespace ws::config {

// `safe` is `text` with the code points toml++ cannot classify made harmless
// (\uXXXX escapes in basic strings, '?' in comments); an error where they, or
// anything beyond ASCII, stand where no escape can carry them.
std::optional<ConfigError> makeSafeForTheTomlLibrary(const std::string& text,
                                                     const std::string& sourcePath,
                                                     std::string& safe);

}  // namespace ws::config
