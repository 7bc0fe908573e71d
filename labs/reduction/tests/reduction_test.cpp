// Correctness tests of the reduction lab: every step of the ladder for every block size over the
// standard sizes, large sizes, sums that overflow 32 bits, the final kernel's operators for int
// and float, unaligned inputs, repeated calls, n beyond 2^31, and bad arguments.
//
// Test names group by step so the rubric can select them: ReductionStep<k>.* is step k,
// ReductionFinal.* the final kernel's other operators and types, ReductionHuge.* n near 2^32,
// ReductionArgs.* the argument checks (no GPU needed, no points).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "reduction_reference.h"
#include "reduction.h"
}

namespace {

const int kBlockSizes[] = {32, 64, 128, 256, 512, 1024};

// Sizes of the per-block-size cases: 0, 1, odd, warp and block edges, ..., 2^20.
std::vector<size_t> SmallSizes() { return gl::StandardSizes((size_t)1 << 20); }

// Sizes of the one large case per step (default block size), capped by $GPULABS_MAX_N.
std::vector<size_t> LargeSizes() {
  return gl::CapSizes({((size_t)1 << 22) + 17, ((size_t)1 << 24) - 5, ((size_t)1 << 25) + 3});
}

// The data shape for the i-th size of a loop, so each case sees every shape.
gl_dist DistFor(size_t i) { return (gl_dist)(i % GL_DIST_COUNT); }

std::string Describe(const char *what, size_t n, int block, gl_dist dist, size_t offset = 0) {
  std::ostringstream s;
  s << what << ", n = " << n << ", block_size " << block << ", " << gl_dist_name(dist) << " data";
  if (offset != 0) s << ", input at element " << offset << " of its buffer (not 16-byte aligned)";
  return s.str();
}

std::string StepLabel(reduce_step step) { return std::string("step ") + reduce_step_name(step); }

// Full-range ints: almost every sum of three or more leaves 32 bits behind.
std::vector<int> IntInput(size_t n, gl_dist dist, uint64_t label) {
  std::vector<int> a(n);
  gl_fill_int(a.data(), n, INT_MIN, INT_MAX, dist, gl::SeedFor(label));
  return a;
}

::testing::AssertionResult WithContext(::testing::AssertionResult result, const std::string &what) {
  if (result) return result;
  return ::testing::AssertionFailure() << what << ": " << result.message();
}

// Checks a call's status, waits for the GPU, and compares the single result with `expected`.
::testing::AssertionResult IntResultIs(const std::string &what, gl_status status,
                                       const gl::DeviceBuffer<int64_t> &out, int64_t expected) {
  ::testing::AssertionResult ok = gl::StatusIs(GL_OK, status, "the call");
  if (!ok) return WithContext(ok, what);
  ok = gl::DeviceOk("the call");
  if (!ok) return WithContext(ok, what);
  return WithContext(gl::ArraysEqual(std::vector<int64_t>{expected}, out.Download()), what);
}

::testing::AssertionResult FloatResultIs(const std::string &what, gl_status status,
                                         const gl::DeviceBuffer<float> &out, double expected,
                                         double tolerance) {
  ::testing::AssertionResult ok = gl::StatusIs(GL_OK, status, "the call");
  if (!ok) return WithContext(ok, what);
  ok = gl::DeviceOk("the call");
  if (!ok) return WithContext(ok, what);
  // The expected value rounded to float, and the tolerance widened by that rounding.
  float rounded = (float)expected;
  double abs_tol = tolerance;
  if (std::isfinite(expected)) abs_tol += std::fabs((double)rounded - expected);
  std::ostringstream tol;
  tol << " (tolerance " << abs_tol << ")";
  return WithContext(gl::ArraysNear(std::vector<float>{rounded}, out.Download(), 0.0, abs_tol),
                     what + tol.str());
}

// The int sum of `host` by one step, checked against the reference. n == 0 passes a NULL
// input: the API promises not to read it.
::testing::AssertionResult StepSumIsRight(reduce_step step, const std::vector<int> &host, int block,
                                          gl_dist dist, size_t offset = 0) {
  size_t n = host.size() - std::min(offset, host.size());
  gl::DeviceBuffer<int> in(host);
  gl::DeviceBuffer<int64_t> out(1);
  const int *d_in = n == 0 ? nullptr : in.get() + offset;
  gl_clear_error();
  gl_status status = reduce_sum_int(step, d_in, n, block, out.get());
  int64_t expected = reduce_ref_sum_int(host.data() + offset, n);
  return IntResultIs(Describe(StepLabel(step).c_str(), n, block, dist, offset), status, out,
                     expected);
}

// Every size of SmallSizes() with one block size.
void CheckStepSmallSizes(reduce_step step, int block) {
  std::vector<size_t> sizes = SmallSizes();
  for (size_t i = 0; i < sizes.size(); ++i) {
    gl_dist dist = DistFor(i);
    std::vector<int> host = IntInput(sizes[i], dist, 1000 * (size_t)step + i);
    ASSERT_TRUE(StepSumIsRight(step, host, block, dist));
  }
}

// The large sizes with the default block size, from an aligned and an unaligned start.
void CheckStepLargeSizes(reduce_step step) {
  std::vector<size_t> sizes = LargeSizes();
  for (size_t i = 0; i < sizes.size(); ++i) {
    gl_dist dist = DistFor(i);
    std::vector<int> host = IntInput(sizes[i], dist, 2000 * (size_t)step + i);
    ASSERT_TRUE(StepSumIsRight(step, host, 0, dist));
    ASSERT_TRUE(StepSumIsRight(step, host, 0, dist, 3));
  }
}

// Inputs whose every partial sum leaves 32 bits: all INT_MAX, all INT_MIN, and alternating
// extremes (which sum to a small number only if nothing wraps on the way).
void CheckStepBeyond32Bits(reduce_step step) {
  const size_t n = gl::CapSize(((size_t)1 << 20) + 3);
  std::vector<int> high(n, INT_MAX), low(n, INT_MIN), mixed(n);
  for (size_t i = 0; i < n; ++i) mixed[i] = i % 2 == 0 ? INT_MIN : INT_MAX;
  for (int block : {32, 256, 1024}) {
    ASSERT_TRUE(StepSumIsRight(step, high, block, GL_DIST_ALL_EQUAL)) << "every element INT_MAX";
    ASSERT_TRUE(StepSumIsRight(step, low, block, GL_DIST_ALL_EQUAL)) << "every element INT_MIN";
    ASSERT_TRUE(StepSumIsRight(step, mixed, block, GL_DIST_FEW_UNIQUE))
        << "INT_MIN and INT_MAX alternating";
  }
}

}  // namespace

