// Performance tests of the radix_sort lab: your best sort against CUB's DeviceRadixSort at
// n = 2^26 uniform uint32 keys, measured in this process. Every step you have written is timed
// (a stub step is skipped), its output checked against CUB's, and the fastest one reported:
//   keys_vs_cub  = CUB SortKeys ms  / your best radix_sort_keys ms
//   pairs_vs_cub = CUB SortPairs ms / your best radix_sort_pairs ms
// Both read the input and write a separate output, so they do the same work. The tests assert
// correctness only; the grader scores the ratios (grader/rubric/radix_sort.rubric).
#include <cstdio>
#include <numeric>

#include "gltest.h"

extern "C" {
#include "gpulabs/timer.h"
#include "gpulabs/yardstick/radix_sort.h"
#include "radix_sort.h"
}

namespace {

const size_t kN = (size_t)1 << 26;
const int kWarmup = 3;
const int kReps = 20;

struct Variant {
  radix_sort_step step;
  int digit_bits;
  const char *name;
};
const Variant kVariants[] = {{RADIX_STEP_SPLIT, 1, "2-split"},
                             {RADIX_STEP_DIGITS, 4, "3-digits-4bit"},
                             {RADIX_STEP_DIGITS, 8, "3-digits-8bit"},
                             {RADIX_STEP_ONESWEEP, 8, "4-onesweep"}};

struct SortCall {
  const Variant *variant;  // NULL: CUB
  bool pairs;
  const uint32_t *keys_in;
  uint32_t *keys_out;
  const uint32_t *values_in;
  uint32_t *values_out;
};

gl_status RunSort(void *context) {
  const SortCall *c = static_cast<const SortCall *>(context);
  if (c->variant == nullptr) {
    return c->pairs ? gl_yardstick_radix_sort_pairs(c->keys_in, c->keys_out, c->values_in,
                                                    c->values_out, kN, 0, 32)
                    : gl_yardstick_radix_sort_keys(c->keys_in, c->keys_out, kN, 0, 32);
  }
  radix_sort_options options = {c->variant->digit_bits, 0, 32};
  return c->pairs ? radix_sort_pairs(c->variant->step, c->keys_in, c->keys_out, c->values_in,
                                     c->values_out, kN, &options)
                  : radix_sort_keys(c->variant->step, c->keys_in, c->keys_out, kN, &options);
}

std::string Ms(double ms) {
  char text[32];
  snprintf(text, sizeof text, "%.4f", ms);
  return text;
}

// Times CUB and every written step on the same input; checks each output against CUB's.
void CompareWithCub(bool pairs, const char *metric) {
  std::vector<uint32_t> keys(kN), values(kN);
  gl_fill_u32(keys.data(), kN, GL_DIST_UNIFORM, gl::SeedFor(pairs ? 2 : 1));
  std::iota(values.begin(), values.end(), 0u);
  gl::DeviceBuffer<uint32_t> keys_in(keys), values_in(values);
  gl::DeviceBuffer<uint32_t> cub_keys(kN), cub_values(kN), keys_out(kN), values_out(kN);

  SortCall cub = {nullptr, pairs, keys_in.get(), cub_keys.get(), values_in.get(), cub_values.get()};
  double cub_ms = 0;
  GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, RunSort, &cub, kWarmup, kReps, &cub_ms));
  GL_ASSERT_DEVICE_OK("CUB's sort");
  std::vector<uint32_t> expected_keys = cub_keys.Download();
  std::vector<uint32_t> expected_values = pairs ? cub_values.Download() : std::vector<uint32_t>();

  const Variant *best = nullptr;
  double best_ms = 0;
  std::string detail;
  for (const Variant &variant : kVariants) {
    SCOPED_TRACE(variant.name);
    SortCall mine = {&variant, pairs, keys_in.get(), keys_out.get(), values_in.get(),
                     values_out.get()};
    keys_out.Poison();
    values_out.Poison();
    gl_clear_error();
    gl_status first = RunSort(&mine);
    if (first == GL_ERR_NOT_IMPLEMENTED) {
      detail += std::string(" ") + variant.name + "=not-written";
      continue;
    }
    GL_ASSERT_OK(first);
    GL_ASSERT_DEVICE_OK("the sort");
    ASSERT_TRUE(gl::ArraysEqual(expected_keys, keys_out.Download())) << "keys, vs CUB's";
    if (pairs) {
      ASSERT_TRUE(gl::ArraysEqual(expected_values, values_out.Download())) << "values, vs CUB's";
    }
    double ms = 0;
    GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, RunSort, &mine, kWarmup, kReps, &ms));
    detail += std::string(" ") + variant.name + "_ms=" + Ms(ms);
    if (best == nullptr || ms < best_ms) {
      best = &variant;
      best_ms = ms;
    }
  }
  ASSERT_NE(best, nullptr) << "no step of radix_sort_" << (pairs ? "pairs" : "keys")
                           << " is written yet: " << gl_last_error();
  EXPECT_EQ(radix_sort_release(), GL_OK);
  gl_yardstick_radix_sort_release();
  gl::ReportRatio(metric, cub_ms / best_ms,
                  "n=2^26 best=" + std::string(best->name) + " best_ms=" + Ms(best_ms) +
                      " cub_ms=" + Ms(cub_ms) + detail);
}

}  // namespace

class RadixSortPerf : public GpuTest {};

TEST_F(RadixSortPerf, KeysVsCub) { CompareWithCub(false, "keys_vs_cub"); }
TEST_F(RadixSortPerf, PairsVsCub) { CompareWithCub(true, "pairs_vs_cub"); }
