// The sample runs shipped with Warpscope (recorded on an H200), so a machine
// without a GPU shows real data on first start.
#pragma once

#include <QString>

namespace ws::ui {

// The bundled sample store: installed beside the binaries or in the source
// tree; empty when neither exists.
QString bundledSampleStore();
// Copies the samples into the user's data folder (the bundled file may be
// read-only) and returns the copy's path, or an empty string on failure.
QString userCopyOfSamples(QString* error);

}  // namespace ws::ui
