#include "cpu_reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ws::kernels::ref {

namespace {

std::vector<double> toDouble(const Bf16Vec& v) {
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = bf16ToFloat(v[i]);
    return out;
}

void expectSize(const char* what, std::size_t actual, std::size_t expected) {
    if (actual != expected)
        throw std::invalid_argument(std::string("reference: ") + what + " has " +
                                    std::to_string(actual) + " elements, expected " +
                                    std::to_string(expected));
}

}  // namespace

std::vector<float> gemm(const Bf16Vec& a, const Bf16Vec& b, int m, int n, int k) {
    expectSize("A", a.size(), std::size_t(m) * k);
    expectSize("B", b.size(), std::size_t(n) * k);
    auto ad = toDouble(a), bd = toDouble(b);
    std::vector<float> c(std::size_t(m) * n);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            const double* ar = &ad[std::size_t(i) * k];
            const double* br = &bd[std::size_t(j) * k];
            double s = 0;
            for (int p = 0; p < k; ++p)
                s += ar[p] * br[p];
            c[std::size_t(i) * n + j] = float(s);
        }
    return c;
}

std::vector<float> gemvInt8(const Bf16Vec& x, const std::vector<std::int8_t>& w,
                            const std::vector<float>& scales, int batch, int n, int k) {
    expectSize("x", x.size(), std::size_t(batch) * k);
    expectSize("W", w.size(), std::size_t(n) * k);
    expectSize("scales", scales.size(), std::size_t(n));
    auto xd = toDouble(x);
    std::vector<float> y(std::size_t(batch) * n);
    for (int b = 0; b < batch; ++b)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int p = 0; p < k; ++p)
                s += xd[std::size_t(b) * k + p] * w[std::size_t(j) * k + p];
            y[std::size_t(b) * n + j] = float(s * scales[j]);
        }
    return y;
}

std::vector<float> rmsnorm(const Bf16Vec& x, const Bf16Vec* residual, const Bf16Vec& weight,
                           int rows, int cols, float eps) {
    expectSize("x", x.size(), std::size_t(rows) * cols);
    expectSize("weight", weight.size(), std::size_t(cols));
    std::vector<float> y(x.size());
    std::vector<double> row(cols);
    for (int r = 0; r < rows; ++r) {
        double ss = 0;
        for (int c = 0; c < cols; ++c) {
            std::size_t i = std::size_t(r) * cols + c;
            double v = bf16ToFloat(x[i]);
            // The fused kernel stores x + residual in bf16 and normalises that.
            if (residual) v = bf16ToFloat(floatToBf16(float(v + bf16ToFloat((*residual)[i]))));
            row[c] = v;
            ss += v * v;
        }
        double inv = 1.0 / std::sqrt(ss / cols + eps);
        for (int c = 0; c < cols; ++c)
            y[std::size_t(r) * cols + c] = float(row[c] * inv * bf16ToFloat(weight[c]));
    }
    return y;
}

std::vector<float> softmax(const Bf16Vec& x, int rows, int cols) {
    expectSize("x", x.size(), std::size_t(rows) * cols);
    std::vector<float> y(x.size());
    for (int r = 0; r < rows; ++r) {
        const bf16_bits* in = &x[std::size_t(r) * cols];
        double mx = -INFINITY;
        for (int c = 0; c < cols; ++c)
            mx = std::max(mx, double(bf16ToFloat(in[c])));
        double sum = 0;
        for (int c = 0; c < cols; ++c)
            sum += std::exp(bf16ToFloat(in[c]) - mx);
        for (int c = 0; c < cols; ++c)
            y[std::size_t(r) * cols + c] = float(std::exp(bf16ToFloat(in[c]) - mx) / sum);
    }
    return y;
}

std::vector<float> siluMul(const Bf16Vec& gateUp, int rows, int cols) {
    expectSize("gate_up", gateUp.size(), std::size_t(rows) * cols * 2);
    std::vector<float> y(std::size_t(rows) * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            double g = bf16ToFloat(gateUp[std::size_t(r) * 2 * cols + c]);
            double u = bf16ToFloat(gateUp[std::size_t(r) * 2 * cols + cols + c]);
            y[std::size_t(r) * cols + c] = float(g / (1 + std::exp(-g)) * u);
        }
    return y;
}

