// Where warpscope-cli finds libwarpscope_inject.so, for every command that
// starts a program under capture (record, bench serve --server).
#pragma once

#include <string>

namespace ws::cli {

// $WARPSCOPE_INJECT_LIBRARY, else beside this binary (installed:
// ../lib/warpscope/, build tree: ../core/capture/); empty when there is none.
std::string findInjectLibrary();

}  // namespace ws::cli
