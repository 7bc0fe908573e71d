// Tests of the ode lab's CPU reference: the model's functions, Inner's solver and step rule, and
// the whole program against values computed independently of this project.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "gpulabs/data.h"
#include "ode_reference.h"
}

namespace {

ode_params Params(int x, double r, double g, int h1, int h2, int h3) {
  ode_params p;
  p.x = x;
  p.r = r;
  p.g = g;
  p.h1 = h1;
  p.h2 = h2;
  p.h3 = h3;
  return p;
}

double RelativeError(double got, double expected) {
  return std::fabs(got - expected) / std::fabs(expected);
}

std::vector<double> Reserves(const ode_params &p) {
  std::vector<double> reserves(ode_year_count(&p), NAN);
  EXPECT_TRUE(gl::StatusIs(GL_OK, ode_ref_reserves(&p, reserves.data()), "ode_ref_reserves"));
  return reserves;
}

// The value of a continuous life annuity of 1 per year to a man aged eta, paid for s in
// [0, 120 - eta]: the integral of exp(-delta s - int_0^s mu_m(eta + u) du), by Simpson's rule on
// a fine grid with the inner integral in closed form. Independent of the RK4 code.
double AnnuityIntegral(double eta) {
  const double delta = 0.05, b = 5.880 - 10.0, c = 0.038;
  auto survival = [&](double s) {
    double gompertz = (std::pow(10.0, b + c * (eta + s)) - std::pow(10.0, b + c * eta)) /
                      (c * std::log(10.0));
    return std::exp(-delta * s - 0.0005 * s - gompertz);
  };
  const double span = 120.0 - eta;
  const int n = 200000;  // even
  const double h = span / n;
  double sum = survival(0.0) + survival(span);
  for (int i = 1; i < n; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * survival(i * h);
  return sum * h / 3.0;
}

}  // namespace

// The known values of labs/ode/README.md, computed independently of this project.
TEST(OdeCpu, KnownReservesAtOneStepPerYear) {
  std::vector<double> v = Reserves(Params(35, 65, 10, 1, 1, 1));
  ASSERT_EQ(v.size(), 86u);
  EXPECT_LT(RelativeError(v[0], 0.6280958153610046), 1e-13) << "V(0) = " << v[0];
  EXPECT_LT(RelativeError(v[30], 1.8003210752208807), 1e-13) << "V(30) = " << v[30];
  EXPECT_EQ(v[85], 0.0) << "V(120 - x) must be 0: nothing is left to pay at the maximum age";
}

TEST(OdeCpu, KnownReserveAtTwoStepsPerYearConvergesTowardActulus) {
  const double actulus = 0.61831213598263246;
  double v1 = Reserves(Params(35, 65, 10, 1, 1, 1))[0];
  double v2 = Reserves(Params(35, 65, 10, 2, 2, 2))[0];
  EXPECT_LT(RelativeError(v2, 0.6232110341974992), 1e-13) << "V(0) = " << v2;
  // The deferment's jump and the partial steps make the error fall like the step, not its 4th
  // power: halving every step roughly halves it.
  EXPECT_LT(std::fabs(v2 - actulus), 0.6 * std::fabs(v1 - actulus)) << v1 << " then " << v2;
}

TEST(OdeCpu, ModelFunctions) {
  EXPECT_DOUBLE_EQ(ode_gp(67.5), 0.9);
  EXPECT_EQ(ode_gp(15.0), 0.0);
  EXPECT_EQ(ode_gp(120.0), 0.0);
  EXPECT_EQ(ode_gp(10.0), 0.0);
  EXPECT_EQ(ode_gp(121.0), 0.0);
  EXPECT_DOUBLE_EQ(ode_gp(40.0), ode_gp(95.0)) << "the parabola is symmetric about 67.5";

  EXPECT_DOUBLE_EQ(ode_mu_f(0.0), 0.0005 + std::pow(10.0, -4.272));
  EXPECT_DOUBLE_EQ(ode_mu_m(50.0), 0.0005 + std::pow(10.0, 5.88 - 10.0 + 1.9));
  EXPECT_GT(ode_mu_m(60.0), ode_mu_f(60.0)) << "men die sooner in the Danish tables";

  EXPECT_EQ(ode_spouse_density(0.0, 1.0), 0.0);
  EXPECT_EQ(ode_spouse_density(120.0, 119.0), 0.0);
  EXPECT_DOUBLE_EQ(ode_spouse_density(60.0, 60.0), 1.0 / (3.0 * std::sqrt(2.0 * M_PI)));
  double mass = 0.0;  // the density integrates to 1 for an insured well inside (0, 120)
  for (int i = 0; i < 120000; ++i) mass += ode_spouse_density((i + 0.5) * 0.001, 60.0) * 0.001;
  EXPECT_NEAR(mass, 1.0, 1e-9);

  EXPECT_EQ(ode_deferment(50.0, 65.0, 10.0), 10.0);
  EXPECT_EQ(ode_deferment(65.0, 65.0, 10.0), 10.0);
  EXPECT_EQ(ode_deferment(70.5, 65.0, 10.0), 4.5);
  EXPECT_EQ(ode_deferment(75.0, 65.0, 10.0), 0.0);
  EXPECT_EQ(ode_deferment(90.0, 65.0, 10.0), 0.0);
  EXPECT_EQ(ode_deferment(50.0, 65.0, 0.0), 0.0);
}

TEST(OdeCpu, InnerConvergesToTheAnnuityIntegralAtFourthOrder) {
  // With k = 0 and a whole span there is no jump and no partial step: RK4's error falls 16-fold
  // each time the step halves.
  const double eta = 60.0, exact = AnnuityIntegral(eta);
  double e2 = std::fabs(ode_inner(eta, 0.0, 0.0, 2) - exact);
  double e4 = std::fabs(ode_inner(eta, 0.0, 0.0, 4) - exact);
  double e8 = std::fabs(ode_inner(eta, 0.0, 0.0, 8) - exact);
  EXPECT_GT(e2 / e4, 12.0) << e2 << " " << e4;
  EXPECT_GT(e4 / e8, 12.0) << e4 << " " << e8;
  EXPECT_LT(std::fabs(ode_inner(eta, 0.0, 0.0, 50) - exact) / exact, 1e-9);
  // A spouse on a non-grid age (partial first step) converges too.
  const double eta2 = 57.3, exact2 = AnnuityIntegral(eta2);
  EXPECT_LT(std::fabs(ode_inner(eta2, 0.0, 0.0, 50) - exact2) / exact2, 1e-8);
}

TEST(OdeCpu, InnerTakesOnePartialStepFirst) {
  const double k = 1.0, t = 0.0;
  // Span 0.3 with one step per year: no full step, one partial step from 0.3 down to 0.
  double by_hand = ode_inner_rk4_step(0.3, -0.3, 0.0, 119.7, k, t);
  EXPECT_EQ(ode_inner(119.7, k, t, 1), by_hand);
  // Span 2.5 with 2 steps per year: 5 full steps, no partial one.
  double v = 0.0;
  for (int m = 5; m > 0; --m) v = ode_inner_rk4_step(m / 2.0, -0.5, v, 117.5, k, t);
  EXPECT_EQ(ode_inner(117.5, k, t, 2), v);
  // Span 2.25 with 2 steps per year: a partial step from 2.25 to 2, then 4 full steps.
  v = ode_inner_rk4_step(2.25, -0.25, 0.0, 117.75, k, t);
  for (int m = 4; m > 0; --m) v = ode_inner_rk4_step(m / 2.0, -0.5, v, 117.75, k, t);
  EXPECT_EQ(ode_inner(117.75, k, t, 2), v);
  // Nothing is paid when the deferment outlasts the spouse's remaining life, or at 120.
  EXPECT_EQ(ode_inner(117.75, 5.0, t, 2), 0.0);
  EXPECT_EQ(ode_inner(120.0, 0.0, t, 2), 0.0);
  EXPECT_GT(ode_inner(117.75, 0.0, t, 2), 0.0);
}

TEST(OdeCpu, MiddleOnAnyRangeMatchesPointByPoint) {
  ode_params p = Params(100, 105.5, 7.25, 2, 3, 1);
  size_t points = ode_outer_point_count(&p);
  ASSERT_EQ(points, 81u);
  std::vector<double> all(points, NAN), part(5, NAN);
  GL_ASSERT_OK(ode_ref_middle(&p, 0, points, all.data()));
  GL_ASSERT_OK(ode_ref_middle(&p, 40, 5, part.data()));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(part[i], all[40 + i]) << "point " << 40 + i;
  EXPECT_EQ(ode_ref_middle_point(&p, 80), all[80]);
  EXPECT_EQ(all[0], 0.0) << "at point 0 the insured is 120: gp(120) = 0";
  for (size_t j = 1; j < points; ++j) EXPECT_GT(all[j], 0.0) << "point " << j;
  GL_EXPECT_OK(ode_ref_middle(&p, points, 0, nullptr));
  GL_EXPECT_STATUS(GL_ERR_SIZE, ode_ref_middle(&p, 80, 2, part.data()));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_ref_middle(&p, 0, 1, nullptr));
}

