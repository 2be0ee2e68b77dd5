// What the load loop of `bench serve` asks of a transport: start a request,
// move every running one forward for up to a wait, end them all. Two
// transports: libcurl's multi interface (any URL: https, proxies) and a loop
// of plain sockets whose chunks carry the kernel's receive time (http://).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "record/serve_load.h"

namespace ws {

using ServeClock = std::chrono::steady_clock;

std::int64_t steadyNs();
std::int64_t unixNs();

class RequestLoop {
  public:
    virtual ~RequestLoop() = default;
    // Sends prompt `id`; its times are steady ns + offsetNs.
    virtual void start(std::int64_t id, const ServePrompt& prompt, std::int64_t offsetNs) = 0;
    // Runs transfers for up to `waitMs`; finished ones go to `done`.
    virtual void step(int waitMs, std::vector<ServeRequestResult>& done) = 0;
    // Ends every running request with `why`, keeping what it received.
    virtual void abortAll(const std::string& why, std::vector<ServeRequestResult>& done) = 0;
    virtual std::size_t live() const = 0;
    int peak() const { return peak_; }
    void setInputLens(const std::vector<ServePrompt>* prompts) { prompts_ = prompts; }
    // How chunk arrival is timed, in words (stored with the run).
    virtual std::string stampSource() const = 0;
    // Chunks read, and those that came in one read with another: they
    // all carry that read's time (for a kernel stamp, the last segment's).
    std::size_t chunksRead() const { return chunks_; }
    std::size_t chunksSharingARead() const { return sharing_; }

  protected:
    int datasetInput(std::int64_t id) const {
        return prompts_ && id >= 0 && static_cast<std::size_t>(id) < prompts_->size()
                   ? (*prompts_)[static_cast<std::size_t>(id)].inputLen
                   : 0;
    }
    void noteLive(std::size_t n) { peak_ = std::max(peak_, static_cast<int>(n)); }
    // One read that carried `textChunks` chunks (events with choices).
    void noteRead(std::size_t textChunks) {
        chunks_ += textChunks;
        if (textChunks > 1) sharing_ += textChunks;
    }

  private:
    const std::vector<ServePrompt>* prompts_ = nullptr;
    int peak_ = 0;
    std::size_t chunks_ = 0, sharing_ = 0;
};

// The JSON body of one request and its headers ("Name: value").
std::string requestBody(const ServeLoadOptions& options, const ServePrompt& prompt);
std::vector<std::pair<std::string, std::string>> requestHeaders();

std::unique_ptr<RequestLoop> makeCurlLoop(const ServeLoadOptions& options);
std::unique_ptr<RequestLoop> makeSocketLoop(const ServeLoadOptions& options);
// The transport options.httpClient names; "auto": sockets for http:// without
// a proxy in the environment, libcurl otherwise.
std::unique_ptr<RequestLoop> makeRequestLoop(const ServeLoadOptions& options);

}  // namespace ws
