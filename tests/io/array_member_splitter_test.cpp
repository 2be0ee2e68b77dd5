// The splitter hands out each element of the root object's member array and
// yields the rest as a document in which that array is empty; what it yields
// is checked against nlohmann's own reading of the same text, at every block
// size from 1 byte, so elements, strings and escapes split across blocks are
// covered.
#include "io/array_member_splitter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws {
namespace {

struct Split {
    std::vector<std::string> elements;
    std::string skeleton;
    bool sawMember = false;
};

Split split(const std::string& text, std::size_t block, const std::string& member = "events") {
    Split out;
    std::size_t at = 0;
    ArrayMemberSplitter s(
        "doc.json",
        [&](char* buf, std::size_t size) {
            std::size_t n = text.copy(buf, size, at);
            at += n;
            return n;
        },
        member,
        [&](std::size_t i, const char* data, std::size_t size) {
            EXPECT_EQ(i, out.elements.size());
            out.elements.emplace_back(data, size);
        },
        block);
    for (auto it = s.begin(); it != s.end(); ++it)
        out.skeleton.push_back(*it);
    out.sawMember = s.sawMember();
    return out;
}

std::string errorOf(const std::string& text, std::size_t block = 3) {
    try {
        split(text, block);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

TEST(ArrayMemberSplitter, ElementsAndSkeletonAtEveryBlockSize) {
    const std::string text = R"({"a": "x,]\"[{", "events" : [
        {"name": "k,]}", "args": {"grid": [1, 2, 3]}, "s": "\\\"{"},
        [1, [2, {"x": "]"}]],
        "plain \u00e9 \"q\"", "back\\", "]",
        -1.5e3, true, null,
        {}
    ], "tail": {"events": [9]}, "z": [1, 2]})";
    auto whole = nlohmann::json::parse(text);
    auto expectedSkeleton = whole;
    expectedSkeleton["events"] = nlohmann::json::array();
    for (std::size_t block = 1; block <= text.size() + 1; ++block) {
        SCOPED_TRACE("block " + std::to_string(block));
        auto s = split(text, block);
        EXPECT_TRUE(s.sawMember);
        ASSERT_EQ(s.elements.size(), whole["events"].size());
        for (std::size_t i = 0; i < s.elements.size(); ++i)
            EXPECT_EQ(nlohmann::json::parse(s.elements[i]), whole["events"][i]) << s.elements[i];
        EXPECT_EQ(nlohmann::json::parse(s.skeleton), expectedSkeleton) << s.skeleton;
    }
}

TEST(ArrayMemberSplitter, OnlyTheRootObjectsMemberIsSplit) {
    // Nested "events", an "events" string value, and a root array are left whole.
    auto nested = split(R"({"x": {"events": [1, 2]}, "y": "events", "events2": [3]})", 4);
    EXPECT_FALSE(nested.sawMember);
    EXPECT_TRUE(nested.elements.empty());
    EXPECT_EQ(nlohmann::json::parse(nested.skeleton)["x"]["events"].size(), 2u);
    auto array = split(R"([{"events": [1]}])", 2);
    EXPECT_FALSE(array.sawMember);
    EXPECT_TRUE(array.elements.empty());
    // A key written with escapes is the same key.
    auto escaped = split(R"({"ev\u0065nts": [1, 2]})", 5);
    EXPECT_TRUE(escaped.sawMember);
    EXPECT_EQ(escaped.elements.size(), 2u);
    auto empty = split(R"({"events": [ ]})", 1);
    EXPECT_TRUE(empty.sawMember);
    EXPECT_TRUE(empty.elements.empty());
    EXPECT_EQ(nlohmann::json::parse(empty.skeleton), nlohmann::json::parse(R"({"events": []})"));
}

TEST(ArrayMemberSplitter, UndelimitedElementsAreRefusedWithTheirByte) {
    struct Case {
        std::string text, why;
    } cases[] = {
        {R"({"events": [1, 2)", "the file ends inside events"},
        {R"({"events": [{"a": "unterminated]})", "the file ends inside events"},
        {R"({"events": [1,, 2]})", "a comma with no element before it"},
        {R"({"events": [, 1]})", "a comma with no element before it"},
        {R"({"events": [1, 2, ]})", "a comma with no element after it"},
        {R"({"events": [{"a": 1} {"b": 2}]})", "a missing comma between elements"},
        {R"({"events": [1}})", "a '}' closing events"},
        {R"({"events": [1], "events": [2]})", "events appears twice"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        auto what = errorOf(c.text);
        EXPECT_NE(what.find("doc.json: (file): not valid JSON (" + c.why), std::string::npos)
            << what;
        EXPECT_NE(what.find(", at byte "), std::string::npos) << what;
    }
    EXPECT_NE(errorOf(R"({"events": [1, 2)").find("at byte 16"), std::string::npos);
}

}  // namespace
}  // namespace ws
