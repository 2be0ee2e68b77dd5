// Text from outside (file names, nsys strings, device names from the capture
// stream, labels) made safe for what reads it later: JSON needs valid UTF-8,
// a terminal must not receive escape sequences it would act on.
#pragma once

#include <string>
#include <string_view>

namespace ws {

bool isValidUtf8(std::string_view text);
// Bytes of the valid UTF-8 sequence starting at text[i]; 0 when invalid.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i);
// Invalid bytes (and overlong or surrogate encodings) each become U+FFFD.
std::string toValidUtf8(std::string_view text);
// For printing to a terminal: control characters (ESC, BEL, CR, ...) other
// than tab and newline shown as \x1b-style escapes; UTF-8 kept.
std::string forTerminal(std::string_view text);
// ASCII letters in lower case, other bytes (UTF-8 included) as they are: for
// matching names case-insensitively.
std::string asciiLower(std::string_view text);

}  // namespace ws
