// Performance of the ode lab around the report's parameters (x = 35, r = 65, g = 10, h1 = 10,
// h2 = 2, h3 = 10, 128 threads per block), measured in this process:
//   outerpar_vs_cpu        the single-threaded CPU reference's time over OuterPar's (step 3)
//   outerpar_vs_middlepar  the course's MiddlePar's time over OuterPar's (step 3)
//
// The CPU program would take half a minute or more, and MiddlePar seconds, so both are
// estimated from a sample: every Middle call does the same work (119 * h2 steps, each three
// Inner calls whose lengths depend on eta alone, never on the insured's age), so the time of
// a whole run is the time of one Middle call times the 1701 calls, plus Outer's recurrence
// (measured). The benchmark (labbench ode) times the whole CPU program instead, on one thread
// and on every core (OpenMP), which a grading run has no time for. OuterPar is timed whole. The
// tests check the values they time and assert nothing about speed: the grader scores the ratios.
// Both baselines are the course's: the CPU reference, and MiddlePar as the report describes it,
// written for the course's yardstick library (gl_yardstick_ode_middle_par), never the lab's
// step 1, so a step 1 slowed on purpose moves no ratio.
//
// Every call is timed the sealed way (grader/shim/sealed_timing.h): each gets parameters of its
// own, drawn outside the timed interval from a seed of the call's own (r in [63, 67) and g in
// [8, 12); x, h1, h2 and h3 the report's), so no answer kept from an earlier call can serve; its
// outputs poisoned, with a guard region past them, and the L2 flushed before it; the clock
// around a device-wide synchronisation; its values checked after it. r and g move the deferment
// k, and so the values, but never the work: the step counts, and with them every loop, depend
// on x, h1, h2 and h3 alone. The expected values are the course's: its GPU reference for Middle
// (gl_yardstick_ode_middle), checked against the CPU reference at one point of every draw, and
// for the reserves the CPU's Outer recurrence run on them. The lab's code never runs before its
// timed calls.
//
// No copy floor here: the model is compute-bound (a few hundred kilobytes of output for seconds
// of arithmetic on the CPU), so no byte count bounds its time usefully. The calls take 29 ms
// and more, so the per-call synchronisation does not matter either.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gltest.h"
#include "sealed_timing.h"

extern "C" {
#include "gpulabs/timer.h"
#include "ode_yardstick.h"
#include "ode.h"
}

