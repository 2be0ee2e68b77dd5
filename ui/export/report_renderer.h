// Writes a run's report as HTML (self-contained, charts embedded), Markdown
// (charts as PNG files beside it) or PDF (the HTML laid out by Qt), with the
// workbench's own charts rendered offscreen. Used by `warpscope report` and
// File ▸ Export Report.
#pragma once

#include <QString>
#include <optional>

#include "model/records.h"

namespace ws {
class Store;
}

namespace ws::ui {

// Returns an error message, empty on success. The format comes from `format`
// ("html", "md" or "pdf").
QString renderReport(Store& store, RunId run, std::optional<RunId> baseline, const QString& format,
                     const QString& path);

}  // namespace ws::ui
