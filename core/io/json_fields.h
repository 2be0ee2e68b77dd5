// Reading other tools' JSON: a member that may be missing or null, a path of
// members, counts and numbers as Warpscope keeps them, and the lines of a
// JSON Lines file that hold something.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/import_run.h"

namespace ws::json_fields {

// The member `key` of an object, or nullptr when it is missing or null (or
// `object` is no object).
inline const nlohmann::json* member(const nlohmann::json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

// The member at a.b.c, or nullptr where any step is missing or null.
inline const nlohmann::json* dig(const nlohmann::json& object,
                                 std::initializer_list<const char*> keys) {
    const nlohmann::json* v = &object;
    for (const char* k : keys)
        if (!(v = member(*v, k))) return nullptr;
    return v;
}

// A count (tokens, requests): a non-negative integer that fits an int, or
// the importer's error naming the field.
inline int countOf(const std::string& path, const std::string& field, const nlohmann::json& v) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
        v.get<std::int64_t>() > std::numeric_limits<int>::max())
        importError(path, field, "not a count (a non-negative integer)");
    return static_cast<int>(v.get<std::int64_t>());
}

// A number as text, the shortest that reads back the same: 4 for 4.0, 1.8,
// 1234567 (a stream's default 6 digits would write 1.23457e+06).
inline std::string shortestNumber(double v) {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

// The first line that holds more than white space ("" when none): enough
// to tell a JSON Lines format without splitting the whole file.
inline std::string_view firstNonEmptyLine(std::string_view text) {
    while (!text.empty()) {
        auto end = std::min(text.find('\n'), text.size());
        auto line = text.substr(0, end);
        if (line.find_first_not_of(" \t\r") != std::string_view::npos) return line;
        text.remove_prefix(std::min(end + 1, text.size()));
    }
    return {};
}

// The lines that hold more than white space, with their 1-based numbers.
inline std::vector<std::pair<int, std::string>> nonEmptyLines(const std::string& text) {
    std::vector<std::pair<int, std::string>> out;
    std::istringstream in(text);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (line.find_first_not_of(" \t\r") != std::string::npos) out.emplace_back(number, line);
    }
    return out;
}

}  // namespace ws::json_fields
