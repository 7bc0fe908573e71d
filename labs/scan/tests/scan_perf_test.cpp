// Performance of the scan lab against CUB, measured in the same process.
//
// ScanPerf.BestVsCub reports best_vs_cub = CUB time / your time for the exclusive scan of 2^26
// ints (scan_exclusive, your fastest step, against cub::DeviceScan::ExclusiveSum). 1.00 means
// as fast as CUB. Both are timed the sealed way (grader/shim/sealed_timing.h): every call gets a
// fresh input (ints in [-1000, 1000], drawn on the GPU from a seed of the call's own) and CUB's
// scan of it as the expected output, both outside the timed interval, so no answer kept from an
// earlier call can serve; its output poisoned, with a guard region past it, and the L2 flushed
// before it; the clock around a device-wide synchronisation; its whole output and the guard
// region checked on the GPU after it. CUB's scan of the first input is checked against the CPU
// reference. The test asserts that every answer is right, never a speed: the grader scores the
// ratio with the rubric's target and floor.
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
#include "scan_reference.h"
#include "scan_yardstick.h"
#include "scan.h"
}

namespace {

// CUB's scan of an input against the CPU reference's: the expected outputs' own check.
gl_status CheckExpected(const gl::DeviceBuffer<int> &in, const gl::DeviceBuffer<int> &expected) {
  std::vector<int> host = in.Download(), want(in.size()), got = expected.Download();
  gl_ref_scan_exclusive(host.data(), want.data(), host.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i]) {
      return gl_fail(GL_ERR_CUDA, "CUB's scan disagrees with the CPU reference at index %zu: "
                     "%d, not %d", i, got[i], want[i]);
    }
  }
  return GL_OK;
}

}  // namespace

class ScanPerf : public GpuTest {};

TEST_F(ScanPerf, BestVsCub) {
  const size_t n = (size_t)1 << 26;

  // One input for both sides, drawn afresh before every call, and its expected scan (CUB's).
  gl::DeviceBuffer<int> d_in(n), d_expected(n, gl::kPrivate);
  gl::DeviceBuffer<int> d_student(gl::WithGuard<int>(n));
  gl::DeviceBuffer<int> d_cub(gl::WithGuard<int>(n), gl::kPrivate);
  int draws = 0;
  auto draw = [&](uint64_t seed) -> gl_status {
    GL_TRY(gl_sealed_fill_int(d_in.get(), n, -1000, 1000, seed));
    GL_TRY(gl_yardstick_scan_exclusive(d_in.get(), d_expected.get(), n));
    return draws++ == 0 ? CheckExpected(d_in, d_expected) : GL_OK;
  };

  auto output = [&](const gl::DeviceBuffer<int> &device) {
    gl::SealedOutput out;
    out.what = "the scan";
    out.device = device.get();
    out.bytes = device.size() * sizeof(int);
    out.expected = d_expected.get();
    out.count = n;
    return out;
  };
  const double floor_bytes = 8.0 * (double)n;  // 4 B read + 4 B written per element

  gl::SealedSide student;
  student.name = "scan_exclusive";
  student.draw = draw;
  student.run = [&]() { return scan_exclusive(d_in.get(), d_student.get(), n); };
  student.outputs.push_back(output(d_student));
  student.floor_bytes = floor_bytes;

  gl::SealedSide cub;
  cub.name = "CUB DeviceScan::ExclusiveSum";
  cub.yardstick = true;
  cub.draw = draw;
  cub.run = [&]() { return gl_yardstick_scan_exclusive(d_in.get(), d_cub.get(), n); };
  cub.outputs.push_back(output(d_cub));
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
