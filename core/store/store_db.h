// Inside the store library only (not under include/): the SQLite connection
// behind a Store, for the store's own queries and for tests that inspect or
// damage a store on purpose. Code outside core/store asks the store instead.
#pragma once

#include "store/sqlite_db.h"
#include "store/store.h"

namespace ws {

sql::Db& storeDb(Store& store);

}  // namespace ws
