#include "chunk_recode.h"

#include <stdexcept>
#include <vector>

namespace ws {

namespace {

template <typename T>
std::string recode(std::string_view blob, std::int64_t count, codec::Lane lane, codec::Format from,
                   codec::Format to, const codec::Lookup& lookup, const codec::Intern& intern) {
    std::vector<T> records;
    codec::decode(blob, count, lane, lookup, records, from);
    std::vector<const T*> pointers;
    pointers.reserve(records.size());
    for (const auto& r : records)
        pointers.push_back(&r);
    std::string out;
    codec::encode(pointers, intern, out, to);
    return out;
}

}  // namespace

std::string recodeChunk(codec::ChunkKind kind, std::string_view blob, std::int64_t count,
                        codec::Lane lane, codec::Format from, codec::Format to,
                        const codec::Lookup& lookup, const codec::Intern& intern) {
    switch (kind) {
        case codec::ChunkKind::Kernel:
            return recode<KernelRecord>(blob, count, lane, from, to, lookup, intern);
        case codec::ChunkKind::Memcpy:
            return recode<MemcpyRecord>(blob, count, lane, from, to, lookup, intern);
        case codec::ChunkKind::Memset:
            return recode<MemsetRecord>(blob, count, lane, from, to, lookup, intern);
        case codec::ChunkKind::ApiCall:
            return recode<ApiCallRecord>(blob, count, lane, from, to, lookup, intern);
        case codec::ChunkKind::Range:
            return recode<RangeRecord>(blob, count, lane, from, to, lookup, intern);
    }
    throw std::runtime_error("unknown chunk kind " + std::to_string(static_cast<int>(kind)));
}

}  // namespace ws
