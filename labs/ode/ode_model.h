/* The ode lab's model: a collective spouse pension computed by three nested Runge-Kutta solvers
 * (see labs/ode/README.md). Every function here is `static inline` and, when nvcc compiles it,
 * `__host__ __device__`: the CPU reference and every GPU step call the very same code, so they
 * agree to rounding (the only differences left are the GPU's own pow/exp and fused multiply-adds).
 *
 * Positions (ages, times, step starts) are always computed from an integer index by one division
 * and one subtraction, never accumulated and never by a multiply-add: the CPU and the GPU then get
 * the same bits for them, and the model's discontinuities (the deferment indicator 1{s >= k},
 * the deferment k itself) switch at exactly the same points on both.
 */
#ifndef GPULABS_REFERENCE_ODE_MODEL_H
#define GPULABS_REFERENCE_ODE_MODEL_H

#include <math.h>

#ifndef GL_HD
#ifdef __CUDACC__
#define GL_HD __host__ __device__
#else
#define GL_HD
#endif
#endif

/* The maximum age: every solver ends (or starts) there. */
#define ODE_OMEGA 120
/* Middle integrates the spouse's age from ODE_OMEGA down to this age. */
#define ODE_MIDDLE_LOWEST_AGE 1
/* The interest rate does not depend on time. Step 5 of the lab (the Inner table) relies on it:
 * only then is Inner(eta, k, t) independent of t. */
#define ODE_RATE_IS_CONSTANT 1
/* Standard deviation of the spouse's age around the insured's (years). */
#define ODE_SPOUSE_AGE_SIGMA 3.0
#define ODE_PI 3.14159265358979323846

/* ---- Constants and functions of the model ---------------------------------------------------- */

/* Force of interest at calendar time t (years from now). */
GL_HD static inline double ode_rate(double t) {
  (void)t;
  return 0.05;
}

/* Gompertz-Makeham mortality intensity of the insured woman at age `age`. */
GL_HD static inline double ode_mu_f(double age) {
  return 0.0005 + pow(10.0, 5.728 - 10.0 + 0.038 * age);
}

/* Gompertz-Makeham mortality intensity of the spouse (a man) at age `age`. */
GL_HD static inline double ode_mu_m(double age) {
  return 0.0005 + pow(10.0, 5.880 - 10.0 + 0.038 * age);
}

/* The parabola behind the marriage probability: (15 - tau)(tau - 120), clipped at 0. */
GL_HD static inline double ode_marriage_parabola(double tau) {
  double p = (15.0 - tau) * (tau - ODE_OMEGA);
  return p > 0.0 ? p : 0.0;
}

/* Probability that the insured, aged tau, is married: peaks at 0.9 at age 67.5. */
GL_HD static inline double ode_gp(double tau) {
  return 0.9 * ode_marriage_parabola(tau) / ode_marriage_parabola(67.5);
}

/* Density of the spouse's age eta when the insured is aged tau: normal with mean tau and
 * standard deviation 3, cut to 0 < eta < 120. */
GL_HD static inline double ode_spouse_density(double eta, double tau) {
  if (!(eta > 0.0 && eta < ODE_OMEGA)) return 0.0;
  double d = tau - eta;
  double two_var = 2.0 * ODE_SPOUSE_AGE_SIGMA * ODE_SPOUSE_AGE_SIGMA;
  return exp(-(d * d) / two_var) / (ODE_SPOUSE_AGE_SIGMA * sqrt(2.0 * ODE_PI));
}

/* The deferment of the spouse's annuity when the insured dies at age tau: the guarantee g
 * before retirement age r, what is left of it between r and r + g, nothing after. */
GL_HD static inline double ode_deferment(double tau, double r, double g) {
  if (tau < r) return g;
  if (tau < r + g) return r + g - tau;
  return 0.0;
}

/* ---- Level 3: Inner ----------------------------------------------------------------------- */

/* dV/ds of the spouse's annuity: interest, minus the payment rate once s >= k, plus mortality.
 * s: years since the insured's death; t: calendar time of the death. */
GL_HD static inline double ode_inner_derivative(double s, double v, double eta, double k, double t) {
  double payment = s >= k ? 1.0 : 0.0;
  return ode_rate(t + s) * v - payment + ode_mu_m(eta + s) * v;
}

/* One classic RK4 step of Inner from s, of length step (negative: the solver runs backwards). */
GL_HD static inline double ode_inner_rk4_step(double s, double step, double v, double eta, double k,
                                              double t) {
  double half = step / 2.0;
  double k1 = step * ode_inner_derivative(s, v, eta, k, t);
  double k2 = step * ode_inner_derivative(s + half, v + k1 / 2.0, eta, k, t);
  double k3 = step * ode_inner_derivative(s + half, v + k2 / 2.0, eta, k, t);
  double k4 = step * ode_inner_derivative(s + step, v + k3, eta, k, t);
  return v + k1 / 6.0 + k2 / 3.0 + k3 / 3.0 + k4 / 6.0;
}

