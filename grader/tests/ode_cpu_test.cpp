// Tests of the ode lab's CPU reference: the model's functions, Inner's solver and step rule, and
// the whole program against values computed independently of this project.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "gpulabs/reference/ode.h"
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

// The known values of docs/labs/ode.md, computed independently of this project.
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
