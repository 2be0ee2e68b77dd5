// How far a bench serve run's token times can be trusted, in one line from
// the properties the client stored: how chunk arrivals were timed, and what
// the client added to TTFT and ITL against the server's own write times
// (Warpscope's server stamps its writes when asked; other servers do not).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace ws {

// "client: chunk arrivals are ...; it added ... to TTFT and ... to ITL ..."
// or nullopt for a run that bench serve did not measure.
std::optional<std::string> clientMeasurementLine(
    const std::map<std::string, std::string>& properties);

}  // namespace ws
