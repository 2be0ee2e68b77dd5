// bench serve: load against an OpenAI-compatible server with vLLM's flags,
// stored as a run; then the same statistics `stats` prints for it. With
// --server or --attach the load joins a capture (bench_server.cpp).
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/bench_serve.h"
#include "cli/bench_vllm_flags.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/goodput_arg.h"
#include "cli/inject_library.h"
#include "cli/open_store.h"
#include "io/vllm_result_export.h"
#include "record/serve_file_dataset.h"
#include "record/serve_load.h"
#include "record/served_recording.h"
#include "store/store.h"

namespace ws::cli {

namespace {

std::atomic<bool> gStop{false};
extern "C" void onStopSignal(int) {
    gStop.store(true);
}

// vLLM's flag name or ours: --random-input-len or --input-len.
std::optional<std::string> either(const Args& args, const char* vllm, const char* ours) {
    if (auto v = args.value(vllm)) return v;
    return args.value(ours);
}

std::string joined(const std::vector<std::string>& argv) {
    std::string out = "warpscope-cli bench";
    for (const auto& a : argv)
        out += " " + a;
    return out;
}

// --server needs the command after `--`, and `--` means nothing without
// --server: both refused before anything starts.
void checkServerCommand(const Args& args, const std::vector<std::string>& argv) {
    const bool dashDash = std::find(argv.begin(), argv.end(), "--") != argv.end();
    if (args.flag("server")) {
        if (!dashDash)
            throw UsageError(
                "--server needs the server's command after `--` (--server -- CMD ARGS...)");
        if (args.passThrough().empty())
            throw UsageError("--server: no command after `--` (--server -- CMD ARGS...)");
        if (args.value("attach"))
            throw UsageError(
                "--server and --attach exclude each other: --server starts the server, "
                "--attach joins one `record` runs");
    } else if (dashDash) {
        throw UsageError("a command after `--` is started only with --server");
    }
    std::vector<std::string> options = {"server-timeout", "stop-grace", kGpuMetricsValues[0],
                                        kGpuMetricsValues[1], kPcSamplingPeriod};
    options.insert(options.end(), std::begin(kCaptureValues), std::end(kCaptureValues));
    for (const auto& option : options)
        if (args.value(option) && !args.flag("server"))
            throw UsageError("--" + option + " applies to --server");
    std::vector<std::string> flags = {kGpuMetricsFlag, kPcSamplingFlag};
    flags.insert(flags.end(), std::begin(kCaptureFlags), std::end(kCaptureFlags));
    for (const auto& flag : flags)
        if (args.flag(flag) && !args.flag("server"))
            throw UsageError("--" + flag + " applies to --server");
}

// --dataset random | sharegpt:FILE | jsonl:FILE: a file is read once, before
// anything is sent (and shared by every point of a sweep).
void readDataset(ServeLoadOptions& o, const std::string& spec, std::optional<int> outputLen) {
    if (spec == "random") return;
    auto colon = spec.find(':');
    const std::string kind = spec.substr(0, colon);
    if (colon == std::string::npos || (kind != "sharegpt" && kind != "jsonl"))
        throw UsageError("--dataset: '" + spec + "' (random, sharegpt:FILE or jsonl:FILE)");
    const std::string path = spec.substr(colon + 1);
    if (path.empty()) throw UsageError("--dataset " + kind + ": needs a file (" + kind + ":FILE)");
    FileDataset d = kind == "sharegpt"
                        ? readShareGptDataset(path, o.numPrompts, o.seed, outputLen)
                        : readJsonlDataset(path, o.numPrompts, o.outputLen, outputLen);
    std::cerr << "bench serve: dataset " << path << ": " << d.usable << " prompts";
    if (d.skipped) std::cerr << " (" << d.skipped << " entries with fewer than two turns skipped)";
    if (d.usable < o.numPrompts) std::cerr << ", repeated to " << o.numPrompts;
    std::cerr << '\n';
    o.prompts = std::make_shared<const std::vector<ServePrompt>>(std::move(d.prompts));
}

// vLLM's --base-url + --endpoint PATH, or --host/--port + --endpoint PATH
// (http://127.0.0.1:8000/v1/completions by default); a full URL in
// --endpoint, Warpscope's older spelling, is taken as it is.
std::string endpointUrl(const Args& args, const std::string& backend) {
    const std::string defaultPath =
        backend == "openai-chat" ? "/v1/chat/completions" : "/v1/completions";
    auto endpoint = args.value("endpoint");
    if (endpoint && endpoint->find("://") != std::string::npos) {
        if (args.value("base-url") || args.value("host") || args.value("port"))
            throw UsageError("--endpoint " + *endpoint +
                             " is a URL, which excludes --base-url, --host and --port (or give "
                             "--endpoint a path: /v1/completions)");
        return *endpoint;
    }
    const std::string path = endpoint.value_or(defaultPath);
    if (path.empty() || path[0] != '/')
        throw UsageError("--endpoint: '" + path +
                         "' is neither a path (/v1/completions) nor a URL (http://HOST:PORT)");
    std::string base;
    if (auto b = args.value("base-url")) {
        if (args.value("host") || args.value("port"))
            throw UsageError("--base-url excludes --host and --port");
        base = *b;
        while (!base.empty() && base.back() == '/')
            base.pop_back();
    } else {
        std::string host = args.valueOr("host", "127.0.0.1");
        if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
        base = "http://" + host + ":" +
               std::to_string(parseInteger("port", args.valueOr("port", "8000"), 1, 65535));
    }
    return base + path;
}

// Where --save-result writes: --result-filename or vLLM's own name, in
// --result-dir (made if missing).
std::optional<std::string> resultPath(const Args& args, const std::string& backendName,
                                      const ServeLoadOptions& o, const std::string& modelId) {
    if (!args.flag("save-result") && !args.flag("append-result")) {
        if (args.value("result-filename") || args.value("result-dir"))
            std::cerr << "bench serve: --result-filename and --result-dir without --save-result: "
                         "no result file is written (as vLLM)\n";
        return std::nullopt;
    }
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::string name = args.value("result-filename")
                           .value_or(vllmResultFileName(args.valueOr("label", backendName),
                                                        o.requestRate, o.maxConcurrency, modelId,
                                                        static_cast<std::int64_t>(now)));
    if (auto dir = args.value("result-dir")) {
        std::filesystem::create_directories(*dir);
        name = (std::filesystem::path(*dir) / name).string();
    }
    return name;
}

// --metadata KEY=VALUE,... (vLLM's separate words, joined by the translation).
std::vector<std::pair<std::string, std::string>> parseMetadata(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::stringstream items(text);
    for (std::string item; std::getline(items, item, ',');) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--metadata: '" + item + "' is not KEY=VALUE");
        out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    return out;
}

}  // namespace

int cmdBench(const std::vector<std::string>& commandLine) {
    const VllmBenchLine line = translateVllmBenchArgs(commandLine);
    const std::vector<std::string>& argv = line.argv;
    ArgSpec spec{{"ignore-eos", "server", kGpuMetricsFlag, kPcSamplingFlag, "profile",
                  "save-result", "save-detailed", "append-result"},
                 {"db",
                  "endpoint",
                  "base-url",
                  "host",
                  "port",
                  "backend",
                  "model",
                  "served-model-name",
                  "dataset",
                  "dataset-name",
                  "dataset-path",
                  "sharegpt-output-len",
                  "custom-output-len",
                  "num-prompts",
                  "input-len",
                  "random-input-len",
                  "output-len",
                  "random-output-len",
                  "range-ratio",
                  "random-range-ratio",
                  "request-rate",
                  "burstiness",
                  "max-concurrency",
                  "seed",
                  "goodput",
                  "percentile-metrics",
                  "metric-percentiles",
                  "label",
                  "metadata",
                  "result-dir",
                  "result-filename",
                  "num-warmups",
                  "ready-check-timeout-sec",
                  "temperature",
                  "request-timeout",
                  "run-timeout",
                  "server-timeout",
                  "stop-grace",
                  kGpuMetricsValues[0],
                  kGpuMetricsValues[1],
                  kPcSamplingPeriod,
                  "attach",
                  "sweep",
                  "gpus",
                  "http-client"},
                 1,
                 1,
                 true};
    spec.flags.insert(std::begin(kCaptureFlags), std::end(kCaptureFlags));
    spec.valueOptions.insert(std::begin(kCaptureValues), std::end(kCaptureValues));
    auto args = Args::parse(argv, spec);
    if (args.positional()[0] != "serve")
        throw UsageError("bench: unknown mode '" + args.positional()[0] + "' (serve)");
    checkServerCommand(args, argv);
    for (const auto& note : line.notes)
        std::cerr << "bench serve: " << note << '\n';
    BenchServe bench;
    ServeLoadOptions& o = bench.options;
    // vllm, openai or openai-chat: the translation refused any other.
    const std::string backendName = args.valueOr("backend", "openai");
    o.backend = backendName == "openai-chat" ? "openai-chat" : "openai";
    o.endpoint = endpointUrl(args, o.backend);
    if (auto wait = args.value("ready-check-timeout-sec")) {
        // vLLM's readiness check: the server is waited for before anything is sent.
        const double timeoutS =
            static_cast<double>(parseInteger("ready-check-timeout-sec", *wait, 0, 86'400));
        if (timeoutS > 0) {
            std::atomic<bool> never{false};
            StopOnSignals stop;
            auto ready = waitForServer(o.endpoint, timeoutS, never, stop.flag());
            if (ready.state != ServerWait::Ready)
                throw std::runtime_error("the server at " + endpointBase(o.endpoint) +
                                         " was not ready within " + *wait + " s (" +
                                         ready.lastError + ")");
        }
    }
    // vLLM's --model names the model (and the result file); --served-model-name,
    // where given, is what requests carry. Without either, the server's first:
    // under --server asked once the server answers (ServedRecording).
    auto model = args.value("model");
    if (!model && !args.flag("server")) model = firstServedModel(o.endpoint);
    o.model = args.value("served-model-name").value_or(model.value_or(""));
    bench.modelId = model.value_or(o.model);
    if (auto warmups = args.value("num-warmups")) {
        const auto n = parseInteger("num-warmups", *warmups, 0, 1'000'000);
        if (n > 1)
            throw UsageError(
                "--num-warmups " + *warmups +
                " is not implemented: one warm-up request (1, the default) or none (0)");
        o.warmup = n == 1;
    }
    auto dataset = either(args, "dataset-name", "dataset").value_or("random");
    if (auto path = args.value("dataset-path")) {
        // vLLM's spelling: --dataset-name sharegpt|custom --dataset-path FILE.
        if (dataset != "sharegpt" && dataset != "custom" && dataset != "jsonl")
            throw UsageError("--dataset-path goes with --dataset-name sharegpt, custom or jsonl");
        dataset = (dataset == "sharegpt" ? "sharegpt:" : "jsonl:") + *path;
    }
    // A list (one count per --sweep point) lets a sweep send few requests at
    // concurrency 1 and enough at 128 to fill it, as vLLM's sweep bench params do.
    const auto promptCounts = args.valueOr("num-prompts", "1000");
    std::stringstream counts(promptCounts);
    for (std::string n; std::getline(counts, n, ',');)
        bench.pointPrompts.push_back(
            static_cast<int>(parseInteger("num-prompts", n, 1, 10'000'000)));
    if (bench.pointPrompts.empty() || promptCounts.back() == ',')
        throw UsageError("--num-prompts: expected N or, with --sweep, N1,N2,... (one a point)");
    if (bench.pointPrompts.size() > 1 && !args.value("sweep"))
        throw UsageError("--num-prompts " + promptCounts +
                         ": a list of counts needs --sweep (one count a point)");
    o.numPrompts = *std::max_element(bench.pointPrompts.begin(), bench.pointPrompts.end());
    if (bench.pointPrompts.size() == 1) bench.pointPrompts.clear();
    o.inputLen = static_cast<int>(
        parseInteger("input-len", either(args, "random-input-len", "input-len").value_or("1024"), 1,
                     10'000'000));
    auto outputLenArg = either(args, "random-output-len", "output-len");
    if (!outputLenArg) outputLenArg = either(args, "sharegpt-output-len", "custom-output-len");
    o.outputLen =
        static_cast<int>(parseInteger("output-len", outputLenArg.value_or("128"), 1, 10'000'000));
    o.rangeRatio = parseFiniteNumber(
        "range-ratio", either(args, "random-range-ratio", "range-ratio").value_or("0"));
    if (!(o.rangeRatio >= 0 && o.rangeRatio < 1))
        throw UsageError("--range-ratio must be in [0, 1)");
    auto rate = args.valueOr("request-rate", "inf");
    o.requestRate = rate == "inf" ? std::numeric_limits<double>::infinity()
                                  : parseFiniteNumber("request-rate", rate);
    if (!(o.requestRate > 0)) throw UsageError("--request-rate must be positive or inf");
    o.burstiness = parseFiniteNumber("burstiness", args.valueOr("burstiness", "1"));
    if (!(o.burstiness > 0)) throw UsageError("--burstiness must be positive");
    o.maxConcurrency = static_cast<int>(
        parseInteger("max-concurrency", args.valueOr("max-concurrency", "0"), 0, 1'000'000));
    o.seed = static_cast<std::uint64_t>(
        parseInteger("seed", args.valueOr("seed", "0"), 0, std::numeric_limits<long long>::max()));
    readDataset(o, dataset, outputLenArg ? std::optional<int>(o.outputLen) : std::nullopt);
    o.ignoreEos = args.flag("ignore-eos");
    o.profile = args.flag("profile");
    o.temperature = parseFiniteNumber("temperature", args.valueOr("temperature", "0"));
    o.requestTimeoutS =
        parseFiniteNumber("request-timeout", args.valueOr("request-timeout", "600"));
    o.runTimeoutS = parseFiniteNumber("run-timeout", args.valueOr("run-timeout", "0"));
    if (!(o.requestTimeoutS > 0) || o.runTimeoutS < 0)
        throw UsageError("--request-timeout must be positive, --run-timeout 0 or positive");
    o.httpClient = args.valueOr("http-client", "auto");
    if (o.httpClient != "auto" && o.httpClient != "socket" && o.httpClient != "libcurl")
        throw UsageError("--http-client: '" + o.httpClient + "' (auto, socket or libcurl)");
    if (o.httpClient == "socket" && requestUrl(o).rfind("http://", 0) != 0)
        throw UsageError("--http-client socket takes http:// endpoints only (libcurl: https)");
    bench.goodput = args.value("goodput");
    if (bench.goodput) bench.targets = parseGoodput(*bench.goodput);
    requestUrl(o);  // a malformed endpoint fails before anything is sent
    std::optional<RunId> attach;
    if (auto a = args.value("attach")) attach = parseRunId(*a);

    nlohmann::ordered_json settings = {{"endpoint", o.endpoint},
                                       {"backend", o.backend},
                                       {"model", o.model},
                                       {"dataset", dataset},
                                       {"num_prompts", o.numPrompts},
                                       {"input_len", o.inputLen},
                                       {"output_len", o.outputLen},
                                       {"range_ratio", o.rangeRatio},
                                       {"request_rate", rate},
                                       {"burstiness", o.burstiness},
                                       {"max_concurrency", o.maxConcurrency},
                                       {"seed", o.seed},
                                       {"http_client", o.httpClient},
                                       {"ignore_eos", o.ignoreEos},
                                       {"profile", o.profile},
                                       {"temperature", o.temperature}};
    if (auto g = args.value("goodput")) settings["goodput"] = *g;
    if (!bench.pointPrompts.empty()) settings["num_prompts"] = bench.pointPrompts;

    bench.info = ServeRunInfo{args.valueOr("label", ""), joined(argv), settings.dump()};
    bench.storePath = storePath(args);
    bench.saveResult = resultPath(args, backendName, o, bench.modelId);
    if (bench.saveResult && bench.modelId.empty() && !args.value("result-filename"))
        bench.resultPathFor = [args, backendName, o](const std::string& modelId) {
            return *resultPath(args, backendName, o, modelId);
        };
    bench.appendResult = args.flag("append-result");
    bench.label = args.valueOr("label", backendName);
    if (auto metadata = args.value("metadata")) bench.metadata = parseMetadata(*metadata);
    if (auto metrics = args.value("percentile-metrics")) bench.percentileMetrics = *metrics;
    if (auto percentiles = args.value("metric-percentiles")) bench.metricPercentiles = *percentiles;
    if (args.value("gpus") && !args.value("sweep")) throw UsageError("--gpus applies to --sweep");
    if (args.value("sweep") && attach)
        throw UsageError("--sweep and --attach exclude each other: a sweep is a run per point");
    if (args.flag("server")) {
        if (auto sweep = args.value("sweep"))
            return benchSweep(bench, parseSweep(*sweep, args), &args);
        return benchWithServer(bench, args);
    }
    if (attach) return benchAttach(bench, *attach);

    if (auto sweep = args.value("sweep")) return benchSweep(bench, parseSweep(*sweep, args));

    Store(bench.storePath);  // created as import does, before the load
    std::cerr << "bench serve: " << o.numPrompts << " requests to " << requestUrl(o)
              << " (Ctrl-C stops, keeping what was measured)\n";
    ServeLoadResult result;
    {
        StopOnSignals stop;
        o.stop = &stop.flag();
        result = runServeLoad(o);
        o.stop = nullptr;
    }
    RunId run = 0;
    {
        Store store(bench.storePath);
        run = storeServeRun(store, o, result, bench.info);
    }
    return reportBenchRun(bench, run, result);
}

StopOnSignals::StopOnSignals() {
    gStop = false;
    struct sigaction action {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &oldInt_);
    sigaction(SIGTERM, &action, &oldTerm_);
}

StopOnSignals::~StopOnSignals() {
    sigaction(SIGINT, &oldInt_, nullptr);
    sigaction(SIGTERM, &oldTerm_, nullptr);
}

const std::atomic<bool>& StopOnSignals::flag() const {
    return gStop;
}

void saveVllmResult(const BenchServe& bench, RunId run, const ServeLoadResult& result,
                    const std::string& path) {
    const ServeLoadOptions& o = bench.options;
    Store store(bench.storePath);
    std::map<std::int64_t, std::string> errors;
    for (const auto& q : result.requests)
        if (!q.error.empty()) errors[q.id] = q.error;
    VllmResultSettings s{bench.label.empty() ? o.backend : bench.label,
                         bench.modelId.empty() ? o.model : bench.modelId,
                         o.numPrompts,
                         o.requestRate,
                         o.burstiness,
                         o.maxConcurrency,
                         result.startedNs};
    auto j = vllmResultJson(store, run, s, bench.targets, errors);
    if (!bench.label.empty()) j["label"] = bench.label;
    for (const auto& [key, value] : bench.metadata)
        j[key] = value;
    // --append-result: one JSON document a line, as vLLM appends them.
    std::ofstream out(path, bench.appendResult ? std::ios::app : std::ios::trunc);
    out << (bench.appendResult ? j.dump() : j.dump(2)) << '\n';
    if (!out) throw std::runtime_error("cannot write " + path);
    std::cout << "result written to " << path << '\n';
}

int reportBenchRun(const BenchServe& bench, RunId run, const ServeLoadResult& result) {
    const int failed = result.failed();
    std::cout << "stored run " << run << ": " << result.requests.size() - failed
              << " requests completed, " << failed << " failed";
    if (result.notSent) std::cout << ", " << result.notSent << " not sent";
    std::cout << '\n';

    if (bench.saveResult) saveVllmResult(bench, run, result, *bench.saveResult);
    std::vector<std::string> statsArgs{std::to_string(run), "--db", bench.storePath};
    if (bench.goodput) statsArgs.insert(statsArgs.end(), {"--goodput", *bench.goodput});
    if (bench.percentileMetrics)
        statsArgs.insert(statsArgs.end(), {"--metrics", *bench.percentileMetrics});
    if (bench.metricPercentiles)
        statsArgs.insert(statsArgs.end(), {"--percentiles", *bench.metricPercentiles});
    cmdStats(statsArgs);
    // What the client itself cost: CPU per received chunk, and, against
    // Warpscope's own server, how long after the server's write each chunk
    // was timestamped.
    std::size_t chunks = 0;
    for (const auto& q : result.requests)
        chunks += q.chunkNs.size();
    if (chunks > 0) {
        std::cout << std::fixed << std::setprecision(2)
                  << "client: " << static_cast<double>(result.clientCpuNs) / 1e9 << " s CPU, "
                  << static_cast<double>(result.clientCpuNs) / 1e3 / static_cast<double>(chunks)
                  << " µs per chunk";
        if (auto d = emitDelays(result); d.chunks > 0)
            std::cout << "; stamped after the server's write: p50 "
                      << static_cast<double>(d.p50Ns) / 1e3 << " µs, p99 "
                      << static_cast<double>(d.p99Ns) / 1e3 << " µs, max "
                      << static_cast<double>(d.maxNs) / 1e3 << " µs; added to TTFT: p50 "
                      << static_cast<double>(d.firstP50Ns) / 1e3 << " µs, p99 "
                      << static_cast<double>(d.firstP99Ns) / 1e3 << " µs; to ITL: p50 "
                      << static_cast<double>(d.itlP50Ns) / 1e3 << " µs, p99 "
                      << static_cast<double>(d.itlP99Ns) / 1e3 << " µs";
        std::cout << "; chunks timed by " << result.stampSource << '\n';
    }
    if (!result.warmupError.empty()) {
        std::cerr << "warpscope-cli bench: the warm-up request failed: " << result.warmupError
                  << '\n';
        return 1;
    }
    if (result.interrupted) {
        std::cerr << "warpscope-cli bench: interrupted; run " << run
                  << " keeps what was measured\n";
        return 1;
    }
    if (failed > 0 || result.runTimedOut) {
        std::cerr << "warpscope-cli bench: run " << run << " failed: " << failed << " of "
                  << result.requests.size() << " requests failed (see `show " << run
                  << "` for their errors)\n";
        return 1;
    }
    return 0;
}

}  // namespace ws::cli
