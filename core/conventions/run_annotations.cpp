#include "conventions/run_annotations.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

namespace ws {

namespace {

constexpr std::string_view kProperty = "ws.property:";
constexpr std::string_view kQuality = "ws.quality:";

std::optional<double> number(const std::string& text) {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    // nan, inf and out-of-range values (1e400) are not results a check can report.
    if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<QualityRecord> parseQuality(const std::string& body, std::string& error) {
    std::map<std::string, std::string> fields;
    std::string check;
    std::stringstream in(body);
    std::string part;
    bool first = true;
    while (std::getline(in, part, ';')) {
        if (first) {
            check = part;
            first = false;
            continue;
        }
        auto eq = part.find('=');
        if (eq == std::string::npos) {
            error = "field '" + part + "' has no '='";
            return std::nullopt;
        }
        fields[part.substr(0, eq)] = part.substr(eq + 1);
    }
    if (check.empty()) {
        error = "no check name";
        return std::nullopt;
    }
    QualityRecord q;
    q.check = check;
    q.referenceVariant = fields["ref"];
    struct Numeric {
        const char* key;
        double* out;
    };
    double passed = 0;
    for (auto [key, out] :
         {Numeric{"agreement", &q.tokenAgreement}, Numeric{"max_logit_error", &q.maxLogitError},
          Numeric{"tolerance", &q.tolerance}, Numeric{"passed", &passed}}) {
        auto v = number(fields[key]);
        if (!v) {
            error = std::string("field '") + key + "' is missing or not a finite number";
            return std::nullopt;
        }
        *out = *v;
    }
    q.passed = passed != 0;
    return q;
}

}  // namespace

RunAnnotations parseRunAnnotations(const std::vector<RangeRecord>& ranges) {
    RunAnnotations out;
    std::map<std::string, std::size_t> propertyIndex;
    for (const auto& r : ranges) {
        if (r.name.rfind(kProperty, 0) == 0) {
            std::string body = r.name.substr(kProperty.size());
            auto eq = body.find('=');
            if (eq == std::string::npos || eq == 0) {
                out.errors.push_back("NVTX mark '" + r.name +
                                     "': expected ws.property:<key>=<value>");
                continue;
            }
            std::string key = body.substr(0, eq), value = body.substr(eq + 1);
            if (auto it = propertyIndex.find(key); it != propertyIndex.end()) {
                out.properties[it->second].second = value;
            } else {
                propertyIndex[key] = out.properties.size();
                out.properties.emplace_back(key, value);
            }
        } else if (r.name.rfind(kQuality, 0) == 0) {
            std::string error;
            if (auto q = parseQuality(r.name.substr(kQuality.size()), error))
                out.quality.push_back(*q);
            else
                out.errors.push_back("NVTX mark '" + r.name + "': " + error);
        }
    }
    return out;
}

std::string propertyMark(const std::string& key, const std::string& value) {
    return std::string(kProperty) + key + "=" + value;
}

std::string qualityMark(const QualityRecord& q) {
    std::ostringstream out;
    out.precision(9);
    out << kQuality << q.check << ";ref=" << q.referenceVariant << ";agreement=" << q.tokenAgreement
        << ";max_logit_error=" << q.maxLogitError << ";tolerance=" << q.tolerance
        << ";passed=" << (q.passed ? 1 : 0);
    return out.str();
}

}  // namespace ws
