// Tests of the reduction lab's CPU reference (labs/reduction/reduction_reference.c): known answers,
// the identities for n = 0, sums beyond 32 bits, and the float error bound.
#include <cfloat>
#include <climits>
#include <cmath>
#include <vector>

#include "gltest.h"

extern "C" {
#include "reduction_reference.h"
}

TEST(ReductionReference, KnownIntAnswers) {
  const int a[] = {5, -3, 12, 0, -7, 4};
  EXPECT_EQ(reduce_ref_sum_int(a, 6), 11);
  EXPECT_EQ(reduce_ref_min_int(a, 6), -7);
  EXPECT_EQ(reduce_ref_max_int(a, 6), 12);
  EXPECT_EQ(reduce_ref_sum_int(a, 1), 5);
  EXPECT_EQ(reduce_ref_min_int(a, 1), 5);
  EXPECT_EQ(reduce_ref_max_int(a, 1), 5);
}

TEST(ReductionReference, EmptyInputGivesTheIdentity) {
  EXPECT_EQ(reduce_ref_sum_int(nullptr, 0), 0);
  EXPECT_EQ(reduce_ref_min_int(nullptr, 0), INT_MAX);
  EXPECT_EQ(reduce_ref_max_int(nullptr, 0), INT_MIN);
  EXPECT_EQ(reduce_ref_sum_float(nullptr, 0), 0.0);
  EXPECT_EQ(reduce_ref_sum_abs_float(nullptr, 0), 0.0);
  EXPECT_EQ(reduce_ref_min_float(nullptr, 0), INFINITY);
  EXPECT_EQ(reduce_ref_max_float(nullptr, 0), -INFINITY);
}

TEST(ReductionReference, IntSumsGoBeyond32Bits) {
  std::vector<int> big(1000, INT_MAX), small(1000, INT_MIN);
  EXPECT_EQ(reduce_ref_sum_int(big.data(), big.size()), 1000LL * INT_MAX);
  EXPECT_EQ(reduce_ref_sum_int(small.data(), small.size()), 1000LL * INT_MIN);
  // The extremes cancel exactly, whatever the order: INT_MIN + INT_MAX = -1.
  std::vector<int> mixed;
  for (int i = 0; i < 501; ++i) {
    mixed.push_back(INT_MIN);
    mixed.push_back(INT_MAX);
  }
  EXPECT_EQ(reduce_ref_sum_int(mixed.data(), mixed.size()), -501);
}

TEST(ReductionReference, IntSumMatchesASecondOpinion) {
  // Against an independent sum (pairs in the opposite order) on fresh random full-range data.
  const size_t n = 100003;
  std::vector<int> a(n);
  gl_fill_int(a.data(), n, INT_MIN, INT_MAX, GL_DIST_UNIFORM, gl::SeedFor(1));
  long long backwards = 0;
  for (size_t i = n; i-- > 0;) backwards += a[i];
  EXPECT_EQ(reduce_ref_sum_int(a.data(), n), backwards) << "seed 0x" << std::hex << gl::Seed();
  int lo = a[0], hi = a[0];
  for (int x : a) {
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
  }
  EXPECT_EQ(reduce_ref_min_int(a.data(), n), lo);
  EXPECT_EQ(reduce_ref_max_int(a.data(), n), hi);
}

TEST(ReductionReference, FloatSumIsAccurateWhereFloatIsNot) {
  // 1 + 2^-24 * 2^24 tiny terms: a float running sum never moves off 1 (each term is half an
  // ulp of 1 and rounds away), the reference gets 2 to double precision.
  const size_t n = (size_t)1 << 24;
  std::vector<float> a(n + 1, ldexpf(1.0f, -24));
  a[0] = 1.0f;
  float naive = 0.0f;
  for (float x : a) naive += x;
  EXPECT_EQ(naive, 1.0f) << "the float running sum was expected to stall at 1";
  EXPECT_NEAR(reduce_ref_sum_float(a.data(), a.size()), 2.0, 1e-12);
  EXPECT_NEAR(reduce_ref_sum_abs_float(a.data(), a.size()), 2.0, 1e-12);
}

