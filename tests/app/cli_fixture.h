// warpscope-cli run as a user runs it, against a fresh copy of the fixture store.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/fixture_store.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace ws {

inline testing::ProcessResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), WARPSCOPE_CLI_PATH);
    return testing::runProcess(args);
}

class CliFixture : public ::testing::Test {
  protected:
    void SetUp() override {
        db = dir.file("runs.wsdb");
        runs = testing::writeFixtureStore(db);
    }
    testing::TempDir dir;
    std::string db;
    testing::FixtureRuns runs;
};

}  // namespace ws