// ---- The ladder: one fixture per step, one case per block size ------------------------------

#define REDUCTION_STEP_TESTS(Fixture, step)                       \
  class Fixture : public GpuTest {};                              \
  TEST_F(Fixture, Block32) { CheckStepSmallSizes(step, 32); }     \
  TEST_F(Fixture, Block64) { CheckStepSmallSizes(step, 64); }     \
  TEST_F(Fixture, Block128) { CheckStepSmallSizes(step, 128); }   \
  TEST_F(Fixture, Block256) { CheckStepSmallSizes(step, 256); }   \
  TEST_F(Fixture, Block512) { CheckStepSmallSizes(step, 512); }   \
  TEST_F(Fixture, Block1024) { CheckStepSmallSizes(step, 1024); } \
  TEST_F(Fixture, LargeSizes) { CheckStepLargeSizes(step); }      \
  TEST_F(Fixture, SumsBeyond32Bits) { CheckStepBeyond32Bits(step); }

REDUCTION_STEP_TESTS(ReductionStep1, REDUCE_STEP_INTERLEAVED_DIVERGENT)
REDUCTION_STEP_TESTS(ReductionStep2, REDUCE_STEP_INTERLEAVED_STRIDED)
REDUCTION_STEP_TESTS(ReductionStep3, REDUCE_STEP_SEQUENTIAL)
REDUCTION_STEP_TESTS(ReductionStep4, REDUCE_STEP_FIRST_ADD)
REDUCTION_STEP_TESTS(ReductionStep5, REDUCE_STEP_UNROLL_LAST_WARP)
REDUCTION_STEP_TESTS(ReductionStep6, REDUCE_STEP_COMPLETE_UNROLL)
REDUCTION_STEP_TESTS(ReductionStep7, REDUCE_STEP_MULTIPLE_ELEMENTS)
REDUCTION_STEP_TESTS(ReductionStep8, REDUCE_STEP_WARP_SHUFFLE)

