// Correctness tests of the compaction lab, one gtest case per (step, block size) looping over
// sizes, keep ratios (0%, 1%, 50%, 99%, 100%) and both predicates. Stable steps (2, 3, 5, 6) must
// match the CPU reference exactly; unordered ones (4a, 4b, 4c) must produce the same multiset.
// Every step must write its count and nothing past it.
#include <algorithm>
#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "gltest.h"

extern "C" {
#include "compaction.h"
#include "compaction_reference.h"
}

namespace {

const double kKeepRatios[] = {0.0, 0.01, 0.5, 0.99, 1.0};
const compaction_rule kRules[] = {COMPACTION_KEEP_NONZERO, COMPACTION_KEEP_BELOW};

gl_keep_rule RefRule(compaction_rule rule) {
  return rule == COMPACTION_KEEP_BELOW ? GL_KEEP_BELOW : GL_KEEP_NONZERO;
}

// An input whose elements the predicate keeps with probability `ratio`: zeros and non-zeros for
// the non-zero rule; uniform values and a threshold at that quantile for the threshold rule.
struct Input {
  std::vector<int> values;
  compaction_pred pred;
};

// Every input value lies in [kLo, kHi]: far from the poison value.
const int kLo = -(1 << 20), kHi = (1 << 20) - 1;

Input MakeInput(size_t n, double ratio, compaction_rule rule, uint64_t label) {
  Input input;
  input.values.resize(n);
  gl_fill_int(input.values.data(), n, kLo, kHi, GL_DIST_UNIFORM, gl::SeedFor(label));
  input.pred.rule = rule;
  input.pred.threshold = 0;
  if (rule == COMPACTION_KEEP_NONZERO) {
    std::vector<int> flags(n);
    gl_fill_flags(flags.data(), n, ratio, gl::SeedFor(label + 1));
    for (size_t i = 0; i < n; ++i) {
      int &x = input.values[i];
      x = flags[i] ? (x == 0 ? 1 : x) : 0;
    }
  } else {
    input.pred.threshold = kLo + (int)(ratio * ((double)kHi - kLo + 1));
  }
  return input;
}

std::string Describe(const char *step, int block_size, size_t n, double ratio,
                     compaction_pred pred) {
  return std::string(step) + ", block_size " + std::to_string(block_size) + ", n = " +
         std::to_string(n) + ", keep ratio " + std::to_string(ratio) + ", predicate " +
         (pred.rule == COMPACTION_KEEP_NONZERO ? std::string("x != 0")
                                               : "x < " + std::to_string(pred.threshold));
}

// The kept elements in order, then (in *rest) the others in order.
std::vector<int> Expected(const Input &input, std::vector<int> *rest) {
  std::vector<int> kept;
  kept.reserve(input.values.size());
  for (int x : input.values) {
    if (gl_ref_keeps(RefRule(input.pred.rule), input.pred.threshold, x)) {
      kept.push_back(x);
    } else if (rest != nullptr) {
      rest->push_back(x);
    }
  }
  return kept;
}

// Same elements, any order. Large arrays are tallied (values lie in [kLo, kHi]), small ones
// sorted, so that the failure names the first element that differs.
::testing::AssertionResult SameMultiset(std::vector<int> expected, std::vector<int> got) {
  if (expected.size() < ((size_t)1 << 16)) {
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    ::testing::AssertionResult same = gl::ArraysEqual(expected, got);
    if (!same) same << " (both sorted: this step may reorder)";
    return same;
  }
  std::vector<int> tally((size_t)(kHi - kLo) + 1, 0);
  for (int x : expected) ++tally[(size_t)(x - kLo)];
  for (size_t i = 0; i < got.size(); ++i) {
    int x = got[i];
    if (x < kLo || x > kHi || tally[(size_t)(x - kLo)] == 0) {
      return ::testing::AssertionFailure()
             << "index " << i << " of " << got.size() << " holds " << x
             << (x == GL_POISON_I32 ? " (never written: still the poison value)"
                                    : ", which the input does not hold that many times")
             << "; seed 0x" << std::hex << gl::Seed();
    }
    --tally[(size_t)(x - kLo)];
  }
  return ::testing::AssertionSuccess();
}

// out[0, count) must equal `expected` (in order, or as a multiset) and out[count, n) must still
// hold the poison.
::testing::AssertionResult CheckPart(const std::vector<int> &expected, std::vector<int> got,
                                     bool ordered) {
  for (size_t i = expected.size(); i < got.size(); ++i) {
    if (got[i] != GL_POISON_I32) {
      return ::testing::AssertionFailure()
             << "wrote past the count: index " << i << " (count " << expected.size() << ", n = "
             << got.size() << ") holds " << got[i] << "; seed 0x" << std::hex << gl::Seed();
    }
  }
  got.resize(expected.size());
  return ordered ? gl::ArraysEqual(expected, got) : SameMultiset(expected, std::move(got));
}

int DownloadInt(const gl::DeviceBuffer<int> &buffer, size_t index) {
  return buffer.Download()[index];
}

// Sizes of a per-block-size case, and of the large case (default block size).
std::vector<size_t> SmallSizes() { return gl::StandardSizes((size_t)1 << 20); }
std::vector<size_t> LargeSizes() {
  return gl::CapSizes({((size_t)1 << 22) + 17, ((size_t)1 << 24) - 5});
}

// Step 6 also runs each block size at a size where its ramp of smaller first tiles is on: the
// ramp covers 264 q block_size elements, q = (75% of the blocks the GPU runs at once) / 11, and
// is used when n is more than twice that. On an H100 (132 SMs) q is 9 x the blocks an SM holds,
// so the ramp covers 2376 x the threads an SM holds: 2.4 million elements at the default 512
// threads (two blocks an SM) and at most that at any block size (the kernel's 64 registers a
// thread let an SM hold 1,024 of its threads). 2^23 + 3 turns it on at every block size, and
// 2^24 - 5 of LargeSizes() at the default one. Under a cap the size moves down to it (a
// sanitizer's 6.3 million still has the ramp on an H100), unless it would then be no larger
// than SmallSizes()' largest (the CPU backend: 100,003), which those cases already run; there
// the ramp is on at 100,003 for blocks of 32 to 128 threads (its virtual GPU has 2 SMs).
std::vector<size_t> RampSizes() {
  const size_t n = gl::CapSize(((size_t)1 << 23) + 3);
  return n > ((size_t)1 << 20) ? std::vector<size_t>{n} : std::vector<size_t>{};
}

// The large case draws fewer ratios: 0% and 100% are already covered at every small size.
std::vector<double> RatiosFor(bool large) {
  if (large) return {0.01, 0.5, 0.99};
  return std::vector<double>(std::begin(kKeepRatios), std::end(kKeepRatios));
}

// Steps 2, 4a, 4b, 5, 6: compaction_compact.
void RunCompact(compaction_step step, int block_size, const std::vector<size_t> &sizes,
                bool large) {
  const bool ordered = compaction_step_is_stable(step) != 0;
  uint64_t label = 1000 * (uint64_t)step + (uint64_t)block_size;
  for (size_t n : sizes) {
    gl::DeviceBuffer<int> in(n), out(n), count(1);
    gl::DeviceBuffer<unsigned char> scratch(compaction_scratch_bytes(step, n));
    for (double ratio : RatiosFor(large)) {
      for (compaction_rule rule : kRules) {
        Input input = MakeInput(n, ratio, rule, label += 7);
        SCOPED_TRACE(Describe(compaction_step_name(step), block_size, n, ratio, input.pred));
        in.Upload(input.values);
        out.Poison();
        count.Poison();
        scratch.Poison();
        GL_ASSERT_OK(compaction_compact(step, input.pred, in.get(), out.get(), count.get(), n,
                                        block_size, scratch.get(), scratch.size()));
        GL_ASSERT_DEVICE_OK(compaction_step_name(step));
        std::vector<int> expected = Expected(input, nullptr);
        ASSERT_EQ(DownloadInt(count, 0), (int)expected.size()) << "the count";
        ASSERT_TRUE(CheckPart(expected, out.Download(), ordered));
      }
    }
  }
}

// Step 3: compaction_split, and compaction_split_pairs with values that record where each key
// came from (so a value that strays from its key is caught).
void RunSplit(bool pairs, int block_size, const std::vector<size_t> &sizes, bool large) {
  const compaction_step step = pairs ? COMPACTION_STEP_SPLIT_PAIRS : COMPACTION_STEP_SPLIT;
  uint64_t label = 1000 * (uint64_t)step + (uint64_t)block_size;
  for (size_t n : sizes) {
    gl::DeviceBuffer<int> keys(n), values(n), keys_out(n), values_out(n), count(1);
    gl::DeviceBuffer<unsigned char> scratch(compaction_scratch_bytes(step, n));
    for (double ratio : RatiosFor(large)) {
      for (compaction_rule rule : kRules) {
        Input input = MakeInput(n, ratio, rule, label += 7);
        SCOPED_TRACE(Describe(compaction_step_name(step), block_size, n, ratio, input.pred));
        std::vector<int> value_in(n);
        gl_fill_int(value_in.data(), n, 0, INT_MAX, GL_DIST_UNIFORM, gl::SeedFor(label + 3));
        keys.Upload(input.values);
        values.Upload(value_in);
        keys_out.Poison();
        values_out.Poison();
        count.Poison();
        scratch.Poison();
        if (pairs) {
          GL_ASSERT_OK(compaction_split_pairs(input.pred, keys.get(), values.get(), keys_out.get(),
                                              values_out.get(), count.get(), n, block_size,
                                              scratch.get(), scratch.size()));
        } else {
          GL_ASSERT_OK(compaction_split(input.pred, keys.get(), keys_out.get(), count.get(), n,
                                        block_size, scratch.get(), scratch.size()));
        }
        GL_ASSERT_DEVICE_OK(compaction_step_name(step));
        std::vector<int> expected_keys(n), expected_values(n);
        size_t kept = gl_ref_split_pairs(input.values.data(), value_in.data(), n,
                                         RefRule(rule), input.pred.threshold,
                                         expected_keys.data(), expected_values.data());
        ASSERT_EQ(DownloadInt(count, 0), (int)kept) << "the count";
        ASSERT_TRUE(gl::ArraysEqual(expected_keys, keys_out.Download())) << "the keys";
        if (pairs) {
          ASSERT_TRUE(gl::ArraysEqual(expected_values, values_out.Download())) << "the values";
        }
      }
    }
  }
}

// Step 4c: both buffers as multisets, both counts, nothing written past either count.
void RunComplement(int block_size, const std::vector<size_t> &sizes, bool large) {
  uint64_t label = 1000 * (uint64_t)COMPACTION_STEP_COMPLEMENT + (uint64_t)block_size;
  for (size_t n : sizes) {
    gl::DeviceBuffer<int> in(n), kept(n), rest(n), counts(2);
    for (double ratio : RatiosFor(large)) {
      for (compaction_rule rule : kRules) {
        Input input = MakeInput(n, ratio, rule, label += 7);
        SCOPED_TRACE(Describe("4c-complement", block_size, n, ratio, input.pred));
        in.Upload(input.values);
        kept.Poison();
        rest.Poison();
        counts.Poison();
        GL_ASSERT_OK(compaction_enqueue_complement(input.pred, in.get(), kept.get(), rest.get(),
                                                   counts.get(), n, block_size));
        GL_ASSERT_DEVICE_OK("4c-complement");
        std::vector<int> expected_rest;
        std::vector<int> expected_kept = Expected(input, &expected_rest);
        std::vector<int> got_counts = counts.Download();
        ASSERT_EQ(got_counts[0], (int)expected_kept.size()) << "the count of kept elements";
        ASSERT_EQ(got_counts[1], (int)expected_rest.size()) << "the count of the others";
        ASSERT_TRUE(CheckPart(expected_kept, kept.Download(), false)) << "the kept buffer";
        ASSERT_TRUE(CheckPart(expected_rest, rest.Download(), false)) << "the other buffer";
      }
    }
  }
}

}  // namespace

