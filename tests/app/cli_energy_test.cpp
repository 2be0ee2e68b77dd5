// `warpscope-cli stats` on a served run with energy samples: the energy per
// output token, then split by engine step kind and by kernel class, in text
// and JSON. The figures are worked out by hand below.
#include <nlohmann/json.hpp>

#include "cli_fixture.h"
#include "store/store.h"
#include "store/store_writer.h"

namespace ws {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// 0-100 ms: a prefill step (0-40 ms) then a decode step (40-100 ms); one
// matmul kernel 0-50 ms. The counter reads 0, 30 and 60 J at 0, 100 and
// 200 ms, the power samples 200 to 400 W. Two requests of 3 output tokens.
void writeServedRun(const std::string& db) {
    Store store(db);
    auto run = store.beginRun({});
    StoreWriter w(store, run);
    auto step = [&](std::int64_t from, std::int64_t to, int prefill, int decode) {
        w.add(RangeRecord{from * kMs, to * kMs, 1, 1,
                          "engine.step:1;running=2;waiting=0;prefill_seqs=" +
                              std::to_string(prefill > 0 ? 2 : 0) + ";prefill_tokens=" +
                              std::to_string(prefill) + ";decode_seqs=" + std::to_string(decode) +
                              ";decode_tokens=" + std::to_string(decode),
                          "", RangeKind::PushPop, 0, 0});
    };
    step(0, 40, 64, 0);
    step(40, 100, 0, 2);
    KernelRecord k;
    k.startNs = 0;
    k.endNs = 50 * kMs;
    k.name = "gemv_bf16_splitk";
    k.streamId = 7;
    w.add(k);
    for (int r = 0; r < 2; ++r) {
        w.add(RequestRecord{r, 0, 200 * kMs, 32, 3, true});
        for (int t = 0; t < 3; ++t)
            w.add(TokenRecord{r, t, (40 + 80 * t) * kMs});
    }
    for (int i = 0; i <= 2; ++i) {
        SampleRecord s;
        s.timeNs = i * 100 * kMs;
        s.energyJ = 30.0 * i;
        s.powerW = 200.0 + 100 * i;
        s.gpuUtilPercent = 90;
        w.add(s);
    }
}

TEST(CliEnergy, StatsSplitsEnergyPerTokenByStepKindAndKernelClass) {
    testing::TempDir dir;
    const auto db = dir.file("runs.wsdb");
    writeServedRun(db);
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
