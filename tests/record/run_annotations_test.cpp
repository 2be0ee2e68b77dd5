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
    EXPECT_NE(a.errors[0].find("field 'agreement' is missing or not a number"), std::string::npos);
    EXPECT_NE(a.errors[1].find("expected ws.property:<key>=<value>"), std::string::npos);
}

}  // namespace
}  // namespace ws