// One gtest case per block size the lab allows (and the default, 0, on large sizes).
#define GL_COMPACTION_BLOCK_CASES(Suite, Call)                          \
  TEST_F(Suite, Block32) { Call(32, SmallSizes(), false); }             \
  TEST_F(Suite, Block64) { Call(64, SmallSizes(), false); }             \
  TEST_F(Suite, Block128) { Call(128, SmallSizes(), false); }           \
  TEST_F(Suite, Block256) { Call(256, SmallSizes(), false); }           \
  TEST_F(Suite, Block512) { Call(512, SmallSizes(), false); }           \
  TEST_F(Suite, Block1024) { Call(1024, SmallSizes(), false); }         \
  TEST_F(Suite, LargeSizesDefaultBlock) { Call(0, LargeSizes(), true); }

class CompactionStep2 : public GpuTest {};
class CompactionStep3Split : public GpuTest {};
class CompactionStep3SplitPairs : public GpuTest {};
class CompactionStep4Atomic : public GpuTest {};
class CompactionStep4WarpAggregated : public GpuTest {};
class CompactionStep4Complement : public GpuTest {};
class CompactionStep5 : public GpuTest {};
class CompactionStep6 : public GpuTest {};
class CompactionErrors : public GpuTest {};

static void Step2(int block, const std::vector<size_t> &sizes, bool large) {
  RunCompact(COMPACTION_STEP_MAP_SCAN_SCATTER, block, sizes, large);
}
static void Step3Split(int block, const std::vector<size_t> &sizes, bool large) {
  RunSplit(false, block, sizes, large);
}
static void Step3SplitPairs(int block, const std::vector<size_t> &sizes, bool large) {
  RunSplit(true, block, sizes, large);
}
static void Step4Atomic(int block, const std::vector<size_t> &sizes, bool large) {
  RunCompact(COMPACTION_STEP_ATOMIC, block, sizes, large);
}
static void Step4Warp(int block, const std::vector<size_t> &sizes, bool large) {
  RunCompact(COMPACTION_STEP_WARP_AGGREGATED, block, sizes, large);
}
static void Step5(int block, const std::vector<size_t> &sizes, bool large) {
  RunCompact(COMPACTION_STEP_SINGLE_PASS, block, sizes, large);
}
static void Step6(int block, const std::vector<size_t> &sizes, bool large) {
  RunCompact(COMPACTION_STEP_PREFETCH, block, sizes, large);
  if (!large) RunCompact(COMPACTION_STEP_PREFETCH, block, RampSizes(), true);
}

