// CPU tests of the saxpy lab's reference: known answers, one rounding, n = 0.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "saxpy_reference.h"
}

TEST(SaxpyReference, GivesKnownAnswers) {
  std::vector<float> x = {1.0f, -2.0f, 0.5f}, y = {10.0f, 10.0f, -1.0f};
  saxpy_ref(2.0f, x.data(), y.data(), x.size());
  EXPECT_EQ(y, (std::vector<float>{12.0f, 6.0f, 0.0f}));
}

TEST(SaxpyReference, RoundsOnce) {
  // a * x is not representable in float; fmaf rounds the sum once, as a GPU's FMA does.
  const float a = 1.0f + 0x1p-12f, x = 1.0f + 0x1p-12f, y = -1.0f;
  std::vector<float> xs = {x}, ys = {y};
  saxpy_ref(a, xs.data(), ys.data(), 1);
  EXPECT_EQ(ys[0], std::fmaf(a, x, y));
  EXPECT_EQ(ys[0], 0x1p-11f + 0x1p-24f);
}

TEST(SaxpyReference, TouchesNothingForNZero) {
  float y = 3.0f;
  saxpy_ref(2.0f, nullptr, &y, 0);
  EXPECT_EQ(y, 3.0f);
}
