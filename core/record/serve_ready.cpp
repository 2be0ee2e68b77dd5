// Waiting for a server started by bench serve --server: vLLM, SGLang and
// TGI answer GET /health with 200 once the model is loaded; servers without
// /health are asked GET /v1/models.
#include <chrono>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "record/served_recording.h"
#include "server_requests.h"

namespace ws {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::string endpointBase(const std::string& endpoint) {
    auto scheme = endpoint.find("://");
    if (scheme == std::string::npos || scheme == 0)
        throw std::runtime_error("--endpoint '" + endpoint + "' has no scheme (http://HOST:PORT)");
    auto path = endpoint.find('/', scheme + 3);
    return endpoint.substr(0, path);
}

ServerWaitResult waitForServer(const std::string& endpoint, double timeoutS,
                               const std::atomic<bool>& ended, const std::atomic<bool>& stop) {
    const std::string base = endpointBase(endpoint);
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(timeoutS);
    ServerWaitResult out;
    auto waited = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    for (;;) {
        // A server that has /health says there whether it is ready (vLLM,
        // SGLang and TGI answer 503 while loading, and some answer /v1/models
        // before): /v1/models is asked only where /health is not found.
        long health = serverRequest("GET", base + "/health", out.lastError, 5000);
        if (health == 200 || (health == 404 && serverRequest("GET", base + "/v1/models",
                                                             out.lastError, 5000) == 200)) {
            out.state = ServerWait::Ready;
            out.lastError.clear();
            out.waitedS = waited();
            return out;
        }
        // Checked after a poll: a server that answered and then ended is
        // found ended by the load, not here.
        out.waitedS = waited();
        if (ended) {
            out.state = ServerWait::Ended;
            return out;
        }
        if (stop) {
            out.state = ServerWait::Stopped;
            return out;
        }
        if (Clock::now() >= deadline) {
            out.state = ServerWait::TimedOut;
            return out;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

std::string firstServedModel(const std::string& endpoint) {
    const std::string url = endpointBase(endpoint) + "/v1/models";
    std::string error, body;
    if (serverRequest("GET", url, error, 10000, nullptr, &body) != 200)
        throw std::runtime_error("no --model given, and the server did not list its models: " +
                                 error);
    auto models = nlohmann::json::parse(body, nullptr, false);
    const nlohmann::json* first = nullptr;
    if (models.is_object() && models.contains("data") && models["data"].is_array() &&
        !models["data"].empty())
        first = &models["data"][0];
    if (!first || !first->is_object() || !first->contains("id") || !(*first)["id"].is_string())
        throw std::runtime_error("no --model given, and GET " + url +
                                 " names no model (expected {\"data\": [{\"id\": NAME}]})");
    return (*first)["id"].get<std::string>();
}

}  // namespace ws