GL_COMPACTION_BLOCK_CASES(CompactionStep2, Step2)
GL_COMPACTION_BLOCK_CASES(CompactionStep3Split, Step3Split)
GL_COMPACTION_BLOCK_CASES(CompactionStep3SplitPairs, Step3SplitPairs)
GL_COMPACTION_BLOCK_CASES(CompactionStep4Atomic, Step4Atomic)
GL_COMPACTION_BLOCK_CASES(CompactionStep4WarpAggregated, Step4Warp)
GL_COMPACTION_BLOCK_CASES(CompactionStep4Complement, RunComplement)
GL_COMPACTION_BLOCK_CASES(CompactionStep5, Step5)
GL_COMPACTION_BLOCK_CASES(CompactionStep6, Step6)

// The thesis's kd-tree example: triangles t0..t5 on sides r l r l l r go to t1 t3 t4 t0 t2 t5.
// Pairs: the keys are the sides (l = 1, kept by x != 0), the values the triangle numbers.
TEST_F(CompactionStep3SplitPairs, WorkedExampleFromTheThesis) {
  const std::vector<int> side = {0, 1, 0, 1, 1, 0}, triangle = {0, 1, 2, 3, 4, 5};
  gl::DeviceBuffer<int> keys(side), values(triangle), keys_out(6), values_out(6), count(1);
  gl::DeviceBuffer<unsigned char> scratch(
      compaction_scratch_bytes(COMPACTION_STEP_SPLIT_PAIRS, 6));
  compaction_pred l_side = {COMPACTION_KEEP_NONZERO, 0};
  GL_ASSERT_OK(compaction_split_pairs(l_side, keys.get(), values.get(), keys_out.get(),
                                      values_out.get(), count.get(), 6, 0, scratch.get(),
                                      scratch.size()));
  GL_ASSERT_DEVICE_OK("compaction_split_pairs");
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{1, 3, 4, 0, 2, 5}, values_out.Download()));
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{1, 1, 1, 0, 0, 0}, keys_out.Download()));
  EXPECT_EQ(DownloadInt(count, 0), 3) << "nf, the number of triangles moved left";
}

