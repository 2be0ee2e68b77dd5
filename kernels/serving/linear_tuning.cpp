#include "serving/linear_tuning.h"

namespace ws::serving {

void LinearTuning::record(int out, int in, int rows, double ownTime, double cublasTime) {
    byShape_[{out, in}][rows] = {ownTime, cublasTime};
}

bool LinearTuning::useCublas(int out, int in, int rows) const {
    auto shape = byShape_.find({out, in});
    if (shape == byShape_.end()) return false;
    auto at = shape->second.lower_bound(rows);
    if (at == shape->second.end()) return false;
    return at->second.cublas < kCublasMargin * at->second.own;
}

std::vector<std::string> LinearTuning::describe() const {
    std::vector<std::string> lines;
    for (const auto& [shape, byRows] : byShape_) {
        std::vector<int> cublas, own;
        for (const auto& [rows, m] : byRows)
            (m.cublas < kCublasMargin * m.own ? cublas : own).push_back(rows);
        auto list = [](const std::vector<int>& v) {
            std::string s;
            for (int r : v)
                s += (s.empty() ? "" : ", ") + std::to_string(r);
            return s;
        };
        std::string line = std::to_string(shape.first) + "×" + std::to_string(shape.second) + ": ";
        if (!cublas.empty()) line += "cuBLAS at rows " + list(cublas);
        if (!cublas.empty() && !own.empty()) line += "; ";
        if (!own.empty()) line += "own rung at rows " + list(own);
        lines.push_back(std::move(line));
    }
    return lines;
}

}  // namespace ws::serving