TEST(OdeCpu, OuterOfNoSpouseValueIsZeroAndTheLastYearIsZero) {
  ode_params p = Params(60, 60, 0, 3, 1, 1);
  std::vector<double> zero(ode_outer_point_count(&p), 0.0), reserves(ode_year_count(&p), NAN);
  GL_ASSERT_OK(ode_ref_outer(&p, zero.data(), reserves.data()));
  for (double v : reserves) EXPECT_EQ(v, 0.0);
  ode_params oldest = Params(119, 119, 0, 3, 3, 3);
  std::vector<double> v = Reserves(oldest);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1], 0.0);
  EXPECT_GT(v[0], 0.0);
}

TEST(OdeCpu, RejectsBadParameters) {
  struct BadCase {
    ode_params p;
    gl_status expected;
    const char *names;  // what the message must mention
  };
  const double nan = NAN;
  const BadCase cases[] = {
      {Params(120, 130, 10, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "x = 120"},
      {Params(-1, 65, 10, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "x = -1"},
      {Params(35, 30, 10, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "r = 30"},
      {Params(35, nan, 10, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "r = nan"},
      {Params(35, 65, -1, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "g = -1"},
      {Params(35, 65, nan, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "g = nan"},
      {Params(35, 65, 10, 0, 1, 1), GL_ERR_INVALID_ARGUMENT, "h1 = 0"},
      {Params(35, 65, 10, 1, -2, 1), GL_ERR_INVALID_ARGUMENT, "h2 = -2"},
      {Params(35, 65, 10, 1, 1, 0), GL_ERR_INVALID_ARGUMENT, "h3 = 0"},
      {Params(35, 65, 10, 1, ODE_MAX_STEPS_PER_YEAR + 1, 1), GL_ERR_SIZE, "h2 = 51"},
  };
  for (const BadCase &c : cases) {
    GL_EXPECT_STATUS(c.expected, ode_check_params(&c.p, "caller"));
    EXPECT_NE(std::strstr(gl_last_error(), c.names), nullptr) << gl_last_error();
    EXPECT_NE(std::strstr(gl_last_error(), "caller:"), nullptr) << gl_last_error();
    std::vector<double> reserves(200, 0.0);
    GL_EXPECT_STATUS(c.expected, ode_ref_reserves(&c.p, reserves.data()));
  }
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_check_params(nullptr, "caller"));
  ode_params good = ode_report_params();
  GL_EXPECT_OK(ode_check_params(&good, "caller"));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_ref_reserves(&good, nullptr));
}

TEST(OdeCpu, CountsAtTheReportsParameters) {
  ode_params p = ode_report_params();
  EXPECT_EQ(ode_outer_point_count(&p), 1701u) << "the report's grid of 1700 blocks, plus t = 0";
  EXPECT_EQ(ode_year_count(&p), 86u);
  EXPECT_EQ(ode_middle_step_count(p.h2), 238);
}

// ---- The reference on several threads (OpenMP) ------------------------------------------------

namespace {

// A small random contract from the run's seed, as the GPU tests draw them: r and g off every
// grid, step counts 1 to 3. Every Middle call costs the same whatever x (Inner's spans depend
// on eta alone), so the test stays short by having few points: an old insured, drawn again
// until points x h2 x h3 stays small (one unit is a few milliseconds here).
ode_params SmallRandomContract(uint64_t label) {
  gl_rng rng;
  gl_rng_seed(&rng, gl::SeedFor(label));
  for (;;) {
    ode_params p;
    p.x = 95 + (int)gl_rng_below(&rng, 21);
    p.r = p.x + 40.0 * gl_rng_unit(&rng);
    p.g = 20.0 * gl_rng_unit(&rng);
    p.h1 = 1 + (int)gl_rng_below(&rng, 3);
    p.h2 = 1 + (int)gl_rng_below(&rng, 3);
    p.h3 = 1 + (int)gl_rng_below(&rng, 3);
    if (ode_outer_point_count(&p) * p.h2 * p.h3 <= 60) return p;
  }
}

std::string Describe(const ode_params &p) {
  char text[160];
  std::snprintf(text, sizeof text, "x = %d, r = %.17g, g = %.17g, h1 = %d, h2 = %d, h3 = %d",
                p.x, p.r, p.g, p.h1, p.h2, p.h3);
  return text;
}

// The same bits (EXPECT_EQ on doubles would also pass -0.0 against 0.0).
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

// The OpenMP reference shares out Outer's points and computes each with the sequential code:
// with 1, 2 and 3 threads (and every core) it must give the sequential program's bits.
TEST(OdeCpuThreads, EqualTheSequentialProgramBitForBit) {
  std::vector<ode_params> contracts = {Params(100, 105.5, 7.25, 1, 1, 1), SmallRandomContract(1),
                                       SmallRandomContract(2)};
  for (const ode_params &p : contracts) {
    SCOPED_TRACE(Describe(p));
    const size_t points = ode_outer_point_count(&p);
    std::vector<double> middle(points, NAN), reserves = Reserves(p);
    GL_ASSERT_OK(ode_ref_middle(&p, 0, points, middle.data()));
    for (int threads : {1, 2, 3, 0}) {
      SCOPED_TRACE("threads = " + std::to_string(threads));
      // The whole program, keeping Middle's values.
      std::vector<double> got_middle(points, NAN), got(ode_year_count(&p), NAN);
      ode_ref_run run;
      std::memset(&run, 0, sizeof run);
      run.threads = threads;
      run.middle = got_middle.data();
      GL_ASSERT_OK(ode_ref_reserves_run(&p, &run, got.data()));
      EXPECT_EQ(run.points_done, points);
      for (size_t j = 0; j < points; ++j) {
        ASSERT_TRUE(SameBits(got_middle[j], middle[j]))
            << "Middle at point " << j << ": " << got_middle[j] << " against " << middle[j];
      }
      for (size_t t = 0; t < got.size(); ++t) {
        ASSERT_TRUE(SameBits(got[t], reserves[t]))
            << "V(" << t << "): " << got[t] << " against " << reserves[t];
      }
      // A range that starts inside, as ode_ref_middle takes it.
      const size_t first = points / 2, count = points - first - 1;
      std::vector<double> part(count, NAN);
      GL_ASSERT_OK(ode_ref_middle_threads(&p, first, count, threads, part.data()));
      for (size_t i = 0; i < count; ++i) {
        ASSERT_TRUE(SameBits(part[i], middle[first + i])) << "point " << first + i;
      }
    }
    // And the short form.
    std::vector<double> got(ode_year_count(&p), NAN);
    GL_ASSERT_OK(ode_ref_reserves_threads(&p, 2, got.data()));
    for (size_t t = 0; t < got.size(); ++t) ASSERT_TRUE(SameBits(got[t], reserves[t])) << t;
  }
}

struct StopAfter {
  size_t limit;
  size_t calls;
  size_t last_done;
  bool counted_up;
};

int StopAfterLimit(size_t done, size_t total, void *context) {
  StopAfter *stop = static_cast<StopAfter *>(context);
  ++stop->calls;
  stop->counted_up = stop->counted_up && done == stop->last_done + 1 && done <= total;
  stop->last_done = done;
  return done >= stop->limit;
}

// The benchmark's run: progress once per point, counting up; a stopped run leaves the reserves
// and the points it skipped NaN, and the points it did are the sequential program's.
TEST(OdeCpuThreads, ReportProgressAndStopWhenAsked) {
  const ode_params p = SmallRandomContract(3);
  SCOPED_TRACE(Describe(p));
  const size_t points = ode_outer_point_count(&p);
  std::vector<double> middle(points, NAN), reserves = Reserves(p);
  GL_ASSERT_OK(ode_ref_middle(&p, 0, points, middle.data()));
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads = " + std::to_string(threads));
    // Whole: one report per point.
    StopAfter never = {points + 1, 0, 0, true};
    std::vector<double> kept(points, 0.0), got(ode_year_count(&p), NAN);
    ode_ref_run run;
    std::memset(&run, 0, sizeof run);
    run.threads = threads;
    run.progress = StopAfterLimit;
    run.context = &never;
    run.middle = kept.data();
    GL_ASSERT_OK(ode_ref_reserves_run(&p, &run, got.data()));
    EXPECT_EQ(never.calls, points);
    EXPECT_TRUE(never.counted_up);
    EXPECT_EQ(run.points_done, points);
    EXPECT_EQ(run.stopped, 0);
    EXPECT_GE(run.threads_used, 1);
    EXPECT_LE(run.threads_used, ode_ref_have_openmp() ? threads : 1);
    for (size_t j = 0; j < points; ++j) ASSERT_TRUE(SameBits(kept[j], middle[j])) << j;
    for (size_t t = 0; t < got.size(); ++t) ASSERT_TRUE(SameBits(got[t], reserves[t])) << t;

    // Stopped after a third of the points.
    StopAfter stop = {points / 3, 0, 0, true};
    run.context = &stop;
    run.points_done = 0;
    std::fill(kept.begin(), kept.end(), 0.0);
    GL_ASSERT_OK(ode_ref_reserves_run(&p, &run, got.data()));
    EXPECT_EQ(run.stopped, 1);
    EXPECT_EQ(stop.calls, points / 3) << "no report after the one that stopped the run";
    // Threads already at work finish their point: at most threads - 1 more.
    EXPECT_GE(run.points_done, points / 3);
    EXPECT_LE(run.points_done, points / 3 + (size_t)run.threads_used - 1);
    size_t computed = 0;
    for (size_t j = 0; j < points; ++j) {
      if (std::isnan(kept[j])) continue;
      ++computed;
      ASSERT_TRUE(SameBits(kept[j], middle[j])) << "point " << j;
    }
    EXPECT_EQ(computed, run.points_done) << "the points skipped are left NaN";
    for (double v : got) EXPECT_TRUE(std::isnan(v)) << "a stopped run has no reserves";
  }
}

TEST(OdeCpuThreads, ThreadCountsAndBadArguments) {
  if (ode_ref_have_openmp()) {
    EXPECT_EQ(ode_ref_thread_count(3), 3);
    EXPECT_GE(ode_ref_thread_count(0), 1) << "0 means every core";
  } else {
    EXPECT_EQ(ode_ref_thread_count(3), 1) << "without OpenMP every run has one thread";
    EXPECT_EQ(ode_ref_thread_count(0), 1);
  }
  EXPECT_EQ(ode_ref_thread_count(1), 1);
  const ode_params p = Params(100, 105, 5, 1, 1, 1);
  std::vector<double> out(ode_outer_point_count(&p), NAN);
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, ode_ref_reserves_threads(&p, -1, out.data()));
  EXPECT_NE(std::strstr(gl_last_error(), "threads = -1"), nullptr) << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_SIZE,
                   ode_ref_middle_threads(&p, 0, 1, ODE_MAX_THREADS + 1, out.data()));
  GL_EXPECT_STATUS(GL_ERR_SIZE, ode_ref_middle_threads(&p, 1, out.size(), 2, out.data()));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_ref_middle_threads(&p, 0, 1, 2, nullptr));
  GL_EXPECT_OK(ode_ref_middle_threads(&p, out.size(), 0, 2, nullptr));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_ref_reserves_threads(&p, 2, nullptr));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_ref_reserves_run(&p, nullptr, out.data()));
  ode_params bad = p;
  bad.h3 = 0;
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, ode_ref_reserves_threads(&bad, 2, out.data()));
}
