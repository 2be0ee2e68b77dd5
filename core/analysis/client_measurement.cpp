#include "analysis/client_measurement.h"

#include <charconv>

#include "util/format.h"

namespace ws {

namespace {

std::optional<long long> integer(const std::map<std::string, std::string>& p, const char* key) {
    auto it = p.find(key);
    if (it == p.end()) return std::nullopt;
    long long v = 0;
    const auto& s = it->second;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string micros(long long ns) {
    return formatFixed(static_cast<double>(ns) / 1000.0, 0) + " µs";
}

}  // namespace

std::optional<std::string> clientMeasurementLine(
    const std::map<std::string, std::string>& properties) {
    auto timed = properties.find("client.chunk_time");
    const bool bench = properties.count("bench.endpoint") > 0;
    if (!bench && timed == properties.end()) return std::nullopt;
    std::string line = "client: chunk arrivals are ";
    line += timed != properties.end() ? timed->second : "read times (before the client said)";
    auto first50 = integer(properties, "client.emit_delay_first_p50_ns");
    auto first99 = integer(properties, "client.emit_delay_first_p99_ns");
    auto itl50 = integer(properties, "client.emit_delay_itl_p50_ns");
    auto itl99 = integer(properties, "client.emit_delay_itl_p99_ns");
    if (first50 && first99 && itl50 && itl99)
        line += "; against the server's own write times the client and the network added " +
                micros(*first50) + " to TTFT and " + micros(*itl50) +
                " to ITL at the median (p99 " + micros(*first99) + " and " + micros(*itl99) + ")";
    else
        line += "; the server did not stamp its writes, so what the client added is not measured";
    auto read = integer(properties, "client.chunks_read");
    auto sharing = integer(properties, "client.chunks_sharing_a_read");
    if (read && sharing && *sharing > 0 && *read > 0)
        line += "; " + std::to_string(*sharing) + " of " + std::to_string(*read) + " chunks (" +
                formatFixed(100.0 * static_cast<double>(*sharing) / static_cast<double>(*read), 1) +
                " %) came in one read with another and carry the time of the read's last bytes";
    return line;
}

}  // namespace ws
