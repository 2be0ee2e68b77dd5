// Where warpscope-cli finds libwarpscope_inject.so and warpscope-workload, for
// every command that starts a program under capture (record, bench serve
// --server).
#pragma once

#include <string>

namespace ws::cli {

// $WARPSCOPE_INJECT_LIBRARY, else beside this binary (installed:
// ../lib/warpscope/, build tree: ../core/capture/); empty when there is none.
std::string findInjectLibrary();
// The program `name` in this binary's folder; empty when it is not there.
std::string findBesideSelf(const std::string& name);

}  // namespace ws::cli