namespace {

constexpr int kBlock = ODE_DEFAULT_BLOCK_SIZE;
constexpr double kRelTol = 1e-12;  // the GPU's pow and exp, and the order of the sums

std::string Mismatch(const char *what, const ::testing::AssertionResult &result) {
  return result ? std::string() : std::string(what) + ": " + result.message();
}

// want and got agree as the lab's own tests demand (ode_test.cpp): to 1e-12 of each value plus
// 1e-12 of the largest of `scale`, so that a value near the maximum age, tiny or a cancellation
// residue, may differ by a rounding of the largest.
::testing::AssertionResult Near(const std::vector<double> &want, const std::vector<double> &got,
                                const std::vector<double> &scale) {
  double largest = 0.0;
  for (double v : scale) largest = std::max(largest, std::fabs(v));
  return gl::ArraysNear(want, got, kRelTol, kRelTol * largest);
}

// The parameters of one call: the report's, with r and g moved by up to two years either way,
// drawn from the call's seed.
ode_params DrawParams(uint64_t seed) {
  ode_params p = ode_report_params();
  gl_rng rng;
  gl_rng_seed(&rng, seed);
  p.r += 4.0 * (gl_rng_unit(&rng) - 0.5);
  p.g += 4.0 * (gl_rng_unit(&rng) - 0.5);
  return p;
}

// "" when the host array's guard region, past its first `count` doubles, still holds the poison.
std::string GuardText(const std::vector<double> &values, size_t count) {
  const unsigned char *bytes = reinterpret_cast<const unsigned char *>(values.data());
  for (size_t b = count * sizeof(double); b < values.size() * sizeof(double); ++b) {
    if (bytes[b] != GL_POISON_BYTE) {
      return "written past its end, at element " + std::to_string(b / sizeof(double)) +
             " (the guard region after its " + std::to_string(count) +
             " values must keep the poison)";
    }
  }
  return "";
}

// The course's Middle values at Outer's points first .. first + count - 1 for p, on the GPU
// (d_scratch: at least count doubles), with the one at point `sample` checked against the CPU.
gl_status CourseMiddle(const ode_params &p, size_t first, size_t count, size_t sample,
                       const gl::DeviceBuffer<double> &d_scratch, std::vector<double> *middle) {
  GL_TRY(gl_yardstick_ode_middle(&p, first, count, d_scratch.get()));
  middle->resize(count);
  LAB_CHECK(cudaMemcpy(middle->data(), d_scratch.get(), count * sizeof(double),
                       cudaMemcpyDeviceToHost));
  double cpu = 0;
  GL_TRY(ode_ref_middle(&p, sample, 1, &cpu));
  ::testing::AssertionResult near =
      Near(std::vector<double>{cpu}, std::vector<double>{(*middle)[sample - first]}, *middle);
  if (near) return GL_OK;
  return gl_fail(GL_ERR_CUDA, "the course's GPU reference and the CPU disagree at point %zu "
                 "(r = %.17g, g = %.17g): %s", sample, p.r, p.g, near.message());
}

// A point of first .. first + count - 1 picked by the seed, for CourseMiddle's check.
size_t SamplePointOf(uint64_t seed, size_t first, size_t count) {
  return first + (size_t)((seed >> 32) % count);
}

class OdePerf : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    report_ = ode_report_params();
    points_ = ode_outer_point_count(&report_);
    years_ = ode_year_count(&report_);
  }

  void TearDown() override { gl_yardstick_ode_release(); }

  // OuterPar, whole (ode_run: Middle on the GPU, Outer on the host): the median of 5 runs after
  // one warm-up, each on parameters of its own, each run's reserves checked against the course's.
  void TimeOuterPar(double *ms) {
    ode_params params = report_;
    gl::DeviceBuffer<double> d_middle(points_, gl::kPrivate);
    std::vector<double> middle, want(years_);
    // The reserves and a guard region past them.
    std::vector<double> reserves(gl::WithGuard<double>(years_));
    gl::SealedSide side;
    side.name = "ode_run (step 3, OuterPar)";
    side.draw = [&](uint64_t seed) -> gl_status {
      params = DrawParams(seed);
      GL_TRY(CourseMiddle(params, 0, points_, SamplePointOf(seed, 0, points_), d_middle,
                          &middle));
      return ode_ref_outer(&params, middle.data(), want.data());
    };
    side.run = [&]() {
      return ode_run(ODE_STEP_OUTER_PAR_REDUCE, &params, kBlock, reserves.data());
    };
    side.host_poison = [&]() {
      memset(reserves.data(), GL_POISON_BYTE, reserves.size() * sizeof(double));
    };
    side.host_check = [&]() {
      std::vector<double> got(reserves.begin(), reserves.begin() + years_);
      std::string wrong = Mismatch("the reserves", Near(want, got, want));
      return wrong.empty() ? GuardText(reserves, years_) : wrong;
    };
    ASSERT_TRUE(gl::TimeSealed(side, 1, 5, ms));
  }

  // The points the CPU and MiddlePar are sampled at: spread over the whole run.
  size_t SamplePoint(int i, int samples) const { return (size_t)(i + 1) * points_ / (samples + 1); }

  ode_params report_;
  size_t points_ = 0;
  size_t years_ = 0;
};

