#include "kineto_event.h"

#include <simdjson.h>
#include <charconv>
#include <cstdlib>

#include "io/array_member_splitter.h"

namespace ws {

static_assert(ArrayMemberSplitter::kPadding >= simdjson::SIMDJSON_PADDING,
              "the splitter leaves simdjson's padding after each event");

namespace od = simdjson::ondemand;

// Nesting that deep inside one event (a foreign trace's args) is read, not
// refused; the parser's depth tables cost a few bytes per level.
constexpr std::size_t kMaxDepth = 1 << 17;

struct KinetoEventReader::Parser {
    od::parser parser;
};

KinetoEventReader::KinetoEventReader() : parser_(std::make_unique<Parser>()) {
    if (parser_->parser.allocate(1 << 16, kMaxDepth) != simdjson::SUCCESS) throw std::bad_alloc();
}

KinetoEventReader::~KinetoEventReader() = default;

namespace {

// A JSON number as a 64-bit integer, when it is one that fits (a float such
// as 1e30 converted without this check is undefined behaviour).
std::optional<std::int64_t> integerOf(od::value v) {
    od::number n;
    if (v.get_number().get(n) != simdjson::SUCCESS) return std::nullopt;
    if (n.is_int64()) return n.get_int64();
    if (n.is_uint64()) return std::nullopt;  // past int64's range
    double x = n.get_double();
    if (!(x >= -9.2e18 && x <= 9.2e18)) return std::nullopt;
    return static_cast<std::int64_t>(x);
}

// The exact value of a number token: "1733000000123.456" (Kineto's µs with
// ns decimals) by integer arithmetic when it has three decimals or fewer,
// anything else as strtold reads it.
std::optional<long double> exactNumber(od::value v) {
    od::json_type type;
    if (v.type().get(type) != simdjson::SUCCESS || type != od::json_type::number)
        return std::nullopt;
    std::string_view token = v.raw_json_token();
    while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\r' ||
                              token.back() == '\t'))
        token.remove_suffix(1);
    std::size_t dot = token.find('.');
    if (token.find_first_of("eE-") == std::string_view::npos && token.size() <= 18 &&
        (dot == std::string_view::npos || token.size() - dot - 1 <= 3)) {
        std::int64_t whole = 0, frac = 0;
        std::string_view head = token.substr(0, dot);
        auto r = std::from_chars(head.data(), head.data() + head.size(), whole);
        if (r.ec == std::errc() && r.ptr == head.data() + head.size() && !head.empty()) {
            if (dot == std::string_view::npos) return static_cast<long double>(whole);
            std::string_view tail = token.substr(dot + 1);
            auto t = std::from_chars(tail.data(), tail.data() + tail.size(), frac);
            if (!tail.empty() && t.ec == std::errc() && t.ptr == tail.data() + tail.size()) {
                long double scale = tail.size() == 1 ? 10.0L : tail.size() == 2 ? 100.0L : 1000.0L;
                return static_cast<long double>(whole) + static_cast<long double>(frac) / scale;
            }
        }
    }
    char text[128];
    if (token.size() >= sizeof text) return std::nullopt;
    token.copy(text, token.size());
    text[token.size()] = '\0';
    char* end = nullptr;
    long double x = std::strtold(text, &end);
    if (end != text + token.size()) return std::nullopt;
    return x;
}

std::string_view stringOf(od::value v) {
    std::string_view s;
    return v.get_string().get(s) == simdjson::SUCCESS ? s : std::string_view();
}

// pid / tid are numbers, or strings such as "stream 7" on GPU lanes.
std::uint32_t idOf(od::value v) {
    od::json_type type;
    if (v.type().get(type) != simdjson::SUCCESS) return 0;
    if (type == od::json_type::number) return static_cast<std::uint32_t>(integerOf(v).value_or(0));
    if (type != od::json_type::string) return 0;
    std::string_view s = stringOf(v);
    auto digits = s.find_first_of("0123456789");
    if (digits == std::string_view::npos) return 0;
    std::uint64_t id = 0;
    std::from_chars(s.data() + digits, s.data() + s.size(), id);
    return static_cast<std::uint32_t>(id);
}

void dimsOf(od::value v, KinetoEvent::Dims& d) {
    od::array a;
    d = {};
    if (v.get_array().get(a) != simdjson::SUCCESS) return;
    std::size_t n = 0;
    for (auto item : a) {
        od::value x = item.value();
        if (n < 3) d.v[n] = integerOf(x);
        ++n;
    }
    d.present = n == 3;
}

void argsOf(od::value v, KinetoEvent& e) {
    od::object args;
    if (v.get_object().get(args) != simdjson::SUCCESS) return;
    for (auto field : args) {
        std::string_view key = field.unescaped_key();
        od::value x = field.value();
        if (key == "device")
            e.device = integerOf(x);
        else if (key == "context")
            e.context = integerOf(x);
        else if (key == "stream")
            e.stream = integerOf(x);
        else if (key == "correlation")
            e.correlation = integerOf(x);
        else if (key == "registers per thread")
            e.registers = integerOf(x);
        else if (key == "shared memory")
            e.sharedMemory = integerOf(x);
        else if (key == "cbid")
            e.cbid = integerOf(x);
        else if (key == "grid")
            dimsOf(x, e.grid);
        else if (key == "block")
            dimsOf(x, e.block);
        else if (key == "bytes") {
            e.bytesPresent = true;
            e.bytes = integerOf(x);
        }
    }
}

}  // namespace

std::string KinetoEventReader::read(const char* data, std::size_t size, KinetoEvent& e) {
    e = KinetoEvent{};
    try {
        od::document doc = parser_->parser.iterate(data, size, size + simdjson::SIMDJSON_PADDING);
        od::json_type type = doc.type();
        if (type != od::json_type::object) return {};
        e.object = true;
        for (auto field : doc.get_object()) {
            std::string_view key = field.unescaped_key();
            od::value v = field.value();
            if (key == "ph")
                e.ph = stringOf(v);
            else if (key == "cat")
                e.cat = stringOf(v);
            else if (key == "name")
                e.name = stringOf(v);
            else if (key == "ts")
                e.ts = exactNumber(v);
            else if (key == "dur")
                e.dur = exactNumber(v);
            else if (key == "pid")
                e.pid = idOf(v);
            else if (key == "tid")
                e.tid = idOf(v);
            else if (key == "args")
                argsOf(v, e);
        }
        return {};
    } catch (const simdjson::simdjson_error& error) {
        e = KinetoEvent{};
        return error.what();
    }
}

}  // namespace ws
