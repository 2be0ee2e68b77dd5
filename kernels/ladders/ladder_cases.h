// Factories of the individual ladders (ladder.cpp dispatches by name).
#pragma once

#include <memory>

#include "ladders/ladder.h"

namespace ws::kernels {

std::unique_ptr<LadderCase> makeGemmCase(const Shape& s, int copies, std::uint64_t seed);
std::unique_ptr<LadderCase> makeGemvCase(const Shape& s, int copies, std::uint64_t seed);
std::unique_ptr<LadderCase> makeRmsnormCase(const Shape& s, int copies, std::uint64_t seed);
std::unique_ptr<LadderCase> makeSoftmaxCase(const Shape& s, int copies, std::uint64_t seed);
std::unique_ptr<LadderCase> makeSiluMulCase(const Shape& s, int copies, std::uint64_t seed);
std::unique_ptr<LadderCase> makeRopeCase(const Shape& s, int copies, std::uint64_t seed);
std::unique_ptr<LadderCase> makeDecodeAttentionCase(const Shape& s, int copies, std::uint64_t seed);
std::unique_ptr<LadderCase> makePrefillAttentionCase(const Shape& s, int copies,
                                                     std::uint64_t seed);
std::unique_ptr<LadderCase> makeCopyCase(const Shape& s, int copies, std::uint64_t seed);

}  // namespace ws::kernels
