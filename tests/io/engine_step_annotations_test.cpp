// vLLM's and SGLang's step annotations read as Warpscope's engine steps:
// the names parse to the counts they carry, and an imported trace holding
// them gets engine.step ranges that `steps` splits by kind.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/engine_steps.h"
#include "io/engine_step_annotations.h"
#include "io/kineto_import.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

using testing::TempDir;

TEST(EngineStepAnnotations, VllmNamesGiveTheirCounts) {
    auto plain = parseEngineStepAnnotation("execute_context_2(6144)_generation_3(3)");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->engine, "vLLM");
    EXPECT_EQ(plain->prefillSeqs, 2);
    EXPECT_EQ(plain->prefillTokens, 6144);
    EXPECT_EQ(plain->decodeSeqs, 3);
    EXPECT_EQ(plain->decodeTokens, 3);
    EXPECT_EQ(plain->running, 5);
    EXPECT_EQ(plain->kvReadTokens, -1);
    EXPECT_EQ(engineStepRangeName(*plain, 7),
              "engine.step:7;running=5;prefill_seqs=2;prefill_tokens=6144;decode_seqs=3;"
              "decode_tokens=3");

    // vLLM's own test example of --profiler-config.detailed_trace_annotation:
    // a 4-token prefill (pairs 1+2+3+4) and a decode over 11 positions.
    auto detailed = parseEngineStepAnnotation(
        "execute_5_context_1(sq4sk4sqsq16sqsk16)_generation_1(sq1sk11sqsq1sqsk11)");
    ASSERT_TRUE(detailed);
    EXPECT_EQ(detailed->prefillTokens, 4);
    EXPECT_EQ(detailed->decodeTokens, 1);
    EXPECT_EQ(detailed->kvReadTokens, 15);
    EXPECT_EQ(detailed->attentionPairs, 10 + 11);

    // Long contexts: sums of squares past 2^31 are still a step.
    auto longContext = parseEngineStepAnnotation(
        "execute_50000_context_1(sq50000sk50000sqsq2500000000sqsk2500000000)_generation_0("
        "sq0sk0sqsq0sqsk0)");
    ASSERT_TRUE(longContext);
    EXPECT_EQ(longContext->attentionPairs, 2500000000LL - (2500000000LL - 50000) / 2);

    EXPECT_FALSE(parseEngineStepAnnotation("execute_context_2147483647(0)_generation_1(0)"));
    EXPECT_FALSE(parseEngineStepAnnotation("execute_context_" + std::string(1'000'000, '1') +
                                           "(1)_generation_1(1)"));
    for (const char* other : {"execute_model", "execute_new_1_cached_2",
                              "execute_context_99999999999(1)_generation_1(1)",
                              "execute_context_1(1)_generation_1(1)x", "step"})
        EXPECT_FALSE(parseEngineStepAnnotation(other)) << other;
}

TEST(EngineStepAnnotations, SglangNamesGiveTheirCounts) {
    auto decode = parseEngineStepAnnotation("step[DECODE bs=32]");
    ASSERT_TRUE(decode);
    EXPECT_EQ(decode->engine, "SGLang");
    EXPECT_EQ(decode->decodeSeqs, 32);
    EXPECT_EQ(decode->decodeTokens, 32);
    EXPECT_EQ(decode->prefillTokens, 0);
    auto extend = parseEngineStepAnnotation("step[EXTEND bs=2 toks=14721]");
    ASSERT_TRUE(extend);
    EXPECT_EQ(extend->prefillSeqs, 2);
    EXPECT_EQ(extend->prefillTokens, 14721);
    EXPECT_EQ(extend->decodeTokens, 0);
    auto mixed = parseEngineStepAnnotation(
        "step[MIXED bs=2 c=1 g=1 c_sq=4 c_sqsq=16 c_sqsk=16 c_sk=4 g_sq=1 g_sqsq=1 g_sqsk=11 "
        "g_sk=11]");
    ASSERT_TRUE(mixed);
    EXPECT_EQ(mixed->prefillTokens, 4);
    EXPECT_EQ(mixed->decodeTokens, 1);
    EXPECT_EQ(mixed->kvReadTokens, 15);
    EXPECT_EQ(mixed->attentionPairs, 21);
    auto plainMixed = parseEngineStepAnnotation("step[MIXED bs=3]");
    ASSERT_TRUE(plainMixed);
    EXPECT_EQ(plainMixed->running, 3);
    EXPECT_EQ(plainMixed->prefillTokens, -1);  // not named: the range leaves it out
    EXPECT_FALSE(parseEngineStepAnnotation("step[IDLE bs=0]"));
    EXPECT_FALSE(parseEngineStepAnnotation("step[DECODE bs=x]"));
}

// A vLLM trace in Kineto's form: the worker's step annotations around their
// kernels. Imported, its steps split into prefill, mixed and decode with the
// kernels inside each.
TEST(EngineStepAnnotations, AnImportedVllmTraceHasEngineSteps) {
    nlohmann::json events = nlohmann::json::array();
    auto add = [&](const char* cat, std::string name, double ts, double dur, int tid) {
        events.push_back({{"ph", "X"},
                          {"cat", cat},
                          {"name", name},
                          {"pid", 851},
                          {"tid", tid},
                          {"ts", ts},
                          {"dur", dur}});
    };
    const char* steps[] = {
        "execute_context_1(512)_generation_0(0)", "execute_context_1(256)_generation_1(1)",
        "execute_context_0(0)_generation_2(2)", "execute_context_0(0)_generation_2(2)"};
    for (int i = 0; i < 4; ++i) {
        double t = 1000.0 * i;
        add("user_annotation", steps[i], t, 900, 851);
        add("kernel", i == 0 ? "prefill_attention" : "decode_attention", t + 100, 300, 7);
        events.back()["args"] = {{"device", 0}, {"stream", 7}, {"correlation", i + 1}};
    }
    add("user_annotation", "vllm::other", 0, 50, 851);
    std::string text = nlohmann::json{{"schemaVersion", 1}, {"traceEvents", events}}.dump();
    TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto result = importKinetoTrace(store, "vllm.json", text, "");
    EXPECT_EQ(runProperties(store, result.run)["engine.step_source"],
              "vLLM step annotations (4 steps)");
    auto stepList = engineStepsOf(store, result.run);
    ASSERT_EQ(stepList.size(), 4u);
    EXPECT_EQ(stepList[1].index, 1);
    EXPECT_EQ(stepList[1].prefillTokens, 256);
    EXPECT_EQ(stepList[1].decodeTokens, 1);
    auto summary = summarizeEngineSteps(store, result.run);
    ASSERT_EQ(summary.kinds.size(), 3u);
    EXPECT_EQ(summary.kinds[0].kind, StepKind::Decode);
    EXPECT_EQ(summary.kinds[0].stepTime.count, 2);
    EXPECT_EQ(summary.kinds[1].kind, StepKind::Mixed);
    EXPECT_EQ(summary.kinds[2].kind, StepKind::Prefill);
    ASSERT_EQ(summary.kinds[2].kernels.size(), 1u);
    EXPECT_EQ(summary.kinds[2].kernels[0].name, "prefill_attention");
    EXPECT_NE(runLog(store, result.run).find("4 vLLM step annotations"), std::string::npos);
}

}  // namespace
}  // namespace ws
