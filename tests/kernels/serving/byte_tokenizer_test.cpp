// The byte-level tokenizer: one token per UTF-8 byte, EOS without text, and
// streamed text that is always valid UTF-8.
#include <gtest/gtest.h>

#include "serving/byte_tokenizer.h"

namespace ws::serving {
namespace {

TEST(ByteTokenizer, OneTokenPerByteAndBack) {
    const std::string text = "h\xC3\xA9llo \xE2\x82\xAC\n";  // "héllo €\n"
    auto ids = ByteTokenizer::encode(text);
    ASSERT_EQ(ids.size(), text.size());
    EXPECT_EQ(ids[0], 'h');
    EXPECT_EQ(ids[1], 0xC3);
    EXPECT_EQ(ByteTokenizer::decodeBytes(ids), text);
    ids.push_back(ByteTokenizer::kEos);
    EXPECT_EQ(ByteTokenizer::decodeBytes(ids), text);  // EOS has no text
    EXPECT_EQ(ByteTokenizer::kVocabSize, 257);
}

TEST(Utf8Stream, HoldsASplitCharacterUntilItIsComplete) {
    Utf8Stream s;
    EXPECT_EQ(s.push("a\xE2"), "a");
    EXPECT_EQ(s.push("\x82"), "");
    EXPECT_EQ(s.push("\xAC"
                     "b"),
              "\xE2\x82\xAC"
              "b");
    EXPECT_EQ(s.flush(), "");
}

TEST(Utf8Stream, ReplacesWhatCanNeverBeACharacter) {
    const std::string r = "\xEF\xBF\xBD";
    Utf8Stream s;
    EXPECT_EQ(s.push("\xFF"), r);  // never a lead byte
    EXPECT_EQ(s.push("\x80"), r);  // a lone continuation
    EXPECT_EQ(s.push("\xC3"
                     "a"),
              r + "a");                            // cut short by an ASCII byte
    EXPECT_EQ(s.push("\xC0\xAF"), r + r);          // overlong '/'
    EXPECT_EQ(s.push("\xED\xA0\x80"), r + r + r);  // a surrogate: the lead, then two strays
    EXPECT_EQ(s.push("\xF0\x9F"), "");
    EXPECT_EQ(s.flush(), r);  // the end of the stream inside a character
    EXPECT_EQ(s.push("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace ws::serving
