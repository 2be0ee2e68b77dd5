// The user-space part of bench serve's cost per streamed chunk: a chunked SSE
// response of vLLM-shaped completion chunks fed to ServeResponseReader one
// HTTP chunk per read, as the socket client reads them (the kernel's part,
// recvmsg and epoll, is client_capacity.py's). Reported per chunk.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "record/serve_response_reader.h"

namespace {

// One read per HTTP chunk: the header first, then each event as its own chunk.
std::vector<std::string> vllmReads(int tokens) {
    std::vector<std::string> reads = {
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
        "transfer-encoding: chunked\r\n\r\n"};
    auto chunk = [](const std::string& event) {
        char size[16];
        std::snprintf(size, sizeof size, "%zx\r\n", event.size());
        return size + event + "\r\n";
    };
    for (int i = 0; i < tokens; ++i)
        reads.push_back(chunk(
            "data: "
            "{\"id\":\"cmpl-4f0d2a6c8a1b4e0f9b7d3c2e1a0f9e8d\",\"object\":\"text_completion\","
            "\"created\":1764921600,\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[{"
            "\"index\":0,\"text\":\" token" +
            std::to_string(i % 97) +
            "\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}],\"usage\":null}"
            "\n\n"));
    reads.push_back(chunk(
        "data: {\"id\":\"cmpl-4f0d2a6c8a1b4e0f9b7d3c2e1a0f9e8d\",\"object\":\"text_completion\","
        "\"created\":1764921600,\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[],"
        "\"usage\":{\"prompt_tokens\":1024,\"total_tokens\":1280,\"completion_tokens\":256}}"
        "\n\ndata: [DONE]\n\n"));
    reads.push_back("0\r\n\r\n");
    return reads;
}

void BM_ServeReaderPerChunk(benchmark::State& state) {
    const int tokens = static_cast<int>(state.range(0));
    const auto reads = vllmReads(tokens);
    for (auto _ : state) {
        ws::ServeResponseReader reader;
        std::int64_t at = 0;
        for (const auto& r : reads)
            reader.feed(r.data(), r.size(), ++at);
        reader.finish("", 1024);
        if (reader.result().chunkNs.size() != static_cast<std::size_t>(tokens) ||
            !reader.result().error.empty())
            state.SkipWithError("the stream was not read whole");
        benchmark::DoNotOptimize(reader.result().chunkNs.data());
    }
    state.SetItemsProcessed(state.iterations() * tokens);
    state.counters["ns_per_chunk"] =
        benchmark::Counter(static_cast<double>(state.iterations() * tokens),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ServeReaderPerChunk)->Arg(256);

}  // namespace
