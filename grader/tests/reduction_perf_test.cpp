// Performance tests of the reduction lab: the final kernel's int sum of 2^26 elements against
// CUB's DeviceReduce::Sum (same input, same int64_t result, same process), and against the
// device-to-device copy bandwidth. They check the results and report ratios; the grader scores
// the ratios (grader/rubric/reduction.rubric). No time is ever asserted.
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "gpulabs/reference/reduction.h"
#include "gpulabs/timer.h"
#include "gpulabs/yardstick/reduction.h"
#include "reduction.h"
}

namespace {

const size_t kN = (size_t)1 << 26;  // 256 MiB of int: five times the H100's L2, so DRAM-bound
const int kWarmup = 5;
const int kReps = 30;
const int kRounds = 3;  // student and CUB timed in turn, kRounds times; the medians' median counts

struct SumJob {
  const int *d_in;
  size_t n;
  int64_t *d_sum;
};

gl_status StudentSum(void *context) {
  SumJob *job = static_cast<SumJob *>(context);
  return reduce_int(REDUCE_SUM, job->d_in, job->n, 0, job->d_sum);
}

gl_status CubSum(void *context) {
  SumJob *job = static_cast<SumJob *>(context);
  return gl_yardstick_reduce_sum_int(job->d_in, job->n, job->d_sum);
}

double MedianOf(std::vector<double> values) { return gl_median(values.data(), (int)values.size()); }

class ReductionPerf : public GpuTest {};

}  // namespace

TEST_F(ReductionPerf, FinalVsCub) {
  std::vector<int> host(kN);
  gl_fill_int(host.data(), kN, INT_MIN, INT_MAX, GL_DIST_UNIFORM, gl::SeedFor(1));
  const int64_t expected = reduce_ref_sum_int(host.data(), kN);
  gl::DeviceBuffer<int> in(host);
  gl::DeviceBuffer<int64_t> student_out(1), cub_out(1);
  SumJob student = {in.get(), kN, student_out.get()};
  SumJob cub = {in.get(), kN, cub_out.get()};

  // Both must be right before their times mean anything.
  GL_ASSERT_OK(StudentSum(&student));
  GL_ASSERT_DEVICE_OK("reduce_int(REDUCE_SUM, ...)");
  ASSERT_TRUE(gl::ArraysEqual(std::vector<int64_t>{expected}, student_out.Download()))
      << "the final kernel's sum of 2^26 ints is wrong; no time is reported";
  GL_ASSERT_OK(CubSum(&cub));
  GL_ASSERT_DEVICE_OK("gl_yardstick_reduce_sum_int");
  ASSERT_TRUE(gl::ArraysEqual(std::vector<int64_t>{expected}, cub_out.Download()))
      << "the yardstick (CUB) disagrees with the CPU reference";

  std::vector<double> student_ms, cub_ms;
  for (int round = 0; round < kRounds; ++round) {
    double ms = 0;
    GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, StudentSum, &student, kWarmup, kReps, &ms));
    student_ms.push_back(ms);
    GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, CubSum, &cub, kWarmup, kReps, &ms));
    cub_ms.push_back(ms);
  }
  double t_student = MedianOf(student_ms), t_cub = MedianOf(cub_ms);
  ASSERT_GT(t_student, 0.0);

  // The result of the last timed run must still be right (a kernel that only works once, e.g.
  // one that never resets its block counter, fails here).
  student_out.Poison();
  GL_ASSERT_OK(StudentSum(&student));
  GL_ASSERT_DEVICE_OK("reduce_int(REDUCE_SUM, ...) after timing");
  ASSERT_TRUE(gl::ArraysEqual(std::vector<int64_t>{expected}, student_out.Download()))
      << "the final kernel's sum is wrong after repeated calls";

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
  std::vector<int> host(kN);
  gl_fill_int(host.data(), kN, -1000, 1000, GL_DIST_UNIFORM, gl::SeedFor(2));
  gl::DeviceBuffer<int> in(host);
  gl::DeviceBuffer<int64_t> out(1);
  SumJob student = {in.get(), kN, out.get()};
  GL_ASSERT_OK(StudentSum(&student));
  GL_ASSERT_DEVICE_OK("reduce_int(REDUCE_SUM, ...)");
  ASSERT_TRUE(
      gl::ArraysEqual(std::vector<int64_t>{reduce_ref_sum_int(host.data(), kN)}, out.Download()));

  double copy_gbps = 0, ms = 0;
  GL_ASSERT_OK(gl_measure_copy_gbps(kN * sizeof(int), kReps, &copy_gbps));
  GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, StudentSum, &student, kWarmup, kReps, &ms));
  ASSERT_GT(ms, 0.0);
  ASSERT_GT(copy_gbps, 0.0);
  double gbps = (double)kN * sizeof(int) / ms / 1e6;
  char detail[160];
  snprintf(detail, sizeof detail, "final kernel %.0f GB/s read, device-to-device copy %.0f GB/s",
           gbps, copy_gbps);
  gl::ReportRatio("final_vs_copy", gbps / copy_gbps, detail);
}
