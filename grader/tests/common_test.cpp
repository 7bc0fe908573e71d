// Tests of common/: status messages, generators, comparison, timers and the device helpers.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "gltest.h"

extern "C" {
#include "gpulabs/bench.h"
#include "gpulabs/timer.h"
}

TEST(CommonStatus, FailKeepsTheMessageAndReturnsTheStatus) {
  gl_clear_error();
  EXPECT_STREQ(gl_last_error(), "");
  EXPECT_EQ(gl_fail(GL_ERR_SIZE, "n = %d is too large", 7), GL_ERR_SIZE);
  EXPECT_STREQ(gl_last_error(), "n = 7 is too large");
  EXPECT_EQ(gl_not_implemented("reduce step 3"), GL_ERR_NOT_IMPLEMENTED);
  EXPECT_STREQ(gl_last_error(), "not implemented: reduce step 3");
  EXPECT_STREQ(gl_status_name(GL_ERR_CUDA), "GL_ERR_CUDA");
}

TEST(CommonStatus, StatusIsReportsTheLabMessage) {
  ::testing::AssertionResult result =
      gl::StatusIs(GL_OK, gl_not_implemented("scan step 2"), "scan(...)");
  ASSERT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("GL_ERR_NOT_IMPLEMENTED"), std::string::npos);
  EXPECT_NE(std::string(result.message()).find("not implemented: scan step 2"), std::string::npos);
}

