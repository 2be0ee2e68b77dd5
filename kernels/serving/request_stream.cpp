#include "serving/request_stream.h"

namespace ws::serving {

RequestStream::Chunk RequestStream::take(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    Chunk chunk;
    if (ended_) return chunk;
    ready_.wait_for(lock, timeout, [&] { return !pending_.empty() || finish_.has_value(); });
    chunk.tokens.swap(pending_);
    if (finish_) {
        chunk.finish = finish_;
        chunk.error = error_;
        ended_ = true;
    }
    return chunk;
}

void RequestStream::push(TokenId token, std::optional<FinishReason> finish) {
    {
        std::lock_guard lock(mutex_);
        if (finish_) return;  // ended already (aborted)
        pending_.push_back(token);
        finish_ = finish;
    }
    ready_.notify_all();
}

void RequestStream::finish(FinishReason reason, std::string error) {
    {
        std::lock_guard lock(mutex_);
        if (finish_) return;
        finish_ = reason;
        error_ = std::move(error);
    }
    ready_.notify_all();
}

}  // namespace ws::serving
