// Stream ids across the processes of one run. CUDA numbers streams per
// context, so a parent and its spawned workers on one GPU all have their own
// stream 7; stored alike they would share a timeline lane and a kernel could
// not be told from the other process's. The first process to use a (device,
// stream) keeps the id; the same id in another process gets a fresh one, and
// every stream's process and CUDA id are kept (GpuStreamRecord).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "model/records.h"

namespace ws {

class StreamAssigner {
  public:
    // The stream id to store for CUDA stream `stream` of `device` in process
    // `pid`. The first time a (pid, device, stream) is seen, `fresh` gets the
    // record that says so (to be stored with the run).
    std::uint32_t assign(std::uint32_t pid, std::uint32_t device, std::uint32_t stream,
                         std::optional<GpuStreamRecord>& fresh);

  private:
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> ids_;
    std::set<std::pair<std::uint32_t, std::uint32_t>> taken_;  // (device, stored stream id)
};

}  // namespace ws
