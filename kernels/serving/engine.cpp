#include "serving/engine.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace ws::serving {

const char* toString(EngineState state) {
    switch (state) {
        case EngineState::Starting:
            return "starting";
        case EngineState::Ready:
            return "ready";
        case EngineState::Draining:
            return "draining";
        case EngineState::Stopped:
            return "stopped";
        case EngineState::Failed:
            return "failed";
    }
    return "failed";
}

Engine::Engine(EngineConfig config, std::unique_ptr<Backend> backend)
    : config_(config),
      backend_(std::move(backend)),
      scheduler_(config_, backend_ ? backend_->eosToken() : 0),
      seeds_(std::random_device{}()) {
    if (!backend_) throw std::invalid_argument("the engine needs a backend");
    stats_.kvBlocksTotal = config_.numBlocks;
}

Engine::~Engine() {
    stop();
}

void Engine::setStepObserver(std::function<void(const StepStats&)> observer) {
    observer_ = std::move(observer);
}

void Engine::setReadyObserver(std::function<void()> observer) {
    readyObserver_ = std::move(observer);
}

void Engine::start() {
    std::lock_guard lock(mutex_);
    if (thread_.joinable() || stats_.state != EngineState::Starting) return;
    thread_ = std::thread([this] { loop(); });
}

EngineState Engine::state() const {
    std::lock_guard lock(mutex_);
    return stats_.state;
}

bool Engine::waitUntilReady(std::chrono::milliseconds timeout) const {
    waitFor([](const EngineStats& s) { return s.state != EngineState::Starting; }, timeout);
    return state() == EngineState::Ready;
}

std::optional<InvalidRequest> Engine::check(const std::vector<TokenId>& prompt,
                                            const SamplingParams& sampling) const {
    const int vocab = backend_->vocabSize();
    const long long length = static_cast<long long>(prompt.size());
    if (prompt.empty()) return InvalidRequest{"prompt", "the prompt is empty"};
    for (std::size_t i = 0; i < prompt.size(); ++i)
        if (prompt[i] < 0 || prompt[i] >= vocab)
            return InvalidRequest{"prompt", "token id " + std::to_string(prompt[i]) +
                                                " at position " + std::to_string(i) +
                                                " is outside the vocabulary [0, " +
                                                std::to_string(vocab) + ")"};
    if (length >= config_.maxModelLen)
        return InvalidRequest{"prompt", "the prompt has " + std::to_string(length) +
                                            " tokens; this model's maximum context length is " +
                                            std::to_string(config_.maxModelLen) +
                                            " tokens, and at least one must be left for output"};
    if (sampling.maxTokens < 1)
        return InvalidRequest{"max_tokens", "max_tokens must be at least 1"};
    if (length + sampling.maxTokens > config_.maxModelLen)
        return InvalidRequest{"max_tokens",
                              "this model's maximum context length is " +
                                  std::to_string(config_.maxModelLen) + " tokens; you requested " +
                                  std::to_string(length + sampling.maxTokens) + " (" +
                                  std::to_string(length) + " in the prompt, " +
                                  std::to_string(sampling.maxTokens) + " for the output)"};
    if (!std::isfinite(sampling.temperature) || sampling.temperature < 0)
        return InvalidRequest{"temperature", "temperature must be a number >= 0"};
    return std::nullopt;
}

