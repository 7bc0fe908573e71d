// Correctness tests of the radix_sort lab: every step over sizes and key shapes, keys and
// key-value pairs (values = input positions, so stability is checked exactly), bit ranges,
// in-place calls, the signed/float extension, and bad input.
//
// Test names are what the rubric selects: RadixSortStep<N>.* for step N, RadixSortExtension.*
// for the extension; RadixSortApi.* and RadixSortBadInput.* earn no points.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "gltest.h"
#include "radix_sort_keys.h"

extern "C" {
#include "radix_sort_reference.h"
#include "radix_sort.h"
}

namespace {

using radix_test::kShapeCount;
using radix_test::MakeKeys;
using radix_test::ShapeName;

// The standard sizes up to 2^20, plus the tile edges of steps 3 (2048) and 4 (4096).
std::vector<size_t> TestSizes() {
  std::vector<size_t> sizes = gl::StandardSizes((size_t)1 << 20);
  for (size_t n : {2047, 2048, 2049, 4095, 4096, 4097, 3 * 4096 + 1}) {
    if (n <= gl::CapSize(n) && std::find(sizes.begin(), sizes.end(), n) == sizes.end()) {
      sizes.push_back(n);
    }
  }
  return sizes;
}

// What one sort call is asked to do.
struct Case {
  radix_sort_step step;
  int digit_bits;  // 0: the step's default
  int begin_bit = 0;
  int end_bit = 32;
  bool pairs = false;
  bool in_place = false;
};

std::string Describe(const Case &c, size_t n, const std::string &shape) {
  return std::string(radix_sort_step_name(c.step)) + (c.pairs ? " pairs" : " keys") +
         (c.in_place ? " in place" : "") + ", digit_bits " + std::to_string(c.digit_bits) +
         ", bits [" + std::to_string(c.begin_bit) + ", " + std::to_string(c.end_bit) +
         "), n = " + std::to_string(n) + ", keys " + shape;
}

// Sorts `keys` on the GPU as `c` says and compares with the CPU reference. Values are the input
// positions, so the one stable order is the only one accepted.
void CheckSort(const Case &c, const std::vector<uint32_t> &keys) {
  const size_t n = keys.size();
  std::vector<uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  std::vector<uint32_t> expected_keys(n), expected_values(n);
  ASSERT_EQ(gl_ref_radix_sort_pairs(keys.data(), expected_keys.data(), values.data(),
                                    expected_values.data(), n, c.begin_bit, c.end_bit),
            GL_OK);
  radix_sort_options options = {c.digit_bits, c.begin_bit, c.end_bit};
  gl::DeviceBuffer<uint32_t> keys_in(keys), keys_out(n), values_in(values), values_out(n);
  uint32_t *keys_to = c.in_place ? keys_in.get() : keys_out.get();
  uint32_t *values_to = c.in_place ? values_in.get() : values_out.get();
  if (c.pairs) {
    GL_ASSERT_OK(radix_sort_pairs(c.step, keys_in.get(), keys_to, values_in.get(), values_to, n,
                                  &options));
  } else {
    GL_ASSERT_OK(radix_sort_keys(c.step, keys_in.get(), keys_to, n, &options));
  }
  GL_ASSERT_DEVICE_OK("the sort");
  const gl::DeviceBuffer<uint32_t> &sorted_keys = c.in_place ? keys_in : keys_out;
  ASSERT_TRUE(gl::ArraysEqual(expected_keys, sorted_keys.Download())) << "keys";
  if (c.pairs) {
    const gl::DeviceBuffer<uint32_t> &sorted_values = c.in_place ? values_in : values_out;
    ASSERT_TRUE(gl::ArraysEqual(expected_values, sorted_values.Download()))
        << "values (the input positions: a mismatch with equal keys means an unstable sort)";
  }
  if (!c.in_place) {
    ASSERT_TRUE(gl::ArraysEqual(keys, keys_in.Download())) << "the input keys were changed";
    if (c.pairs) {
      ASSERT_TRUE(gl::ArraysEqual(values, values_in.Download())) << "the input values were changed";
    }
  }
}

// Every test size and key shape for one case, and the extra sizes given.
void CheckAllSizesAndShapes(const Case &c, uint64_t label, std::vector<size_t> extra = {}) {
  std::vector<size_t> sizes = TestSizes();
  for (size_t n : extra) {
    if (n <= gl::CapSize(n) && std::find(sizes.begin(), sizes.end(), n) == sizes.end()) {
      sizes.push_back(n);
    }
  }
  for (size_t n : sizes) {
    for (int shape = 0; shape < kShapeCount; ++shape) {
      SCOPED_TRACE(Describe(c, n, ShapeName(shape)));
      CheckSort(c, MakeKeys(n, shape, gl::SeedFor(label * 1000003u + n * 16 + shape)));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// Bit ranges: one bit, whole digits, digits cut by the range, the top bits.
void CheckBitRanges(radix_sort_step step, int digit_bits, uint64_t label) {
  const int ranges[][2] = {{0, 1}, {0, 8}, {8, 16}, {4, 12}, {0, 12}, {20, 32}, {31, 32}, {3, 30}};
  for (const auto &range : ranges) {
    for (bool pairs : {false, true}) {
      for (size_t n : gl::CapSizes({1000, 65537})) {
        Case c{step, digit_bits, range[0], range[1], pairs};
        SCOPED_TRACE(Describe(c, n, "uniform"));
        CheckSort(c, MakeKeys(n, GL_DIST_UNIFORM, gl::SeedFor(label + n * 64 + range[0])));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// In place, with an even and an odd number of passes (an odd count makes the first pass write
// the array it would read, unless the plumbing copies it away first).
void CheckInPlace(radix_sort_step step, int digit_bits, uint64_t label) {
  const int ranges[][2] = {{0, 32}, {0, 24}, {0, 8}, {5, 10}};
  for (const auto &range : ranges) {
    for (bool pairs : {false, true}) {
      for (size_t n : gl::CapSizes({1, 4097, 100003})) {
        Case c{step, digit_bits, range[0], range[1], pairs, true};
        SCOPED_TRACE(Describe(c, n, "few-unique"));
        CheckSort(c, MakeKeys(n, GL_DIST_FEW_UNIQUE, gl::SeedFor(label + n * 64 + range[1])));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// A few large sorts: uniform and few-unique keys, and pairs.
void CheckLarge(radix_sort_step step, int digit_bits, uint64_t label) {
  for (size_t n : gl::CapSizes({((size_t)1 << 22) + 17, ((size_t)1 << 24) - 5})) {
    for (int shape : {(int)GL_DIST_UNIFORM, (int)GL_DIST_FEW_UNIQUE}) {
      Case c{step, digit_bits, 0, 32, shape == GL_DIST_UNIFORM};
      SCOPED_TRACE(Describe(c, n, ShapeName(shape)));
      CheckSort(c, MakeKeys(n, shape, gl::SeedFor(label + n + shape)));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

}  // namespace

class RadixSortStep2 : public GpuTest {};
class RadixSortStep3 : public GpuTest {};
class RadixSortStep4 : public GpuTest {};
class RadixSortStep5 : public GpuTest {};
class RadixSortExtension : public GpuTest {};
class RadixSortApi : public GpuTest {};
class RadixSortBadInput : public GpuTest {};

// ---- step 2: one bit per pass with scan_exclusive ----

TEST_F(RadixSortStep2, Keys) { CheckAllSizesAndShapes({RADIX_STEP_SPLIT, 0}, 21); }
TEST_F(RadixSortStep2, Pairs) { CheckAllSizesAndShapes({RADIX_STEP_SPLIT, 1, 0, 32, true}, 22); }
TEST_F(RadixSortStep2, BitRanges) { CheckBitRanges(RADIX_STEP_SPLIT, 1, 23); }
TEST_F(RadixSortStep2, InPlace) { CheckInPlace(RADIX_STEP_SPLIT, 1, 24); }
TEST_F(RadixSortStep2, Large) { CheckLarge(RADIX_STEP_SPLIT, 1, 25); }

// The handout's figure, pass by pass: bit 0 alone, then bits 0-1, then all three bits.
TEST_F(RadixSortStep2, HandoutExample) {
  const std::vector<uint32_t> keys = {4, 7, 2, 6, 3, 5, 1, 0};
  for (int end_bit = 1; end_bit <= 3; ++end_bit) {
    SCOPED_TRACE("bits [0, " + std::to_string(end_bit) + ")");
    CheckSort({RADIX_STEP_SPLIT, 1, 0, end_bit, true}, keys);
    if (HasFatalFailure()) return;
  }
}

// ---- step 3: 4- and 8-bit digits, tile histograms, one scan, local sort in shared memory ----

TEST_F(RadixSortStep3, Keys4Bit) { CheckAllSizesAndShapes({RADIX_STEP_DIGITS, 4}, 31); }
TEST_F(RadixSortStep3, Keys8Bit) { CheckAllSizesAndShapes({RADIX_STEP_DIGITS, 8}, 32); }
TEST_F(RadixSortStep3, Pairs4Bit) { CheckAllSizesAndShapes({RADIX_STEP_DIGITS, 4, 0, 32, true}, 33); }
TEST_F(RadixSortStep3, Pairs8Bit) { CheckAllSizesAndShapes({RADIX_STEP_DIGITS, 8, 0, 32, true}, 34); }
TEST_F(RadixSortStep3, BitRanges4Bit) { CheckBitRanges(RADIX_STEP_DIGITS, 4, 36); }
TEST_F(RadixSortStep3, BitRanges8Bit) { CheckBitRanges(RADIX_STEP_DIGITS, 8, 37); }
TEST_F(RadixSortStep3, InPlace) {
  CheckInPlace(RADIX_STEP_DIGITS, 4, 38);
  if (HasFatalFailure()) return;
  CheckInPlace(RADIX_STEP_DIGITS, 8, 39);
}
TEST_F(RadixSortStep3, Large) {
  CheckLarge(RADIX_STEP_DIGITS, 4, 301);
  if (HasFatalFailure()) return;
  CheckLarge(RADIX_STEP_DIGITS, 8, 302);
}

// ---- step 4: Onesweep ----

TEST_F(RadixSortStep4, Keys) { CheckAllSizesAndShapes({RADIX_STEP_ONESWEEP, 0}, 41); }
TEST_F(RadixSortStep4, Pairs) { CheckAllSizesAndShapes({RADIX_STEP_ONESWEEP, 8, 0, 32, true}, 42); }
TEST_F(RadixSortStep4, BitRanges) { CheckBitRanges(RADIX_STEP_ONESWEEP, 8, 43); }
TEST_F(RadixSortStep4, InPlace) { CheckInPlace(RADIX_STEP_ONESWEEP, 8, 44); }
TEST_F(RadixSortStep4, Large) { CheckLarge(RADIX_STEP_ONESWEEP, 8, 45); }

// Calls of decreasing and increasing sizes in one process: the kept scratch memory must be
// reused (and reset) correctly, never read stale.
TEST_F(RadixSortStep4, ScratchIsReusedAcrossSizes) {
  for (size_t n : {gl::CapSize((size_t)1 << 20), gl::CapSize(4097), (size_t)3, gl::CapSize(100003),
                   gl::CapSize((size_t)1 << 20)}) {
    Case c{RADIX_STEP_ONESWEEP, 8, 0, 32, true};
    SCOPED_TRACE(Describe(c, n, "uniform"));
    CheckSort(c, MakeKeys(n, GL_DIST_UNIFORM, gl::SeedFor(46 + n)));
    if (HasFatalFailure()) return;
  }
}

// ---- step 5: Onesweep tuned ----

namespace {

// Tiles of a tuned Onesweep hold some 4,000 to 10,000 keys: edges of likely sizes (256 to 512
// threads of 12 to 24 keys), besides the standard sizes' odd and non-power-of-two ones.
const std::vector<size_t> kTunedTileEdges = {4609, 6143, 6145, 7679, 7681, 9217, 2 * 7680 + 1};

// A sort of n keys (and values) read from and written to arrays that start `in_offset` and
// `out_offset` elements past a cudaMalloc'd (256-byte aligned) address: 16-byte loads must
// not assume alignment.
void CheckUnaligned(radix_sort_step step, size_t n, size_t in_offset, size_t out_offset,
                    bool pairs, uint64_t seed) {
  std::vector<uint32_t> keys = MakeKeys(n, GL_DIST_UNIFORM, seed), values(n);
  std::iota(values.begin(), values.end(), 0u);
  std::vector<uint32_t> expected_keys(n), expected_values(n);
  ASSERT_EQ(gl_ref_radix_sort_pairs(keys.data(), expected_keys.data(), values.data(),
                                    expected_values.data(), n, 0, 32),
            GL_OK);
  std::vector<uint32_t> padded_keys(in_offset, 0u), padded_values(in_offset, 0u);
  padded_keys.insert(padded_keys.end(), keys.begin(), keys.end());
  padded_values.insert(padded_values.end(), values.begin(), values.end());
  gl::DeviceBuffer<uint32_t> keys_in(padded_keys), values_in(padded_values);
  gl::DeviceBuffer<uint32_t> keys_out(n + out_offset), values_out(n + out_offset);
  if (pairs) {
    GL_ASSERT_OK(radix_sort_pairs(step, keys_in.get() + in_offset, keys_out.get() + out_offset,
                                  values_in.get() + in_offset, values_out.get() + out_offset, n,
                                  nullptr));
  } else {
    GL_ASSERT_OK(radix_sort_keys(step, keys_in.get() + in_offset, keys_out.get() + out_offset, n,
                                 nullptr));
  }
  GL_ASSERT_DEVICE_OK("the sort");
  std::vector<uint32_t> got_keys = keys_out.Download();
  got_keys.erase(got_keys.begin(), got_keys.begin() + out_offset);
  ASSERT_TRUE(gl::ArraysEqual(expected_keys, got_keys)) << "keys";
  if (pairs) {
    std::vector<uint32_t> got_values = values_out.Download();
    got_values.erase(got_values.begin(), got_values.begin() + out_offset);
    ASSERT_TRUE(gl::ArraysEqual(expected_values, got_values)) << "values";
  }
}

}  // namespace

TEST_F(RadixSortStep5, Keys) {
  CheckAllSizesAndShapes({RADIX_STEP_ONESWEEP_TUNED, 0}, 51, kTunedTileEdges);
}
TEST_F(RadixSortStep5, Pairs) {
  CheckAllSizesAndShapes({RADIX_STEP_ONESWEEP_TUNED, 8, 0, 32, true}, 52, kTunedTileEdges);
}
TEST_F(RadixSortStep5, BitRanges) { CheckBitRanges(RADIX_STEP_ONESWEEP_TUNED, 8, 53); }
TEST_F(RadixSortStep5, InPlace) { CheckInPlace(RADIX_STEP_ONESWEEP_TUNED, 8, 54); }
TEST_F(RadixSortStep5, Large) { CheckLarge(RADIX_STEP_ONESWEEP_TUNED, 8, 55); }

// Arrays that do not start on a 16-byte boundary, with sizes whose tail is 0 to 3 keys.
TEST_F(RadixSortStep5, UnalignedArrays) {
  for (size_t n : gl::CapSizes({1, 2, 3, 5, 6, 7, 4099, 100003})) {
    for (size_t in_offset : {1, 2, 3}) {
      for (bool pairs : {false, true}) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", input " + std::to_string(in_offset) +
                     " and output " + std::to_string(4 - in_offset) + " keys past alignment" +
                     (pairs ? ", pairs" : ", keys"));
        CheckUnaligned(RADIX_STEP_ONESWEEP_TUNED, n, in_offset, 4 - in_offset, pairs,
                       gl::SeedFor(56 + n * 8 + in_offset));
        if (HasFatalFailure()) return;
      }
    }
  }
}

// The tables step 5 keeps from call to call (tile status, counters, histograms): calls of
// falling and rising sizes, keys and pairs in turn (their tiles may differ), bit ranges of 1 to
// 4 passes, and the first calls after radix_sort_release(), whose memory is new again. A stale
// status word, counter or histogram shows as a wrong sort or a hang.
TEST_F(RadixSortStep5, ScratchIsReusedAcrossCalls) {
  const size_t sizes[] = {gl::CapSize((size_t)1 << 20), gl::CapSize(4097), 3,
                          gl::CapSize(100003), 1, gl::CapSize((size_t)1 << 20),
                          gl::CapSize(65537), gl::CapSize(7681)};
  const int ranges[][2] = {{0, 32}, {0, 8}, {4, 20}, {0, 32}, {8, 31}, {0, 32}, {16, 32}, {0, 32}};
  for (int round = 0; round < 3; ++round) {
    if (round > 0) {
      GL_ASSERT_OK(radix_sort_release());
    }
    for (int i = 0; i < 8; ++i) {
      Case c{RADIX_STEP_ONESWEEP_TUNED, 8, ranges[i][0], ranges[i][1], (i + round) % 2 == 1};
      SCOPED_TRACE("round " + std::to_string(round) + ", call " + std::to_string(i) + ": " +
                   Describe(c, sizes[i], "uniform"));
      CheckSort(c, MakeKeys(sizes[i], GL_DIST_UNIFORM, gl::SeedFor(57 + round * 100 + i)));
      if (HasFatalFailure()) return;
    }
  }
}

// ---- extension: int32 and float keys through the bit flip ----

namespace {

// The steps whose uint32 sort is written (a stub step answers GL_ERR_NOT_IMPLEMENTED): the
// extension is checked on each of them.
std::vector<radix_sort_step> WrittenSteps() {
  std::vector<radix_sort_step> steps;
  gl::DeviceBuffer<uint32_t> in(std::vector<uint32_t>{7, 3}), out(2);
  for (int s = RADIX_FIRST_STEP; s <= RADIX_LAST_STEP; ++s) {
    if (radix_sort_keys((radix_sort_step)s, in.get(), out.get(), 2, nullptr) !=
        GL_ERR_NOT_IMPLEMENTED) {
      steps.push_back((radix_sort_step)s);
    }
  }
  gl_clear_error();
  return steps;
}

std::vector<uint32_t> BitsOf(const std::vector<float> &values) {
  std::vector<uint32_t> bits(values.size());
  if (!values.empty()) std::memcpy(bits.data(), values.data(), values.size() * 4);
  return bits;
}

}  // namespace

TEST_F(RadixSortExtension, SignedKeys) {
  std::vector<radix_sort_step> steps = WrittenSteps();
  ASSERT_FALSE(steps.empty()) << "no step of the uint32 sort is written yet";
  for (radix_sort_step step : steps) {
    for (size_t n : gl::CapSizes({0, 1, 33, 4097, 100003, (size_t)1 << 20})) {
      for (int shape = 0; shape < GL_DIST_COUNT; ++shape) {
        for (bool narrow : {false, true}) {
          SCOPED_TRACE(std::string(radix_sort_step_name(step)) + ", n = " + std::to_string(n) +
                       ", " + gl_dist_name((gl_dist)shape) + (narrow ? " in [-100, 100]" : ""));
          std::vector<int32_t> keys(n);
          gl_fill_int(keys.data(), n, narrow ? -100 : std::numeric_limits<int32_t>::min(),
                      narrow ? 100 : std::numeric_limits<int32_t>::max(), (gl_dist)shape,
                      gl::SeedFor(n * 16 + shape + narrow * 8 + step * 1000));
          std::vector<int32_t> expected(n);
          ASSERT_EQ(gl_ref_radix_sort_i32(keys.data(), expected.data(), n), GL_OK);
          gl::DeviceBuffer<int32_t> in(keys), out(n);
          GL_ASSERT_OK(radix_sort_keys_i32(step, in.get(), out.get(), n));
          GL_ASSERT_DEVICE_OK("radix_sort_keys_i32");
          ASSERT_TRUE(gl::ArraysEqual(expected, out.Download()));
          ASSERT_TRUE(gl::ArraysEqual(keys, in.Download())) << "the input keys were changed";
        }
      }
    }
  }
}

TEST_F(RadixSortExtension, FloatKeys) {
  std::vector<radix_sort_step> steps = WrittenSteps();
  ASSERT_FALSE(steps.empty()) << "no step of the uint32 sort is written yet";
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {-0.0f, 0.0f, inf, -inf, std::nanf(""), -std::nanf(""), 1e-45f,
                            -1e-45f, std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(), std::numeric_limits<float>::min()};
  for (radix_sort_step step : steps) {
    for (size_t n : gl::CapSizes({1, 33, 4097, 100003, (size_t)1 << 20})) {
      for (int shape = 0; shape < GL_DIST_COUNT; ++shape) {
        SCOPED_TRACE(std::string(radix_sort_step_name(step)) + ", n = " + std::to_string(n) +
                     ", " + gl_dist_name((gl_dist)shape));
        std::vector<float> keys(n);
        uint64_t seed = gl::SeedFor(n * 16 + shape + step * 1000 + 500);
        gl_fill_float(keys.data(), n, -1000.0f, 1000.0f, (gl_dist)shape, seed);
        // Sprinkle the special values over uniform inputs (a shaped input keeps its shape).
        if (shape == GL_DIST_UNIFORM) {
          gl_rng rng;
          gl_rng_seed(&rng, seed);
          for (float special : specials) keys[gl_rng_below(&rng, n)] = special;
        }
        std::vector<float> expected(n);
        ASSERT_EQ(gl_ref_radix_sort_f32(keys.data(), expected.data(), n), GL_OK);
        gl::DeviceBuffer<float> in(keys), out(n);
        GL_ASSERT_OK(radix_sort_keys_f32(step, in.get(), out.get(), n));
        GL_ASSERT_DEVICE_OK("radix_sort_keys_f32");
        // Compared as bit patterns: NaN equals nothing as a float, and -0.0 == +0.0.
        ASSERT_TRUE(gl::ArraysEqual(BitsOf(expected), BitsOf(out.Download())));
      }
    }
  }
}

TEST_F(RadixSortExtension, InPlace) {
  std::vector<radix_sort_step> steps = WrittenSteps();
  ASSERT_FALSE(steps.empty()) << "no step of the uint32 sort is written yet";
  const size_t n = gl::CapSize(65537);
  for (radix_sort_step step : steps) {
    SCOPED_TRACE(radix_sort_step_name(step));
    std::vector<int32_t> ints(n);
    gl_fill_int(ints.data(), n, -5000, 5000, GL_DIST_UNIFORM, gl::SeedFor(600 + step));
    std::vector<int32_t> expected_ints(n);
    ASSERT_EQ(gl_ref_radix_sort_i32(ints.data(), expected_ints.data(), n), GL_OK);
    gl::DeviceBuffer<int32_t> int_buffer(ints);
    GL_ASSERT_OK(radix_sort_keys_i32(step, int_buffer.get(), int_buffer.get(), n));
    GL_ASSERT_DEVICE_OK("radix_sort_keys_i32 in place");
    ASSERT_TRUE(gl::ArraysEqual(expected_ints, int_buffer.Download()));

    std::vector<float> floats(n);
    gl_fill_float(floats.data(), n, -3.0f, 3.0f, GL_DIST_REVERSED, gl::SeedFor(700 + step));
    std::vector<float> expected_floats(n);
    ASSERT_EQ(gl_ref_radix_sort_f32(floats.data(), expected_floats.data(), n), GL_OK);
    gl::DeviceBuffer<float> float_buffer(floats);
    GL_ASSERT_OK(radix_sort_keys_f32(step, float_buffer.get(), float_buffer.get(), n));
    GL_ASSERT_DEVICE_OK("radix_sort_keys_f32 in place");
    ASSERT_TRUE(gl::ArraysEqual(BitsOf(expected_floats), BitsOf(float_buffer.Download())));
  }
}

// ---- the API (no points) ----

TEST_F(RadixSortApi, StepNames) {
  EXPECT_STREQ(radix_sort_step_name(RADIX_STEP_SPLIT), "2-split");
  EXPECT_STREQ(radix_sort_step_name(RADIX_STEP_DIGITS), "3-digits");
  EXPECT_STREQ(radix_sort_step_name(RADIX_STEP_ONESWEEP), "4-onesweep");
  EXPECT_STREQ(radix_sort_step_name(RADIX_STEP_ONESWEEP_TUNED), "5-onesweep-tuned");
  EXPECT_STREQ(radix_sort_step_name((radix_sort_step)9), "unknown");
}

TEST_F(RadixSortApi, ZeroElementsIsValidAndWritesNothing) {
  gl::DeviceBuffer<uint32_t> buffer(4);
  for (int s = RADIX_FIRST_STEP; s <= RADIX_LAST_STEP; ++s) {
    radix_sort_step step = (radix_sort_step)s;
    SCOPED_TRACE(radix_sort_step_name(step));
    GL_EXPECT_OK(radix_sort_keys(step, nullptr, nullptr, 0, nullptr));
    GL_EXPECT_OK(radix_sort_pairs(step, buffer.get(), buffer.get() + 1, buffer.get() + 2,
                                  buffer.get() + 3, 0, nullptr));
  }
  GL_ASSERT_DEVICE_OK("sorts of n = 0");
  std::vector<uint32_t> host = buffer.Download();
  EXPECT_EQ(std::count(host.begin(), host.end(), GL_POISON_U32), 4);
}

TEST_F(RadixSortApi, ReleaseThenSortAgain) {
  GL_ASSERT_OK(radix_sort_release());
  GL_ASSERT_OK(radix_sort_release());  // twice is harmless
  std::vector<uint32_t> keys = MakeKeys(5000, GL_DIST_UNIFORM, gl::SeedFor(800));
  std::vector<uint32_t> expected = keys;
  gl_ref_qsort_u32(expected.data(), expected.size());
  for (int s = RADIX_FIRST_STEP; s <= RADIX_LAST_STEP; ++s) {
    radix_sort_step step = (radix_sort_step)s;
    gl::DeviceBuffer<uint32_t> in(keys), out(keys.size());
    gl_status status = radix_sort_keys(step, in.get(), out.get(), keys.size(), nullptr);
    if (status == GL_ERR_NOT_IMPLEMENTED) continue;
    GL_ASSERT_OK(status);
    GL_ASSERT_DEVICE_OK("the sort");
    EXPECT_TRUE(gl::ArraysEqual(expected, out.Download())) << radix_sort_step_name(step);
    GL_ASSERT_OK(radix_sort_release());
  }
}

// ---- bad input (no points): each gets its own status and a message naming the cause ----

namespace {
::testing::AssertionResult MessageMentions(const char *text) {
  if (std::strstr(gl_last_error(), text) != nullptr) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the message \"" << gl_last_error()
                                       << "\" does not mention \"" << text << "\"";
}
}  // namespace

TEST_F(RadixSortBadInput, NullPointers) {
  gl::DeviceBuffer<uint32_t> a(16), b(16), c(16);
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, radix_sort_keys(RADIX_STEP_ONESWEEP, nullptr, a.get(), 16, nullptr));
  EXPECT_TRUE(MessageMentions("d_keys_in"));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, radix_sort_keys(RADIX_STEP_DIGITS, a.get(), nullptr, 16, nullptr));
  EXPECT_TRUE(MessageMentions("d_keys_out"));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                   radix_sort_pairs(RADIX_STEP_SPLIT, a.get(), b.get(), nullptr, c.get(), 16, nullptr));
  EXPECT_TRUE(MessageMentions("d_values_in"));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                   radix_sort_pairs(RADIX_STEP_SPLIT, a.get(), b.get(), c.get(), nullptr, 16, nullptr));
  EXPECT_TRUE(MessageMentions("d_values_out"));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, radix_sort_keys_i32(RADIX_STEP_ONESWEEP, nullptr, nullptr, 3));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, radix_sort_keys_f32(RADIX_STEP_ONESWEEP, nullptr, nullptr, 3));
}

TEST_F(RadixSortBadInput, SizeBeyondTheLimit) {
  gl::DeviceBuffer<uint32_t> a(16), b(16);
  GL_EXPECT_STATUS(GL_ERR_SIZE, radix_sort_keys(RADIX_STEP_ONESWEEP, a.get(), b.get(), RADIX_MAX_N + 1, nullptr));
  EXPECT_TRUE(MessageMentions("RADIX_MAX_N"));
  GL_EXPECT_STATUS(GL_ERR_SIZE, radix_sort_pairs(RADIX_STEP_SPLIT, a.get(), b.get(), a.get(), b.get(),
                                                 (size_t)-1, nullptr));
}

TEST_F(RadixSortBadInput, UnknownStep) {
  gl::DeviceBuffer<uint32_t> a(16), b(16);
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, radix_sort_keys((radix_sort_step)1, a.get(), b.get(), 16, nullptr));
  EXPECT_TRUE(MessageMentions("step 1"));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, radix_sort_keys((radix_sort_step)6, a.get(), b.get(), 16, nullptr));
}

TEST_F(RadixSortBadInput, DigitBitsTheStepDoesNotTake) {
  gl::DeviceBuffer<uint32_t> a(16), b(16);
  const struct {
    radix_sort_step step;
    int bits;
  } bad[] = {{RADIX_STEP_SPLIT, 4}, {RADIX_STEP_DIGITS, 5}, {RADIX_STEP_DIGITS, 1},
             {RADIX_STEP_DIGITS, 16}, {RADIX_STEP_ONESWEEP, 4}, {RADIX_STEP_ONESWEEP, -8},
             {RADIX_STEP_ONESWEEP_TUNED, 4}, {RADIX_STEP_ONESWEEP_TUNED, 1}};
  for (const auto &b_ : bad) {
    radix_sort_options options = {b_.bits, 0, 32};
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, radix_sort_keys(b_.step, a.get(), b.get(), 16, &options));
    EXPECT_TRUE(MessageMentions("digit_bits"));
  }
}

TEST_F(RadixSortBadInput, BitRangeOutsideTheKey) {
  gl::DeviceBuffer<uint32_t> a(16), b(16);
  const int bad[][2] = {{0, 33}, {-1, 8}, {8, 8}, {9, 8}, {32, 32}};
  for (const auto &range : bad) {
    radix_sort_options options = {0, range[0], range[1]};
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, radix_sort_keys(RADIX_STEP_DIGITS, a.get(), b.get(), 16, &options));
    EXPECT_TRUE(MessageMentions("bit range"));
  }
}

TEST_F(RadixSortBadInput, OverlappingArrays) {
  gl::DeviceBuffer<uint32_t> a(64), b(64);
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   radix_sort_keys(RADIX_STEP_ONESWEEP, a.get(), a.get() + 1, 32, nullptr));
  EXPECT_TRUE(MessageMentions("overlaps"));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, radix_sort_pairs(RADIX_STEP_ONESWEEP, a.get(), a.get(),
                                                             a.get() + 8, b.get(), 32, nullptr));
  EXPECT_TRUE(MessageMentions("overlap"));
}
