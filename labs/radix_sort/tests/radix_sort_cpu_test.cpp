// Tests of the radix_sort lab's CPU reference (labs/radix_sort/radix_sort_reference.c): the LSD sort
// against qsort and std::stable_sort, stability, bit ranges, in-place calls, and the bit flips
// of the extension. No GPU needed.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "gltest.h"
#include "radix_sort_keys.h"

extern "C" {
#include "radix_sort_reference.h"
}

namespace {

using radix_test::kShapeCount;
using radix_test::MakeKeys;
using radix_test::ShapeName;

std::vector<uint32_t> Iota(size_t n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

}  // namespace

TEST(RadixSortCpu, MatchesQsortOnEveryShape) {
  for (size_t n : gl::StandardSizes((size_t)1 << 20)) {
    for (int shape = 0; shape < kShapeCount; ++shape) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", keys " + ShapeName(shape));
      std::vector<uint32_t> keys = MakeKeys(n, shape, gl::SeedFor(n * 16 + shape));
      std::vector<uint32_t> expected = keys;
      gl_ref_qsort_u32(expected.data(), n);
      std::vector<uint32_t> got(n, GL_POISON_U32);
      ASSERT_TRUE(gl::StatusIs(GL_OK, gl_ref_radix_sort_keys(keys.data(), got.data(), n, 0, 32),
                               "gl_ref_radix_sort_keys"));
      ASSERT_TRUE(gl::ArraysEqual(expected, got));
    }
  }
}

// One pass on bit 0 of eight 3-bit keys, the example the handout's split figure draws:
// bits 0 1 0 0 1 1 1 0 -> the even keys first, in order, then the odd ones, in order.
TEST(RadixSortCpu, OneBitSplitOfTheHandoutExample) {
  std::vector<uint32_t> keys = {4, 7, 2, 6, 3, 5, 1, 0};
  std::vector<uint32_t> got(8);
  ASSERT_EQ(gl_ref_radix_sort_keys(keys.data(), got.data(), 8, 0, 1), GL_OK);
  EXPECT_TRUE(gl::ArraysEqual(std::vector<uint32_t>{4, 2, 6, 0, 7, 3, 5, 1}, got));
  ASSERT_EQ(gl_ref_radix_sort_keys(keys.data(), got.data(), 8, 0, 2), GL_OK);
  EXPECT_TRUE(gl::ArraysEqual(std::vector<uint32_t>{4, 0, 5, 1, 2, 6, 7, 3}, got));
  ASSERT_EQ(gl_ref_radix_sort_keys(keys.data(), got.data(), 8, 0, 3), GL_OK);
  EXPECT_TRUE(gl::ArraysEqual(std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}, got));
}

TEST(RadixSortCpu, PairsAreStable) {
  for (size_t n : {(size_t)1, (size_t)2, (size_t)1000, (size_t)65537, (size_t)100003}) {
    for (int shape = 0; shape < kShapeCount; ++shape) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", keys " + ShapeName(shape));
      std::vector<uint32_t> keys = MakeKeys(n, shape, gl::SeedFor(n * 16 + shape + 1000));
      std::vector<uint32_t> values = Iota(n);  // values = input positions
      std::vector<uint32_t> got_keys(n), got_values(n);
      ASSERT_EQ(gl_ref_radix_sort_pairs(keys.data(), got_keys.data(), values.data(),
                                        got_values.data(), n, 0, 32),
                GL_OK);
      // The only stable order: by key, then by input position.
      std::vector<uint32_t> order = Iota(n);
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
      std::vector<uint32_t> expected_keys(n);
      for (size_t i = 0; i < n; ++i) expected_keys[i] = keys[order[i]];
      ASSERT_TRUE(gl::ArraysEqual(order, got_values));
      ASSERT_TRUE(gl::ArraysEqual(expected_keys, got_keys));
    }
  }
}

TEST(RadixSortCpu, BitRangesIgnoreTheOtherBits) {
  const size_t n = 50001;
  std::vector<uint32_t> keys = MakeKeys(n, GL_DIST_UNIFORM, gl::SeedFor(2000));
  const int ranges[][2] = {{0, 1}, {0, 8}, {8, 16}, {4, 12}, {0, 12}, {20, 32}, {31, 32}, {3, 30}};
  for (const auto &range : ranges) {
    int begin = range[0], end = range[1];
    SCOPED_TRACE("bits [" + std::to_string(begin) + ", " + std::to_string(end) + ")");
    uint32_t mask = end - begin == 32 ? 0xFFFFFFFFu : ((1u << (end - begin)) - 1u);
    std::vector<uint32_t> expected = keys;
    std::stable_sort(expected.begin(), expected.end(), [&](uint32_t a, uint32_t b) {
      return ((a >> begin) & mask) < ((b >> begin) & mask);
    });
    std::vector<uint32_t> got(n);
    ASSERT_EQ(gl_ref_radix_sort_keys(keys.data(), got.data(), n, begin, end), GL_OK);
    ASSERT_TRUE(gl::ArraysEqual(expected, got));
  }
}

