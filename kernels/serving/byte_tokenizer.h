// Text <-> tokens without a download: every byte of the UTF-8 text is one
// token, id = the byte's value (0-255); id 256 is the end-of-sequence token,
// which has no text. So a prompt of N bytes is N prompt tokens, exactly, and
// any output decodes. docs/serving.md documents the mapping.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "serving/types.h"

namespace ws::serving {

class ByteTokenizer {
  public:
    static constexpr TokenId kEos = 256;
    static constexpr int kVocabSize = 257;

    static std::vector<TokenId> encode(std::string_view text);
    // The bytes of the tokens, EOS (and any id outside 0-255) left out. The
    // result may be invalid UTF-8 (a token-id prompt, a split character): see
    // Utf8Stream for text that is sent to a client.
    static std::string decodeBytes(const std::vector<TokenId>& tokens);
};

// Turns a stream of bytes into valid UTF-8 text piece by piece: a character
// split over tokens is held back until its last byte arrives, and bytes that
// can never form a valid character become U+FFFD, as a detokenizer streaming
// to a client must.
class Utf8Stream {
  public:
    // Appends bytes; returns the text that is complete now.
    std::string push(std::string_view bytes);
    // The end: an incomplete character left over becomes U+FFFD.
    std::string flush();

  private:
    std::string pending_;  // the start of a character, 1-3 bytes
};

}  // namespace ws::serving
