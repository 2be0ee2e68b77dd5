#include "io/progress_messages.h"

#include <array>
#include <nlohmann/json.hpp>

namespace ws::progress {

namespace {

constexpr std::array<std::pair<Kind, const char*>, 6> kKinds = {{{Kind::Record, "record"},
                                                                 {Kind::Import, "import"},
                                                                 {Kind::Compact, "compact"},
                                                                 {Kind::Note, "note"},
                                                                 {Kind::Error, "error"},
                                                                 {Kind::Done, "done"}}};

// The record counters by their JSON names, read and written from one list.
struct Counter {
    const char* name;
    std::int64_t RecordProgress::*field;
};
constexpr std::array<Counter, 8> kCounters = {{{"elapsed_ns", &RecordProgress::elapsedNs},
                                               {"kernels", &RecordProgress::kernels},
                                               {"memcpys", &RecordProgress::memcpys},
                                               {"memcpy_bytes", &RecordProgress::memcpyBytes},
                                               {"api_calls", &RecordProgress::apiCalls},
                                               {"ranges", &RecordProgress::ranges},
                                               {"tokens", &RecordProgress::tokens},
                                               {"dropped", &RecordProgress::dropped}}};

}  // namespace

const char* toString(Kind kind) {
    for (const auto& [k, name] : kKinds)
        if (k == kind) return name;
    return "note";
}

std::string toJsonLine(const Message& m) {
    nlohmann::ordered_json j = {{"warpscope", toString(m.kind)}};
    switch (m.kind) {
        case Kind::Record:
            for (const auto& c : kCounters)
                j[c.name] = m.record.*c.field;
            j["processes"] = m.record.processes;
            j["finished"] = m.record.finished;
            break;
        case Kind::Import:
        case Kind::Compact:
            j["done"] = m.done;
            j["total"] = m.total;
            break;
        case Kind::Note:
        case Kind::Error:
        case Kind::Done:
            j["text"] = m.text;
            break;
    }
    if (m.run) j["run"] = *m.run;
    if (m.exitCode) j["exit_code"] = *m.exitCode;
    // A program's bytes in a message are not always UTF-8: replace, never throw.
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<Message> parseJsonLine(std::string_view line) {
    if (line.empty() || line.front() != '{') return std::nullopt;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return std::nullopt;
    auto kind = j.find("warpscope");
    if (kind == j.end() || !kind->is_string()) return std::nullopt;
    Message m;
    bool known = false;
    for (const auto& [k, name] : kKinds)
        if (*kind == name) {
            m.kind = k;
            known = true;
        }
    if (!known) return std::nullopt;
    auto integer = [&](const char* key) -> std::int64_t {
        auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
    };
    for (const auto& c : kCounters)
        m.record.*c.field = integer(c.name);
    m.record.processes = static_cast<int>(integer("processes"));
    if (auto it = j.find("finished"); it != j.end() && it->is_boolean())
        m.record.finished = it->get<bool>();
    m.done = integer("done");
    m.total = integer("total");
    if (auto it = j.find("text"); it != j.end() && it->is_string()) m.text = it->get<std::string>();
    if (auto it = j.find("run"); it != j.end() && it->is_number_integer()) m.run = it->get<RunId>();
    if (m.kind == Kind::Record && m.run) m.record.run = *m.run;
    if (auto it = j.find("exit_code"); it != j.end() && it->is_number_integer())
        m.exitCode = it->get<int>();
    return m;
}

}  // namespace ws::progress