std::vector<float> rope(const Bf16Vec& x, const std::vector<int>& positions, int heads, int headDim,
                        double theta) {
    std::size_t tokens = positions.size();
    expectSize("x", x.size(), tokens * heads * headDim);
    std::vector<float> y(x.size());
    int half = headDim / 2;
    for (std::size_t t = 0; t < tokens; ++t)
        for (int h = 0; h < heads; ++h) {
            const bf16_bits* in = &x[(t * heads + h) * headDim];
            float* out = &y[(t * heads + h) * headDim];
            for (int i = 0; i < half; ++i) {
                double freq = std::pow(theta, -2.0 * i / headDim);
                double angle = positions[t] * freq;
                double c = std::cos(angle), s = std::sin(angle);
                double a = bf16ToFloat(in[i]), b = bf16ToFloat(in[i + half]);
                out[i] = float(a * c - b * s);
                out[i + half] = float(b * c + a * s);
            }
        }
    return y;
}

std::vector<float> attention(const Bf16Vec& q, const Bf16Vec& kCache, const Bf16Vec& vCache,
                             int batch, int queries, int heads, int kvHeads, int headDim,
                             int capacity, int firstPosition) {
    expectSize("q", q.size(), std::size_t(batch) * queries * heads * headDim);
    std::size_t cacheSize = std::size_t(batch) * kvHeads * capacity * headDim;
    expectSize("k cache", kCache.size(), cacheSize);
    expectSize("v cache", vCache.size(), cacheSize);
    if (heads % kvHeads != 0) throw std::invalid_argument("reference: heads % kv_heads != 0");
    if (firstPosition + queries > capacity)
        throw std::invalid_argument("reference: positions beyond the cache capacity");
    std::vector<float> out(q.size());
    double scale = 1.0 / std::sqrt(double(headDim));
    int group = heads / kvHeads;
    std::vector<double> scores(capacity);
    for (int b = 0; b < batch; ++b)
        for (int i = 0; i < queries; ++i)
            for (int h = 0; h < heads; ++h) {
                const bf16_bits* qv = &q[((std::size_t(b) * queries + i) * heads + h) * headDim];
                std::size_t kvBase = (std::size_t(b) * kvHeads + h / group) * capacity * headDim;
                int keys = firstPosition + i + 1;
                double mx = -INFINITY;
                for (int j = 0; j < keys; ++j) {
                    double s = 0;
                    for (int d = 0; d < headDim; ++d)
                        s += double(bf16ToFloat(qv[d])) *
                             bf16ToFloat(kCache[kvBase + std::size_t(j) * headDim + d]);
                    scores[j] = s * scale;
                    mx = std::max(mx, scores[j]);
                }
                double sum = 0;
                for (int j = 0; j < keys; ++j) {
                    scores[j] = std::exp(scores[j] - mx);
                    sum += scores[j];
                }
                float* o = &out[((std::size_t(b) * queries + i) * heads + h) * headDim];
                for (int d = 0; d < headDim; ++d) {
                    double acc = 0;
                    for (int j = 0; j < keys; ++j)
                        acc +=
                            scores[j] * bf16ToFloat(vCache[kvBase + std::size_t(j) * headDim + d]);
                    o[d] = float(acc / sum);
                }
            }
    return out;
}

Agreement compare(const std::vector<float>& gpu, const std::vector<float>& reference) {
    Agreement a;
    if (gpu.size() != reference.size()) return a;
    double ss = 0;
    for (float r : reference)
        ss += double(r) * r;
    double rms = reference.empty() ? 0 : std::sqrt(ss / reference.size());
    for (std::size_t i = 0; i < gpu.size(); ++i) {
        if (!std::isfinite(gpu[i])) {
            ++a.nonFinite;
            continue;
        }
        double err = std::abs(double(gpu[i]) - reference[i]);
        a.maxAbsError = std::max(a.maxAbsError, err);
        double denom = std::abs(double(reference[i])) + rms;
        a.maxScaledError = std::max(a.maxScaledError, denom > 0 ? err / denom : err);
    }
    a.compared = std::int64_t(gpu.size());
    return a;
}

}  // namespace ws::kernels::ref
