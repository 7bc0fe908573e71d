// Performance tests of the radix_sort lab: your best sort against CUB's DeviceRadixSort at
// n = 2^26 uniform uint32 keys, measured in this process. Every step you have written is timed
// (a stub step is skipped), its output checked against CUB's, and the fastest one reported; a
// step whose warm-up calls are each 1.5 times slower than a later step's time is timed by its
// warm-ups only (it cannot be the fastest):
//   keys_vs_cub  = CUB SortKeys ms  / your best radix_sort_keys ms
//   pairs_vs_cub = CUB SortPairs ms / your best radix_sort_pairs ms
// Both read the input and write a separate output, so they do the same work. Both are timed the
// sealed way (grader/shim/sealed_timing.h): every call gets fresh keys (uniform over 32 bits,
// drawn on the GPU from a seed of the call's own; the values are the keys' indices) and CUB's
// sort of them as the expected output, both outside the timed interval, so no answer kept from
// an earlier call can serve; outputs poisoned, each with a guard region past it, and the L2
// flushed before it; the clock around a device-wide synchronisation; the keys (and values) and
// the guard regions checked on the GPU after it. CUB's sort of each test's first keys is itself
// checked on the GPU (gl_yardstick_check_sort). The tests assert correctness only; the
// grader scores the ratios (labs/radix_sort/radix_sort.rubric).
//
// Floor: a sort reads every key and writes it once at least: 8 B per key, 16 B per pair. CUB's
// sort takes about 2 ms, so the few microseconds of per-call synchronisation do not matter.
#include <cstdio>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "gltest.h"
#include "sealed_timing.h"

extern "C" {
#include "radix_sort_yardstick.h"
#include "gpulabs/yardstick/check_sort.h"
#include "radix_sort.h"
}

namespace {

const size_t kN = (size_t)1 << 26;
const int kWarmup = 3;
const int kReps = 20;
const double kGiveUp = 1.5;  // see CompareWithCub

struct Variant {
  radix_sort_step step;
  int digit_bits;
  const char *name;
};
const Variant kVariants[] = {{RADIX_STEP_SPLIT, 1, "2-split"},
                             {RADIX_STEP_DIGITS, 4, "3-digits-4bit"},
                             {RADIX_STEP_DIGITS, 8, "3-digits-8bit"},
                             {RADIX_STEP_ONESWEEP, 8, "4-onesweep"},
                             {RADIX_STEP_ONESWEEP_TUNED, 8, "5-onesweep-tuned"}};

std::string Ms(double ms) {
  char text[32];
  snprintf(text, sizeof text, "%.4f", ms);
  return text;
}

// The keys every call sorts, drawn afresh before each call, and CUB's sort of them: the expected
// keys and, for pairs, values (each value its key's index). The first draw's sort is checked.
struct SortInputs {
  bool pairs;
  gl::DeviceBuffer<uint32_t> keys_in, values_in, want_keys, want_values;
  int draws = 0;

  explicit SortInputs(bool pairs_)
      : pairs(pairs_), keys_in(kN), values_in(Iota()), want_keys(kN, gl::kPrivate),
        want_values(pairs_ ? kN : 0, gl::kPrivate) {}

  static std::vector<uint32_t> Iota() {
    std::vector<uint32_t> iota(kN);
    std::iota(iota.begin(), iota.end(), 0u);
    return iota;
  }