TEST(RadixSortCpu, InPlace) {
  const size_t n = 4099;
  std::vector<uint32_t> keys = MakeKeys(n, GL_DIST_FEW_UNIQUE, gl::SeedFor(3000));
  std::vector<uint32_t> values = Iota(n);
  std::vector<uint32_t> expected_keys(n), expected_values(n);
  ASSERT_EQ(gl_ref_radix_sort_pairs(keys.data(), expected_keys.data(), values.data(),
                                    expected_values.data(), n, 0, 24),
            GL_OK);
  ASSERT_EQ(gl_ref_radix_sort_pairs(keys.data(), keys.data(), values.data(), values.data(), n, 0,
                                    24),
            GL_OK);
  EXPECT_TRUE(gl::ArraysEqual(expected_keys, keys));
  EXPECT_TRUE(gl::ArraysEqual(expected_values, values));
}

TEST(RadixSortCpu, FlipsPreserveOrderAndRoundTrip) {
  const int32_t ints[] = {std::numeric_limits<int32_t>::min(), -1000000, -2, -1, 0, 1, 2,
                          999999, std::numeric_limits<int32_t>::max()};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; ++i) {
    EXPECT_EQ(gl_ref_unflip_i32(gl_ref_flip_i32(ints[i])), ints[i]);
    if (i > 0) {
      EXPECT_LT(gl_ref_flip_i32(ints[i - 1]), gl_ref_flip_i32(ints[i])) << ints[i];
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float floats[] = {-inf, -std::numeric_limits<float>::max(), -1.5f, -1.0f,
                          -std::numeric_limits<float>::min(), -1e-45f, -0.0f, 0.0f, 1e-45f,
                          std::numeric_limits<float>::min(), 1.0f, 1.5f,
                          std::numeric_limits<float>::max(), inf};
  for (size_t i = 0; i < sizeof floats / sizeof floats[0]; ++i) {
    uint32_t bits_in, bits_out;
    float back = gl_ref_unflip_f32(gl_ref_flip_f32(floats[i]));
    std::memcpy(&bits_in, &floats[i], 4);
    std::memcpy(&bits_out, &back, 4);
    EXPECT_EQ(bits_in, bits_out) << floats[i];
    if (i > 0) {
      EXPECT_LT(gl_ref_flip_f32(floats[i - 1]), gl_ref_flip_f32(floats[i])) << floats[i];
    }
  }
  // NaNs sit outside the infinities: a negative NaN below -inf, a positive one above +inf.
  EXPECT_LT(gl_ref_flip_f32(-std::nanf("")), gl_ref_flip_f32(-inf));
  EXPECT_GT(gl_ref_flip_f32(std::nanf("")), gl_ref_flip_f32(inf));
}

TEST(RadixSortCpu, SignedAndFloatSortsMatchStdSort) {
  const size_t n = 100003;
  std::vector<int32_t> ints(n);
  gl_fill_int(ints.data(), n, std::numeric_limits<int32_t>::min(),
              std::numeric_limits<int32_t>::max(), GL_DIST_UNIFORM, gl::SeedFor(4000));
  std::vector<int32_t> expected_ints = ints, got_ints(n);
  std::sort(expected_ints.begin(), expected_ints.end());
  ASSERT_EQ(gl_ref_radix_sort_i32(ints.data(), got_ints.data(), n), GL_OK);
  EXPECT_TRUE(gl::ArraysEqual(expected_ints, got_ints));

  std::vector<float> floats(n);
  gl_fill_float(floats.data(), n, -1000.0f, 1000.0f, GL_DIST_UNIFORM, gl::SeedFor(4001));
  floats[0] = -0.0f;  // std::sort sees -0.0 == +0.0; the radix order puts -0.0 first
  floats[1] = 0.0f;
  std::vector<float> expected_floats = floats, got_floats(n);
  std::stable_sort(expected_floats.begin(), expected_floats.end(), [](float a, float b) {
    return a < b || (a == 0.0f && b == 0.0f && std::signbit(a) && !std::signbit(b));
  });
  ASSERT_EQ(gl_ref_radix_sort_f32(floats.data(), got_floats.data(), n), GL_OK);
  std::vector<uint32_t> expected_bits(n), got_bits(n);
  std::memcpy(expected_bits.data(), expected_floats.data(), n * 4);
  std::memcpy(got_bits.data(), got_floats.data(), n * 4);
  EXPECT_TRUE(gl::ArraysEqual(expected_bits, got_bits)) << "compared as bit patterns";
}

TEST(RadixSortCpu, BadArguments) {
  uint32_t a[4] = {3, 2, 1, 0}, b[4];
  EXPECT_EQ(gl_ref_radix_sort_keys(nullptr, b, 4, 0, 32), GL_ERR_NULL_POINTER);
  EXPECT_EQ(gl_ref_radix_sort_pairs(a, b, nullptr, b, 4, 0, 32), GL_ERR_NULL_POINTER);
  EXPECT_EQ(gl_ref_radix_sort_keys(a, b, 4, 0, 33), GL_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gl_last_error()).find("[0, 33)"), std::string::npos) << gl_last_error();
  EXPECT_EQ(gl_ref_radix_sort_keys(a, b, 4, -1, 8), GL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gl_ref_radix_sort_keys(a, b, 4, 8, 8), GL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gl_ref_radix_sort_keys(nullptr, nullptr, 0, 0, 32), GL_OK) << "n = 0 needs no arrays";
}
