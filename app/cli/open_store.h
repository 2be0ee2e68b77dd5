// The store a command works on: --db FILE or the default one.
#pragma once

#include <memory>
#include <string>

#include "cli/cli_args.h"
#include "store/store.h"

namespace ws::cli {

std::string storePath(const Args& args);
// A store named with --db must exist (a typo must not create an empty one);
// the default store is created on first use. Opening read-write when allowed
// lets the open mark abandoned runs killed.
std::unique_ptr<Store> openStore(const Args& args);

}  // namespace ws::cli