Submission Engine::submit(std::vector<TokenId> prompt, const SamplingParams& sampling) {
    Submission result;
    if (auto invalid = check(prompt, sampling)) {
        result.invalid = std::move(invalid);
        return result;
    }
    {
        std::lock_guard lock(mutex_);
        switch (stats_.state) {
            case EngineState::Starting:
                result.status = SubmitStatus::NotReady;
                result.message = "the engine is starting";
                return result;
            case EngineState::Draining:
            case EngineState::Stopped:
                result.status = SubmitStatus::ShuttingDown;
                result.message = "the server is shutting down";
                return result;
            case EngineState::Failed:
                result.status = SubmitStatus::ShuttingDown;
                result.message = "the engine failed: " + stats_.failure;
                return result;
            case EngineState::Ready:
                break;
        }
        if (stats_.waiting + static_cast<int>(inbox_.size()) >= config_.maxWaiting) {
            result.status = SubmitStatus::QueueFull;
            result.message = "the queue is full (" + std::to_string(config_.maxWaiting) +
                             " requests waiting); retry later";
            return result;
        }
        Incoming in;
        in.stream = std::make_shared<RequestStream>(nextId_++, static_cast<int>(prompt.size()));
        in.prompt = std::move(prompt);
        in.sampling = sampling;
        in.seed = sampling.seed ? *sampling.seed : seeds_();
        ++stats_.submitted;
        stats_.promptTokens += static_cast<std::int64_t>(in.prompt.size());
        ++stats_.active;
        result.status = SubmitStatus::Accepted;
        result.stream = in.stream;
        inbox_.push_back(std::move(in));
    }
    wake_.notify_one();
    return result;
}

bool Engine::drain(std::chrono::milliseconds timeout) {
    {
        std::lock_guard lock(mutex_);
        if (stats_.state == EngineState::Starting || stats_.state == EngineState::Ready)
            stats_.state = EngineState::Draining;
    }
    changed_.notify_all();
    auto idle = [](const EngineStats& s) { return s.active == 0; };
    if (waitFor(idle, timeout)) return true;
    abortAll("the server is shutting down: the request was aborted after the drain timeout");
    waitFor(idle, std::chrono::minutes(1));
    return false;
}

void Engine::abortAll(const std::string& error) {
    {
        std::lock_guard lock(mutex_);
        abortAll_ = error;
    }
    wake_.notify_one();
}

void Engine::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stats_.state != EngineState::Failed) stats_.state = EngineState::Stopped;
        stopping_ = true;
        abortAll_ = "the engine stopped";
    }
    wake_.notify_one();
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
    // Never started, or gone: nothing may wait on a request the loop will not end.
    std::lock_guard lock(mutex_);
    for (auto& in : inbox_)
        in.stream->finish(FinishReason::Abort, "the engine stopped");
    stats_.aborted += static_cast<std::int64_t>(inbox_.size());
    stats_.active -= static_cast<int>(inbox_.size());
    inbox_.clear();
}

EngineStats Engine::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

bool Engine::waitFor(const std::function<bool(const EngineStats&)>& done,
                     std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return done(stats_); });
}

