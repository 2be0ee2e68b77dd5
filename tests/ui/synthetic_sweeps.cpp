#include "synthetic_sweeps.h"

namespace ws::testing {

SweepTable sweep(const std::string& name, const std::string& parameter,
                 const std::vector<std::string>& values, double tokensBase) {
    SweepTable t;
    t.group.group = name;
    t.group.parameter = parameter;
    t.group.label = name + " label";
    t.gpus = 2;
    for (std::size_t i = 0; i < values.size(); ++i) {
        SweepPoint p;
        p.run = static_cast<RunId>(i + 1);
        p.index = static_cast<int>(i);
        p.value = values[i];
        p.completed = 10;
        const double k = static_cast<double>(i + 1);
        p.outputThroughput = tokensBase * k;
        p.outputThroughputPerGpu = tokensBase * k / 2;
        p.tpotP50Ms = 10 * k;
        p.tpotP99Ms = 12 * k;
        p.ttftP50Ms = 100 * k;
        p.ttftP99Ms = 150 * k;
        t.points.push_back(p);
    }
    return t;
}

}  // namespace ws::testing
