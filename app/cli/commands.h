// warpscope-cli subcommands. Each returns the process exit code: 0 success,
// 1 failure (reason printed on stderr), 2 usage error.
#pragma once

#include <string>
#include <vector>

namespace ws::cli {

struct Command {
    const char* name;
    const char* usage;    // "ls [--db FILE] [--json]"
    const char* summary;  // one line
    int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& commands();

int cmdLs(const std::vector<std::string>& args);
int cmdShow(const std::vector<std::string>& args);
int cmdLabel(const std::vector<std::string>& argv);
int cmdTag(const std::vector<std::string>& argv);
int cmdRm(const std::vector<std::string>& args);
int cmdCompact(const std::vector<std::string>& args);
int cmdExport(const std::vector<std::string>& args);
int cmdValidate(const std::vector<std::string>& args);
int cmdRecord(const std::vector<std::string>& args);
int cmdStats(const std::vector<std::string>& args);
int cmdImport(const std::vector<std::string>& args);
int cmdOccupancy(const std::vector<std::string>& args);
int cmdCompare(const std::vector<std::string>& args);
int cmdSummary(const std::vector<std::string>& args);
int cmdRoofline(const std::vector<std::string>& args);
int cmdBench(const std::vector<std::string>& args);
int cmdSweep(const std::vector<std::string>& args);
int cmdOutliers(const std::vector<std::string>& args);
int cmdSteps(const std::vector<std::string>& args);
int cmdWhatIf(const std::vector<std::string>& args);
int cmdCollectives(const std::vector<std::string>& args);
int cmdGpuMetrics(const std::vector<std::string>& args);
int cmdKernel(const std::vector<std::string>& args);
int cmdBundle(const std::vector<std::string>& args);
int cmdPull(const std::vector<std::string>& args);

}  // namespace ws::cli
