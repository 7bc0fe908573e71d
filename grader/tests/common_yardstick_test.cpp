// GPU tests of common/'s trusted device code for the performance tests (gpulabs_yardstick): the
// check that lets CUB's sort serve as the expected output of the sorts' timed calls, and the
// sealed timing's random fills and guard check. Built on the CUDA backend only, like the
// yardstick; skipped without a GPU.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "gpulabs/compare.h"
#include "gpulabs/data.h"
#include "gpulabs/yardstick/check_sort.h"
#include "gpulabs/yardstick/sealed.h"
}

class YardstickSortCheck : public GpuTest {};

namespace {

size_t FirstWrong(const std::vector<uint32_t> &in, const std::vector<uint32_t> &keys,
                  const std::vector<uint32_t> *values) {
  gl::DeviceBuffer<uint32_t> d_in(in), d_keys(keys), d_values(values ? *values : in);
  size_t first_wrong = 0;
  EXPECT_EQ(gl_yardstick_check_sort(d_in.get(), d_keys.get(), values ? d_values.get() : nullptr,
                                    in.size(), &first_wrong),
            GL_OK)
      << gl_last_error();
  return first_wrong;
}

}  // namespace

TEST_F(YardstickSortCheck, PassesARightSortAndCatchesEachKindOfWrongOne) {
  const size_t n = 100003;  // odd, several blocks of the check's grid
  std::vector<uint32_t> in(n), iota(n);
  gl_fill_u32(in.data(), n, GL_DIST_FEW_UNIQUE, gl::SeedFor(1));  // many equal keys: stability
  std::iota(iota.begin(), iota.end(), 0u);
  // The right sort, a stable one of the indices by key, made on the CPU.
  std::vector<uint32_t> values = iota;
  std::stable_sort(values.begin(), values.end(),
                   [&](uint32_t a, uint32_t b) { return in[a] < in[b]; });
  std::vector<uint32_t> keys(n);
  for (size_t k = 0; k < n; ++k) keys[k] = in[values[k]];
  EXPECT_EQ(FirstWrong(in, keys, nullptr), SIZE_MAX);
  EXPECT_EQ(FirstWrong(in, keys, &values), SIZE_MAX);

  // Keys out of order.
  size_t i = 1;
  while (keys[i - 1] == keys[i]) ++i;
  std::vector<uint32_t> swapped = keys;
  std::swap(swapped[i - 1], swapped[i]);
  EXPECT_EQ(FirstWrong(in, swapped, nullptr), i);
  // In order, but not the input's keys: only the sums tell.
  std::vector<uint32_t> other = keys;
  other[n - 1] += other[n - 1] < UINT32_MAX ? 1 : 0;
  if (other[n - 1] != keys[n - 1]) {
    EXPECT_EQ(FirstWrong(in, other, nullptr), n);
  }
  // A value used twice, and equal keys out of input order.
  std::vector<uint32_t> twice = values;
  twice[n / 2] = twice[n / 2 - 1];
  EXPECT_LE(FirstWrong(in, keys, &twice), n / 2);
  size_t j = 1;
  while (keys[j - 1] != keys[j]) ++j;
  std::vector<uint32_t> unstable = values;
  std::swap(unstable[j - 1], unstable[j]);
  EXPECT_EQ(FirstWrong(in, keys, &unstable), j);
  // Nothing to check.
  size_t none = 0;
  GL_EXPECT_OK(gl_yardstick_check_sort(nullptr, nullptr, nullptr, 0, &none));
  EXPECT_EQ(none, SIZE_MAX);
}

// ---- The sealed timing's fresh inputs and its guard check (gpulabs/yardstick/sealed.h) ----------

class YardstickSealed : public GpuTest {};