// Keys alone: triangle i is i on the left side and 100 + i on the right, kept by x < 100.
TEST_F(CompactionStep3Split, WorkedExampleFromTheThesis) {
  gl::DeviceBuffer<int> in(std::vector<int>{100, 1, 102, 3, 4, 105}), out(6), count(1);
  gl::DeviceBuffer<unsigned char> scratch(compaction_scratch_bytes(COMPACTION_STEP_SPLIT, 6));
  compaction_pred left = {COMPACTION_KEEP_BELOW, 100};
  GL_ASSERT_OK(compaction_split(left, in.get(), out.get(), count.get(), 6, 0, scratch.get(),
                                scratch.size()));
  GL_ASSERT_DEVICE_OK("compaction_split");
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{1, 3, 4, 100, 102, 105}, out.Download()));
  EXPECT_EQ(DownloadInt(count, 0), 3);
}

// Arrays need not start where cudaMalloc put them: input and output one and three ints in.
void RunOffsetPointers(compaction_step step, size_t n = 100003) {
  for (compaction_rule rule : kRules) {
    Input input = MakeInput(n, 0.5, rule, 9000 + (uint64_t)step * 2 + (uint64_t)rule);
    SCOPED_TRACE(Describe(compaction_step_name(step), 0, n, 0.5, input.pred));
    std::vector<int> padded_in(n + 1, 0);
    std::copy(input.values.begin(), input.values.end(), padded_in.begin() + 1);
    gl::DeviceBuffer<int> in(padded_in), out(n + 3), count(1);
    gl::DeviceBuffer<unsigned char> scratch(compaction_scratch_bytes(step, n));
    std::vector<int> rest;
    std::vector<int> kept = Expected(input, &rest);
    std::vector<int> got;
    if (step == COMPACTION_STEP_SPLIT) {
      GL_ASSERT_OK(compaction_split(input.pred, in.get() + 1, out.get() + 3, count.get(), n, 0,
                                    scratch.get(), scratch.size()));
      kept.insert(kept.end(), rest.begin(), rest.end());
    } else {
      GL_ASSERT_OK(compaction_compact(step, input.pred, in.get() + 1, out.get() + 3, count.get(),
                                      n, 0, scratch.get(), scratch.size()));
    }
    GL_ASSERT_DEVICE_OK(compaction_step_name(step));
    std::vector<int> all = out.Download();
    ASSERT_EQ(all[0], GL_POISON_I32) << "wrote before the output";
    ASSERT_EQ(all[2], GL_POISON_I32) << "wrote before the output";
    ASSERT_TRUE(CheckPart(kept, std::vector<int>(all.begin() + 3, all.end()),
                          compaction_step_is_stable(step) != 0));
  }
}