TEST(CommonData, SameSeedSameData) {
  std::vector<int> a(1000), b(1000), c(1000);
  gl_fill_int(a.data(), a.size(), -50, 50, GL_DIST_UNIFORM, 42);
  gl_fill_int(b.data(), b.size(), -50, 50, GL_DIST_UNIFORM, 42);
  gl_fill_int(c.data(), c.size(), -50, 50, GL_DIST_UNIFORM, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(CommonData, KnownFirstValuesOfTheGenerator) {
  // xoshiro256** seeded through splitmix64 with seed 0: the same values on every machine, so a
  // seed printed by a failing test replays the same data anywhere. Values computed independently
  // (a Python transcription of the two published algorithms).
  gl_rng rng;
  gl_rng_seed(&rng, 0);
  EXPECT_EQ(gl_rng_next(&rng), 0x99ec5f36cb75f2b4ull);
  EXPECT_EQ(gl_rng_next(&rng), 0xbf6e1f784956452aull);
  EXPECT_EQ(gl_rng_next(&rng), 0x1a5f849d4933e6e0ull);
}

TEST(CommonData, IntsStayInRangeAndCoverIt) {
  std::vector<int> a(100000);
  gl_fill_int(a.data(), a.size(), -3, 3, GL_DIST_UNIFORM, gl::SeedFor(1));
  std::set<int> seen(a.begin(), a.end());
  EXPECT_EQ(seen, (std::set<int>{-3, -2, -1, 0, 1, 2, 3}));
}

TEST(CommonData, FullIntRangeDoesNotOverflow) {
  std::vector<int> a(10000);
  gl_fill_int(a.data(), a.size(), INT32_MIN, INT32_MAX, GL_DIST_UNIFORM, gl::SeedFor(2));
  EXPECT_LT(*std::min_element(a.begin(), a.end()), -1000000000);
  EXPECT_GT(*std::max_element(a.begin(), a.end()), 1000000000);
}

TEST(CommonData, ShapesAreWhatTheyClaim) {
  const size_t n = 50001;
  std::vector<uint32_t> k(n);
  gl_fill_u32(k.data(), n, GL_DIST_SORTED, gl::SeedFor(3));
  EXPECT_TRUE(std::is_sorted(k.begin(), k.end()));
  EXPECT_GT(k.back(), 0xF0000000u) << "sorted keys should span the full 32-bit range";
  gl_fill_u32(k.data(), n, GL_DIST_REVERSED, gl::SeedFor(4));
  EXPECT_TRUE(std::is_sorted(k.rbegin(), k.rend()));
  gl_fill_u32(k.data(), n, GL_DIST_ALL_EQUAL, gl::SeedFor(5));
  EXPECT_EQ(std::set<uint32_t>(k.begin(), k.end()).size(), 1u);
  gl_fill_u32(k.data(), n, GL_DIST_FEW_UNIQUE, gl::SeedFor(6));
  EXPECT_LE(std::set<uint32_t>(k.begin(), k.end()).size(), 8u);
  EXPECT_GE(std::set<uint32_t>(k.begin(), k.end()).size(), 2u);
  gl_fill_u32(k.data(), n, GL_DIST_UNIFORM, gl::SeedFor(7));
  EXPECT_GT(std::set<uint32_t>(k.begin(), k.end()).size(), n * 9 / 10);
}

TEST(CommonData, FloatsStayInRange) {
  std::vector<float> f(20000);
  gl_fill_float(f.data(), f.size(), -1.0f, 1.0f, GL_DIST_UNIFORM, gl::SeedFor(8));
  for (float x : f) {
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
  }
  gl_fill_float(f.data(), f.size(), 0.0f, 10.0f, GL_DIST_SORTED, gl::SeedFor(9));
  EXPECT_TRUE(std::is_sorted(f.begin(), f.end()));
}

TEST(CommonData, FlagsFollowTheKeepRatio) {
  std::vector<int> flags(100000);
  for (double ratio : {0.0, 0.01, 0.5, 0.99, 1.0}) {
    gl_fill_flags(flags.data(), flags.size(), ratio, gl::SeedFor(10));
    double kept = std::count(flags.begin(), flags.end(), 1) / (double)flags.size();
    EXPECT_NEAR(kept, ratio, 0.01) << "keep ratio " << ratio;
  }
}

TEST(CommonData, SeedFromEnvironment) {
  setenv("GPULABS_SEED", "0x1234", 1);
  EXPECT_EQ(gl_seed_from_env(), 0x1234u);
  setenv("GPULABS_SEED", "99", 1);
  EXPECT_EQ(gl_seed_from_env(), 99u);
  unsetenv("GPULABS_SEED");
  EXPECT_NE(gl_seed_derive(1, 1), gl_seed_derive(1, 2));
}

TEST(CommonCompare, ReportsTheFirstMismatchWithIndexAndSeed) {
  std::vector<int32_t> expected = {1, 2, 3, 4, 5};
  std::vector<int32_t> got = {1, 2, 9, 4, 0};
  char msg[256];
  EXPECT_EQ(gl_compare_i32(expected.data(), got.data(), 5, 0xabc, msg, sizeof msg), 2u);
  EXPECT_NE(std::strstr(msg, "index 2 of n = 5"), nullptr) << msg;
  EXPECT_NE(std::strstr(msg, "expected 3, got 9"), nullptr) << msg;
  EXPECT_NE(std::strstr(msg, "seed 0xabc"), nullptr) << msg;
  EXPECT_EQ(gl_compare_i32(expected.data(), expected.data(), 5, 0, msg, sizeof msg), GL_NO_MISMATCH);
  EXPECT_EQ(gl_compare_i32(nullptr, nullptr, 0, 0, msg, sizeof msg), GL_NO_MISMATCH);
}

TEST(CommonCompare, NamesAnElementThatWasNeverWritten) {
  std::vector<uint32_t> expected = {7, 8};
  std::vector<uint32_t> got = {7, GL_POISON_U32};
  char msg[256];
  EXPECT_EQ(gl_compare_u32(expected.data(), got.data(), 2, 1, msg, sizeof msg), 1u);
  EXPECT_NE(std::strstr(msg, "never written"), nullptr) << msg;
}

TEST(CommonCompare, FloatsWithinTolerance) {
  std::vector<float> expected = {1.0f, 100.0f, 0.0f};
  std::vector<float> close = {1.0000001f, 100.00001f, 1e-7f};
  EXPECT_EQ(gl_compare_f32(expected.data(), close.data(), 3, 1e-6, 1e-6, 0, nullptr, 0), GL_NO_MISMATCH);
  std::vector<float> far = {1.0f, 101.0f, 0.0f};
  EXPECT_EQ(gl_compare_f32(expected.data(), far.data(), 3, 1e-6, 1e-6, 0, nullptr, 0), 1u);
  std::vector<double> nan = {NAN};
  std::vector<double> one = {1.0};
  EXPECT_EQ(gl_compare_f64(one.data(), nan.data(), 1, 1.0, 1.0, 0, nullptr, 0), 0u);
  EXPECT_EQ(gl_compare_f64(nan.data(), nan.data(), 1, 1.0, 1.0, 0, nullptr, 0), 0u)
      << "NaN must never match, not even NaN";
}

TEST(CommonCompare, ShimArraysEqualCarriesTheMessage) {
  ::testing::AssertionResult result = gl::ArraysEqual(std::vector<int32_t>{1, 2}, std::vector<int32_t>{1, 3});
  ASSERT_FALSE(result);
  EXPECT_NE(std::string(result.message()).find("index 1 of n = 2"), std::string::npos);
  EXPECT_FALSE(gl::ArraysEqual(std::vector<int32_t>{1}, std::vector<int32_t>{1, 2}));
}

TEST(CommonSizes, StandardSizesCoverTheEdges) {
  std::vector<size_t> sizes = gl::StandardSizes(5000);
  for (size_t n : {0, 1, 31, 32, 33, 1023, 1024, 1025, 4099}) {
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), (size_t)n), sizes.end()) << n;
  }
  EXPECT_LE(*std::max_element(sizes.begin(), sizes.end()), 5000u);
}