TEST_F(YardstickSealed, FillsDrawEachElementFromTheSeedAndTheIndexAlone) {
  const size_t n = 1000003;  // odd, several strides of the fill's grid
  const uint64_t seed = gl::SeedFor(2);
  gl::DeviceBuffer<uint32_t> keys(n), again(n), other(n);
  GL_ASSERT_OK(gl_sealed_fill_u32(keys.get(), n, seed));
  GL_ASSERT_OK(gl_sealed_fill_u32(again.get(), n, seed));
  GL_ASSERT_OK(gl_sealed_fill_u32(other.get(), n, seed + 1));
  GL_ASSERT_DEVICE_OK("gl_sealed_fill_u32");
  std::vector<uint32_t> host = keys.Download(), host_other = other.Download();
  EXPECT_TRUE(gl::ArraysEqual(host, again.Download()));  // a run replays
  size_t same = 0;
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(host[i], gl_sealed_random_u32(seed, i)) << "at index " << i;
    same += host[i] == host_other[i];
  }
  EXPECT_LT(same, (size_t)10) << "the next seed drew nearly the same keys";
  // Every bit is set in about half of the keys.
  for (int bit = 0; bit < 32; ++bit) {
    size_t ones = 0;
    for (uint32_t k : host) ones += (k >> bit) & 1u;
    EXPECT_NEAR((double)ones / n, 0.5, 0.005) << "bit " << bit;
  }
}

TEST_F(YardstickSealed, IntFillsStayInTheirRangeAndCoverIt) {
  const size_t n = 1 << 20;
  const uint64_t seed = gl::SeedFor(3);
  struct Range {
    int lo, hi;
  };
  const Range ranges[] = {{0, 3}, {-1000, 1000}, {INT_MIN, INT_MAX}, {7, 7}, {3, 0}};
  for (const Range &r : ranges) {
    SCOPED_TRACE("range [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]");
    const int lo = std::min(r.lo, r.hi), hi = std::max(r.lo, r.hi);
    gl::DeviceBuffer<int> d(n);
    GL_ASSERT_OK(gl_sealed_fill_int(d.get(), n, r.lo, r.hi, seed));
    GL_ASSERT_DEVICE_OK("gl_sealed_fill_int");
    std::vector<int> host = d.Download();
    const uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
    double sum = 0;
    int seen_lo = 0, seen_hi = 0;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_GE(host[i], lo) << "at index " << i;
      ASSERT_LE(host[i], hi) << "at index " << i;
      const uint64_t offset = ((uint64_t)gl_sealed_random_u32(seed, i) * span) >> 32;
      ASSERT_EQ((int64_t)host[i], (int64_t)lo + (int64_t)offset) << "at index " << i;
      sum += host[i];
      seen_lo += host[i] == lo;
      seen_hi += host[i] == hi;
    }
    // The mean lies near the middle of the range (many standard deviations of it apart).
    EXPECT_NEAR(sum / n, ((double)lo + hi) / 2, (hi - (double)lo) * 0.01 + 1e-9);
    if (span <= 2001) {
      EXPECT_GT(seen_lo, 0) << "the lowest value never drawn";
      EXPECT_GT(seen_hi, 0) << "the highest value never drawn";
    }
  }
}

TEST_F(YardstickSealed, CompareFindsWritesPastTheEndInTheGuardRegion) {
  const size_t n = 5000, guard = 1000;
  std::vector<int> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = (int)(i * 7 + 1);
  gl::DeviceBuffer<int> want(values), got(n + guard);  // got: all poison
  gl_sealed_mismatch m;
  GL_ASSERT_OK(gl_sealed_compare(want.get(), got.get(), n, guard, sizeof(int), &m));
  EXPECT_EQ(m.count, n);  // nothing written
  EXPECT_EQ(m.first, 0u);
  gl::CopyToDevice(got.get(), values.data(), n * sizeof(int));
  GL_ASSERT_OK(gl_sealed_compare(want.get(), got.get(), n, guard, sizeof(int), &m));
  EXPECT_EQ(m.count, 0u);
  const int stray = 42;
  gl::CopyToDevice(got.get() + n + guard - 1, &stray, sizeof stray);
  gl::CopyToDevice(got.get() + n + 3, &stray, sizeof stray);
  GL_ASSERT_OK(gl_sealed_compare(want.get(), got.get(), n, guard, sizeof(int), &m));
  EXPECT_EQ(m.count, 2u);
  EXPECT_EQ(m.first, n + 3);
  EXPECT_EQ((uint32_t)m.want, GL_POISON_U32);
  EXPECT_EQ((int)m.got, stray);
  // Without a guard region the same write goes unseen; a guard alone needs no expected array.
  GL_ASSERT_OK(gl_sealed_compare(want.get(), got.get(), n, 0, sizeof(int), &m));
  EXPECT_EQ(m.count, 0u);
  GL_ASSERT_OK(gl_sealed_compare(nullptr, got.get() + n, 0, guard, sizeof(int), &m));
  EXPECT_EQ(m.count, 2u);
  EXPECT_EQ(m.first, 3u);
}
