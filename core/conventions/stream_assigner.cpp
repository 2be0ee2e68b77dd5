#include "conventions/stream_assigner.h"

namespace ws {

namespace {
// Fresh ids sit above any id CUDA hands out in practice, with CUDA's own id
// in the low bits, so a stored id still shows which stream it was.
constexpr std::uint32_t kProcessStep = 1u << 24;
}  // namespace

std::uint32_t StreamAssigner::assign(std::uint32_t pid, std::uint32_t device, std::uint32_t stream,
                                     std::optional<GpuStreamRecord>& fresh) {
    fresh.reset();
    auto key = std::make_tuple(pid, device, stream);
    if (auto it = ids_.find(key); it != ids_.end()) return it->second;
    std::uint32_t id = stream;
    while (taken_.count({device, id}))
        id += (id >> 24) < 255 ? kProcessStep : 1;  // past 255 processes: any free id
    taken_.insert({device, id});
    ids_.emplace(key, id);
    fresh = GpuStreamRecord{device, id, pid, stream};
    return id;
}

}  // namespace ws