TEST_F(CompactionStep2, OffsetPointers) { RunOffsetPointers(COMPACTION_STEP_MAP_SCAN_SCATTER); }
TEST_F(CompactionStep3Split, OffsetPointers) { RunOffsetPointers(COMPACTION_STEP_SPLIT); }
TEST_F(CompactionStep4Atomic, OffsetPointers) { RunOffsetPointers(COMPACTION_STEP_ATOMIC); }
TEST_F(CompactionStep4WarpAggregated, OffsetPointers) {
  RunOffsetPointers(COMPACTION_STEP_WARP_AGGREGATED);
}
TEST_F(CompactionStep5, OffsetPointers) { RunOffsetPointers(COMPACTION_STEP_SINGLE_PASS); }
// Step 6 at a size where the ramp and the prefetch are on (RampSizes()): an input one int past
// a 16-byte boundary must not be prefetched (the bulk prefetch needs aligned addresses).
TEST_F(CompactionStep6, OffsetPointers) {
  RunOffsetPointers(COMPACTION_STEP_PREFETCH);
  for (size_t n : RampSizes()) RunOffsetPointers(COMPACTION_STEP_PREFETCH, n);
}

// The look-back must give the same answer on every run: a race shows as a run that differs.
void RunRepeated(compaction_step step, size_t n, std::initializer_list<int> block_sizes) {
  Input input = MakeInput(n, 0.75, COMPACTION_KEEP_NONZERO, 77);
  std::vector<int> expected = Expected(input, nullptr);
  gl::DeviceBuffer<int> in(input.values), out(n), count(1);
  gl::DeviceBuffer<unsigned char> scratch(compaction_scratch_bytes(step, n));
  for (int block_size : block_sizes) {
    for (int run = 0; run < 4; ++run) {
      SCOPED_TRACE("block_size " + std::to_string(block_size) + ", run " + std::to_string(run));
      out.Poison();
      scratch.Poison();
      GL_ASSERT_OK(compaction_compact(step, input.pred, in.get(), out.get(), count.get(), n,
                                      block_size, scratch.get(), scratch.size()));
      GL_ASSERT_DEVICE_OK(compaction_step_name(step));
      ASSERT_EQ(DownloadInt(count, 0), (int)expected.size());
      ASSERT_TRUE(CheckPart(expected, out.Download(), true));
    }
  }
}

