// Reading other tools' JSON: a member that may be missing or null, a path of
// members, and the lines of a JSON Lines file that hold something.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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
