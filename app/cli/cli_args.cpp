#include "cli/cli_args.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ws::cli {

Args Args::parse(const std::vector<std::string>& argv, const ArgSpec& spec) {
    Args args;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "--" && spec.passThroughAfterDashDash) {
            args.passThrough_.assign(argv.begin() + static_cast<long>(i) + 1, argv.end());
            break;
        }
        if (a == "--") {
            // The POSIX end of options: what follows is positional even when
            // it starts with '-' (`label 3 -- "-O3 build"`).
            args.positional_.insert(args.positional_.end(), argv.begin() + static_cast<long>(i) + 1,
                                    argv.end());
            break;
        }
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), value;
            bool inlineValue = false;
            if (auto eq = name.find('='); eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                inlineValue = true;
            }
            if (spec.flags.count(name)) {
                if (inlineValue) throw UsageError("option --" + name + " takes no value");
                args.flags_.insert(name);
            } else if (spec.valueOptions.count(name)) {
                if (!inlineValue) {
                    if (i + 1 >= argv.size())
                        throw UsageError("option --" + name + " needs a value");
                    value = argv[++i];
                }
                args.values_[name] = value;
                args.every_[name].push_back(value);
            } else {
                std::vector<std::string> known(spec.flags.begin(), spec.flags.end());
                known.insert(known.end(), spec.valueOptions.begin(), spec.valueOptions.end());
                const std::string near = nearestName(name, known);
                throw UsageError("unknown option --" + name +
                                 (near.empty() ? "" : " (did you mean --" + near + "?)"));
            }
            continue;
        }
        if (a.size() == 2 && a[0] == '-' && spec.valueOptions.count(a.substr(1))) {
            if (i + 1 >= argv.size()) throw UsageError("option " + a + " needs a value");
            args.values_[a.substr(1)] = argv[++i];
            args.every_[a.substr(1)].push_back(args.values_[a.substr(1)]);
            continue;
        }
        if (a.size() > 1 && a[0] == '-' && a != "-") throw UsageError("unknown option " + a);
        args.positional_.push_back(a);
    }
    if (args.positional_.size() < spec.minPositional) throw UsageError("missing argument");
    if (args.positional_.size() > spec.maxPositional)
        throw UsageError("unexpected argument '" + args.positional_[spec.maxPositional] + "'");
    return args;
}

std::string nearestName(const std::string& name, const std::vector<std::string>& known) {
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(2, name.size() / 3) + 1;
    for (const auto& k : known) {
        // Levenshtein distance, one row at a time.
        std::vector<std::size_t> row(k.size() + 1);
        for (std::size_t j = 0; j <= k.size(); ++j)
            row[j] = j;
        for (std::size_t i = 1; i <= name.size(); ++i) {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= k.size(); ++j) {
                const std::size_t up = row[j];
                row[j] = std::min(
                    {row[j] + 1, row[j - 1] + 1, diagonal + (name[i - 1] == k[j - 1] ? 0 : 1)});
                diagonal = up;
            }
        }
        if (row[k.size()] < bestDistance) {
            bestDistance = row[k.size()];
            best = k;
        }
    }
    return best;
}

std::vector<std::string> Args::values(const std::string& name) const {
    auto it = every_.find(name);
    return it == every_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<std::string> Args::value(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::valueOr(const std::string& name, const std::string& fallback) const {
    return value(name).value_or(fallback);
}

long long parseRunId(const std::string& text) {
    long long id = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size() || id <= 0)
        throw UsageError("'" + text + "' is not a run id (a positive integer, as `ls` prints)");
    return id;
}

long long parseInteger(const std::string& option, const std::string& text, long long min,
                       long long max) {
    long long v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
        throw UsageError("--" + option + " must be a whole number from " + std::to_string(min) +
                         " to " + std::to_string(max) + ", not '" + text + "'");
    return v;
}

double parseFiniteNumber(const std::string& option, const std::string& text) {
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
        throw UsageError("--" + option + ": '" + text + "' is not a finite number");
    return v;
}

}  // namespace ws::cli
