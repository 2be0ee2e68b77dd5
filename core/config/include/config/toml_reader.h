// Reads one TOML table field by field, checking type and range, and reports
// every key nobody asked for. Errors carry file:line:column and the dotted key.
#pragma once

#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 1
// toml++ 3.3.0 (Debian 12) asserts on some malformed input that its own checks
// then report as syntax errors ("[+", "T:", "[}": marzer/tomlplusplus#294):
// abort in debug builds, __builtin_assume (undefined behaviour) under clang.
// Its assertions are off here, in every file that includes it (so its inline
// functions are the same everywhere), and those inputs get the syntax error.
// Its other 3.3.0 defect, TOML_UNREACHABLE on non-ASCII text outside strings
// (#295), is kept from it by parseWorkloadConfig's own check first.
#include <toml++/impl/preprocessor.h>
#undef TOML_ASSERT
#define TOML_ASSERT(expr) static_assert(true)
#undef TOML_ASSERT_ASSUME
#define TOML_ASSERT_ASSUME(expr) static_assert(true)
#undef TOML_ASSUME
#define TOML_ASSUME(...) static_assert(true)
#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "config/workload_config.h"

namespace ws::config {

class TomlReader {
  public:
    TomlReader(const toml::table& table, std::string prefix, std::string file,
               std::vector<ConfigError>& errors);

    bool has(const std::string& key) const { return table_.contains(key); }
    std::optional<std::int64_t> integer(const std::string& key, std::int64_t min, std::int64_t max,
                                        bool required);
    std::optional<double> number(const std::string& key, double min, double max, bool required);
    std::optional<std::string> string(const std::string& key, bool required,
                                      std::initializer_list<const char*> allowed = {}) {
        return string(key, required, std::span<const char* const>(allowed.begin(), allowed.size()));
    }
    // `allowed` empty: any string.
    std::optional<std::string> string(const std::string& key, bool required,
                                      std::span<const char* const> allowed);
    std::optional<bool> boolean(const std::string& key);
    std::optional<std::vector<std::string>> stringArray(const std::string& key);
    std::optional<std::map<std::string, std::string>> stringTable(const std::string& key);
    std::optional<std::map<std::string, std::int64_t>> integerTable(const std::string& key,
                                                                    std::int64_t min,
                                                                    std::int64_t max);
    // A sub-table, or nullptr (with an error when required or of the wrong type).
    const toml::table* table(const std::string& key, bool required);
    // Reports every key of this table that no accessor touched.
    void rejectUnknown();
    void error(const toml::source_region& where, const std::string& key, const std::string& msg);
    const toml::table& raw() const { return table_; }
    const std::string& file() const { return file_; }
    std::vector<ConfigError>& errors() { return errors_; }
    std::string path(const std::string& key) const;

  private:
    const toml::node* node(const std::string& key, bool required);

    const toml::table& table_;
    std::string prefix_;
    std::string file_;
    std::vector<ConfigError>& errors_;
    std::set<std::string> used_;
};

}  // namespace ws::config
