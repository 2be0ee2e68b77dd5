// Minimal argument parsing for warpscope-cli: options are declared per
// command, so an unknown option is a usage error (exit 2), never ignored.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws::cli {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ArgSpec {
    std::set<std::string> flags;         // --json
    std::set<std::string> valueOptions;  // --db FILE
    std::size_t minPositional = 0;
    std::size_t maxPositional = 0;
    bool passThroughAfterDashDash = false;  // record -- PROGRAM ARGS...
};

class Args {
  public:
    static Args parse(const std::vector<std::string>& argv, const ArgSpec& spec);

    bool flag(const std::string& name) const { return flags_.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string valueOr(const std::string& name, const std::string& fallback) const;
    // Every value an option was given, in order (value() keeps the last):
    // for options that may repeat, as whatif's --faster.
    std::vector<std::string> values(const std::string& name) const;
    const std::vector<std::string>& positional() const { return positional_; }
    const std::vector<std::string>& passThrough() const { return passThrough_; }

  private:
    std::set<std::string> flags_;
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> every_;
    std::vector<std::string> positional_;
    std::vector<std::string> passThrough_;
};

// The name of `known` nearest to `name` by edit distance, or "" when none is
// near enough to be what was meant (a third of its letters or 2, whichever is more).
std::string nearestName(const std::string& name, const std::vector<std::string>& known);

// Parses a run id ("12"); throws UsageError naming the bad text.
long long parseRunId(const std::string& text);
// A whole number in [min, max] for `--option`; "-1", "abc" and "3x" are
// usage errors naming the option, never wrapped around or half read.
long long parseInteger(const std::string& option, const std::string& text, long long min,
                       long long max);
// A finite decimal number for `--option` ("nan", "inf", "1e400" refused).
double parseFiniteNumber(const std::string& option, const std::string& text);

}  // namespace ws::cli