TEST_F(CompactionStep5, RepeatedRunsAgree) {
  RunRepeated(COMPACTION_STEP_SINGLE_PASS, gl::CapSize(((size_t)1 << 22) + 17), {32, 256, 1024});
}
// Step 6 with its ramp on (see RampSizes()), at the smallest, the default and the largest block.
TEST_F(CompactionStep6, RepeatedRunsAgree) {
  RunRepeated(COMPACTION_STEP_PREFETCH, gl::CapSize(((size_t)1 << 23) + 3), {32, 0, 1024});
}

// ---- Bad input: a clear status and message, no launch. These earn no points. ----

TEST(CompactionApi, StepNamesNumbersAndOrder) {
  const char *names[] = {"2-map-scan-scatter", "3-split",       "3-split-pairs",
                         "4a-atomic",          "4b-warp-aggregated", "4c-complement",
                         "5-single-pass",      "6-prefetch"};
  const int numbers[] = {2, 3, 3, 4, 4, 4, 5, 6};
  const int stable[] = {1, 1, 1, 0, 0, 0, 1, 1};
  ASSERT_EQ(COMPACTION_STEP_COUNT, 8);
  for (int s = 0; s < COMPACTION_STEP_COUNT; ++s) {
    EXPECT_STREQ(compaction_step_name((compaction_step)s), names[s]);
    EXPECT_EQ(compaction_step_number((compaction_step)s), numbers[s]);
    EXPECT_EQ(compaction_step_is_stable((compaction_step)s), stable[s]);
  }
  EXPECT_STREQ(compaction_step_name(COMPACTION_STEP_COUNT), "unknown");
  EXPECT_STREQ(compaction_step_name((compaction_step)-1), "unknown");
  EXPECT_GE(compaction_scratch_bytes(COMPACTION_STEP_MAP_SCAN_SCATTER, 1000),
            2 * 1000 * sizeof(int));
  EXPECT_GT(compaction_scratch_bytes(COMPACTION_STEP_SINGLE_PASS, 1000), 0u);
  EXPECT_EQ(compaction_scratch_bytes(COMPACTION_STEP_PREFETCH, 1000),
            compaction_scratch_bytes(COMPACTION_STEP_SINGLE_PASS, 1000));
}

