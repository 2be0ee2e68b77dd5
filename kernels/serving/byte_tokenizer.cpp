#include "serving/byte_tokenizer.h"

namespace ws::serving {

std::vector<TokenId> ByteTokenizer::encode(std::string_view text) {
    std::vector<TokenId> ids;
    ids.reserve(text.size());
    for (char c : text)
        ids.push_back(static_cast<TokenId>(static_cast<unsigned char>(c)));
    return ids;
}

std::string ByteTokenizer::decodeBytes(const std::vector<TokenId>& tokens) {
    std::string out;
    out.reserve(tokens.size());
    for (TokenId t : tokens)
        if (t >= 0 && t < 256) out.push_back(static_cast<char>(t));
    return out;
}

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the character a lead byte starts (RFC 3629), 0 for a byte that
// cannot start one.
int sequenceLength(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return 2;
    if (lead >= 0xE0 && lead <= 0xEF) return 3;
    if (lead >= 0xF0 && lead <= 0xF4) return 4;
    return 0;
}

// Whether `byte` may follow `pending` (a lead byte and 0-2 continuations):
// no overlong forms, no surrogates, nothing above U+10FFFF.
bool validContinuation(const std::string& pending, unsigned char byte) {
    if ((byte & 0xC0) != 0x80) return false;
    if (pending.size() != 1) return true;
    auto lead = static_cast<unsigned char>(pending[0]);
    if (lead == 0xE0) return byte >= 0xA0;
    if (lead == 0xED) return byte <= 0x9F;
    if (lead == 0xF0) return byte >= 0x90;
    if (lead == 0xF4) return byte <= 0x8F;
    return true;
}

}  // namespace

std::string Utf8Stream::push(std::string_view bytes) {
    std::string out;
    for (char c : bytes) {
        auto byte = static_cast<unsigned char>(c);
        if (!pending_.empty()) {
            if (validContinuation(pending_, byte)) {
                pending_.push_back(c);
                if (static_cast<int>(pending_.size()) ==
                    sequenceLength(static_cast<unsigned char>(pending_[0]))) {
                    out += pending_;
                    pending_.clear();
                }
                continue;
            }
            out += kReplacement;  // a character cut short; this byte starts afresh
            pending_.clear();
        }
        int length = sequenceLength(byte);
        if (length == 1)
            out.push_back(c);
        else if (length == 0)
            out += kReplacement;
        else
            pending_.push_back(c);
    }
    return out;
}

std::string Utf8Stream::flush() {
    if (pending_.empty()) return {};
    pending_.clear();
    return kReplacement;
}

}  // namespace ws::serving
