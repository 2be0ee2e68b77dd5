#include <gtest/gtest.h>

#include "conventions/run_annotations.h"

namespace ws {
namespace {

RangeRecord mark(const std::string& name) {
    RangeRecord r;
    r.name = name;
    r.kind = RangeKind::Mark;
    return r;
}

TEST(RunAnnotations, PropertiesLastValueWinsOtherRangesIgnored) {
    auto a = parseRunAnnotations({mark(propertyMark("kv_cache_bytes", "1024")), mark("prefill"),
                                  mark("ws.property:model=Llama=3"),
                                  mark(propertyMark("kv_cache_bytes", "2048"))});
    ASSERT_EQ(a.properties.size(), 2u);
    EXPECT_EQ(a.properties[0], (std::pair<std::string, std::string>{"kv_cache_bytes", "2048"}));
    EXPECT_EQ(a.properties[1].second, "Llama=3");  // only the first '=' splits
    EXPECT_TRUE(a.errors.empty());
}

TEST(RunAnnotations, QualityRoundTripsAndMalformedMarksAreNamed) {
    QualityRecord q;
    q.check = "greedy tokens";
    q.referenceVariant = "reference (bf16)";
    q.tokenAgreement = 0.9375;
    q.maxLogitError = 0.0123;
    q.tolerance = 0.05;
    q.passed = true;
    auto a = parseRunAnnotations({mark(qualityMark(q)), mark("ws.quality:x;ref=r;agreement=abc"),
                                  mark("ws.property:novalue")});
    ASSERT_EQ(a.quality.size(), 1u);
    EXPECT_EQ(a.quality[0].check, "greedy tokens");
    EXPECT_EQ(a.quality[0].referenceVariant, "reference (bf16)");
    EXPECT_DOUBLE_EQ(a.quality[0].tokenAgreement, 0.9375);
    EXPECT_DOUBLE_EQ(a.quality[0].maxLogitError, 0.0123);
    EXPECT_TRUE(a.quality[0].passed);
    ASSERT_EQ(a.errors.size(), 2u);
    EXPECT_NE(a.errors[0].find("field 'agreement' is missing or not a finite number"),
              std::string::npos);
    EXPECT_NE(a.errors[1].find("expected ws.property:<key>=<value>"), std::string::npos);
}

TEST(RunAnnotations, QualityValuesThatAreNotFiniteAreRefusedByName) {
    // agreement=nan once reached the store and violated NOT NULL at flush.
    auto a = parseRunAnnotations(
        {mark(
             "ws.quality:greedy;ref=fp32;agreement=nan;max_logit_error=0.1;tolerance=0.5;passed=1"),
         mark("ws.quality:greedy;ref=fp32;agreement=1;max_logit_error=inf;tolerance=0.5;passed=1"),
         mark("ws.quality:greedy;ref=fp32;agreement=1;max_logit_error=1e400;tolerance=0.5;"
              "passed=1")});
    EXPECT_TRUE(a.quality.empty());
    ASSERT_EQ(a.errors.size(), 3u);
    EXPECT_NE(a.errors[0].find("'agreement'"), std::string::npos) << a.errors[0];
    EXPECT_NE(a.errors[1].find("'max_logit_error'"), std::string::npos) << a.errors[1];
    EXPECT_NE(a.errors[2].find("'max_logit_error'"), std::string::npos) << a.errors[2];
}

}  // namespace
}  // namespace ws
