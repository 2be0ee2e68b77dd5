#include "config/toml_reader.h"

#include <cmath>

namespace ws::config {

namespace {
std::string typeName(toml::node_type t) {
    switch (t) {
        case toml::node_type::table:
            return "a table";
        case toml::node_type::array:
            return "an array";
        case toml::node_type::string:
            return "a string";
        case toml::node_type::integer:
            return "an integer";
        case toml::node_type::floating_point:
            return "a float";
        case toml::node_type::boolean:
            return "a boolean";
        default:
            return "a date/time";
    }
}

std::string formatNumber(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}
}  // namespace

TomlReader::TomlReader(const toml::table& table, std::string prefix, std::string file,
                       std::vector<ConfigError>& errors)
    : table_(table), prefix_(std::move(prefix)), file_(std::move(file)), errors_(errors) {}

std::string TomlReader::path(const std::string& key) const {
    return prefix_.empty() ? key : prefix_ + "." + key;
}

void TomlReader::error(const toml::source_region& where, const std::string& key,
                       const std::string& msg) {
    errors_.push_back({file_, static_cast<int>(where.begin.line),
                       static_cast<int>(where.begin.column), path(key), msg});
}

const toml::node* TomlReader::node(const std::string& key, bool required) {
    used_.insert(key);
    const toml::node* n = table_.get(key);
    if (!n && required) error(table_.source(), key, "required field is missing");
    return n;
}

std::optional<std::int64_t> TomlReader::integer(const std::string& key, std::int64_t min,
                                                std::int64_t max, bool required) {
    const auto* n = node(key, required);
    if (!n) return std::nullopt;
    // value_exact: value<int64_t>() converts a float node, past int64's range
    // undefined (a fuzzed `layers = 99999999999e9`).
    auto v = n->value_exact<std::int64_t>();
    if (!v) {
        error(n->source(), key, "expected an integer, got " + typeName(n->type()));
        return std::nullopt;
    }
    if (*v < min || *v > max) {
        error(n->source(), key,
              "value " + std::to_string(*v) + " is out of range [" + std::to_string(min) + ", " +
                  std::to_string(max) + "]");
        return std::nullopt;
    }
    return v;
}

std::optional<double> TomlReader::number(const std::string& key, double min, double max,
                                         bool required) {
    const auto* n = node(key, required);
    if (!n) return std::nullopt;
    if (!n->is_number()) {
        error(n->source(), key, "expected a number, got " + typeName(n->type()));
        return std::nullopt;
    }
    double v =
        n->is_integer() ? static_cast<double>(*n->value<std::int64_t>()) : *n->value<double>();
    if (!std::isfinite(v) || v < min || v > max) {
        error(n->source(), key,
              "value " + formatNumber(v) + " is out of range [" + formatNumber(min) + ", " +
                  formatNumber(max) + "]");
        return std::nullopt;
    }
    return v;
}

std::optional<std::string> TomlReader::string(const std::string& key, bool required,
                                              std::span<const char* const> allowed) {
    const auto* n = node(key, required);
    if (!n) return std::nullopt;
    if (!n->is_string()) {
        error(n->source(), key, "expected a string, got " + typeName(n->type()));
        return std::nullopt;
    }
    std::string v = *n->value<std::string>();
    if (allowed.size() > 0) {
        std::string choices;
        for (const char* a : allowed) {
            if (v == a) return v;
            choices += choices.empty() ? std::string(a) : std::string(", ") + a;
        }
        error(n->source(), key, "\"" + v + "\" is not one of: " + choices);
        return std::nullopt;
    }
    return v;
}

std::optional<bool> TomlReader::boolean(const std::string& key) {
    const auto* n = node(key, false);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) {
        error(n->source(), key, "expected true or false, got " + typeName(n->type()));
        return std::nullopt;
    }
    return *n->value<bool>();
}

std::optional<std::vector<std::string>> TomlReader::stringArray(const std::string& key) {
    const auto* n = node(key, false);
    if (!n) return std::nullopt;
    const auto* arr = n->as_array();
    if (!arr) {
        error(n->source(), key, "expected an array of strings, got " + typeName(n->type()));
        return std::nullopt;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < arr->size(); ++i) {
        const auto& item = *arr->get(i);
        if (!item.is_string()) {
            error(item.source(), key + "[" + std::to_string(i) + "]",
                  "expected a string, got " + typeName(item.type()));
            return std::nullopt;
        }
        out.push_back(*item.value<std::string>());
    }
    return out;
}

std::optional<std::map<std::string, std::string>> TomlReader::stringTable(const std::string& key) {
    const auto* n = node(key, false);
    if (!n) return std::nullopt;
    const auto* t = n->as_table();
    if (!t) {
        error(n->source(), key, "expected a table of strings, got " + typeName(n->type()));
        return std::nullopt;
    }
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : *t) {
        if (!v.is_string()) {
            error(v.source(), key + "." + std::string(k.str()),
                  "expected a string, got " + typeName(v.type()));
            return std::nullopt;
        }
        out[std::string(k.str())] = *v.value<std::string>();
    }
    return out;
}

std::optional<std::map<std::string, std::int64_t>> TomlReader::integerTable(const std::string& key,
                                                                            std::int64_t min,
                                                                            std::int64_t max) {
    const auto* t = table(key, false);
    if (!t) return std::nullopt;
    std::map<std::string, std::int64_t> out;
    TomlReader sub(*t, path(key), file_, errors_);
    for (const auto& [k, v] : *t) {
        std::string name(k.str());
        if (auto value = sub.integer(name, min, max, true)) out[name] = *value;
    }
    return out;
}

const toml::table* TomlReader::table(const std::string& key, bool required) {
    const auto* n = node(key, required);
    if (!n) return nullptr;
    const auto* t = n->as_table();
    if (!t) error(n->source(), key, "expected a table, got " + typeName(n->type()));
    return t;
}

void TomlReader::rejectUnknown() {
    for (const auto& [k, v] : table_) {
        std::string key(k.str());
        if (!used_.count(key)) error(k.source(), key, "unknown field");
    }
}

}  // namespace ws::config
