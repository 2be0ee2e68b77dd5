// Splits a JSON document of any size into the elements of one array member of
// its root object (a trace's "traceEvents") and the rest (the "skeleton"),
// reading it front to back in blocks. Each element's bytes go to a callback,
// to be parsed there on their own (simdjson, at GB/s); the skeleton, in which
// that array reads as [], is what the iterator yields, for nlohmann's SAX
// parser, which checks it byte for byte and keeps the few fields wanted.
//
// The splitter parses nothing itself: it only follows strings and bracket
// depth to find where an element ends, the way a JSON lexer would, and leaves
// every judgement of validity to the two real parsers. A document whose
// elements are not delimited (unterminated string, missing bracket) is
// refused here, naming the byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/trace_reader.h"

namespace ws {

class ArrayMemberSplitter {
  public:
    // Up to `size` bytes of the document into `out`; 0 at its end.
    using Source = std::function<std::size_t(char* out, std::size_t size)>;
    // One element: `size` bytes at `data`, with at least `kPadding` more bytes
    // readable after them (simdjson reads ahead; the content there is not
    // part of the element). `index` counts from 0.
    using ElementHandler =
        std::function<void(std::size_t index, const char* data, std::size_t size)>;
    static constexpr std::size_t kPadding = 64;

    // `path` names the file in errors ("<path>: (file): not valid JSON …").
    ArrayMemberSplitter(std::string path, Source source, std::string member,
                        ElementHandler onElement, std::size_t blockBytes = 1 << 20);

    // True once the root object's `member` was met as an array.
    bool sawMember() const { return sawMember_; }
    std::size_t elements() const { return index_; }
    // Bytes of the document consumed so far (for error positions).
    std::int64_t offset() const { return consumed_ + static_cast<std::int64_t>(pos_); }

    // The skeleton for nlohmann's parsers.
    PullIterator<ArrayMemberSplitter> begin() { return PullIterator<ArrayMemberSplitter>(this); }
    PullIterator<ArrayMemberSplitter> end() { return PullIterator<ArrayMemberSplitter>(this); }
    const char& peek() const { return out_[outPos_]; }
    void next() { ++outPos_; }
    bool more() { return outPos_ < out_.size() || produce(); }

  private:
    enum class State { Skeleton, BetweenElements, Element };

    bool produce();  // scans until skeleton bytes are ready; false at the end
    bool fill();     // more input; false at its end
    void skeletonByte(char c);
    void scanElement();  // from pos_ to the element's end or the data's end
    void endElement(std::size_t end);
    [[noreturn]] void invalid(const std::string& why) const;

    std::string path_;
    Source source_;
    std::string member_;
    ElementHandler onElement_;
    std::size_t blockBytes_;

    std::vector<char> buf_;  // data in [0, len_), kPadding spare bytes after
    std::size_t len_ = 0, pos_ = 0;
    std::int64_t consumed_ = 0;  // bytes dropped from the front of buf_
    bool eof_ = false;

    std::string out_;  // skeleton bytes ready for the parser
    std::size_t outPos_ = 0;

    State state_ = State::Skeleton;
    int depth_ = 0;  // of the skeleton (1: inside the root object)
    bool inString_ = false, escaped_ = false;
    std::string string_;      // the depth-1 string being read (a key, maybe)
    std::string lastString_;  // the depth-1 string just closed
    bool stringJustClosed_ = false;
    std::string key_;  // the root object's key whose value comes next
    bool valueNext_ = false;
    bool sawMember_ = false;

    std::size_t elementStart_ = 0;
    int elementDepth_ = 0;
    bool elementClosed_ = false;  // an object or array element has closed
    bool elementDue_ = false;     // after a comma: an element must follow
    std::size_t index_ = 0;
};

}  // namespace ws