// Step 8 loads 16-byte vectors: inputs that do not start on a 16-byte boundary need their first
// elements loaded one by one, and so do the last ones. Every offset, every block size, sizes
// around the vector width.
TEST_F(ReductionStep8, UnalignedInput) {
  const size_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 33, 1029, 65541, 100003};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    for (size_t offset = 1; offset <= 3; ++offset) {
      std::vector<int> host = IntInput(sizes[i] + offset, DistFor(i), 3000 + 4 * i + offset);
      for (int block : kBlockSizes) {
        ASSERT_TRUE(StepSumIsRight(REDUCE_STEP_WARP_SHUFFLE, host, block, DistFor(i), offset));
      }
    }
  }
}

// A one-launch kernel keeps state between calls (its block counter): calls queued back to back,
// with different sizes, block sizes and operators, must each find it reset.
TEST_F(ReductionStep8, BackToBackCalls) {
  const size_t sizes[] = {100003, 1, gl::CapSize(5000011), 0, 4099, gl::CapSize((size_t)1 << 20)};
  const int blocks[] = {256, 1024, 32, 128, 512, 64};
  const size_t count = sizeof sizes / sizeof sizes[0];
  std::vector<std::vector<int>> hosts;
  std::vector<std::unique_ptr<gl::DeviceBuffer<int>>> ins;
  std::vector<std::unique_ptr<gl::DeviceBuffer<int64_t>>> sums, mins;
  for (size_t i = 0; i < count; ++i) {
    hosts.push_back(IntInput(sizes[i], DistFor(i), 4000 + i));
    ins.emplace_back(new gl::DeviceBuffer<int>(hosts[i]));
    sums.emplace_back(new gl::DeviceBuffer<int64_t>(1));
    mins.emplace_back(new gl::DeviceBuffer<int64_t>(1));
  }
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < count; ++i) {
      sums[i]->Poison();
      mins[i]->Poison();
    }
    // No synchronisation between the calls: they queue on the default stream.
    for (size_t i = 0; i < count; ++i) {
      GL_ASSERT_OK(reduce_sum_int(REDUCE_STEP_WARP_SHUFFLE, ins[i]->get(), sizes[i], blocks[i],
                                  sums[i]->get()));
      GL_ASSERT_OK(
          reduce_int(REDUCE_MIN, ins[i]->get(), sizes[i], blocks[(i + 1) % count], mins[i]->get()));
    }
    GL_ASSERT_DEVICE_OK("back-to-back reduce calls");
    for (size_t i = 0; i < count; ++i) {
      std::ostringstream what;
      what << "round " << round << ", call " << i << " of " << count << " queued back to back";
      EXPECT_TRUE(gl::ArraysEqual(
          std::vector<int64_t>{reduce_ref_sum_int(hosts[i].data(), sizes[i])}, sums[i]->Download()))
          << what.str() << ": sum, n = " << sizes[i] << ", block_size " << blocks[i];
      EXPECT_TRUE(gl::ArraysEqual(
          std::vector<int64_t>{reduce_ref_min_int(hosts[i].data(), sizes[i])}, mins[i]->Download()))
          << what.str() << ": min, n = " << sizes[i] << ", block_size " << blocks[(i + 1) % count];
    }
  }
}

// ---- The final kernel's operators and types --------------------------------------------------

