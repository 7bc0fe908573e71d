// Performance tests of the reduction lab: the final kernel's int sum of 2^26 elements against
// CUB's DeviceReduce::Sum (inputs of the same kind, the same int64_t result, the same process),
// and against the device-to-device copy bandwidth. Both sides are timed the sealed way
// (grader/shim/sealed_timing.h): every call gets a fresh input (drawn on the GPU from a seed of
// the call's own) and CUB's sum of it as the expected sum, both outside the timed interval, so no
// answer kept from an earlier call can serve; the sum poisoned, with a guard region past it, and
// the L2 flushed before it; the clock around a device-wide synchronisation; the sum and the
// guard region checked on the GPU after it. CUB's sum of each test's first input is checked
// against the CPU reference. They check the results and report ratios; the grader scores the
// ratios (labs/reduction/reduction.rubric). No time is ever asserted.
//
// Floor: a reduction reads 4 B per element, so no side may beat 4 B per element at the copy
// bandwidth measured in the same run (copy counts read + written bytes; a streaming read reaches
// about 0.95 of it on an H100). A call takes about 0.1 ms, the shortest of the performance
// tests: the few microseconds of per-call synchronisation are added to both sides and move the
// ratio by about a percent (towards 1.00).
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "gltest.h"
#include "sealed_timing.h"

extern "C" {
#include "reduction_reference.h"
#include "gpulabs/timer.h"
#include "reduction_yardstick.h"
#include "reduction.h"
}

namespace {

const size_t kN = (size_t)1 << 26;  // 256 MiB of int: five times the H100's L2, so DRAM-bound
const int kWarmup = 5;
const int kReps = 30;
const int kRounds = 3;  // student and CUB timed in turn, kRounds times; the medians' median counts

double MedianOf(std::vector<double> values) { return gl_median(values.data(), (int)values.size()); }

// The input every call gets: 2^26 ints in [lo, hi], drawn afresh before each call, and the
// expected sum (CUB's, on the GPU; checked against the CPU reference for the first draw).
struct SumInputs {
  int lo, hi;
  gl::DeviceBuffer<int> in;
  gl::DeviceBuffer<int64_t> sum;
  int draws = 0;

  SumInputs(int lo_, int hi_) : lo(lo_), hi(hi_), in(kN), sum(1, gl::kPrivate) {}

  gl_status Draw(uint64_t seed) {
    GL_TRY(gl_sealed_fill_int(in.get(), kN, lo, hi, seed));
    GL_TRY(gl_yardstick_reduce_sum_int(in.get(), kN, sum.get()));
    return draws++ == 0 ? CheckSum() : GL_OK;
  }

  gl_status CheckSum() const {
    const int64_t want = reduce_ref_sum_int(in.Download().data(), kN);
    const int64_t got = sum.Download()[0];
    if (got == want) return GL_OK;
    return gl_fail(GL_ERR_CUDA, "CUB's sum %lld disagrees with the CPU reference's %lld",
                   (long long)got, (long long)want);
  }

  // A side writing its sum to `out` (one int64_t and the guard region), checked after every call.
  gl::SealedSide Side(const std::string &name, const gl::DeviceBuffer<int64_t> &out) {
    gl::SealedSide side;
    side.name = name;
    side.draw = [this](uint64_t seed) { return Draw(seed); };
    gl::SealedOutput sum_out;
    sum_out.what = "the sum";
    sum_out.device = out.get();
    sum_out.bytes = out.size() * sizeof(int64_t);
    sum_out.elem_bytes = sizeof(int64_t);
    sum_out.expected = sum.get();
    sum_out.count = 1;
    side.outputs.push_back(sum_out);
    side.floor_bytes = 4.0 * (double)kN;  // 4 B read per element
    return side;
  }
};

class ReductionPerf : public GpuTest {};

}  // namespace

TEST_F(ReductionPerf, FinalVsCub) {
  SumInputs inputs(INT_MIN, INT_MAX);
  gl::DeviceBuffer<int64_t> student_out(gl::WithGuard<int64_t>(1));
  gl::DeviceBuffer<int64_t> cub_out(gl::WithGuard<int64_t>(1), gl::kPrivate);
  gl::SealedSide student = inputs.Side("reduce_int(REDUCE_SUM, ...)", student_out);
  student.run = [&]() {
    return reduce_int(REDUCE_SUM, inputs.in.get(), kN, 0, student_out.get());
  };
  gl::SealedSide cub = inputs.Side("CUB DeviceReduce::Sum", cub_out);
  cub.yardstick = true;
  cub.run = [&]() { return gl_yardstick_reduce_sum_int(inputs.in.get(), kN, cub_out.get()); };

  // Every call of both is checked, so a kernel that works only once (one that never resets its
  // block counter, say) fails on its second call.
  std::vector<double> student_ms, cub_ms;
  for (int round = 0; round < kRounds; ++round) {
    double ms = 0;
    ASSERT_TRUE(gl::TimeSealed(student, kWarmup, kReps, &ms));
    student_ms.push_back(ms);
    ASSERT_TRUE(gl::TimeSealed(cub, kWarmup, kReps, &ms));
    cub_ms.push_back(ms);
  }
  double t_student = MedianOf(student_ms), t_cub = MedianOf(cub_ms);
  ASSERT_GT(t_student, 0.0);

  double bytes = (double)kN * sizeof(int);
  char detail[256];
  snprintf(detail, sizeof detail,
           "final kernel %.4f ms (%.0f GB/s), CUB DeviceReduce::Sum %.4f ms (%.0f GB/s), "
           "n = 2^26 int -> int64",
           t_student, bytes / t_student / 1e6, t_cub, bytes / t_cub / 1e6);
  gl::ReportRatio("final_vs_cub", t_cub / t_student, detail);
}

// Reads per second over the copy's bytes (read + written) per second: 1.00 means the reduction
// streams its input as fast as cudaMemcpy moves data. Reported, not scored by default.
TEST_F(ReductionPerf, FinalVsCopy) {
  SumInputs inputs(-1000, 1000);
  gl::DeviceBuffer<int64_t> out(gl::WithGuard<int64_t>(1));
  gl::SealedSide student = inputs.Side("reduce_int(REDUCE_SUM, ...)", out);
  student.run = [&]() { return reduce_int(REDUCE_SUM, inputs.in.get(), kN, 0, out.get()); };

  double copy_gbps = 0, ms = 0;
  ASSERT_TRUE(gl::SealedCopyGbps(&copy_gbps));
  ASSERT_TRUE(gl::TimeSealed(student, kWarmup, kReps, &ms));
  ASSERT_GT(ms, 0.0);
  ASSERT_GT(copy_gbps, 0.0);
  double gbps = (double)kN * sizeof(int) / ms / 1e6;
  char detail[160];
  snprintf(detail, sizeof detail, "final kernel %.0f GB/s read, device-to-device copy %.0f GB/s",
           gbps, copy_gbps);
  gl::ReportRatio("final_vs_copy", gbps / copy_gbps, detail);
}
