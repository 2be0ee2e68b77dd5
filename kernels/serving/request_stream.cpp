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

void RequestStream::setListener(std::function<void()> listener) {
    std::unique_lock lock(mutex_);
    listener_ = std::make_shared<const std::function<void()>>(std::move(listener));
    if (!pending_.empty() || finish_) notify(lock);
}

void RequestStream::notify(std::unique_lock<std::mutex>& lock) {
    auto listener = listener_;
    lock.unlock();
    ready_.notify_all();
    if (listener) (*listener)();
}

void RequestStream::push(TokenId token, std::optional<FinishReason> finish) {
    std::unique_lock lock(mutex_);
    if (finish_) return;  // ended already (aborted)
    pending_.push_back(token);
    finish_ = finish;
    notify(lock);
}

void RequestStream::finish(FinishReason reason, std::string error) {
    std::unique_lock lock(mutex_);
    if (finish_) return;
    finish_ = reason;
    error_ = std::move(error);
    notify(lock);
}

}  // namespace ws::serving
