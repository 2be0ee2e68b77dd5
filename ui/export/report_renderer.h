// Writes a run's report as HTML (self-contained, charts embedded), Markdown
// (charts as PNG files beside it) or PDF (the HTML laid out by Qt on A4, charts
// drawn as vectors within the margins), with the workbench's own charts
// rendered offscreen. Used by `warpscope report` and File ▸ Export Report.
#pragma once

#include <QPageLayout>
#include <QString>
#include <optional>
#include <vector>

#include "model/records.h"
#include "report/report_data.h"

namespace ws {
class Store;
}

namespace ws::ui {

// Renders the charts (widgets, so on the GUI thread) and writes the file,
// from prepareReport's result (a StoreLoader job, off the GUI thread).
// Returns an error message, empty on success. `format`: "html", "md" or "pdf".
QString writeReportFile(const ReportInput& input, const QString& format, const QString& path);

// Both steps at once, for `warpscope report` and tests.
QString renderReport(Store& store, RunId run, std::optional<RunId> baseline, const QString& format,
                     const QString& path);

// The PDF report's pages: A4, 15 mm margins. Nothing is drawn outside the
// printable area (page numbers included); the test of the pages checks it.
QPageLayout pdfReportPageLayout();

}  // namespace ws::ui