TEST_F(CompactionErrors, NullPointers) {
  gl::DeviceBuffer<int> in(64), out(64), count(2);
  gl::DeviceBuffer<unsigned char> scratch(
      compaction_scratch_bytes(COMPACTION_STEP_SPLIT_PAIRS, 64));
  compaction_pred pred = {COMPACTION_KEEP_NONZERO, 0};
  void *s = scratch.get();
  size_t sb = scratch.size();
  for (compaction_step step : {COMPACTION_STEP_MAP_SCAN_SCATTER, COMPACTION_STEP_ATOMIC,
                               COMPACTION_STEP_WARP_AGGREGATED, COMPACTION_STEP_SINGLE_PASS,
                               COMPACTION_STEP_PREFETCH}) {
    SCOPED_TRACE(compaction_step_name(step));
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                     compaction_compact(step, pred, nullptr, out.get(), count.get(), 64, 0, s, sb));
    EXPECT_NE(std::string(gl_last_error()).find("d_in is NULL"), std::string::npos)
        << gl_last_error();
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                     compaction_compact(step, pred, in.get(), nullptr, count.get(), 64, 0, s, sb));
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                     compaction_compact(step, pred, in.get(), out.get(), nullptr, 64, 0, s, sb));
  }
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                   compaction_compact(COMPACTION_STEP_SINGLE_PASS, pred, in.get(), out.get(),
                                      count.get(), 64, 0, nullptr, sb));
  EXPECT_NE(std::string(gl_last_error()).find("d_scratch is NULL"), std::string::npos)
      << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                   compaction_split(pred, in.get(), nullptr, count.get(), 64, 0, s, sb));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                   compaction_split_pairs(pred, in.get(), nullptr, out.get(), out.get() + 32,
                                          count.get(), 32, 0, s, sb));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                   compaction_enqueue_complement(pred, in.get(), out.get(), nullptr, count.get(),
                                                 32, 0));
}

TEST_F(CompactionErrors, SizeBeyondTheLimit) {
  gl::DeviceBuffer<int> in(1), out(1), count(2);
  compaction_pred pred = {COMPACTION_KEEP_NONZERO, 0};
  const size_t too_many = COMPACTION_MAX_N + 1;
  GL_EXPECT_STATUS(GL_ERR_SIZE, compaction_compact(COMPACTION_STEP_ATOMIC, pred, in.get(),
                                                   out.get(), count.get(), too_many, 0,
                                                   nullptr, 0));
  EXPECT_NE(std::string(gl_last_error()).find("COMPACTION_MAX_N"), std::string::npos)
      << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_SIZE, compaction_enqueue_complement(pred, in.get(), out.get(),
                                                              out.get() + 1, count.get(),
                                                              too_many, 0));
}

TEST_F(CompactionErrors, BadBlockSizeRuleStepAndScratch) {
  gl::DeviceBuffer<int> in(64), out(64), count(1);
  gl::DeviceBuffer<unsigned char> scratch(compaction_scratch_bytes(COMPACTION_STEP_SPLIT, 64));
  compaction_pred pred = {COMPACTION_KEEP_NONZERO, 0};
  for (int bad : {-32, 16, 48, 96, 2048}) {
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                     compaction_split(pred, in.get(), out.get(), count.get(), 64, bad,
                                      scratch.get(), scratch.size()));
    EXPECT_NE(std::string(gl_last_error()).find("block_size"), std::string::npos)
        << gl_last_error();
  }
  compaction_pred bad_rule = {(compaction_rule)7, 0};
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   compaction_compact(COMPACTION_STEP_ATOMIC, bad_rule, in.get(), out.get(),
                                      count.get(), 64, 0, nullptr, 0));
  EXPECT_NE(std::string(gl_last_error()).find("pred.rule 7"), std::string::npos)
      << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   compaction_compact(COMPACTION_STEP_SPLIT, pred, in.get(), out.get(),
                                      count.get(), 64, 0, scratch.get(), scratch.size()));
  EXPECT_NE(std::string(gl_last_error()).find("not a compaction"), std::string::npos)
      << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   compaction_split(pred, in.get(), out.get(), count.get(), 64, 0, scratch.get(),
                                    scratch.size() - 1));
  EXPECT_NE(std::string(gl_last_error()).find("scratch_bytes"), std::string::npos)
      << gl_last_error();
  gl::DeviceBuffer<unsigned char> roomy(scratch.size() + 8);
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   compaction_split(pred, in.get(), out.get(), count.get(), 64, 0,
                                    roomy.get() + 4, scratch.size()));
  EXPECT_NE(std::string(gl_last_error()).find("8-byte aligned"), std::string::npos)
      << gl_last_error();
}

