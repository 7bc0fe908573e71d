// Correctness tests of the ode lab: every step, every block size, against the CPU reference.
//
// Each test runs one (step, block size) over a list of parameter sets drawn from the run's seed:
//   - whole runs (Middle at every point, then the reserves) at small step counts, where the CPU
//     reference takes a fraction of a second: the known contract, a random contract, the oldest
//     insured (x = 119, r = x, g = 0, odd step counts) and the youngest (x = 0);
//   - a few Middle points at larger and odd step counts (h2, h3 up to 10) and at the report's
//     parameters, where the CPU computes only those points;
//   - an empty range, which must write nothing.
// The GPU must agree with the CPU to 1e-12 relative on every Middle value and every reserve
// (labs/ode/README.md says why the differing summation order stays far inside that), and two
// runs of the same points must agree bit for bit (a moving result is a race).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gltest.h"

extern "C" {
#include "gpulabs/data.h"
#include "ode.h"
}

namespace {

constexpr double kRelTol = 1e-12;

// Middle values are intermediates, compared normwise: |got - expected| <= 1e-12 * max|expected|.
// Element-wise relative agreement is not a sound demand for them: contracts near the maximum age
// give values of ~1e-15 from stiff recurrences (mortality ~6/year against steps of one year),
// where one rounding difference (an FMA on the GPU, a libm ulp) is amplified past 1e-12 of
// such a tiny value while it is ~1e-27 of the largest. The reserves keep the element-wise test
// with the same floor: a reserve that is a cancellation residue (-8.0e-14 beside others of
// order one, on the H100 for a random contract: 2.5e-12 of itself apart, one rounding) is zero
// to 1e-12 of the largest; one of the order of the largest is held to about 2e-12 of itself.
double MiddleAbsTol(const std::vector<double> &expected) {
  double largest = 0.0;
  for (double v : expected) largest = std::max(largest, std::fabs(v));
  return kRelTol * largest;
}

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

std::string Describe(const ode_params &p) {
  std::ostringstream out;
  out.precision(17);
  out << "x = " << p.x << ", r = " << p.r << ", g = " << p.g << ", h1 = " << p.h1
      << ", h2 = " << p.h2 << ", h3 = " << p.h3;
  return out.str();
}

// The CPU's cost of one Middle point, in units of about a millisecond.
double PointCost(const ode_params &p) { return (double)p.h2 * p.h3; }

struct Case {
  ode_params p;
  bool whole_run;  // all points and the reserves; otherwise points [first, first + count)
  size_t first;
  size_t count;
};

// A random contract: r and g are not whole numbers, so the deferment k(tau) takes values off
// every grid; steps are drawn until the CPU's share of the test stays small.
ode_params RandomContract(gl_rng *rng, int x_lo, int x_hi, int h_max, double cost_budget) {
  for (;;) {
    int x = x_lo + (int)gl_rng_below(rng, (uint64_t)(x_hi - x_lo + 1));
    double r = x + 40.0 * gl_rng_unit(rng);
    double g = 20.0 * gl_rng_unit(rng);
    int h1 = 1 + (int)gl_rng_below(rng, (uint64_t)h_max);
    int h2 = 1 + (int)gl_rng_below(rng, (uint64_t)h_max);
    int h3 = 1 + (int)gl_rng_below(rng, (uint64_t)h_max);
    ode_params p = Params(x, r, g, h1, h2, h3);
    if (ode_outer_point_count(&p) * PointCost(p) <= cost_budget) return p;
  }
}

std::vector<Case> DrawCases(uint64_t seed) {
  gl_rng rng;
  gl_rng_seed(&rng, seed);
  std::vector<Case> cases;
  auto whole = [&](ode_params p) { cases.push_back({p, true, 0, 0}); };
  auto some = [&](ode_params p, size_t first, size_t count) {
    cases.push_back({p, false, first, count});
  };
  whole(Params(35, 65, 10, 1, 1, 1));                 // the known contract
  whole(RandomContract(&rng, 20, 115, 3, 350.0));     // a random one at small step counts
  whole(Params(119, 119, 0, 3, 3, 3));                // oldest insured: 7 points, 357 steps
  whole(Params(0, 0.5, 30, 1, 1, 1));                 // youngest insured: 241 points
  // A few points at larger, often odd, step counts: Middle has 119 * h2 steps, so h2 odd gives
  // an odd count and no count here is a power of two.
  for (int i = 0; i < 2; ++i) {
    ode_params p = RandomContract(&rng, 0, 110, 10, 1e9);
    p.h2 = 3 + (int)gl_rng_below(&rng, 8);
    p.h3 = 3 + (int)gl_rng_below(&rng, 8);
    size_t points = ode_outer_point_count(&p);
    size_t count = 3;
    some(p, (size_t)gl_rng_below(&rng, points - count + 1), count);
    if (i == 0) some(p, points - 1, 1);  // t = 0: the last point
  }
  // The report's parameters: 1701 points, 238 steps of Middle.
  ode_params report = ode_report_params();
  size_t points = ode_outer_point_count(&report);
  some(report, (size_t)gl_rng_below(&rng, points - 1), 2);
  some(report, 0, 1);  // t = 120 - x: the insured is 120, Middle is 0
  return cases;
}

// The CPU's Middle values of a case, computed once per program: the fixed contracts of
// DrawCases (the known one, the oldest, the youngest, the report's last point) recur in all 25
// ladder tests, and the CPU reference would otherwise be most of this program's time.
std::vector<double> CpuMiddle(const Case &c) {
  static std::map<std::string, std::vector<double>> done;
  const std::string key = Describe(c.p) + "; " + std::to_string(c.first) + "+" +
                          std::to_string(c.count);
  auto it = done.find(key);
  if (it != done.end()) return it->second;
  std::vector<double> expected(c.count, NAN);
  const gl_status status = ode_ref_middle(&c.p, c.first, c.count, expected.data());
  EXPECT_TRUE(gl::StatusIs(GL_OK, status, "ode_ref_middle"));
  if (status == GL_OK) done.emplace(key, expected);
  return expected;
}

std::string StepLabel(int step, int block) {
  return std::string(ode_step_name((ode_step)step)) + ", block " + std::to_string(block);
}

class OdeLadder : public GpuTest, public ::testing::WithParamInterface<std::tuple<int, int>> {};

TEST_P(OdeLadder, MatchesTheCpuReference) {
  const ode_step step = (ode_step)std::get<0>(GetParam());
  const int block = std::get<1>(GetParam());
  std::vector<Case> cases = DrawCases(gl::SeedFor(1000 * step + block));
  for (Case c : cases) {
    if (c.whole_run) c.count = ode_outer_point_count(&c.p);
    SCOPED_TRACE(StepLabel(step, block) + "; " + Describe(c.p) + "; points " +
                 std::to_string(c.first) + " .. " + std::to_string(c.first + c.count - 1));
    std::vector<double> expected = CpuMiddle(c);

    gl::DeviceBuffer<double> d_middle(c.count);
    GL_ASSERT_OK(ode_middle(step, &c.p, c.first, c.count, block, d_middle.get()));
    GL_ASSERT_DEVICE_OK("ode_middle");
    std::vector<double> got = d_middle.Download();
    ASSERT_TRUE(gl::ArraysNear(expected, got, kRelTol, MiddleAbsTol(expected))) << "Middle values";

    // Run again on poisoned memory: the same bits, or something races. (Whole runs are
    // repeated by ode_run below, whose reserves are compared.)
    if (!c.whole_run) {
      d_middle.Poison();
      GL_ASSERT_OK(ode_middle(step, &c.p, c.first, c.count, block, d_middle.get()));
      GL_ASSERT_DEVICE_OK("ode_middle (second run)");
      ASSERT_TRUE(gl::ArraysNear(got, d_middle.Download(), 0.0, 0.0))
          << "a second run of the same points gave other bits";
    }

    if (c.whole_run) {
      std::vector<double> want(ode_year_count(&c.p), NAN), reserves(want.size(), NAN);
      GL_ASSERT_OK(ode_ref_outer(&c.p, expected.data(), want.data()));
      GL_ASSERT_OK(ode_run(step, &c.p, block, reserves.data()));
      ASSERT_TRUE(gl::ArraysNear(want, reserves, kRelTol, MiddleAbsTol(want)))
          << "reserves V(t), t = index";
      // The known contract only: a random one may also draw x = 35 and single steps.
      if (c.p.x == 35 && c.p.r == 65.0 && c.p.g == 10.0 && c.p.h1 == 1 && c.p.h2 == 1 &&
          c.p.h3 == 1) {
        EXPECT_NEAR(reserves[0], 0.6280958153610046, 1e-12 * 0.63) << "the known V(0)";
      }
    }
  }
  // An empty range is valid and writes nothing.
  ode_params p = cases[0].p;
  gl::DeviceBuffer<double> untouched(1);
  GL_ASSERT_OK(ode_middle(step, &p, 5, 0, block, untouched.get()));
  GL_ASSERT_DEVICE_OK("ode_middle (empty range)");
  double value = untouched.Download()[0];
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  EXPECT_EQ(bits, 0xCDCDCDCDCDCDCDCDull) << "an empty range wrote to d_middle";
}

std::string LadderName(const ::testing::TestParamInfo<std::tuple<int, int>> &info) {
  return "Block" + std::to_string(std::get<1>(info.param));
}

#define ODE_BLOCKS ::testing::Values(32, 64, 128, 256, 512)
INSTANTIATE_TEST_SUITE_P(OdeStep1, OdeLadder, ::testing::Combine(::testing::Values(1), ODE_BLOCKS),
                         LadderName);
INSTANTIATE_TEST_SUITE_P(OdeStep2, OdeLadder, ::testing::Combine(::testing::Values(2), ODE_BLOCKS),
                         LadderName);
INSTANTIATE_TEST_SUITE_P(OdeStep3, OdeLadder, ::testing::Combine(::testing::Values(3), ODE_BLOCKS),
                         LadderName);
INSTANTIATE_TEST_SUITE_P(OdeStep4, OdeLadder, ::testing::Combine(::testing::Values(4), ODE_BLOCKS),
                         LadderName);
INSTANTIATE_TEST_SUITE_P(OdeStep5, OdeLadder, ::testing::Combine(::testing::Values(5), ODE_BLOCKS),
                         LadderName);

// The largest step counts the lab accepts, a few points: shared memory at its largest (step 2's
// kSum is 119 * 50 doubles, 47600 bytes; step 4's integrand 95 KB, past the 48 KB default) and
// Inner's longest loops. The CPU needs about 2.5 s per point here, so one point per step.
class OdeLargest : public GpuTest, public ::testing::WithParamInterface<int> {};

TEST_P(OdeLargest, MaximumStepCounts) {
  const ode_step step = (ode_step)GetParam();
  ode_params p = Params(60, 61.5, 12.25, ODE_MAX_STEPS_PER_YEAR, ODE_MAX_STEPS_PER_YEAR,
                        ODE_MAX_STEPS_PER_YEAR);
  gl_rng rng;
  gl_rng_seed(&rng, gl::SeedFor(77 + GetParam()));
  size_t points = ode_outer_point_count(&p);
  Case c{p, false, (size_t)gl_rng_below(&rng, points), 1};
  SCOPED_TRACE(StepLabel(step, 256) + "; " + Describe(p) + "; point " + std::to_string(c.first));
  std::vector<double> expected = CpuMiddle(c);
  gl::DeviceBuffer<double> d_middle(1);
  GL_ASSERT_OK(ode_middle(step, &p, c.first, 1, 256, d_middle.get()));
  GL_ASSERT_DEVICE_OK("ode_middle");
  EXPECT_TRUE(gl::ArraysNear(expected, d_middle.Download(), kRelTol, MiddleAbsTol(expected)));
}

INSTANTIATE_TEST_SUITE_P(OdeStepsAtTheLimit, OdeLargest, ::testing::Values(2, 3, 4, 5),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return "Step" + std::to_string(info.param);
                         });

