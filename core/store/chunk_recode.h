// Re-encodes one event chunk's blob: from one format to another (compact), or
// from one store's string ids to another's (copying a run between stores).
// Internal to ws_store.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "wire/event_codec.h"

namespace ws {

// Decodes `blob` (`count` records of `lane`, names through `lookup`) and
// encodes it again in `to`, names through `intern`. Throws
// std::runtime_error on a damaged blob or an unknown kind.
std::string recodeChunk(codec::ChunkKind kind, std::string_view blob, std::int64_t count,
                        codec::Lane lane, codec::Format from, codec::Format to,
                        const codec::Lookup& lookup, const codec::Intern& intern);

}  // namespace ws
