// A `bench serve` load stored as a run: the requests and tokens tables that
// stats, compare, the charts and the report read, the settings and the client
// machine as properties, each failed request's error in the log.
#include <sys/utsname.h>
#include <unistd.h>

#include <iomanip>
#include <sstream>

#include "record/serve_load.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store/store_writer.h"

namespace ws {

namespace {

std::string hostName() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

std::string machine() {
    utsname u{};
    if (uname(&u) != 0) return "unknown";
    return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string number(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

}  // namespace

RunStatus writeServeRequests(Store& store, RunId id, const ServeLoadOptions& o,
                             const ServeLoadResult& r, const ServeRunInfo& info) {
    // Ids follow those the run holds already (a recorded program's own
    // ws.request marks, or another client attached before).
    const std::int64_t firstId = nextRequestId(store, id);
    {
        StoreWriter w(store, id);
        for (const auto& q : r.requests) {
            RequestRecord rec;
            rec.requestId = firstId + q.id;
            rec.startNs = q.startNs;
            rec.endNs = q.chunkNs.empty() ? q.startNs : q.chunkNs.back();
            rec.promptTokens = q.promptTokens;
            rec.outputTokens = q.outputTokens;
            rec.success = q.error.empty();
            w.add(rec);
            for (std::size_t i = 0; i < q.chunkNs.size(); ++i)
                w.add(TokenRecord{firstId + q.id, static_cast<std::int32_t>(i), q.chunkNs[i]});
        }
        w.flush();
    }
    const int failed = r.failed();
    const auto sent = static_cast<int>(r.requests.size());
    const double rate = sent ? 100.0 * failed / sent : 0.0;
    std::ostringstream summary;
    summary << std::fixed << std::setprecision(1) << failed << " of " << sent
            << " requests failed (" << rate << " %)";
    if (r.notSent) summary << ", " << r.notSent << " not sent";
    auto set = [&](const char* key, const std::string& value) {
        store.setProperty(id, key, value);
    };
    set("bench.endpoint", o.endpoint);
    set("bench.url", requestUrl(o));
    set("bench.backend", o.backend);
    set("bench.model", o.model);
    set("bench.arguments", info.command);
    set("bench.num_prompts", std::to_string(o.numPrompts));
    set("bench.request_rate", number(o.requestRate));
    set("bench.burstiness", number(o.burstiness));
    set("bench.max_concurrency", std::to_string(o.maxConcurrency));
    set("bench.seed", std::to_string(o.seed));
    if (o.profile && r.warmupError.empty())
        set("bench.profile",
            r.profileErrors.empty() ? "started and stopped" : "not switched (see the log)");
    set("bench.failed_requests", std::to_string(failed));
    set("bench.failure_rate", number(sent ? static_cast<double>(failed) / sent : 0.0));
    set("bench.not_sent", std::to_string(r.notSent));
    set("bench.peak_concurrency", std::to_string(r.peakConcurrency));
    if (firstId) set("bench.first_request_id", std::to_string(firstId));
    set("client.host", hostName());
    set("client.machine", machine());
    set("client.clock", info.clock);
    set("client.clock_offset_ns", std::to_string(r.clockOffsetNs));
    set("benchmark_duration_ns", std::to_string(r.endedNs - r.startedNs));
    set("client.cpu_ns", std::to_string(r.clientCpuNs));
    if (!r.stampSource.empty()) set("client.chunk_time", r.stampSource);
    set("client.chunks_read", std::to_string(r.chunksRead));
    set("client.chunks_sharing_a_read", std::to_string(r.chunksSharingARead));
    if (auto d = emitDelays(r); d.chunks > 0) {
        set("client.emit_delay_chunks", std::to_string(d.chunks));
        set("client.emit_delay_p50_ns", std::to_string(d.p50Ns));
        set("client.emit_delay_p99_ns", std::to_string(d.p99Ns));
        set("client.emit_delay_max_ns", std::to_string(d.maxNs));
        set("client.emit_delay_first_p50_ns", std::to_string(d.firstP50Ns));
        set("client.emit_delay_first_p99_ns", std::to_string(d.firstP99Ns));
        set("client.emit_delay_itl_p50_ns", std::to_string(d.itlP50Ns));
        set("client.emit_delay_itl_p99_ns", std::to_string(d.itlP99Ns));
    }
    for (const auto& q : r.requests)
        if (!q.error.empty())
            store.appendLog(id,
                            "request " + std::to_string(firstId + q.id) + ": " + q.error + "\n");
    store.appendLog(id, summary.str() + "\n");
    for (const auto& e : r.profileErrors)
        store.appendLog(id, "--profile: " + e + "\n");
    if (!r.warmupError.empty()) {
        store.appendLog(
            id, "the warm-up request failed, nothing was measured: " + r.warmupError + "\n");
        return r.interrupted ? RunStatus::Killed : RunStatus::Failed;
    }
    if (r.interrupted) {
        store.appendLog(id, "interrupted: what was measured until then is kept\n");
        return RunStatus::Killed;
    }
    if (r.runTimedOut) {
        store.appendLog(id, "the run timed out\n");
        return RunStatus::Failed;
    }
    return failed > 0 ? RunStatus::Failed : RunStatus::Ok;
}

RunId storeServeRun(Store& store, const ServeLoadOptions& o, const ServeLoadResult& r,
                    const ServeRunInfo& info) {
    store.requireWritable("store a serving benchmark");
    NewRun nr;
    nr.label = info.label.empty() ? "bench serve " + o.model : info.label;
    nr.workload = WorkloadInfo{o.model, "command", info.settingsJson};
    nr.command = info.command;
    nr.startedAtNs = r.startedNs;
    Store::Transaction tx(store);
    RunId id = store.beginRun(nr);
    RunStatus status = writeServeRequests(store, id, o, r, info);
    store.finishRun(id, status, std::nullopt, std::nullopt, r.endedNs);
    tx.commit();
    return id;
}

}  // namespace ws
