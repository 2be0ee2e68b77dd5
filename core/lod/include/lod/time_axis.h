// Time ↔ pixel mapping of a timeline, apart from any painting so zoom, pan
// and hit-testing are tested as plain arithmetic.
#pragma once

#include <algorithm>
#include <cstdint>

namespace ws::lod {

struct TimeAxis {
    std::int64_t originNs = 0;  // time at pixel 0
    double nsPerPx = 1000;
    int widthPx = 1000;

    double toPx(std::int64_t t) const { return static_cast<double>(t - originNs) / nsPerPx; }
    std::int64_t toTime(double px) const {
        return originNs + static_cast<std::int64_t>(px * nsPerPx);
    }
    std::int64_t endNs() const { return toTime(widthPx); }

    // Shows [begin, end) across the width.
    void fit(std::int64_t begin, std::int64_t end) {
        originNs = begin;
        nsPerPx = std::max(1e-3, static_cast<double>(std::max<std::int64_t>(end - begin, 1)) /
                                     std::max(widthPx, 1));
    }
    // Zooms by `factor` (> 1 zooms in) keeping the time under `anchorPx` in place.
    void zoom(double factor, double anchorPx) {
        std::int64_t anchor = toTime(anchorPx);
        nsPerPx = std::clamp(nsPerPx / factor, 1e-3, 1e12);
        originNs = anchor - static_cast<std::int64_t>(anchorPx * nsPerPx);
    }
    void pan(double dxPx) { originNs -= static_cast<std::int64_t>(dxPx * nsPerPx); }
};

// A "nice" ruler step (1, 2 or 5 × 10^k ns) giving ticks at least `minPx` apart.
std::int64_t rulerStep(double nsPerPx, double minPx = 80);

}  // namespace ws::lod
