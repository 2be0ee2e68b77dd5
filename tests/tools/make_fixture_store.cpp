// Regenerates tests/data/fixture.wsdb: make_fixture_store OUT.wsdb
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "store/store.h"
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
        store.db().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        store.db().exec("VACUUM");
    }
    std::cout << "wrote " << argv[1] << '\n';
    return 0;
}
