#include "io/array_member_splitter.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "io/import_run.h"

namespace ws {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// A key as written between its quotes, unescaped when it has escapes (rare:
// then nlohmann reads it; what it refuses is refused again by the skeleton's
// parser, with its position).
std::string keyText(const std::string& raw) {
    if (raw.find('\\') == std::string::npos) return raw;
    auto v = nlohmann::json::parse("\"" + raw + "\"", nullptr, false);
    return v.is_string() ? v.get<std::string>() : raw;
}

}  // namespace

ArrayMemberSplitter::ArrayMemberSplitter(std::string path, Source source, std::string member,
                                         ElementHandler onElement, std::size_t blockBytes)
    : path_(std::move(path)),
      source_(std::move(source)),
      member_(std::move(member)),
      onElement_(std::move(onElement)),
      blockBytes_(blockBytes),
      buf_(blockBytes + kPadding) {}

void ArrayMemberSplitter::invalid(const std::string& why) const {
    importError(path_, "(file)",
                "not valid JSON (" + why + ", at byte " + std::to_string(offset()) + ")");
}

bool ArrayMemberSplitter::fill() {
    if (eof_) return false;
    // Keep the element being read; drop what is behind it.
    std::size_t keep = state_ == State::Element ? elementStart_ : pos_;
    if (keep > 0) {
        std::memmove(buf_.data(), buf_.data() + keep, len_ - keep);
        len_ -= keep;
        pos_ -= keep;
        consumed_ += static_cast<std::int64_t>(keep);
        if (state_ == State::Element) elementStart_ = 0;
    }
    if (buf_.size() < len_ + blockBytes_ + kPadding)
        buf_.resize(std::max(buf_.size() * 2, len_ + blockBytes_ + kPadding));
    std::size_t n = source_(buf_.data() + len_, blockBytes_);
    if (n == 0) {
        eof_ = true;
        return false;
    }
    len_ += n;
    return true;
}

bool ArrayMemberSplitter::produce() {
    out_.clear();
    outPos_ = 0;
    while (out_.empty()) {
        if (pos_ == len_ && !fill()) {
            if (state_ == State::Element || state_ == State::BetweenElements)
                invalid("the file ends inside " + member_);
            return false;
        }
        switch (state_) {
            case State::Skeleton:
                skeletonByte(buf_[pos_++]);
                break;
            case State::BetweenElements: {
                char c = buf_[pos_];
                if (isSpace(c)) {
                    ++pos_;
                } else if (c == ']') {
                    if (elementDue_) invalid("a comma with no element after it in " + member_);
                    ++pos_;
                    out_.push_back(']');
                    depth_ = 1;
                    state_ = State::Skeleton;
                } else if (c == ',') {
                    invalid("a comma with no element before it in " + member_);
                } else {
                    elementStart_ = pos_;
                    elementDepth_ = 0;
                    elementClosed_ = false;
                    inString_ = escaped_ = false;
                    state_ = State::Element;
                }
                break;
            }
            case State::Element:
                scanElement();
                break;
        }
    }
    return true;
}

void ArrayMemberSplitter::skeletonByte(char c) {
    out_.push_back(c);
    if (inString_) {
        if (escaped_) {
            escaped_ = false;
        } else if (c == '\\') {
            escaped_ = true;
        } else if (c == '"') {
            inString_ = false;
            if (depth_ == 1) {
                lastString_.swap(string_);
                stringJustClosed_ = true;
            }
            return;
        }
        if (depth_ == 1) string_.push_back(c);
        return;
    }
    if (isSpace(c)) return;
    bool afterString = stringJustClosed_, valueStarts = valueNext_;
    stringJustClosed_ = valueNext_ = false;
    switch (c) {
        case '"':
            inString_ = true;
            if (depth_ == 1) string_.clear();
            break;
        case ':':
            if (depth_ == 1 && afterString) {
                key_ = keyText(lastString_);
                valueNext_ = true;
            }
            break;
        case '[':
            if (depth_ == 1 && valueStarts && key_ == member_) {
                if (sawMember_) invalid(member_ + " appears twice");
                sawMember_ = true;
                depth_ = 2;
                elementDue_ = false;
                state_ = State::BetweenElements;
                return;
            }
            ++depth_;
            break;
        case '{':
            ++depth_;
            break;
        case '}':
        case ']':
            --depth_;
            break;
        default:
            break;
    }
}

void ArrayMemberSplitter::scanElement() {
    const char* b = buf_.data();
    std::size_t i = pos_;
    while (i < len_) {
        if (inString_) {
            if (escaped_) {
                escaped_ = false;
                ++i;
                continue;
            }
            // The body of a string: only a quote or a backslash matters.
            while (i < len_ && b[i] != '"' && b[i] != '\\')
                ++i;
            if (i == len_) break;
            if (b[i] == '\\')
                escaped_ = true;  // the next byte is escaped, maybe in the next block
            else
                inString_ = false;
            ++i;
            continue;
        }
        char c = b[i];
        if (isSpace(c)) {
            ++i;
            continue;
        }
        if (elementClosed_ && c != ',' && c != ']')
            invalid("a missing comma between elements of " + member_);
        switch (c) {
            case '"':
                inString_ = true;
                break;
            case '{':
            case '[':
                ++elementDepth_;
                break;
            case '}':
            case ']':
                if (elementDepth_ == 0) {
                    if (c == '}') {
                        pos_ = i;
                        invalid("a '}' closing " + member_);
                    }
                    endElement(i);
                    pos_ = i + 1;
                    out_.push_back(']');
                    depth_ = 1;
                    state_ = State::Skeleton;
                    return;
                }
                if (--elementDepth_ == 0) elementClosed_ = true;
                break;
            case ',':
                if (elementDepth_ == 0) {
                    endElement(i);
                    pos_ = i + 1;
                    elementDue_ = true;
                    state_ = State::BetweenElements;
                    return;
                }
                break;
            default:
                break;
        }
        ++i;
    }
    pos_ = i;
}

void ArrayMemberSplitter::endElement(std::size_t end) {
    while (end > elementStart_ && isSpace(buf_[end - 1]))
        --end;
    // An in-string escape state cannot survive to here: the element ended
    // outside any string.
    onElement_(index_++, buf_.data() + elementStart_, end - elementStart_);
}

}  // namespace ws
