// Light and dark palettes for the whole application (Fusion style).
#pragma once

namespace ws::ui {

void applyTheme(bool dark);

}  // namespace ws::ui