namespace {

// Runs fn(n, block, dist, label) over the small sizes for every block size, then the large
// sizes with the default block size.
template <class Check>
void ForEverySizeAndBlock(Check check) {
  std::vector<size_t> small = SmallSizes();
  for (int block : kBlockSizes) {
    for (size_t i = 0; i < small.size(); ++i) {
      check(small[i], block, DistFor(i + (size_t)block), 100 * (size_t)block + i);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  std::vector<size_t> large = LargeSizes();
  for (size_t i = 0; i < large.size(); ++i) {
    check(large[i], 0, DistFor(i), 900000 + i);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

void CheckIntOp(reduce_op op) {
  ForEverySizeAndBlock([op](size_t n, int block, gl_dist dist, uint64_t label) {
    std::vector<int> host = IntInput(n, dist, 5000000 + 10 * label + (uint64_t)op);
    gl::DeviceBuffer<int> in(host);
    gl::DeviceBuffer<int64_t> out(1);
    gl_clear_error();
    gl_status status = reduce_int(op, n == 0 ? nullptr : in.get(), n, block, out.get());
    int64_t expected = op == REDUCE_SUM   ? reduce_ref_sum_int(host.data(), n)
                       : op == REDUCE_MIN ? reduce_ref_min_int(host.data(), n)
                                          : reduce_ref_max_int(host.data(), n);
    std::string what = std::string("reduce_int ") + reduce_op_name(op);
    ASSERT_TRUE(IntResultIs(Describe(what.c_str(), n, block, dist), status, out, expected));
  });
}

// Float inputs: values in [lo, hi), or small integers (`integers` true), whose every partial
// sum is exact in float (|partial| <= 4n <= 2^24 for n <= 2^22), so the sum must match exactly.
void CheckFloatOp(reduce_op op, float lo, float hi, bool integers) {
  ForEverySizeAndBlock([=](size_t n, int block, gl_dist dist, uint64_t label) {
    if (integers && n > ((size_t)1 << 22)) return;  // beyond that the sum need not be exact
    std::vector<float> host(n);
    uint64_t seed = gl::SeedFor(7000000 + 10 * label + (uint64_t)op);
    if (integers) {
      std::vector<int> ints(n);
      gl_fill_int(ints.data(), n, -4, 4, dist, seed);
      for (size_t i = 0; i < n; ++i) host[i] = (float)ints[i];
    } else {
      gl_fill_float(host.data(), n, lo, hi, dist, seed);
    }
    gl::DeviceBuffer<float> in(host);
    gl::DeviceBuffer<float> out(1);
    gl_clear_error();
    gl_status status = reduce_float(op, n == 0 ? nullptr : in.get(), n, block, out.get());
    double expected = 0.0, tolerance = 0.0;
    if (op == REDUCE_SUM) {
      expected = reduce_ref_sum_float(host.data(), n);
      if (!integers) {
        tolerance = reduce_ref_float_sum_tolerance(n, reduce_ref_sum_abs_float(host.data(), n));
      }
    } else {
      expected = op == REDUCE_MIN ? reduce_ref_min_float(host.data(), n)
                                  : reduce_ref_max_float(host.data(), n);
    }
    std::string what = std::string("reduce_float ") + reduce_op_name(op) +
                       (integers ? " of small integers (exact)" : "");
    ASSERT_TRUE(
        FloatResultIs(Describe(what.c_str(), n, block, dist), status, out, expected, tolerance));
  });
}

}  // namespace

class ReductionFinal : public GpuTest {};

TEST_F(ReductionFinal, SumInt) { CheckIntOp(REDUCE_SUM); }
TEST_F(ReductionFinal, MinInt) { CheckIntOp(REDUCE_MIN); }
TEST_F(ReductionFinal, MaxInt) { CheckIntOp(REDUCE_MAX); }
TEST_F(ReductionFinal, SumFloatOfSmallIntegersIsExact) { CheckFloatOp(REDUCE_SUM, 0, 0, true); }
TEST_F(ReductionFinal, SumFloatWithinTheRoundingBound) { CheckFloatOp(REDUCE_SUM, -1, 1, false); }
TEST_F(ReductionFinal, SumPositiveFloatWithinTheRoundingBound) {
  CheckFloatOp(REDUCE_SUM, 0, 1, false);
}
TEST_F(ReductionFinal, MinFloat) { CheckFloatOp(REDUCE_MIN, -1e6f, 1e6f, false); }
TEST_F(ReductionFinal, MaxFloat) { CheckFloatOp(REDUCE_MAX, -1e6f, 1e6f, false); }

// Min and max with the extreme element at each end and in the middle (the first and last
// elements are the ones a vectorised kernel loads on their own).
TEST_F(ReductionFinal, ExtremeAtEveryPosition) {
  const size_t n = 100003;
  for (size_t offset = 0; offset < 4; ++offset) {
    for (size_t where : {(size_t)0, (size_t)1, n / 2, n - 2, n - 1}) {
      std::vector<int> ints(n + offset);
      gl_fill_int(ints.data(), ints.size(), -1000, 1000, GL_DIST_UNIFORM,
                  gl::SeedFor(8000 + where));
      std::vector<float> floats(ints.begin(), ints.end());
      ints[offset + where] = INT_MIN;
      floats[offset + where] = 1e30f;
      gl::DeviceBuffer<int> in(ints);
      gl::DeviceBuffer<float> fin(floats);
      gl::DeviceBuffer<int64_t> out(1);
      gl::DeviceBuffer<float> fout(1);
      std::ostringstream what;
      what << "extreme at index " << where << " of n = " << n << ", input at element " << offset
           << " of its buffer";
      gl_clear_error();
      gl_status status = reduce_int(REDUCE_MIN, in.get() + offset, n, 0, out.get());
      ASSERT_TRUE(IntResultIs("reduce_int min, " + what.str(), status, out, INT_MIN));
      gl_clear_error();
      status = reduce_float(REDUCE_MAX, fin.get() + offset, n, 0, fout.get());
      ASSERT_TRUE(FloatResultIs("reduce_float max, " + what.str(), status, fout, 1e30f, 0.0));
    }
  }
}

// n == 0 gives the identity of each operator and reads nothing (d_in may be NULL).
TEST_F(ReductionFinal, EmptyInputGivesTheIdentity) {
  gl::DeviceBuffer<int64_t> out(1);
  gl::DeviceBuffer<float> fout(1);
  const reduce_op ops[] = {REDUCE_SUM, REDUCE_MIN, REDUCE_MAX};
  const int64_t int_identity[] = {0, INT_MAX, INT_MIN};
  const double float_identity[] = {0.0, INFINITY, -INFINITY};
  for (int i = 0; i < 3; ++i) {
    out.Poison();
    fout.Poison();
    gl_clear_error();
    gl_status status = reduce_int(ops[i], nullptr, 0, 0, out.get());
    ASSERT_TRUE(IntResultIs(std::string("reduce_int ") + reduce_op_name(ops[i]) + " of n = 0",
                            status, out, int_identity[i]));
    gl_clear_error();
    status = reduce_float(ops[i], nullptr, 0, 0, fout.get());
    ASSERT_TRUE(FloatResultIs(std::string("reduce_float ") + reduce_op_name(ops[i]) + " of n = 0",
                              status, fout, float_identity[i], 0.0));
  }
}

// ---- n close to REDUCE_MAX_N: 64-bit indexing in every step ----------------------------------

// The input is 0x01010101 everywhere (a device memset, so no host array of 16 GiB) except three
// windows of fresh random values, at the start, across 2^31 and at the end, with INT_MAX planted
// in the middle window and INT_MIN in the last. Steps that compute an index in 32 bits read the
// wrong elements (or never stop) somewhere past 2^31 or near 2^32.
class ReductionHuge : public GpuTest {};

TEST_F(ReductionHuge, EveryStepNearTwoToThe32) {
  if (gl::OnCpuBackend()) {
    GTEST_SKIP() << "needs a GPU: 16 GiB of input is beyond the CPU backend (LAB_BACKEND=sim)";
  }
  const size_t wanted[] = {REDUCE_MAX_N - 1, ((size_t)1 << 31) + ((size_t)1 << 20) + 7};
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  size_t n = 0;
  for (size_t candidate : wanted) {
    // Room for the input, the steps' partial sums and some slack, on the GPU's whole memory:
    // whether the test runs is a fact of the GPU, never of what other processes (another
    // submission's worker, say) hold at the moment.
    if (candidate * sizeof(int) + ((size_t)1 << 30) <= total_bytes / 2) {
      n = candidate;
      break;
    }
  }
  if (n == 0) {
    GTEST_SKIP() << "needs a GPU of " << ((wanted[1] * sizeof(int) + ((size_t)1 << 30)) >> 19)
                 << " MiB or more, this one has " << (total_bytes >> 20) << " MiB";
  }
  printf("[ gpulabs  ] n = %zu (%zu MiB of input)\n", n, (n * sizeof(int)) >> 20);
  const int pattern = 0x01010101;
  const size_t window = (size_t)1 << 16;
  const size_t starts[] = {0, ((size_t)1 << 31) - window / 2, n - window};
  void *raw = nullptr;
  ASSERT_EQ(cudaMalloc(&raw, n * sizeof(int)), cudaSuccess)
      << "allocating " << ((n * sizeof(int)) >> 20) << " MiB failed with " << (free_bytes >> 20)
      << " MiB of " << (total_bytes >> 20) << " free: other processes hold the GPU's memory";
  int *d_in = static_cast<int *>(raw);
  ASSERT_EQ(cudaMemset(d_in, 0x01, n * sizeof(int)), cudaSuccess);
  int64_t expected_sum = (int64_t)pattern * (int64_t)(n - 3 * window);
  gl_rng rng;
  gl_rng_seed(&rng, gl::SeedFor(9000));
  for (int w = 0; w < 3; ++w) {
    std::vector<int> values(window);
    gl_fill_int(values.data(), window, -(1 << 30), 1 << 30, GL_DIST_UNIFORM, gl::SeedFor(9001 + w));
    if (w == 1) values[gl_rng_below(&rng, window)] = INT_MAX;
    if (w == 2) values[gl_rng_below(&rng, window)] = INT_MIN;
    expected_sum += reduce_ref_sum_int(values.data(), window);
    ASSERT_EQ(
        cudaMemcpy(d_in + starts[w], values.data(), window * sizeof(int), cudaMemcpyHostToDevice),
        cudaSuccess);
  }
  gl::DeviceBuffer<int64_t> out(1);
  for (int s = REDUCE_FIRST_STEP; s <= REDUCE_LAST_STEP; ++s) {
    reduce_step step = (reduce_step)s;
    out.Poison();
    gl_clear_error();
    gl_status status = reduce_sum_int(step, d_in, n, 0, out.get());
    EXPECT_TRUE(
        IntResultIs(Describe(StepLabel(step).c_str(), n, REDUCE_DEFAULT_BLOCK, GL_DIST_ALL_EQUAL) +
                        " with three random windows",
                    status, out, expected_sum));
  }
  const reduce_op ops[] = {REDUCE_MIN, REDUCE_MAX};
  const int64_t extremes[] = {INT_MIN, INT_MAX};
  for (int i = 0; i < 2; ++i) {
    out.Poison();
    gl_clear_error();
    gl_status status = reduce_int(ops[i], d_in, n, 1024, out.get());
    EXPECT_TRUE(IntResultIs(std::string("reduce_int ") + reduce_op_name(ops[i]) +
                                ", n = " + std::to_string(n) + ", block_size 1024",
                            status, out, extremes[i]));
  }
  cudaFree(d_in);
  reduce_free_scratch();
}

// ---- Argument checks (CPU only: they fail before anything touches the GPU) -------------------

namespace {
// Never dereferenced: every call below fails its checks first.
const int *const kSomeInput = reinterpret_cast<const int *>(0x1000);
int64_t *const kSomeResult = reinterpret_cast<int64_t *>(0x2000);
float *const kSomeFloatResult = reinterpret_cast<float *>(0x3000);

::testing::AssertionResult MessageMentions(const char *needle) {
  std::string message = gl_last_error();
  if (message.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "the message \"" << message << "\" does not mention \"" << needle << "\"";
}
}  // namespace

TEST(ReductionArgs, NullPointers) {
  for (int s = REDUCE_FIRST_STEP; s <= REDUCE_LAST_STEP; ++s) {
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                     reduce_sum_int((reduce_step)s, kSomeInput, 10, 256, nullptr));
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                     reduce_sum_int((reduce_step)s, nullptr, 10, 256, kSomeResult));
    EXPECT_TRUE(MessageMentions("d_in"));
  }
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, reduce_int(REDUCE_MIN, nullptr, 1, 0, kSomeResult));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, reduce_int(REDUCE_MAX, kSomeInput, 1, 0, nullptr));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, reduce_float(REDUCE_SUM, nullptr, 7, 0, kSomeFloatResult));
  GL_EXPECT_STATUS(
      GL_ERR_NULL_POINTER,
      reduce_float(REDUCE_SUM, reinterpret_cast<const float *>(kSomeInput), 7, 0, nullptr));
}

