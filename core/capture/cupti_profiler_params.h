// What every call of CUPTI's profiler and PM-sampling APIs needs: its
// parameter struct zeroed with its size set, and CUPTI's words for a result.
#pragma once

#include <cupti.h>

#include <cstddef>
#include <string>

namespace ws::capture {

template <typename P>
P profilerParams(std::size_t structSize) {
    P p{};
    p.structSize = structSize;
    return p;
}

inline std::string cuptiResultText(CUptiResult r) {
    const char* msg = nullptr;
    cuptiGetResultString(r, &msg);
    return msg ? msg : "error " + std::to_string(static_cast<int>(r));
}

}  // namespace ws::capture
