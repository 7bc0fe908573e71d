// Performance of the ode lab at the report's parameters (x = 35, r = 65, g = 10, h1 = 10,
// h2 = 2, h3 = 10, 128 threads per block), measured in this process:
//   outerpar_vs_cpu        the single-threaded CPU reference's time over OuterPar's (step 3)
//   outerpar_vs_middlepar  MiddlePar's (step 1) time over OuterPar's
//
// The CPU program would take half a minute or more, and MiddlePar seconds, so both are
// estimated from a sample: every Middle call does the same work (119 * h2 steps, each three
// Inner calls whose lengths depend on eta alone, never on the insured's age), so the time of
// a whole run is the time of one Middle call times the 1701 calls, plus Outer's recurrence
// (measured). The benchmark (labbench ode) times the whole CPU program instead, on one thread
// and on every core (OpenMP), which a grading run has no time for. OuterPar is timed whole. The tests check the values they time and
// assert nothing about speed: the grader scores the ratios.
//
// The lab's calls are timed the sealed way (grader/shim/sealed_timing.h): three parameter sets
// in turn, the outputs poisoned and the L2 flushed before each call, the clock around a
// device-wide synchronisation, every call's values checked. Set 0 is the report's; sets 1 and 2
// draw r in [63, 67) and g in [8, 12) from the run's seed. r and g move the deferment k, and so
// the values, but never the work: the step counts, and with them every loop, depend on x, h1,
// h2 and h3 alone, which all sets share. Each set's expected values are OuterPar's own Middle
// values, checked against the CPU at three points, run through the CPU's Outer recurrence.
//
// No copy floor here: the model is compute-bound (a few hundred kilobytes of output for seconds
// of arithmetic on the CPU), so no byte count bounds its time usefully. The calls take 29 ms
// and more, so the per-call synchronisation does not matter either.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gltest.h"
#include "sealed_timing.h"

extern "C" {
#include "gpulabs/timer.h"
#include "ode.h"
}

namespace {

constexpr int kBlock = ODE_DEFAULT_BLOCK_SIZE;

std::string Mismatch(const char *what, const ::testing::AssertionResult &result) {
  return result ? std::string() : std::string(what) + ": " + result.message();
}

class OdePerf : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    for (int s = 0; s < gl::kSealedInputSets; ++s) {
      ode_params p = ode_report_params();
      if (s > 0) {
        gl_rng rng;
        gl_rng_seed(&rng, gl::SeedForSet(35, s));
        p.r += 4.0 * (gl_rng_unit(&rng) - 0.5);
        p.g += 4.0 * (gl_rng_unit(&rng) - 0.5);
      }
      params_.push_back(p);
    }
    points_ = ode_outer_point_count(&params_[0]);
    ASSERT_NO_FATAL_FAILURE(Prepare());
  }

  // Each set's expected values: OuterPar's Middle values (checked against the CPU at a few
  // points) and the reserves the CPU's Outer recurrence makes of them.
  void Prepare() {
    gl::DeviceBuffer<double> d_middle(points_);
    for (int s = 0; s < gl::kSealedInputSets; ++s) {
      SCOPED_TRACE("parameter set " + std::to_string(s));
      const ode_params &p = params_[s];
      GL_ASSERT_OK(ode_middle(ODE_STEP_OUTER_PAR_REDUCE, &p, 0, points_, kBlock, d_middle.get()));
      GL_ASSERT_DEVICE_OK("ode_middle (step 3)");
      middle_.push_back(d_middle.Download());
      const int samples = 3;
      for (int i = 0; i < samples; ++i) {
        size_t j = SamplePoint(i, samples);
        double value = 0;
        GL_ASSERT_OK(ode_ref_middle(&p, j, 1, &value));
        ASSERT_TRUE(gl::ArraysNear(std::vector<double>{value}, std::vector<double>{middle_[s][j]},
                                   1e-12, 0.0))
            << "the CPU and OuterPar disagree at point " << j;
      }
      std::vector<double> reserves(ode_year_count(&p));
      GL_ASSERT_OK(ode_ref_outer(&p, middle_[s].data(), reserves.data()));
      reserves_.push_back(reserves);
    }
  }

  // OuterPar, whole (ode_run: Middle on the GPU, Outer on the host): the median of 5 runs after
  // one warm-up, each run's reserves checked.
  void TimeOuterPar(double *ms) {
    std::vector<double> reserves(ode_year_count(&params_[0]));
    gl::SealedSide side;
    side.name = "ode_run (step 3, OuterPar)";
    side.run = [&](int s) {
      return ode_run(ODE_STEP_OUTER_PAR_REDUCE, &params_[s], kBlock, reserves.data());
    };
    side.host_poison = [&](int) {
      memset(reserves.data(), GL_POISON_BYTE, reserves.size() * sizeof(double));
    };
    side.host_check = [&](int s) {
      return Mismatch("the reserves", gl::ArraysNear(reserves_[s], reserves, 1e-12, 0.0));
    };
    ASSERT_TRUE(gl::TimeSealed(side, 1, 5, ms));
  }

  // The points the CPU and MiddlePar are sampled at: spread over the whole run.
  size_t SamplePoint(int i, int samples) const { return (size_t)(i + 1) * points_ / (samples + 1); }

  std::vector<ode_params> params_;
  size_t points_ = 0;
  std::vector<std::vector<double>> middle_;    // per set: OuterPar's Middle values
  std::vector<std::vector<double>> reserves_;  // per set: the expected reserves
};

