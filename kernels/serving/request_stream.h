// One request's output, handed from the engine's thread to whoever waits for
// it (an HTTP handler). The engine pushes tokens and the end; the consumer
// takes what arrived so far, and cancels when its client has gone (the engine
// then aborts the sequence at its next step and frees its blocks).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "serving/types.h"

namespace ws::serving {

class RequestStream {
  public:
    struct Chunk {
        std::vector<TokenId> tokens;         // new since the last take, in order
        std::optional<FinishReason> finish;  // set on the last chunk
        std::string error;  // why an aborted request ended (empty: the client cancelled)
    };

    RequestStream(SeqId id, int promptTokens) : id_(id), promptTokens_(promptTokens) {}

    SeqId id() const { return id_; }
    int promptTokens() const { return promptTokens_; }

    // Waits up to `timeout` for tokens or the end and takes them. After the
    // end was taken, returns an empty chunk at once.
    Chunk take(std::chrono::milliseconds timeout);
    // An asynchronous consumer's cue to take (an HTTP session on an event
    // loop, which cannot block in take): called on the engine's thread after
    // each push and at the end, outside the stream's lock; at once when
    // something is already waiting.
    void setListener(std::function<void()> listener);
    void cancel() { cancelled_ = true; }
    bool cancelled() const { return cancelled_; }

    // The engine's side. A request's last token and its end arrive together
    // (push with `finish`), so the chunk that has the last token says why it
    // was the last; finish() alone ends a request without a token (an abort).
    void push(TokenId token, std::optional<FinishReason> finish = std::nullopt);
    void finish(FinishReason reason, std::string error = {});

  private:
    const SeqId id_;
    const int promptTokens_;
    std::atomic<bool> cancelled_{false};
    std::mutex mutex_;
    std::condition_variable ready_;
    std::vector<TokenId> pending_;
    std::optional<FinishReason> finish_;
    std::string error_;
    bool ended_ = false;  // the end was taken
    std::shared_ptr<const std::function<void()>> listener_;

    void notify(std::unique_lock<std::mutex>& lock);
};

}  // namespace ws::serving