void Engine::loop() {
    std::string failure;
    try {
        backend_->prepare(config_);
    } catch (const std::exception& e) {
        failure = std::string("the backend failed to start: ") + e.what();
    }
    {
        // The observer runs under the lock the state is read with: /health
        // cannot answer 200 before its line is out, and a client that saw the
        // line and asks at once waits here until the state is Ready.
        std::lock_guard lock(mutex_);
        if (failure.empty() && stats_.state == EngineState::Starting && readyObserver_)
            readyObserver_();
        if (!failure.empty()) {
            stats_.state = EngineState::Failed;
            stats_.failure = failure;
        } else if (stats_.state == EngineState::Starting) {
            stats_.state = EngineState::Ready;
        }
    }
    changed_.notify_all();
    if (!failure.empty()) return;

    for (;;) {
        std::vector<Incoming> incoming;
        std::optional<std::string> abortAll;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] {
                return stopping_ || abortAll_ || !inbox_.empty() || !streams_.empty();
            });
            incoming.swap(inbox_);
            abortAll.swap(abortAll_);
            if (stopping_ && streams_.empty() && incoming.empty()) break;
        }
        for (auto& in : incoming) {
            const SeqId id = in.stream->id();
            scheduler_.add(id, std::move(in.prompt), in.sampling, in.seed);
            streams_.emplace(id, std::move(in.stream));
        }
        // Cancelled by their clients, or all of them by a drain or stop. The
        // counts are updated before any stream ends, so whoever sees the end
        // sees them.
        std::vector<std::pair<std::shared_ptr<RequestStream>, bool>> ended;  // (stream, cancelled)
        for (auto it = streams_.begin(); it != streams_.end();) {
            const bool cancelled = it->second->cancelled();
            if (!cancelled && !abortAll) {
                ++it;
                continue;
            }
            scheduler_.abort(it->first);
            ended.emplace_back(std::move(it->second), cancelled);
            it = streams_.erase(it);
        }
        const auto aborted = static_cast<std::int64_t>(ended.size());
        {
            std::lock_guard lock(mutex_);
            stats_.aborted += aborted;
        }
        for (auto& [stream, cancelled] : ended)
            stream->finish(FinishReason::Abort, cancelled ? std::string() : *abortAll);
        publish(aborted > 0);
        if (streams_.empty()) continue;
        try {
            step();
        } catch (const std::exception& e) {
            failure = std::string("the backend failed: ") + e.what();
            {
                std::lock_guard lock(mutex_);
                stats_.aborted += static_cast<std::int64_t>(streams_.size());
                stats_.state = EngineState::Failed;
                stats_.failure = failure;
            }
            for (auto& [id, stream] : streams_) {
                scheduler_.abort(id);
                stream->finish(FinishReason::Abort, failure);
            }
            streams_.clear();
        }
        publish(true);
        if (!failure.empty()) break;
    }
    {
        // Submitted while the loop was ending: nobody else will end them.
        std::lock_guard lock(mutex_);
        for (auto& in : inbox_)
            in.stream->finish(FinishReason::Abort,
                              failure.empty() ? std::string("the engine stopped") : failure);
        stats_.aborted += static_cast<std::int64_t>(inbox_.size());
        inbox_.clear();
    }
    publish(true);
}

void Engine::step() {
    StepPlan plan = scheduler_.schedule();
    if (plan.empty())  // the limits are validated so that this cannot happen; never spin
        throw std::logic_error("the scheduler scheduled nothing with " +
                               std::to_string(streams_.size()) + " requests active");
    std::vector<TokenId> sampled = backend_->execute(plan);
    std::vector<SeqUpdate> updates = scheduler_.update(plan, sampled);
    std::int64_t finished = 0;
    for (const auto& u : updates)
        finished += u.finished ? 1 : 0;
    {
        // Counted before the streams hear of it, so whoever sees a request
        // end sees it counted, and whoever sees a token sees its request
        // running, not still waiting (admission reads the waiting count: a
        // stale one refused a request with 429 under a loaded CPU).
        std::lock_guard lock(mutex_);
        stats_.running = scheduler_.numRunning();
        stats_.waiting = scheduler_.numWaiting();
        stats_.kvBlocksUsed = scheduler_.blocks().numUsed();
        ++stats_.steps;
        stats_.finished += finished;
        stats_.outputTokens += static_cast<std::int64_t>(updates.size());
        stats_.preemptions = plan.stats.preemptionsTotal;
        stats_.lastStep = plan.stats;
    }
    for (const auto& u : updates) {
        auto it = streams_.find(u.seq);
        if (!u.finished) {
            it->second->push(u.token);
            continue;
        }
        it->second->push(u.token, u.reason);
        streams_.erase(it);
    }
    if (observer_) observer_(plan.stats);
}

void Engine::publish(bool notify) {
    {
        std::lock_guard lock(mutex_);
        stats_.running = scheduler_.numRunning();
        stats_.waiting = scheduler_.numWaiting();
        stats_.active = static_cast<int>(streams_.size() + inbox_.size());
        stats_.kvBlocksUsed = scheduler_.blocks().numUsed();
    }
    if (notify) changed_.notify_all();
}

}  // namespace ws::serving