TEST_F(OdePerf, OuterParVsCpu) {
  double outerpar_ms = 0;
  ASSERT_NO_FATAL_FAILURE(TimeOuterPar(&outerpar_ms));

  // The CPU at the report's parameters (set 0).
  const ode_params &p = params_[0];
  const int samples = 5;
  std::vector<double> per_call(samples);
  for (int i = 0; i < samples; ++i) {
    size_t j = SamplePoint(i, samples);
    double value = 0, start = gl_host_now_ms();
    GL_ASSERT_OK(ode_ref_middle(&p, j, 1, &value));
    per_call[i] = gl_host_now_ms() - start;
    ASSERT_TRUE(gl::ArraysNear(std::vector<double>{value}, std::vector<double>{middle_[0][j]},
                               1e-12, 0.0))
        << "the CPU and OuterPar disagree at point " << j;
  }
  std::vector<double> reserves(ode_year_count(&p));
  double start = gl_host_now_ms();
  GL_ASSERT_OK(ode_ref_outer(&p, middle_[0].data(), reserves.data()));
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

  // MiddlePar launches once per Middle call and waits for each: the time of `calls` calls (the
  // median of 3 runs after one warm-up, each run's values checked against OuterPar's), scaled
  // to all of them.
  const size_t calls = 20, first = points_ / 2;
  gl::DeviceBuffer<double> d_middle(calls);
  gl::SealedSide side;
  side.name = "ode_middle (step 1, MiddlePar)";
  side.run = [&](int s) {
    return ode_middle(ODE_STEP_MIDDLE_PAR, &params_[s], first, calls, kBlock, d_middle.get());
  };
  side.host_poison = [&](int) { d_middle.Poison(); };
  side.host_check = [&](int s) {
    std::vector<double> want(middle_[s].begin() + first, middle_[s].begin() + first + calls);
    return Mismatch("MiddlePar and OuterPar disagree",
                    gl::ArraysNear(want, d_middle.Download(), 1e-12, 0.0));
  };
  double sample_ms = 0;
  ASSERT_TRUE(gl::TimeSealed(side, 1, 3, &sample_ms));
  double middlepar_ms = sample_ms / calls * (double)points_;

  char detail[256];
  snprintf(detail, sizeof detail,
           "middlepar_ms=%.1f (estimated: %zu launches took %.2f ms, x %zu/%zu) "
           "outerpar_ms=%.3f (step 3, block %d, report's parameters)",
           middlepar_ms, calls, sample_ms, points_, calls, outerpar_ms, kBlock);
  gl::ReportRatio("outerpar_vs_middlepar", middlepar_ms / outerpar_ms, detail);
}

}  // namespace
