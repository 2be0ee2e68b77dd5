// The details of one run as an HTML fragment for the details panel (and, with
// the same wording, the report later).
#pragma once

#include <QString>

#include "viewmodels/store_loader.h"

namespace ws::ui {

QString runDetailsHtml(const RunDetails& details);
QString kernelDetailsHtml(const KernelDetails& details);

}  // namespace ws::ui
