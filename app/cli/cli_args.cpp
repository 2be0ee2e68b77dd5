#include "cli/cli_args.h"

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
            } else {
                throw UsageError("unknown option --" + name);
            }
            continue;
        }
        if (a.size() == 2 && a[0] == '-' && spec.valueOptions.count(a.substr(1))) {
            if (i + 1 >= argv.size()) throw UsageError("option " + a + " needs a value");
            args.values_[a.substr(1)] = argv[++i];
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