TEST_F(CompactionErrors, OverlappingBuffers) {
  gl::DeviceBuffer<int> buffer(128), count(2);
  gl::DeviceBuffer<unsigned char> scratch(compaction_scratch_bytes(COMPACTION_STEP_SPLIT, 64));
  compaction_pred pred = {COMPACTION_KEEP_NONZERO, 0};
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   compaction_compact(COMPACTION_STEP_WARP_AGGREGATED, pred, buffer.get(),
                                      buffer.get() + 10, count.get(), 64, 0, nullptr, 0));
  EXPECT_NE(std::string(gl_last_error()).find("overlap"), std::string::npos) << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   compaction_split(pred, buffer.get(), buffer.get(), count.get(), 64, 0,
                                    scratch.get(), scratch.size()));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   compaction_enqueue_complement(pred, buffer.get(), buffer.get() + 64,
                                                 buffer.get() + 100, count.get(), 64, 0));
  EXPECT_NE(std::string(gl_last_error()).find("d_kept and d_rest overlap"), std::string::npos)
      << gl_last_error();
}

// n == 0 is valid for every call: the count becomes 0, nothing else is written.
TEST_F(CompactionErrors, EmptyInputWritesACountOfZero) {
  gl::DeviceBuffer<int> in(1), out(1), values_out(1), counts(2);
  gl::DeviceBuffer<unsigned char> scratch(64);
  compaction_pred pred = {COMPACTION_KEEP_NONZERO, 0};
  for (compaction_step step : {COMPACTION_STEP_MAP_SCAN_SCATTER, COMPACTION_STEP_ATOMIC,
                               COMPACTION_STEP_WARP_AGGREGATED, COMPACTION_STEP_SINGLE_PASS,
                               COMPACTION_STEP_PREFETCH}) {
    counts.Poison();
    GL_EXPECT_OK(compaction_compact(step, pred, in.get(), out.get(), counts.get(), 0, 0,
                                    scratch.get(), scratch.size()));
    GL_ASSERT_DEVICE_OK(compaction_step_name(step));
    EXPECT_EQ(DownloadInt(counts, 0), 0) << compaction_step_name(step);
  }
  counts.Poison();
  GL_EXPECT_OK(compaction_split(pred, in.get(), out.get(), counts.get(), 0, 0, scratch.get(),
                                scratch.size()));
  GL_EXPECT_OK(compaction_split_pairs(pred, in.get(), in.get(), out.get(), values_out.get(),
                                      counts.get() + 1, 0, 0, scratch.get(), scratch.size()));
  GL_ASSERT_DEVICE_OK("the splits");
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{0, 0}, counts.Download()));
  counts.Poison();
  GL_EXPECT_OK(compaction_enqueue_complement(pred, in.get(), out.get(), values_out.get(),
                                             counts.get(), 0, 0));
  GL_ASSERT_DEVICE_OK("4c-complement");
  EXPECT_TRUE(gl::ArraysEqual(std::vector<int>{0, 0}, counts.Download()));
  EXPECT_EQ(DownloadInt(out, 0), GL_POISON_I32) << "n == 0 must write no element";
}