TEST(CommonTimer, MedianOfOddAndEvenCounts) {
  double odd[] = {5, 1, 3};
  EXPECT_EQ(gl_median(odd, 3), 3);
  double even[] = {4, 1, 3, 2};
  EXPECT_EQ(gl_median(even, 4), 2.5);
  EXPECT_EQ(gl_median(nullptr, 0), 0);
}

static gl_status Spin(void *context) {
  int *calls = static_cast<int *>(context);
  ++*calls;
  double start = gl_host_now_ms();
  while (gl_host_now_ms() - start < 1.0) {
  }
  return GL_OK;
}

TEST(CommonTimer, HostMedianCallsWarmupPlusRepsAndMeasures) {
  int calls = 0;
  double ms = 0;
  GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_HOST, Spin, &calls, 2, 5, &ms));
  EXPECT_EQ(calls, 7);
  EXPECT_GE(ms, 1.0);
  EXPECT_LT(ms, 1000.0);
}

static gl_status Fails(void *) { return gl_fail(GL_ERR_INVALID_ARGUMENT, "broken on purpose"); }

TEST(CommonTimer, AFailingCallStopsTheTiming) {
  double ms = -1;
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, gl_time_median_ms(GL_CLOCK_HOST, Fails, nullptr, 0, 3, &ms));
  EXPECT_EQ(ms, -1);
}

TEST(CommonDevice, CountNeverFailsAndExplainsAZero) {
  int count = gl_device_count();
  EXPECT_GE(count, 0);
  if (count == 0) {
    EXPECT_NE(std::string(gl_no_device_reason()).find("no CUDA device"), std::string::npos);
  }
}

TEST(CommonSizes, EnvironmentCapsTheSizes) {
  setenv("GPULABS_MAX_N", "100", 1);
  std::vector<size_t> sizes = gl::StandardSizes((size_t)1 << 24);
  EXPECT_LE(*std::max_element(sizes.begin(), sizes.end()), 100u);
  EXPECT_EQ(gl::CapSize(5000), 100u);
  EXPECT_EQ(gl::CapSize(7), 7u);
  unsetenv("GPULABS_MAX_N");
  EXPECT_EQ(gl::CapSize(5000), 5000u);
}

TEST(CommonBench, ALimitIsTheStepsOwnTrafficAtCopySpeed) {
  // A sort of 2^20 keys: 8 MB read and written at least, 4 passes of 8 MB by its own method.
  gl_bench_row row = {"radix_sort", "4-onesweep", 1u << 20, 0, 0.5, 8.0 * (1 << 20), 2000.0, 0.4, 0};
  EXPECT_DOUBLE_EQ(gl_bench_limit_ms(&row), 8.0 * (1 << 20) / 2e12 * 1e3) << "moved_bytes 0: bytes";
  row.moved_bytes = 4 * 8.0 * (1 << 20);
  EXPECT_DOUBLE_EQ(gl_bench_limit_ms(&row), 4 * 8.0 * (1 << 20) / 2e12 * 1e3);
  row.copy_gbps = 0;
  EXPECT_EQ(gl_bench_limit_ms(&row), 0.0) << "no copy measured, no limit";

  row.copy_gbps = 2000.0;
  char *text = nullptr;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  gl_bench_print_header(out);
  gl_bench_print_row(out, &row);
  gl_bench_csv_header(out);
  gl_bench_csv_row(out, "GPU", "2026-11-26", &row);
  fclose(out);
  std::string all(text, size);
  free(text);
  EXPECT_NE(all.find("%limit"), std::string::npos) << all;
  // 16.8 us of limit against 500 us: 3.4% of the limit, and 0.800 of the yardstick.
  EXPECT_NE(all.find("    3.4    0.800"), std::string::npos) << all;
  EXPECT_NE(all.find(",yardstick_ms,limit_ms\n"), std::string::npos) << all;
  EXPECT_NE(all.find(",0.400000,0.016777\n"), std::string::npos) << all;
}