TEST(ReductionArgs, SizeBeyondTheLimit) {
  GL_EXPECT_STATUS(GL_ERR_SIZE, reduce_sum_int(REDUCE_STEP_SEQUENTIAL, kSomeInput, REDUCE_MAX_N + 1,
                                               256, kSomeResult));
  EXPECT_TRUE(MessageMentions("REDUCE_MAX_N"));
  GL_EXPECT_STATUS(GL_ERR_SIZE, reduce_int(REDUCE_SUM, kSomeInput, (size_t)-1, 0, kSomeResult));
  GL_EXPECT_STATUS(GL_ERR_SIZE,
                   reduce_float(REDUCE_MAX, reinterpret_cast<const float *>(kSomeInput),
                                REDUCE_MAX_N + 1, 0, kSomeFloatResult));
}

TEST(ReductionArgs, BadBlockSizes) {
  for (int block : {-256, 1, 16, 31, 33, 48, 96, 100, 2048, 4096}) {
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, reduce_sum_int(REDUCE_STEP_COMPLETE_UNROLL,
                                                             kSomeInput, 1000, block, kSomeResult))
        << "block_size " << block;
    EXPECT_TRUE(MessageMentions("block_size"));
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                     reduce_int(REDUCE_SUM, kSomeInput, 1000, block, kSomeResult))
        << "block_size " << block;
  }
}

