// Performance test of the bitonic_sort lab: the fastest working step against CUB, in the same
// process, at n = 2^24 uint32 keys. Labels: bitonic_sort;performance;gpu (run serially).
//
// Metrics (the grader scores the first, reports the second):
//   best_vs_cub_merge  CUB DeviceMergeSort::SortKeys time / the best bitonic step's time
//   best_vs_cub_radix  CUB DeviceRadixSort::SortKeys time / the best bitonic step's time
// All three are timed the sealed way (grader/shim/sealed_timing.h): every call gets fresh keys
// (uniform over 32 bits, drawn on the GPU from a seed of the call's own) and CUB's radix sort of
// them as the expected output, both outside the timed interval, so no answer kept from an
// earlier call can serve; the work buffer poisoned, with a guard region past it, and the L2
// flushed before it; the clock around a device-wide synchronisation; the keys and the guard
// region checked on the GPU after it. Bitonic sort and CUB's merge sort both sort in place, so
// their keys are drawn straight into the work buffer they sort (outside the interval, as every
// draw); CUB's radix sort reads one buffer and writes another, so its keys are drawn into an
// input buffer of their own. CUB's radix sort of the first keys is itself checked on the GPU
// (gl_yardstick_check_sort).
//
// Every written step is timed, the last first; one whose warm-up calls are each 1.5 times slower
// than a later step's time is timed by its warm-ups only (it cannot be the fastest).
//
// Floor: a sort reads every key and writes it once at least, 8 B per key. The calls
// take 0.5 ms and more, so the few microseconds of per-call synchronisation do not matter.
#include <cstdio>
#include <string>
#include <vector>

#include "gltest.h"
#include "sealed_timing.h"

#include "bitonic_sort.h"

extern "C" {
#include "gpulabs/check.h"
#include "bitonic_sort_yardstick.h"
#include "gpulabs/yardstick/check_sort.h"
}

namespace {

const size_t kN = (size_t)1 << 24;
const int kWarmup = 3;
const int kReps = 20;
const double kGiveUp = 1.5;  // see BestVsCubMerge

std::string Ms(double ms) {
  char text[32];
  snprintf(text, sizeof text, "%.4f ms", ms);
  return text;
}

// The keys every call sorts, drawn afresh before each call into the buffer the call reads, and
// their expected order: CUB's radix sort of them (the first draw's checked on the GPU).
struct SortInputs {
  gl::DeviceBuffer<uint32_t> sorted;
  int draws = 0;

  SortInputs() : sorted(kN, gl::kPrivate) {}

  gl_status Draw(uint32_t *keys, uint64_t seed) {
    GL_TRY(gl_sealed_fill_u32(keys, kN, seed));
    GL_TRY(bitonic_yardstick_cub_radix_sort_keys(keys, sorted.get(), kN, 0));
    if (draws++ > 0) return GL_OK;
    size_t first_wrong = 0;
    GL_TRY(gl_yardstick_check_sort(keys, sorted.get(), nullptr, kN, &first_wrong));
    if (first_wrong == SIZE_MAX) return GL_OK;
    return gl_fail(GL_ERR_CUDA, "CUB's radix sort is wrong at index %zu", first_wrong);
  }
};

}  // namespace

class BitonicSortPerf : public GpuTest {
 protected:
  void TearDown() override { bitonic_yardstick_release(); }
};

TEST_F(BitonicSortPerf, BestVsCubMerge) {
  SortInputs inputs;
  gl::DeviceBuffer<uint32_t> work(gl::WithGuard<uint32_t>(kN)), input(kN, gl::kPrivate);

  // keys: where the side's call reads its keys (the work buffer itself for an in-place sort).
  auto side = [&](const std::string &name, bool yardstick, uint32_t *keys) {
    gl::SealedSide s;
    s.name = name;
    s.yardstick = yardstick;
    s.draw = [&inputs, keys](uint64_t seed) { return inputs.Draw(keys, seed); };
    gl::SealedOutput out;
    out.what = "the keys";
    out.device = work.get();
    out.bytes = work.size() * sizeof(uint32_t);
    out.is_signed = false;
    out.expected = inputs.sorted.get();
    out.count = kN;
    s.outputs.push_back(out);
    s.floor_bytes = 8.0 * (double)kN;  // 4 B read + 4 B written per key
    return s;
  };

  gl::SealedSide merge = side("CUB DeviceMergeSort::SortKeys", true, work.get());
  merge.run = [&]() { return bitonic_yardstick_cub_merge_sort_keys(work.get(), kN, 0); };
  gl::SealedSide radix = side("CUB DeviceRadixSort::SortKeys", true, input.get());
  radix.run = [&]() {
    return bitonic_yardstick_cub_radix_sort_keys(input.get(), work.get(), kN, 0);
  };
  double merge_ms = 0, radix_ms = 0;
  ASSERT_TRUE(gl::TimeSealed(merge, kWarmup, kReps, &merge_ms));
  ASSERT_TRUE(gl::TimeSealed(radix, kWarmup, kReps, &radix_ms));

  // Every step that is written, timed, the last first; the fastest counts. A step whose warm-up
  // calls each take more than kGiveUp times the best so far cannot be the fastest, and is not
  // timed further.
  std::vector<gl::SealedSide> steps;
  for (int s = BITONIC_FIRST_STEP; s <= BITONIC_LAST_STEP; ++s) {
    const bitonic_step step = (bitonic_step)s;
    gl::SealedSide mine =
        side(std::string("bitonic_sort_keys ") + bitonic_step_name(step), false, work.get());
    mine.run = [&, step]() {
      return bitonic_sort_keys(step, BITONIC_ASCENDING, work.get(), kN, 0);
    };
    steps.push_back(mine);
  }
  gl::SealedFastest fastest;
  ASSERT_TRUE(gl::TimeFastest(steps, kWarmup, kReps, kGiveUp, &fastest));
  std::string timings;
  for (int s = BITONIC_FIRST_STEP; s <= BITONIC_LAST_STEP; ++s) {
    const size_t k = (size_t)(s - BITONIC_FIRST_STEP);  // its place in `steps`
    const char *name = bitonic_step_name((bitonic_step)s);
    const std::string warm = fastest.cut_short[k] ? "(warm-up)" : "";
    timings += std::string(" ") + name +
               (fastest.ms[k] == 0 ? "=not-implemented" : "=" + Ms(fastest.ms[k]) + warm);
  }
  ASSERT_GE(fastest.best, 0) << "no step of bitonic sort is implemented:" << timings;
  const bitonic_step best_step = (bitonic_step)(BITONIC_FIRST_STEP + fastest.best);
  const double best_ms = fastest.best_ms;

  std::string detail = "n=2^24 best=" + std::string(bitonic_step_name(best_step)) + " " +
                       Ms(best_ms) + " cub_merge=" + Ms(merge_ms) + " cub_radix=" + Ms(radix_ms) +
                       " (keys drawn outside the timed interval);" + timings;
  gl::ReportRatio("best_vs_cub_merge", merge_ms / best_ms, detail);
  gl::ReportRatio("best_vs_cub_radix", radix_ms / best_ms, detail);
}
