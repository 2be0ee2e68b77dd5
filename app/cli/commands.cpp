#include "cli/commands.h"

namespace ws::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> list = {
        {"ls", "ls [--db FILE] [--json]", "list the runs in a store", cmdLs},
        {"show", "show RUN [--db FILE]", "one run's metadata, device and record counts", cmdShow},
        {"rm", "rm RUN... [--db FILE]", "delete runs and everything they recorded", cmdRm},
        {"export", "export RUN --format csv|json -o FILE [--table NAME] [--db FILE]",
         "write a run as JSON (everything) or one table as CSV (default: kernels)", cmdExport},
        {"record",
         "record [--db FILE] [--label L] [--workload CONFIG] [--driver-api] [--progress "
         "line|json|none] -- "
         "PROGRAM ARGS...",
         "run any CUDA program with capture injected and store it as a run", cmdRecord},
        {"validate", "validate CONFIG...", "check workload configs; errors name file:line:column",
         cmdValidate},
    };
    return list;
}

}  // namespace ws::cli
