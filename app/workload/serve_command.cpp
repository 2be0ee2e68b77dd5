// `warpscope-workload serve`: builds the serving engine from a workload
// config (or defaults), puts the OpenAI-compatible server in front of it and
// runs until SIGINT or SIGTERM, which drain it. The engine and the server
// live in kernels/serving; this file only wires them to the command line.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <thread>

#include "serving/cpu_backend.h"
#include "serving/engine.h"
#include "serving/http/openai_server.h"
#include "workload_commands.h"

namespace ws::workload {

namespace {

using namespace std::chrono_literals;

struct ServeOverrides {
    std::optional<std::string> backend;
    std::optional<std::string> host;
    std::optional<int> port;
    std::optional<std::string> servedModelName;  // vLLM's --served-model-name
};

const char* kServeUsage =
    "usage: warpscope-workload serve [--backend cpu|gpu] [--host ADDR] [--port N]\n"
    "                                [--served-model-name NAME] [CONFIG.toml]\n";

int usage(const std::string& why) {
    std::cerr << "warpscope-workload serve: " << why << '\n' << kServeUsage;
    return 2;
}

int serve(ServeParams p, const std::optional<DecoderParams>& decoder,
          const ServeOverrides& overrides) {
    if (overrides.backend) p.backend = *overrides.backend;
    if (overrides.host) p.host = *overrides.host;
    if (overrides.port) p.port = *overrides.port;
    if (overrides.servedModelName) p.model = *overrides.servedModelName;
    if (p.model.empty()) p.model = "warpscope-" + p.backend;
    if (p.backend == "gpu" && !decoder) {
        std::cerr << "warpscope-workload serve: the gpu backend serves the model of a "
                     "CONFIG.toml's [decoder] table (e.g. resources/workloads/"
                     "serve-llama-1b.toml)\n";
        return 2;
    }
    serving::EngineConfig engineConfig;
    engineConfig.maxNumSeqs = p.maxNumSeqs;
    engineConfig.maxNumBatchedTokens = p.maxNumBatchedTokens;
    engineConfig.blockSize = p.blockSize;
    engineConfig.numBlocks = p.numBlocks.value_or(4096);
    engineConfig.maxModelLen = p.maxModelLen;
    engineConfig.maxWaiting = p.maxWaiting;
    engineConfig.chunkedPrefill = p.chunkedPrefill;
    std::unique_ptr<serving::Backend> backend;
    try {
        if (p.backend == "gpu") {
            backend = makeGpuBackend(*decoder, p, engineConfig);
        } else {
            backend = std::make_unique<serving::CpuBackend>(serving::CpuPace{
                std::chrono::microseconds(p.cpuStepUs), std::chrono::microseconds(p.cpuSeqUs),
                std::chrono::microseconds(p.cpuPrefillTokenUs)});
        }
    } catch (const std::exception& e) {
        std::cerr << "warpscope-workload serve: " << e.what() << '\n';
        return 3;
    }
    try {
        engineConfig.validate();
    } catch (const std::invalid_argument& e) {
        std::cerr << "warpscope-workload serve: " << e.what() << '\n';
        return 2;
    }
    serving::http::ServerOptions options;
    options.host = p.host;
    options.port = p.port;
    options.model = p.model;
    options.maxBodyBytes = static_cast<std::size_t>(p.maxBodyBytes);
    options.threads = p.httpThreads;
    // vLLM's /start_profile and /stop_profile (bench serve --profile). The
    // CPU backend has no GPU work to trace: its switch only says it was
    // asked, so a client's --profile works against it.
    if (p.backend == "gpu") {
        options.profiler = gpuProfilerSwitch();
    } else {
        options.profiler = [](bool start) {
            std::cout << "warpscope-workload: profiler " << (start ? "started" : "stopped")
                      << " (the cpu backend runs nothing on a GPU)" << std::endl;
            return std::string();
        };
    }
    const auto drainTimeout =
        std::chrono::milliseconds(static_cast<std::int64_t>(p.drainTimeoutS * 1000));

    // SIGINT and SIGTERM are taken by sigtimedwait below, never by a handler:
    // blocked here, before any thread starts, so every thread inherits the mask.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

    const serving::Backend& prepared = *backend;  // the engine owns it from here
    serving::Engine engine(engineConfig, std::move(backend));
    serving::http::OpenAiServer server(engine, options);
    int port = 0;
    try {
        port = server.bind();
    } catch (const std::runtime_error& e) {
        std::cerr << "warpscope-workload serve: " << e.what() << '\n';
        return 1;
    }
    std::cout << "warpscope-workload: serving " << p.model << " (backend " << p.backend
              << ") on http://" << p.host << ':' << port << std::endl;
    // Announced from the engine's thread before it turns Ready, so a client
    // that saw /health answer 200 can rely on the line being out already.
    engine.setReadyObserver([&prepared] {
        for (const auto& note : prepared.preparedNotes())
            std::cout << "warpscope-workload: " << note << std::endl;
        std::cout << "warpscope-workload: ready" << std::endl;
    });
    std::atomic<bool> listening{true};
    std::thread http([&] {
        server.serve();
        listening = false;
    });
    engine.start();

    int exitCode = 0;
    for (;;) {
        timespec wait{0, 200 * 1000 * 1000};
        int signal = sigtimedwait(&stopSignals, nullptr, &wait);
        if (signal == SIGINT || signal == SIGTERM) {
            std::cout << "warpscope-workload: " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
                      << ": draining (up to " << p.drainTimeoutS << " s)" << std::endl;
            break;
        }
        if (!listening) {
            std::cerr << "warpscope-workload serve: the server stopped listening\n";
            exitCode = 1;
            break;
        }
        auto state = engine.state();
        if (state == serving::EngineState::Failed) {
            std::cerr << "warpscope-workload serve: " << engine.stats().failure << '\n';
            exitCode = 1;
            break;
        }
    }
    server.shutdown(drainTimeout);
    http.join();
    engine.stop();
    const serving::EngineStats st = engine.stats();
    std::cout << "warpscope-workload: stopped after " << st.finished << " finished and "
              << st.aborted << " aborted requests, " << st.steps << " steps, " << st.preemptions
              << " preemptions" << std::endl;
    return exitCode;
}

}  // namespace

int serveWorkload(const WorkloadConfig& config) {
    return serve(*config.serve, config.decoder, {});
}

int serveCommand(const std::vector<std::string>& args) {
    ServeOverrides overrides;
    std::optional<std::string> configPath;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> std::optional<std::string> {
            if (i + 1 >= args.size()) return std::nullopt;
            return args[++i];
        };
        if (a == "--help" || a == "-h") {
            std::cout << kServeUsage;
            return 0;
        }
        if (a == "--served-model-name") {
            auto v = value();
            if (!v || v->empty()) return usage(a + " needs a name");
            overrides.servedModelName = *v;
            continue;
        }
        if (a == "--backend" || a == "--host" || a == "--port") {
            auto v = value();
            if (!v) return usage(a + " needs a value");
            if (a == "--backend") {
                if (*v != "cpu" && *v != "gpu") return usage("--backend is cpu or gpu, not " + *v);
                overrides.backend = *v;
            } else if (a == "--host") {
                overrides.host = *v;
            } else {
                std::size_t used = 0;
                int port = -1;
                try {
                    port = std::stoi(*v, &used);
                } catch (const std::exception&) {
                }
                if (used != v->size() || port < 0 || port > 65535)
                    return usage("--port is 0-65535 (0: any free port), not " + *v);
                overrides.port = port;
            }
        } else if (!a.empty() && a[0] == '-') {
            return usage("unknown option " + a);
        } else if (configPath) {
            return usage("one CONFIG.toml at most");
        } else {
            configPath = a;
        }
    }
    if (!configPath) {
        if (!overrides.backend) return usage("give --backend cpu, or a CONFIG.toml of kind serve");
        return serve(ServeParams{}, std::nullopt, overrides);
    }
    auto loaded = loadWorkloadConfig(*configPath);
    if (!loaded.ok()) {
        for (const auto& e : loaded.errors)
            std::cerr << e.toString() << '\n';
        std::cerr << *configPath << ": invalid workload config; nothing was run\n";
        return 2;
    }
    if (!loaded.config->serve) {
        std::cerr << *configPath << ": kind = \"" << toString(loaded.config->kind)
                  << "\", not \"serve\": use warpscope-workload run\n";
        return 2;
    }
    return serve(*loaded.config->serve, loaded.config->decoder, overrides);
}

}  // namespace ws::workload