TEST(ReductionArgs, BadStepOrOperator) {
  for (int s : {-1, 0, 9, 100}) {
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                     reduce_sum_int((reduce_step)s, kSomeInput, 10, 256, kSomeResult))
        << "step " << s;
    EXPECT_TRUE(MessageMentions("step"));
  }
  for (int op : {-1, 3, 7}) {
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                     reduce_int((reduce_op)op, kSomeInput, 10, 0, kSomeResult))
        << "op " << op;
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                     reduce_float((reduce_op)op, reinterpret_cast<const float *>(kSomeInput), 10, 0,
                                  kSomeFloatResult))
        << "op " << op;
  }
}

TEST(ReductionArgs, NamesOfStepsAndOperators) {
  std::vector<std::string> names;
  for (int s = REDUCE_FIRST_STEP; s <= REDUCE_LAST_STEP; ++s) {
    std::string name = reduce_step_name((reduce_step)s);
    EXPECT_EQ(name.substr(0, 2), std::to_string(s) + "-") << "a step's name starts with its number";
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end()) << "step names must differ";
  EXPECT_STREQ(reduce_step_name((reduce_step)0), "unknown");
  EXPECT_STREQ(reduce_step_name((reduce_step)9), "unknown");
  EXPECT_STREQ(reduce_op_name(REDUCE_SUM), "sum");
  EXPECT_STREQ(reduce_op_name(REDUCE_MIN), "min");
  EXPECT_STREQ(reduce_op_name(REDUCE_MAX), "max");
  EXPECT_STREQ(reduce_op_name((reduce_op)3), "unknown");
}