  gl_status Draw(uint64_t seed) {
    GL_TRY(gl_sealed_fill_u32(keys_in.get(), kN, seed));
    GL_TRY(pairs ? gl_yardstick_radix_sort_pairs(keys_in.get(), want_keys.get(), values_in.get(),
                                                 want_values.get(), kN, 0, 32)
                 : gl_yardstick_radix_sort_keys(keys_in.get(), want_keys.get(), kN, 0, 32));
    if (draws++ > 0) return GL_OK;
    // Keys in order and the input's keys; for pairs, each value the index of its key, each
    // once, stably.
    size_t first_wrong = 0;
    GL_TRY(gl_yardstick_check_sort(keys_in.get(), want_keys.get(),
                                         pairs ? want_values.get() : nullptr, kN, &first_wrong));
    if (first_wrong == SIZE_MAX) return GL_OK;
    return gl_fail(GL_ERR_CUDA, "CUB's sort is wrong at index %zu", first_wrong);
  }
};

// Times CUB and every written step on fresh keys; checks every output against CUB's sort.
void CompareWithCub(bool pairs, const char *metric) {
  SortInputs inputs(pairs);
  gl::DeviceBuffer<uint32_t> keys_out(gl::WithGuard<uint32_t>(kN));
  gl::DeviceBuffer<uint32_t> values_out(gl::WithGuard<uint32_t>(kN));
  gl::DeviceBuffer<uint32_t> cub_keys(gl::WithGuard<uint32_t>(kN), gl::kPrivate);
  gl::DeviceBuffer<uint32_t> cub_values(gl::WithGuard<uint32_t>(kN), gl::kPrivate);

  // 4 B read + 4 B written per key, as much again per value.
  const double floor_bytes = (pairs ? 16.0 : 8.0) * (double)kN;
  auto side = [&](const std::string &name, const gl::DeviceBuffer<uint32_t> &d_keys,
                  const gl::DeviceBuffer<uint32_t> &d_values) {
    gl::SealedSide s;
    s.name = name;
    s.draw = [&inputs](uint64_t seed) { return inputs.Draw(seed); };
    gl::SealedOutput k, v;
    k.what = "the keys";
    k.device = d_keys.get();
    k.bytes = d_keys.size() * sizeof(uint32_t);
    k.is_signed = false;
    k.expected = inputs.want_keys.get();
    k.count = kN;
    v = k;
    v.what = "the values";
    v.device = d_values.get();
    v.bytes = d_values.size() * sizeof(uint32_t);
    v.expected = inputs.want_values.get();
    s.outputs.push_back(k);
    if (pairs) s.outputs.push_back(v);
    s.floor_bytes = floor_bytes;
    return s;
  };

  gl::SealedSide cub = side(pairs ? "CUB DeviceRadixSort::SortPairs" : "CUB DeviceRadixSort::SortKeys",
                            cub_keys, cub_values);
  cub.yardstick = true;
  cub.run = [&]() {
    return pairs ? gl_yardstick_radix_sort_pairs(inputs.keys_in.get(), cub_keys.get(),
                                                 inputs.values_in.get(), cub_values.get(), kN, 0,
                                                 32)
                 : gl_yardstick_radix_sort_keys(inputs.keys_in.get(), cub_keys.get(), kN, 0, 32);
  };
  double cub_ms = 0;
  ASSERT_TRUE(gl::TimeSealed(cub, kWarmup, kReps, &cub_ms));

  // The last step first: a step whose warm-up calls each take more than kGiveUp times the best
  // so far cannot be the fastest, and is not timed further (steps 2 and 3 take several times
  // step 5's time a call, and timing them fully would add seconds to every grade).
  const size_t count = sizeof kVariants / sizeof kVariants[0];
  std::vector<gl::SealedSide> steps;
  for (const Variant &variant : kVariants) {
    gl::SealedSide mine = side(std::string(pairs ? "radix_sort_pairs " : "radix_sort_keys ") +
                                   variant.name,
                               keys_out, values_out);
    mine.run = [&, variant]() {
      radix_sort_options options = {variant.digit_bits, 0, 32};
      return pairs ? radix_sort_pairs(variant.step, inputs.keys_in.get(), keys_out.get(),
                                      inputs.values_in.get(), values_out.get(), kN, &options)
                   : radix_sort_keys(variant.step, inputs.keys_in.get(), keys_out.get(), kN,
                                     &options);
    };
    steps.push_back(mine);
  }
  gl::SealedFastest fastest;
  ASSERT_TRUE(gl::TimeFastest(steps, kWarmup, kReps, kGiveUp, &fastest));
  ASSERT_GE(fastest.best, 0) << "no step of radix_sort_" << (pairs ? "pairs" : "keys")
                             << " is written yet:" << fastest.not_written;
  std::string times;
  for (size_t i = 0; i < count; ++i) {
    const std::string warm = fastest.cut_short[i] ? "(warm-up)" : "";
    times += std::string(" ") + kVariants[i].name +
             (fastest.ms[i] == 0 ? "=not-written" : "_ms=" + Ms(fastest.ms[i]) + warm);
  }
  const Variant *best = &kVariants[fastest.best];
  const double best_ms = fastest.best_ms;
  EXPECT_EQ(radix_sort_release(), GL_OK);
  gl_yardstick_radix_sort_release();
  gl::ReportRatio(metric, cub_ms / best_ms,
                  "n=2^26 best=" + std::string(best->name) + " best_ms=" + Ms(best_ms) +
                      " cub_ms=" + Ms(cub_ms) + times);
}

}  // namespace

class RadixSortPerf : public GpuTest {};

TEST_F(RadixSortPerf, KeysVsCub) { CompareWithCub(false, "keys_vs_cub"); }
TEST_F(RadixSortPerf, PairsVsCub) { CompareWithCub(true, "pairs_vs_cub"); }
