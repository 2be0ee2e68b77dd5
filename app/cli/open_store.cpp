#include "cli/open_store.h"

#include <fstream>

namespace ws::cli {

std::string storePath(const Args& args) {
    return args.valueOr("db", Store::defaultPath());
}

std::unique_ptr<Store> openStore(const Args& args) {
    auto path = storePath(args);
    if (args.value("db") && !std::ifstream(path))
        throw StoreError(StoreError::Kind::Io, path + ": no such store");
    return std::make_unique<Store>(path);
}

}  // namespace ws::cli