TEST(ReductionReference, FloatSumCompensatesCancellation) {
  // Large terms that cancel around small ones: 1e8, 1, -1e8, 1, ... sums to the count of ones.
  std::vector<float> a;
  for (int i = 0; i < 1000; ++i) {
    a.push_back(1e8f);
    a.push_back(1.0f);
    a.push_back(-1e8f);
  }
  EXPECT_EQ(reduce_ref_sum_float(a.data(), a.size()), 1000.0);
  EXPECT_EQ(reduce_ref_sum_abs_float(a.data(), a.size()), 1000.0 * (2e8 + 1));
}

TEST(ReductionReference, FloatMinMax) {
  const float a[] = {3.5f, -0.25f, 1e30f, -1e30f, 0.0f};
  EXPECT_EQ(reduce_ref_min_float(a, 5), -1e30f);
  EXPECT_EQ(reduce_ref_max_float(a, 5), 1e30f);
  const float inf[] = {INFINITY, 2.0f};
  EXPECT_EQ(reduce_ref_min_float(inf, 2), 2.0f);
  EXPECT_EQ(reduce_ref_max_float(inf, 2), INFINITY);
  const float one[] = {-FLT_MAX};
  EXPECT_EQ(reduce_ref_min_float(one, 1), -FLT_MAX);
  EXPECT_EQ(reduce_ref_max_float(one, 1), -FLT_MAX);
}

TEST(ReductionReference, ToleranceFollowsTheDepthBound) {
  const double u = ldexp(1.0, -24);
  // n = 1: one element, no addition; the bound is one rounding of the scale.
  EXPECT_NEAR(reduce_ref_float_sum_tolerance(1, 1.0), u / (1 - u), 1e-20);
  // n = 2^20: depth sqrt(n) + log2(n) + 8 = 1024 + 20 + 8 = 1052.
  EXPECT_EQ(reduce_ref_float_sum_depth((size_t)1 << 20), 1052.0);
  double d = 1052.0 * u;
  EXPECT_NEAR(reduce_ref_float_sum_tolerance((size_t)1 << 20, 1000.0), 1000.0 * d / (1 - d), 1e-9);
  // Grows with n and with the scale; never negative.
  EXPECT_LT(reduce_ref_float_sum_tolerance(1000, 1.0), reduce_ref_float_sum_tolerance(100000, 1.0));
  EXPECT_LT(reduce_ref_float_sum_tolerance(1000, 1.0), reduce_ref_float_sum_tolerance(1000, 2.0));
  EXPECT_EQ(reduce_ref_float_sum_tolerance(1000, 0.0), 0.0);
  EXPECT_GT(reduce_ref_float_sum_tolerance(1000, -5.0), 0.0) << "the scale is taken as |sum_abs|";
}

TEST(ReductionReference, ToleranceHoldsForAFloatTreeSum) {
  // A float pairwise sum (the shape of a GPU tree) on fresh data lands inside the bound, which
  // is still far tighter than sum |x| itself.
  for (size_t n : {(size_t)1000, (size_t)65537, (size_t)1 << 20}) {
    std::vector<float> a(n);
    gl_fill_float(a.data(), n, -1.0f, 1.0f, GL_DIST_UNIFORM, gl::SeedFor(10 + n));
    std::vector<float> level(a);
    while (level.size() > 1) {
      std::vector<float> next((level.size() + 1) / 2);
      for (size_t i = 0; i < next.size(); ++i) {
        next[i] = 2 * i + 1 < level.size() ? level[2 * i] + level[2 * i + 1] : level[2 * i];
      }
      level.swap(next);
    }
    double exact = reduce_ref_sum_float(a.data(), n);
    double scale = reduce_ref_sum_abs_float(a.data(), n);
    double tol = reduce_ref_float_sum_tolerance(n, scale);
    EXPECT_LE(std::fabs(level[0] - exact), tol)
        << "n = " << n << ", seed 0x" << std::hex << gl::Seed();
    EXPECT_LT(tol, 0.01 * scale) << "n = " << n;
  }
}