/* Inner(eta, k, t): the value at the insured's death of an annuity of 1 per year to a spouse
 * aged eta, deferred k years, paid while the spouse lives. Solves dV/ds from s = 120 - eta
 * (V = 0) down to s = 0 with h3 steps per year and returns V(0).
 *
 * The step rule of every solver in the model: floor(span * h3) full steps of 1/h3 that end
 * exactly at 0, preceded, when span is not a whole number of steps, by one partial step from
 * span down to where the full steps start. */
GL_HD static inline double ode_inner(double eta, double k, double t, int h3) {
  double span = ODE_OMEGA - eta;
  if (!(span > 0.0)) return 0.0;
  double step = -1.0 / h3;
  int full_steps = (int)floor(span * h3);
  double full_start = full_steps / (double)h3;
  double v = 0.0;
  if (full_start < span) v = ode_inner_rk4_step(span, full_start - span, v, eta, k, t);
  for (int m = full_steps; m > 0; --m) v = ode_inner_rk4_step(m / (double)h3, step, v, eta, k, t);
  return v;
}

/* ---- Level 2: Middle ---------------------------------------------------------------------- */

/* Middle's evaluation points on the spouse's age: point j (j = 0 .. 2 * steps) lies j half steps
 * below 120. Step i runs from point 2i to point 2i + 2 and has its midpoint at 2i + 1. */
GL_HD static inline double ode_middle_eta(int h2, int j) { return ODE_OMEGA - j / (2.0 * h2); }

/* Middle's step count: (120 - 1) years at h2 steps per year. */
GL_HD static inline int ode_middle_step_count(int h2) {
  return (ODE_OMEGA - ODE_MIDDLE_LOWEST_AGE) * h2;
}

/* dI/deta given Inner's value at eta: -gp(tau) * h(eta, tau) * Inner(eta, k, t). */
GL_HD static inline double ode_middle_integrand(double tau, double eta, double inner) {
  return -(ode_gp(tau) * ode_spouse_density(eta, tau)) * inner;
}

/* The integrand at Middle's point j: one Inner call. */
GL_HD static inline double ode_middle_point_value(double tau, double t, double k, int h2, int h3,
                                                  int j) {
  double eta = ode_middle_eta(h2, j);
  return ode_middle_integrand(tau, eta, ode_inner(eta, k, t, h3));
}

/* The increment of one RK4 step of Middle from the integrand at the step's start, midpoint and
 * end. The derivative does not depend on I, so k2 == k3: "kSum" in the report. */
GL_HD static inline double ode_middle_step_sum(int h2, double f_start, double f_mid, double f_end) {
  double step = -1.0 / h2;
  double k1 = step * f_start;
  double k2 = step * f_mid;
  double k4 = step * f_end;
  return k1 / 6.0 + k2 / 3.0 + k2 / 3.0 + k4 / 6.0;
}

/* kSum of Middle's step i (i = 0 .. steps - 1): three Inner calls, independent of every other
 * step. Middle(tau, t) is the sum of these over all steps, in any order. */
GL_HD static inline double ode_middle_step(double tau, double t, double k, int h2, int h3, int i) {
  double f_start = ode_middle_point_value(tau, t, k, h2, h3, 2 * i);
  double f_mid = ode_middle_point_value(tau, t, k, h2, h3, 2 * i + 1);
  double f_end = ode_middle_point_value(tau, t, k, h2, h3, 2 * i + 2);
  return ode_middle_step_sum(h2, f_start, f_mid, f_end);
}

/* ---- Level 1: Outer ----------------------------------------------------------------------- */

/* Outer's evaluation points on calendar time: point j (j = 0 .. 2 * (120 - x) * h1) lies j half
 * steps below 120 - x. Outer step i uses points 2i, 2i + 1 (twice) and 2i + 2. */
GL_HD static inline double ode_outer_time(int x, int h1, int j) {
  return (double)(ODE_OMEGA - x) - j / (2.0 * h1);
}

/* What Middle needs at Outer's point j: the time t, the insured's age tau = x + t and the
 * deferment k(tau). */
typedef struct ode_point {
  double t;
  double tau;
  double k;
} ode_point;

GL_HD static inline ode_point ode_outer_point(int x, double r, double g, int h1, int j) {
  ode_point point;
  point.t = ode_outer_time(x, h1, j);
  point.tau = x + point.t;
  point.k = ode_deferment(point.tau, r, g);
  return point;
}

/* dV/dt of the reserve, given Middle's value m at t. */
GL_HD static inline double ode_outer_derivative(int x, double t, double v, double m) {
  return ode_rate(t) * v - ode_mu_f(x + t) * (m - v);
}

#endif
