#include "model/nccl_payload.h"

#include <cstring>

namespace ws {

std::optional<std::string_view> ncclCallCollective(std::string_view name) {
    struct Call {
        std::string_view name, collective;
    };
    static constexpr Call kCalls[] = {{"ncclAllReduce", "AllReduce"},
                                      {"ncclAllGather", "AllGather"},
                                      {"ncclReduceScatter", "ReduceScatter"},
                                      {"ncclBroadcast", "Broadcast"},
                                      {"ncclBcast", "Broadcast"},
                                      {"ncclReduce", "Reduce"},
                                      {"ncclSend", "Send"},
                                      {"ncclRecv", "Recv"}};
    for (const auto& c : kCalls)
        if (name == c.name) return c.collective;
    return std::nullopt;
}

std::optional<NcclPayload> ncclPayload(std::string_view rangeName, const void* payload,
                                       std::size_t size) {
    auto collective = ncclCallCollective(rangeName);
    if (!collective) return std::nullopt;
    return ncclCollectivePayload(*collective, payload, size);
}

std::optional<NcclPayload> ncclCollectivePayload(std::string_view collective, const void* payload,
                                                 std::size_t size) {
    if (collective.empty() || !payload) return std::nullopt;
    // The size of the older layout; the later one adds the communicator hash.
    const std::size_t older = collective == "AllGather" ? 8 : 16;
    std::uint64_t comm = 0, bytes = 0;
    const auto* p = static_cast<const char*>(payload);
    if (size >= older + sizeof comm) {
        std::memcpy(&comm, p, sizeof comm);
        std::memcpy(&bytes, p + sizeof comm, sizeof bytes);
    } else if (size >= older) {
        std::memcpy(&bytes, p, sizeof bytes);
    } else {
        return std::nullopt;
    }
    if (bytes > (std::uint64_t{1} << 50)) return std::nullopt;
    return NcclPayload{collective, comm, static_cast<std::int64_t>(bytes)};
}

}  // namespace ws
