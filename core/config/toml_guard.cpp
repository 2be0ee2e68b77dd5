#include "toml_guard.h"

#include <algorithm>
#include <cstdio>

#include "util/text.h"

namespace ws::config {

namespace {

// toml++ 3.3.0 (Debian 12) tests characters for whitespace wherever one may
// stand — after a value, after a backslash in a string, and, on malformed
// input, in places no grammar predicts — and for the code points below that
// test reaches __builtin_unreachable (#295, #190; found by tests/fuzz).
bool crashesTheTomlLibrary(char32_t c) {
    return (c >= 0xA1 && c <= 0x499) || (c >= 0x2C5E && c <= 0x2FFF) ||
           (c >= 0x3001 && c <= 0x3057) || (c >= 0xFB26 && c <= 0xFEFE);
}

// The UTF-8 sequence at text[i] as a code point and its length; 0 when invalid.
std::pair<char32_t, std::size_t> codePointAt(const std::string& text, std::size_t i) {
    auto n = utf8SequenceLength(text, i);
    if (n == 0) return {0, 0};
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    char32_t c = n == 1   ? byte(0)
                 : n == 2 ? byte(0) & 0x1F
                 : n == 3 ? byte(0) & 0x0F
                          : byte(0) & 0x07;
    for (std::size_t k = 1; k < n; ++k)
        c = (c << 6) | (byte(k) & 0x3F);
    return {c, n};
}

// The text toml++ is given: such code points never reach it. In basic strings
// they become \uXXXX escapes (the same value), in comments '?'; in literal
// strings, which have no escapes, and outside strings (where TOML allows
// nothing beyond ASCII) they are an error. Tracks just enough syntax to know
// where text is: comments, the four string forms, and where a string may
// start. On malformed input that guess can be wrong, which is harmless: the
// code points are gone from every context alike, and toml++ reports the
// syntax error.
}  // namespace

std::optional<ConfigError> makeSafeForTheTomlLibrary(const std::string& text,
                                                     const std::string& sourcePath,
                                                     std::string& safe) {
    enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } in = In::Code;
    bool valueMayStart = true;  // at a key or after = [ , { .
    auto error = [&](std::size_t at, const std::string& what) {
        auto lineStart = text.rfind('\n', at == 0 ? 0 : at - 1);
        int col = static_cast<int>(at - (lineStart == std::string::npos ? 0 : lineStart + 1)) + 1;
        int ln = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
        return ConfigError{sourcePath, ln, col, "(syntax)", what};
    };
    safe.clear();
    safe.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        auto next = [&](std::string_view s) { return text.compare(i, s.size(), s) == 0; };
        auto copy = [&](std::size_t n) {
            safe.append(text, i, n);
            i += n;
        };
        if (static_cast<unsigned char>(c) >= 0x80) {
            if (in == In::Code)
                return error(i, "a character beyond ASCII outside a string or comment");
            auto [cp, n] = codePointAt(text, i);
            if (n == 0 || !crashesTheTomlLibrary(cp)) {
                copy(n == 0 ? 1 : n);  // invalid UTF-8: toml++ reports it
                continue;
            }
            char hex[16];
            std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
            if (in == In::Literal || in == In::MultiLiteral)
                return error(i, std::string(hex) +
                                    " in a 'literal' string: the TOML library of this build "
                                    "(toml++ 3.3.0) cannot read it there; write it as \\u" +
                                    (hex + 2) + " in a \"basic\" string");
            std::snprintf(hex, sizeof hex, "\\u%04X", static_cast<unsigned>(cp));
            safe += in == In::Comment ? std::string("?") : std::string(hex);
            i += n;
            continue;
        }
        if (c == '\n') {
            if (in == In::Comment || in == In::Basic || in == In::Literal) in = In::Code;
            if (in == In::Code) valueMayStart = true;
            copy(1);
            continue;
        }
        switch (in) {
            case In::Code:
                if (c == '#') {
                    in = In::Comment;
                } else if (valueMayStart && next("\"\"\"")) {
                    in = In::MultiBasic;
                    copy(3);
                    continue;
                } else if (valueMayStart && next("'''")) {
                    in = In::MultiLiteral;
                    copy(3);
                    continue;
                } else if (valueMayStart && c == '"') {
                    in = In::Basic;
                } else if (valueMayStart && c == '\'') {
                    in = In::Literal;
                } else if (c != ' ' && c != '\t' && c != '\r') {
                    valueMayStart = c == '=' || c == '[' || c == ',' || c == '{' || c == '.';
                }
                break;
            case In::Basic:
            case In::MultiBasic:
                if (c == '\\') {
                    // The escaped character, or the whitespace a line-ending
                    // backslash trims, then the first character after it: none
                    // may be beyond ASCII (toml++ tests it for whitespace).
                    std::size_t j = i + 1;
                    while (j < text.size() && (text[j] == ' ' || text[j] == '\t' ||
                                               text[j] == '\r' || text[j] == '\n'))
                        ++j;
                    if (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x80)
                        return error(j,
                                     "a character beyond ASCII right after a backslash in a "
                                     "string");
                    copy(std::min(j + 1, text.size()) - i);
                    continue;
                }
                if (in == In::Basic && c == '"') {
                    in = In::Code;
                    valueMayStart = false;
                } else if (in == In::MultiBasic && next("\"\"\"")) {
                    in = In::Code;
                    valueMayStart = false;
                    copy(3);
                    continue;
                }
                break;
            case In::Literal:
                if (c == '\'') {
                    in = In::Code;
                    valueMayStart = false;
                }
                break;
            case In::MultiLiteral:
                if (next("'''")) {
                    in = In::Code;
                    valueMayStart = false;
                    copy(3);
                    continue;
                }
                break;
            case In::Comment:
                break;
        }
        copy(1);
    }
    return std::nullopt;
}

}  // namespace ws::config
