// Regenerates tests/data/fixture.wsdb: make_fixture_store OUT.wsdb
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "store/store.h"
#include "store_db.h"
#include "support/fixture_store.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: make_fixture_store OUT.wsdb\n";
        return 2;
    }
    std::filesystem::remove(argv[1]);
    ws::testing::writeFixtureStore(argv[1]);
    {
        // Fold the WAL into the main file so one committed file holds everything;
        // the file stays in WAL mode, so opening it later changes no byte of it.
        ws::Store store(argv[1]);
        storeDb(store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
        storeDb(store).exec("VACUUM");
    }
    std::cout << "wrote " << argv[1] << '\n';
    return 0;
}
