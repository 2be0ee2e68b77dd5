// record --host and pull: warpscope-cli on a GPU server through ssh, its run
// brought back into the local store as a run bundle (docs/remote.md).
#pragma once

#include "cli/cli_args.h"

namespace ws::cli {

// `record --host H ...`: `spec` is record's own, so every option it takes is
// passed on (except the local ones: --db, --progress, --host, --remote-*).
int recordOnHost(const Args& args, const ArgSpec& spec);

}  // namespace ws::cli
