// Performance of the ode lab at the report's parameters (x = 35, r = 65, g = 10, h1 = 10,
// h2 = 2, h3 = 10, 128 threads per block), measured in this process:
//   outerpar_vs_cpu        the single-threaded CPU reference's time over OuterPar's (step 3)
//   outerpar_vs_middlepar  MiddlePar's (step 1) time over OuterPar's
//
// The CPU program would take half a minute or more, and MiddlePar seconds, so both are
// estimated from a sample: every Middle call does the same work (119 * h2 steps, each three
// Inner calls whose lengths depend on eta alone, never on the insured's age), so the time of
// a whole run is the time of one Middle call times the 1701 calls, plus Outer's recurrence
// (measured). The benchmark (labbench ode) times the whole CPU program at smaller step counts
// to check the estimate. OuterPar is timed whole. The tests check the values they time and
// assert nothing about speed: the grader scores the ratios.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "gpulabs/timer.h"
#include "ode.h"
}

namespace {

constexpr int kBlock = ODE_DEFAULT_BLOCK_SIZE;

struct OuterParRun {
  ode_params p;
  std::vector<double> reserves;
};

gl_status RunOuterPar(void *context) {
  OuterParRun *run = static_cast<OuterParRun *>(context);
  return ode_run(ODE_STEP_OUTER_PAR_REDUCE, &run->p, kBlock, run->reserves.data());
}

class OdePerf : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    p_ = ode_report_params();
    points_ = ode_outer_point_count(&p_);
  }

  // OuterPar, whole: the median of 5 runs after one warm-up; its Middle values are checked
  // against the CPU at a few points.
  void TimeOuterPar(double *ms) {
    OuterParRun run{p_, std::vector<double>(ode_year_count(&p_))};
    GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_HOST, RunOuterPar, &run, 1, 5, ms));
    gl::DeviceBuffer<double> d_middle(points_);
    GL_ASSERT_OK(ode_middle(ODE_STEP_OUTER_PAR_REDUCE, &p_, 0, points_, kBlock, d_middle.get()));
    GL_ASSERT_DEVICE_OK("ode_middle (step 3)");
    outerpar_middle_ = d_middle.Download();
  }

  // The points the CPU and MiddlePar are sampled at: spread over the whole run.
  size_t SamplePoint(int i, int samples) const { return (size_t)(i + 1) * points_ / (samples + 1); }

  ode_params p_;
  size_t points_ = 0;
  std::vector<double> outerpar_middle_;
};

TEST_F(OdePerf, OuterParVsCpu) {
  double outerpar_ms = 0;
  ASSERT_NO_FATAL_FAILURE(TimeOuterPar(&outerpar_ms));

  const int samples = 5;
  std::vector<double> per_call(samples);
  for (int i = 0; i < samples; ++i) {
    size_t j = SamplePoint(i, samples);
    double value = 0, start = gl_host_now_ms();
    GL_ASSERT_OK(ode_ref_middle(&p_, j, 1, &value));
    per_call[i] = gl_host_now_ms() - start;
    ASSERT_TRUE(gl::ArraysNear(std::vector<double>{value},
                               std::vector<double>{outerpar_middle_[j]}, 1e-12, 0.0))
        << "the CPU and OuterPar disagree at point " << j;
  }
  std::vector<double> reserves(ode_year_count(&p_));
  double start = gl_host_now_ms();
  GL_ASSERT_OK(ode_ref_outer(&p_, outerpar_middle_.data(), reserves.data()));
  double outer_ms = gl_host_now_ms() - start;
  double cpu_ms = gl_median(per_call.data(), samples) * (double)points_ + outer_ms;

  char detail[256];
  snprintf(detail, sizeof detail,
           "cpu_ms=%.1f (estimated: median of %d Middle calls x %zu calls + Outer %.3f ms) "
           "outerpar_ms=%.3f (step 3, block %d, report's parameters)",
           cpu_ms, samples, points_, outer_ms, outerpar_ms, kBlock);
  gl::ReportRatio("outerpar_vs_cpu", cpu_ms / outerpar_ms, detail);
}

TEST_F(OdePerf, OuterParVsMiddlePar) {
  double outerpar_ms = 0;
  ASSERT_NO_FATAL_FAILURE(TimeOuterPar(&outerpar_ms));

  // MiddlePar launches once per Middle call and waits for each: the time of `calls` calls,
  // after a warm-up of two, scaled to all of them.
  const size_t calls = 20, first = points_ / 2;
  gl::DeviceBuffer<double> d_middle(calls);
  GL_ASSERT_OK(ode_middle(ODE_STEP_MIDDLE_PAR, &p_, first, 2, kBlock, d_middle.get()));
  GL_ASSERT_DEVICE_OK("ode_middle (step 1, warm-up)");
  d_middle.Poison();
  double start = gl_host_now_ms();
  GL_ASSERT_OK(ode_middle(ODE_STEP_MIDDLE_PAR, &p_, first, calls, kBlock, d_middle.get()));
  GL_ASSERT_DEVICE_OK("ode_middle (step 1)");
  double sample_ms = gl_host_now_ms() - start;
  std::vector<double> want(outerpar_middle_.begin() + first,
                           outerpar_middle_.begin() + first + calls);
  ASSERT_TRUE(gl::ArraysNear(want, d_middle.Download(), 1e-12, 0.0))
      << "MiddlePar and OuterPar disagree";
  double middlepar_ms = sample_ms / calls * (double)points_;

  char detail[256];
  snprintf(detail, sizeof detail,
           "middlepar_ms=%.1f (estimated: %zu launches took %.2f ms, x %zu/%zu) "
           "outerpar_ms=%.3f (step 3, block %d, report's parameters)",
           middlepar_ms, calls, sample_ms, points_, calls, outerpar_ms, kBlock);
  gl::ReportRatio("outerpar_vs_middlepar", middlepar_ms / outerpar_ms, detail);
}

}  // namespace
