// Tests of the scan lab's CPU reference (labs/scan/scan_reference.c): known answers, the edges
// (n = 0 and 1, in place), wrap-around, and agreement with a 64-bit running sum on random data.
#include <climits>
#include <cstdint>
#include <vector>

#include "gltest.h"

extern "C" {
#include "scan_reference.h"
}

namespace {

// The 8-element example of the handout's figure (the seed's reduce/downsweep example).
const std::vector<int> kFigureInput = {0, 2, 3, 6, 9, 3, 5, 7};

// The answer computed the slow, obvious way: a 64-bit sum truncated to its low 32 bits.
std::vector<int> Truncated64(const std::vector<int> &in, bool inclusive) {
  std::vector<int> out(in.size());
  int64_t running = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (inclusive) running += in[i];
    out[i] = static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(running)));
    if (!inclusive) running += in[i];
  }
  return out;
}

}  // namespace

TEST(ScanReference, FigureExampleExclusive) {
  std::vector<int> out(kFigureInput.size(), -1);
  gl_ref_scan_exclusive(kFigureInput.data(), out.data(), out.size());
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{0, 0, 2, 5, 11, 20, 23, 28}, out));
}

TEST(ScanReference, FigureExampleInclusive) {
  std::vector<int> out(kFigureInput.size(), -1);
  gl_ref_scan_inclusive(kFigureInput.data(), out.data(), out.size());
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{0, 2, 5, 11, 20, 23, 28, 35}, out));
}

TEST(ScanReference, NegativeValues) {
  const std::vector<int> in = {5, -3, -10, 4, 0, -1};
  std::vector<int> out(in.size());
  gl_ref_scan_exclusive(in.data(), out.data(), in.size());
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{0, 5, 2, -8, -4, -4}, out));
  gl_ref_scan_inclusive(in.data(), out.data(), in.size());
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{5, 2, -8, -4, -4, -5}, out));
}

TEST(ScanReference, ZeroElementsWriteNothing) {
  std::vector<int> out = {42};
  const int in = 7;
  gl_ref_scan_exclusive(&in, out.data(), 0);
  gl_ref_scan_inclusive(&in, out.data(), 0);
  EXPECT_EQ(out[0], 42);
  gl_ref_scan_exclusive(nullptr, nullptr, 0);  // nothing is read or written
  gl_ref_scan_inclusive(nullptr, nullptr, 0);
}

TEST(ScanReference, OneElement) {
  const int in = -17;
  int out = 99;
  gl_ref_scan_exclusive(&in, &out, 1);
  EXPECT_EQ(out, 0);
  gl_ref_scan_inclusive(&in, &out, 1);
  EXPECT_EQ(out, -17);
}

TEST(ScanReference, InPlaceGivesTheSameAnswer) {
  std::vector<int> in(10007);
  gl_fill_int(in.data(), in.size(), -1000, 1000, GL_DIST_UNIFORM, gl::SeedFor(1));
  for (bool inclusive : {false, true}) {
    std::vector<int> data = in;
    if (inclusive) {
      gl_ref_scan_inclusive(data.data(), data.data(), data.size());
    } else {
      gl_ref_scan_exclusive(data.data(), data.data(), data.size());
    }
    EXPECT_TRUE(gl::ArraysEqual(Truncated64(in, inclusive), data)) << "inclusive=" << inclusive;
  }
}

TEST(ScanReference, WrapsAroundLikeUnsigned32Bit) {
  const std::vector<int> in = {INT_MAX, 1, 0, INT_MIN, -1, INT_MIN};
  std::vector<int> out(in.size());
  gl_ref_scan_exclusive(in.data(), out.data(), in.size());
  // INT_MAX + 1 wraps to INT_MIN; INT_MIN + INT_MIN wraps to 0; 0 - 1 = -1; -1 + INT_MIN = INT_MAX.
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{0, INT_MAX, INT_MIN, INT_MIN, 0, -1}, out));
  gl_ref_scan_inclusive(in.data(), out.data(), in.size());
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{INT_MAX, INT_MIN, INT_MIN, 0, -1, INT_MAX}, out));
}

TEST(ScanReference, AgreesWithA64BitSumOnRandomData) {
  for (size_t n : gl::StandardSizes((size_t)1 << 20)) {
    std::vector<int> in(n);
    // The full int range: the running sum wraps many times.
    gl_fill_int(in.data(), n, INT_MIN, INT_MAX, GL_DIST_UNIFORM, gl::SeedFor(100 + n));
    std::vector<int> out(n);
    gl_ref_scan_exclusive(in.data(), out.data(), n);
    ASSERT_TRUE(gl::ArraysEqual(Truncated64(in, false), out)) << "exclusive, n = " << n;
    gl_ref_scan_inclusive(in.data(), out.data(), n);
    ASSERT_TRUE(gl::ArraysEqual(Truncated64(in, true), out)) << "inclusive, n = " << n;
  }
}

TEST(ScanReference, InclusiveIsExclusivePlusTheElement) {
  std::vector<int> in(65537);
  gl_fill_int(in.data(), in.size(), -50, 50, GL_DIST_FEW_UNIQUE, gl::SeedFor(2));
  std::vector<int> exclusive(in.size()), inclusive(in.size());
  gl_ref_scan_exclusive(in.data(), exclusive.data(), in.size());
  gl_ref_scan_inclusive(in.data(), inclusive.data(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(inclusive[i], exclusive[i] + in[i]) << "index " << i;
  }
}
