// Performance of the scan lab against CUB, measured in the same process.
//
// ScanPerf.BestVsCub reports best_vs_cub = CUB time / your time for the exclusive scan of 2^26
// ints (scan_exclusive, your fastest step, against cub::DeviceScan::ExclusiveSum). 1.00 means
// as fast as CUB. The test asserts that both answers are right, never a speed: the grader
// scores the ratio with the rubric's target and floor.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "gpulabs/reference/scan.h"
#include "gpulabs/timer.h"
#include "gpulabs/yardstick/scan.h"
#include "scan.h"
}

namespace {

struct ScanJob {
  const int *d_in;
  int *d_out;
  size_t n;
};

gl_status RunStudent(void *context) {
  ScanJob *job = static_cast<ScanJob *>(context);
  return scan_exclusive(job->d_in, job->d_out, job->n);
}

gl_status RunCub(void *context) {
  ScanJob *job = static_cast<ScanJob *>(context);
  return gl_yardstick_scan_exclusive(job->d_in, job->d_out, job->n);
}

}  // namespace

class ScanPerf : public GpuTest {};

TEST_F(ScanPerf, BestVsCub) {
  const size_t n = (size_t)1 << 26;
  std::vector<int> in(n);
  gl_fill_int(in.data(), n, -1000, 1000, GL_DIST_UNIFORM, gl::SeedFor(1));
  std::vector<int> expected(n);
  gl_ref_scan_exclusive(in.data(), expected.data(), n);

  gl::DeviceBuffer<int> d_in(in);
  gl::DeviceBuffer<int> d_student(n);
  gl::DeviceBuffer<int> d_cub(n);
  ScanJob student = {d_in.get(), d_student.get(), n};
  ScanJob cub = {d_in.get(), d_cub.get(), n};

  // Three alternating rounds, each the median of 30 timed calls after 5 warm-ups; the best
  // median of each side counts, so a hiccup during one round does not decide the ratio.
  double student_ms = 1e30, cub_ms = 1e30;
  for (int round = 0; round < 3; ++round) {
    double ms = 0;
    GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, RunCub, &cub, 5, 30, &ms));
    cub_ms = std::min(cub_ms, ms);
    GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, RunStudent, &student, 5, 30, &ms));
    student_ms = std::min(student_ms, ms);
  }
  GL_ASSERT_DEVICE_OK("the timed scans");

  ASSERT_TRUE(gl::ArraysEqual(expected, d_student.Download())) << "scan_exclusive's answer";
  ASSERT_TRUE(gl::ArraysEqual(expected, d_cub.Download())) << "CUB's answer (the yardstick)";

  const double bytes = 8.0 * (double)n;  // 4 B read + 4 B written per element
  char detail[256];
  snprintf(detail, sizeof detail,
           "n=%zu scan_exclusive=%.4fms(%.0fGB/s) cub=%.4fms(%.0fGB/s)", n, student_ms,
           bytes / (student_ms * 1e6), cub_ms, bytes / (cub_ms * 1e6));
  gl::ReportRatio("best_vs_cub", cub_ms / student_ms, detail);
}
