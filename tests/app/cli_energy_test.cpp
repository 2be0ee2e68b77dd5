// `warpscope-cli stats` on a served run with energy samples: the energy per
// output token, then split by engine step kind and by kernel class, in text
// and JSON. The figures are worked out by hand (support/energy_run.h).
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "store/store.h"
#include "support/energy_run.h"

namespace ws {
namespace {

TEST(CliEnergy, StatsSplitsEnergyPerTokenByStepKindAndKernelClass) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    {
        Store store(db);
        testing::writeEnergyRun(store);
    }
    auto text = cli({"stats", "1", "--db", db});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    // 60 J over 6 tokens. 0-100 ms (30 J): prefill 40 %, decode 60 %; the
    // matmul half of it. 100-200 ms (30 J): outside steps, idle.
    EXPECT_NE(text.out.find("energy 10.000 J per output token"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("by phase (engine steps): prefill steps 2.000 ± "), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("decode steps 3.000 ± "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("outside steps 5.000\n"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("by kernel class: idle 7.500 ± "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("matmul 2.500 ± "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("from 200 to 400 W"), std::string::npos) << text.out;

    auto json = cli({"stats", "1", "--db", db, "--json"});
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto e = nlohmann::json::parse(json.out)["energy_split"];
    EXPECT_DOUBLE_EQ(e["total_joules"].get<double>(), 60);
    EXPECT_EQ(e["phase_source"], "engine steps");
    ASSERT_EQ(e["phases"].size(), 3u);
    EXPECT_EQ(e["phases"][0]["label"], "prefill steps");
    EXPECT_DOUBLE_EQ(e["phases"][0]["j_per_output_token"].get<double>(), 2);
    // 40 % of a 100 ms interval at 300 W mean, either part between 200 and
    // 400 W: ± 0.4 × 0.1 s × 100 W = 4 J.
    EXPECT_NEAR(e["phases"][0]["bound_joules"].get<double>(), 4, 1e-9);
    EXPECT_EQ(e["kernel_classes"][0]["label"], "idle");
}

}  // namespace
}  // namespace ws
