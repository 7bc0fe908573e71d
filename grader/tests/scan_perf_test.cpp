// Performance of the scan lab against CUB, measured in the same process.
//
// ScanPerf.BestVsCub reports best_vs_cub = CUB time / your time for the exclusive scan of 2^26
// ints (scan_exclusive, your fastest step, against cub::DeviceScan::ExclusiveSum). 1.00 means
// as fast as CUB. Both are timed the sealed way (grader/shim/sealed_timing.h): three input sets
// in turn, outputs poisoned and the L2 flushed before each call, the clock around a device-wide
// synchronisation, every call's answer checked on the GPU. The test asserts that every answer
// is right, never a speed: the grader scores the ratio with the rubric's target and floor.
//
// Floor: a scan reads 4 B and writes 4 B per element, so neither side may beat 8 B per element
// at the copy bandwidth measured in the same run. A call takes about 0.2 ms, so the few
// microseconds of per-call synchronisation move the ratio by a percent at most.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gltest.h"
#include "sealed_timing.h"

extern "C" {
#include "gpulabs/reference/scan.h"
#include "gpulabs/yardstick/scan.h"
#include "scan.h"
}

class ScanPerf : public GpuTest {};

TEST_F(ScanPerf, BestVsCub) {
  const size_t n = (size_t)1 << 26;
  const int sets = gl::kSealedInputSets;

  // The input sets and their expected scans, resident on the device.
  std::vector<gl::DeviceBufferPtr<int>> d_in, d_expected;
  {
    std::vector<int> in(n), expected(n);
    for (int s = 0; s < sets; ++s) {
      gl_fill_int(in.data(), n, -1000, 1000, GL_DIST_UNIFORM, gl::SeedForSet(1, s));
      gl_ref_scan_exclusive(in.data(), expected.data(), n);
      d_in.emplace_back(new gl::DeviceBuffer<int>(in));
      d_expected.emplace_back(new gl::DeviceBuffer<int>(expected, gl::kPrivate));
    }
  }
  gl::DeviceBuffer<int> d_student(n), d_cub(n);

  auto output = [&](int *device) {
    gl::SealedOutput out;
    out.what = "the scan";
    out.device = device;
    out.bytes = n * sizeof(int);
    for (int s = 0; s < sets; ++s) {
      out.expected.push_back(d_expected[s]->get());
      out.count.push_back(n);
    }
    return out;
  };
  const double floor_bytes = 8.0 * (double)n;  // 4 B read + 4 B written per element

  gl::SealedSide student;
  student.name = "scan_exclusive";
  student.run = [&](int s) { return scan_exclusive(d_in[s]->get(), d_student.get(), n); };
  student.outputs.push_back(output(d_student.get()));
  student.floor_bytes = floor_bytes;

  gl::SealedSide cub;
  cub.name = "CUB DeviceScan::ExclusiveSum";
  cub.yardstick = true;
  cub.run = [&](int s) { return gl_yardstick_scan_exclusive(d_in[s]->get(), d_cub.get(), n); };
  cub.outputs.push_back(output(d_cub.get()));
  cub.floor_bytes = floor_bytes;

  // Three alternating rounds, each the median of 30 timed calls after 5 warm-ups; the best
  // median of each side counts, so a hiccup during one round does not decide the ratio.
  double student_ms = 1e30, cub_ms = 1e30;
  for (int round = 0; round < 3; ++round) {
    double ms = 0;
    ASSERT_TRUE(gl::TimeSealed(cub, 5, 30, &ms));
    cub_ms = std::min(cub_ms, ms);
    ASSERT_TRUE(gl::TimeSealed(student, 5, 30, &ms));
    student_ms = std::min(student_ms, ms);
  }

  double copy_gbps = 0;
  ASSERT_TRUE(gl::SealedCopyGbps(&copy_gbps));
  char detail[256];
  snprintf(detail, sizeof detail,
           "n=%zu scan_exclusive=%.4fms(%.0fGB/s) cub=%.4fms(%.0fGB/s) copy=%.0fGB/s", n,
           student_ms, floor_bytes / (student_ms * 1e6), cub_ms, floor_bytes / (cub_ms * 1e6),
           copy_gbps);
  gl::ReportRatio("best_vs_cub", cub_ms / student_ms, detail);
}
