#pragma once

// `warpscope report RUN [--db F] [--baseline RUN] --format html|md|pdf -o FILE`:
// writes the run's benchmark and optimization report, headless, and exits.
int runReportCommand(int argc, char** argv);