TEST_F(OdePerf, OuterParVsCpu) {
  double outerpar_ms = 0;
  ASSERT_NO_FATAL_FAILURE(TimeOuterPar(&outerpar_ms));

  // The CPU at the report's parameters, each value checked against the course's GPU reference.
  const ode_params &p = report_;
  gl::DeviceBuffer<double> d_middle(points_, gl::kPrivate);
  std::vector<double> middle;
  GL_ASSERT_OK(CourseMiddle(p, 0, points_, SamplePoint(0, 1), d_middle, &middle));
  const int samples = 5;
  std::vector<double> per_call(samples);
  for (int i = 0; i < samples; ++i) {
    size_t j = SamplePoint(i, samples);
    double value = 0, start = gl_host_now_ms();
    GL_ASSERT_OK(ode_ref_middle(&p, j, 1, &value));
    per_call[i] = gl_host_now_ms() - start;
    ASSERT_TRUE(Near(std::vector<double>{value}, std::vector<double>{middle[j]}, middle))
        << "the CPU and the course's GPU reference disagree at point " << j;
  }
  std::vector<double> reserves(years_);
  double start = gl_host_now_ms();
  GL_ASSERT_OK(ode_ref_outer(&p, middle.data(), reserves.data()));
  double outer_ms = gl_host_now_ms() - start;
  double cpu_ms = gl_median(per_call.data(), samples) * (double)points_ + outer_ms;

  char detail[256];
  snprintf(detail, sizeof detail,
           "cpu_ms=%.1f (estimated: median of %d Middle calls x %zu calls + Outer %.3f ms) "
           "outerpar_ms=%.3f (step 3, block %d, the report's parameters with r and g drawn per "
           "call)",
           cpu_ms, samples, points_, outer_ms, outerpar_ms, kBlock);
  gl::ReportRatio("outerpar_vs_cpu", cpu_ms / outerpar_ms, detail);
}

TEST_F(OdePerf, OuterParVsMiddlePar) {
  double outerpar_ms = 0;
  ASSERT_NO_FATAL_FAILURE(TimeOuterPar(&outerpar_ms));

  // The course's MiddlePar launches once per Middle call and waits for each: the time of
  // `calls` calls (the median of 3 runs after one warm-up, each on parameters of its own, each
  // run's values checked against the course's GPU reference), scaled to all of them.
  const size_t calls = 20, first = points_ / 2;
  ode_params params = report_;
  gl::DeviceBuffer<double> d_want(calls, gl::kPrivate);
  gl::DeviceBuffer<double> d_middle(gl::WithGuard<double>(calls), gl::kPrivate);
  std::vector<double> want;
  gl::SealedSide side;
  side.name = "MiddlePar (gl_yardstick_ode_middle_par)";
  side.yardstick = true;
  side.draw = [&](uint64_t seed) {
    params = DrawParams(seed);
    return CourseMiddle(params, first, calls, SamplePointOf(seed, first, calls), d_want, &want);
  };
  side.run = [&]() {
    return gl_yardstick_ode_middle_par(&params, first, calls, d_middle.get());
  };
  side.host_poison = [&]() { d_middle.Poison(); };
  side.host_check = [&]() {
    std::vector<double> values = d_middle.Download();
    std::vector<double> got(values.begin(), values.begin() + calls);
    std::string wrong =
        Mismatch("MiddlePar and the course's GPU reference disagree", Near(want, got, want));
    return wrong.empty() ? GuardText(values, calls) : wrong;
  };
  double sample_ms = 0;
  ASSERT_TRUE(gl::TimeSealed(side, 1, 3, &sample_ms));
  double middlepar_ms = sample_ms / calls * (double)points_;

  char detail[256];
  snprintf(detail, sizeof detail,
           "middlepar_ms=%.1f (the course's, estimated: %zu launches took %.2f ms, x %zu/%zu) "
           "outerpar_ms=%.3f (step 3, block %d, the report's parameters with r and g drawn per "
           "call)",
           middlepar_ms, calls, sample_ms, points_, calls, outerpar_ms, kBlock);
  gl::ReportRatio("outerpar_vs_middlepar", middlepar_ms / outerpar_ms, detail);
}

}  // namespace