// ---- Bad input: a clear error before anything is launched (no GPU needed, no points) --------

struct BadParams {
  ode_params p;
  gl_status expected;
  const char *mentions;
};

TEST(OdeBadInput, RejectsBadParameters) {
  const BadParams cases[] = {
      {Params(120, 130, 10, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "x = 120"},
      {Params(-3, 65, 10, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "x = -3"},
      {Params(35, 34.5, 10, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "r = 34.5"},
      {Params(35, 65, -0.5, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "g = -0.5"},
      {Params(35, 65, NAN, 1, 1, 1), GL_ERR_INVALID_ARGUMENT, "g = nan"},
      {Params(35, 65, 10, 0, 1, 1), GL_ERR_INVALID_ARGUMENT, "h1 = 0"},
      {Params(35, 65, 10, 1, 0, 1), GL_ERR_INVALID_ARGUMENT, "h2 = 0"},
      {Params(35, 65, 10, 1, 1, -4), GL_ERR_INVALID_ARGUMENT, "h3 = -4"},
      {Params(35, 65, 10, 1, 1, ODE_MAX_STEPS_PER_YEAR + 1), GL_ERR_SIZE, "h3 = 51"},
  };
  double *not_used = reinterpret_cast<double *>(16);  // never dereferenced: the call must fail first
  std::vector<double> reserves(200);
  for (int step = ODE_FIRST_STEP; step <= ODE_LAST_STEP; ++step) {
    for (const BadParams &c : cases) {
      GL_EXPECT_STATUS(c.expected, ode_middle((ode_step)step, &c.p, 0, 1, 128, not_used));
      EXPECT_NE(std::strstr(gl_last_error(), c.mentions), nullptr) << gl_last_error();
      EXPECT_NE(std::strstr(gl_last_error(), "ode_middle"), nullptr) << gl_last_error();
      GL_EXPECT_STATUS(c.expected, ode_run((ode_step)step, &c.p, 128, reserves.data()));
      EXPECT_NE(std::strstr(gl_last_error(), "ode_run"), nullptr) << gl_last_error();
    }
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_middle((ode_step)step, nullptr, 0, 1, 128, not_used));
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_run((ode_step)step, nullptr, 128, reserves.data()));
  }
}

TEST(OdeBadInput, RejectsBadStepsBlockSizesRangesAndPointers) {
  ode_params p = Params(35, 65, 10, 1, 1, 1);  // 171 points
  double *not_used = reinterpret_cast<double *>(16);
  std::vector<double> reserves(ode_year_count(&p));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, ode_middle((ode_step)0, &p, 0, 1, 128, not_used));
  EXPECT_NE(std::strstr(gl_last_error(), "step 0"), nullptr) << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, ode_run((ode_step)6, &p, 128, reserves.data()));
  EXPECT_STREQ(ode_step_name((ode_step)6), "unknown");
  for (int block : {-32, 16, 48, 100, 1024, 2048}) {
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                     ode_middle(ODE_STEP_OUTER_PAR, &p, 0, 1, block, not_used));
    EXPECT_NE(std::strstr(gl_last_error(), ("block_size " + std::to_string(block)).c_str()),
              nullptr) << gl_last_error();
  }
  GL_EXPECT_STATUS(GL_ERR_SIZE, ode_middle(ODE_STEP_OUTER_PAR, &p, 170, 2, 128, not_used));
  EXPECT_NE(std::strstr(gl_last_error(), "171 points"), nullptr) << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_SIZE, ode_middle(ODE_STEP_OUTER_PAR, &p, 172, 0, 128, not_used));
  GL_EXPECT_STATUS(GL_ERR_SIZE, ode_middle(ODE_STEP_OUTER_PAR, &p, 1, (size_t)-1, 128, not_used));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_middle(ODE_STEP_OUTER_PAR, &p, 0, 1, 128, nullptr));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_run(ODE_STEP_OUTER_PAR, &p, 128, nullptr));
  ode_step_info info;
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, ode_describe(ODE_STEP_OUTER_PAR, &p, 128, nullptr));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, ode_describe(ODE_STEP_OUTER_PAR, &p, 96, &info));
}

