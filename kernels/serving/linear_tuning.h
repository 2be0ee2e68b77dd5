// Which implementation each linear layer of the GPU backend runs, per matrix
// shape and decode batch bucket: the decoder variant's own rung, or cuBLAS
// where it was measured faster when the backend started (as TensorRT-LLM
// times its tactics). The decoder's GEMV leads cuBLAS at one or two rows and
// trails it at 4–16 (0.82× on the H200); a server runs every batch size, so
// it takes whichever is faster at each.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ws::serving {

class LinearTuning {
  public:
    // What one (out × in) matrix took at `rows` rows, each way (any unit).
    void record(int out, int in, int rows, double ownTime, double cublasTime);
    // Whether `rows` rows of (out × in) go to cuBLAS: by the smallest
    // measured row count ≥ rows; never beyond the largest measured (prefill
    // steps keep the variant's GEMM) or for a shape never measured.
    bool useCublas(int out, int in, int rows) const;
    bool empty() const { return byShape_.empty(); }
    // One line per shape: "14336×4096: cuBLAS at rows 4, 8; own rung at rows 1, 2".
    std::vector<std::string> describe() const;

  private:
    struct Measured {
        double own = 0, cublas = 0;
    };
    // (out, in) → rows → times; rows in ascending order.
    std::map<std::pair<int, int>, std::map<int, Measured>> byShape_;
};

// cuBLAS is taken only when at least this much faster: at equal speed the
// decoder's own rung stays, and noise does not flip a choice.
inline constexpr double kCublasMargin = 0.97;

}  // namespace ws::serving
