// CUDA graph nodes as they are created (stream capture, cudaGraphAdd*Node)
// and copied (instantiation, cloning), from CUPTI's resource callbacks, so a
// replayed kernel can be traced back to the thread and moment its node was
// captured. Resource callbacks come only when graphs are built, never on a
// launch, so this costs nothing on the replay path.
#pragma once

#include <functional>

#include "model/records.h"

namespace ws::capture {

// `emit` is called on the thread that creates or copies the node. Returns
// false when no callbacks could be had (reason on stderr).
bool startGraphNodeTracking(std::function<void(const GraphNodeRecord&)> emit);

}  // namespace ws::capture
