// The key shapes the radix_sort lab is tested on, shared by its GPU tests (radix_sort_test.cpp)
// and its CPU reference's (radix_sort_cpu_test.cpp): common's five (uniform over the full 32-bit
// range, sorted, reversed, all-equal, 8 distinct values), plus narrow keys (12 bits, so most
// digits repeat).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gltest.h"

namespace radix_test {

const int kNarrow = GL_DIST_COUNT;
const int kShapeCount = GL_DIST_COUNT + 1;

inline std::string ShapeName(int shape) {
  return shape == kNarrow ? "narrow-12-bit" : gl_dist_name((gl_dist)shape);
}

inline std::vector<uint32_t> MakeKeys(size_t n, int shape, uint64_t seed) {
  std::vector<uint32_t> keys(n);
  if (shape == kNarrow) {
    gl_fill_u32(keys.data(), n, GL_DIST_UNIFORM, seed);
    for (uint32_t &k : keys) k &= 0xFFFu;
  } else {
    gl_fill_u32(keys.data(), n, (gl_dist)shape, seed);
  }
  return keys;
}

}  // namespace radix_test
