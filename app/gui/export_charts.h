#pragma once

// `warpscope export-charts --db F --runs A,B --out DIR --format png|svg|pdf
// [--width W --height H]`: renders the charts offscreen and exits.
int runExportCharts(int argc, char** argv);