// ---- The launch shapes the benchmark reports (given code: no points) -------------------------

class OdeDescribe : public GpuTest {};

TEST_F(OdeDescribe, ReportsTheReportsLaunchShapes) {
  ode_params p = ode_report_params();
  ode_step_info info;
  GL_ASSERT_OK(ode_describe(ODE_STEP_MIDDLE_PAR, &p, 128, &info));
  ASSERT_EQ(info.kernel_count, 1);
  EXPECT_EQ(info.kernels[0].launches, 1701) << "one launch per Middle call";
  EXPECT_EQ(info.kernels[0].grid, 2) << "238 steps over blocks of 128";
  EXPECT_EQ(info.kernels[0].block, 128);
  EXPECT_GT(info.kernels[0].registers, 0);
  GL_ASSERT_OK(ode_describe(ODE_STEP_OUTER_PAR, &p, 128, &info));
  EXPECT_EQ(info.kernels[0].launches, 1);
  EXPECT_EQ(info.kernels[0].grid, 1701);
  EXPECT_GE(info.kernels[0].shared_bytes, 1904u) << "the report's 119 * h2 * 8 bytes of kSum";
  EXPECT_GT(info.kernels[0].theoretical_occupancy, 0.0);
  EXPECT_LE(info.kernels[0].theoretical_occupancy, 1.0);
  GL_ASSERT_OK(ode_describe(ODE_STEP_INNER_TABLE, &p, 128, &info));
  EXPECT_EQ(info.kernel_count, 2);
}

}  // namespace
