// NCCL's NVTX payloads: each collective call pushes a range in the "NCCL"
// domain named after its function (ncclAllReduce, ncclSend, ...) with a
// binary payload holding the message size in bytes (size_t; per rank for
// AllGather and ReduceScatter). Two layouts are published:
//   NCCL 2.19–2.2x (src/collectives.cc): the size first, then for all but
//     AllGather one or two ints (root, peer, reduction op): 8 bytes for
//     AllGather, 16 for the others;
//   later NCCL (src/include/nvtx_payload_schemas.h): the communicator hash
//     (uint64) first, then the size and the same ints: 16 bytes for
//     AllGather, 24 for the others.
// The payload's size tells them apart. Communicator set-up calls carry other
// schemas and are not collectives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ws {

struct NcclPayload {
    std::string_view collective;  // "AllReduce", ... (static storage)
    std::uint64_t communicator = 0;
    std::int64_t bytes = 0;
};

// The collective an NCCL range name stands for ("ncclAllReduce" → "AllReduce",
// "ncclBcast" → "Broadcast"), in static storage; nullopt for any other name.
std::optional<std::string_view> ncclCallCollective(std::string_view rangeName);

// The collective, communicator and size of an NCCL call from its range name
// and binary payload; nullopt when the name is not a collective, the payload
// is shorter than the two fields, or the size is beyond any message (1 PiB).
std::optional<NcclPayload> ncclPayload(std::string_view rangeName, const void* payload,
                                       std::size_t size);
// The same for a collective already known (a name ncclCallCollective gave).
std::optional<NcclPayload> ncclCollectivePayload(std::string_view collective, const void* payload,
                                                 std::size_t size);

}  // namespace ws
