// What `import` and `pull` share with `bundle`: a bundle file into a store.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cli/cli_args.h"
#include "cli/progress_output.h"
#include "io/run_bundle.h"

namespace ws::cli {

// Imports the bundle at `path` into the store file `storeFile` (created when
// missing) as a new run with `properties`; `name` is how messages call it.
ImportedBundle importBundleFile(const std::string& path, const std::string& storeFile,
                                const std::vector<std::pair<std::string, std::string>>& properties,
                                const std::string& name);

// `import FILE` for a bundle: prints (or with JSON progress, reports) the
// new run; exit status 0.
int importBundleCommand(const std::string& path, const Args& args, ProgressMode reporting);

}  // namespace ws::cli
