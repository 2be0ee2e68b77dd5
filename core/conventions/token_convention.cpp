#include "conventions/token_convention.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string_view>

namespace ws {

namespace {
constexpr std::string_view kRequest = "ws.request:";
constexpr std::string_view kToken = "ws.token:";

std::optional<std::int64_t> number(std::string_view text) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
}
}  // namespace

DerivedTokens deriveTokens(const std::vector<RangeRecord>& ranges) {
    std::map<std::int64_t, RequestRecord> requests;
    std::map<std::int64_t, std::vector<std::int64_t>> tokenTimes;
    for (const auto& r : ranges) {
        std::string_view name = r.name;
        if (name.substr(0, kRequest.size()) == kRequest) {
            auto rest = name.substr(kRequest.size());
            std::optional<std::int64_t> prompt;
            if (auto colon = rest.find(":prompt="); colon != std::string_view::npos) {
                prompt = number(rest.substr(colon + 8));
                rest = rest.substr(0, colon);
            }
            auto id = number(rest);
            if (!id) continue;
            auto& q = requests[*id];
            q.requestId = *id;
            q.startNs = r.startNs;
            q.endNs = r.endNs;
            if (prompt) q.promptTokens = static_cast<std::int32_t>(*prompt);
        } else if (name.substr(0, kToken.size()) == kToken) {
            if (auto id = number(name.substr(kToken.size()))) tokenTimes[*id].push_back(r.startNs);
        }
    }
    DerivedTokens out;
    for (auto& [id, times] : tokenTimes) {
        std::sort(times.begin(), times.end());
        for (std::size_t i = 0; i < times.size(); ++i)
            out.tokens.push_back({id, static_cast<std::int32_t>(i), times[i]});
        auto it = requests.find(id);
        if (it == requests.end()) {
            // A request without its range starts at its first token: TTFT unknown.
            RequestRecord q;
            q.requestId = id;
            q.startNs = times.front();
            q.endNs = times.back();
            it = requests.emplace(id, q).first;
        }
        it->second.outputTokens = static_cast<std::int32_t>(times.size());
        it->second.endNs = std::max(it->second.endNs, times.back());
    }
    for (auto& [id, q] : requests)
        out.requests.push_back(q);
    return out;
}

}  // namespace ws
