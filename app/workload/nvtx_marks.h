// NVTX from the built-in workloads: ranges, token marks and run annotations,
// in the conventions warpscope-cli record reads (docs/token-conventions.md).
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <sstream>
#include <string>

#include "conventions/run_annotations.h"

namespace ws::workload {

class NvtxRange {
  public:
    explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
    ~NvtxRange() { nvtxRangePop(); }
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

inline void markProperty(const std::string& key, const std::string& value) {
    nvtxMarkA(propertyMark(key, value).c_str());
}

template <typename T>
void markProperty(const std::string& key, T value) {
    std::ostringstream s;
    s.precision(10);
    s << value;
    markProperty(key, s.str());
}

}  // namespace ws::workload
