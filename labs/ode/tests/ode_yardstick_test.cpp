// GPU tests of the ode lab's course code (ode_yardstick.h): its GPU reference and its
// MiddlePar, the baseline of outerpar_vs_middlepar. Built on the CUDA backend only, like the
// yardstick; skipped without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gltest.h"

extern "C" {
#include "ode_reference.h"
#include "ode_yardstick.h"
}

class YardstickOde : public GpuTest {
 protected:
  void TearDown() override { gl_yardstick_ode_release(); }
};

namespace {

// The course's reference, or its MiddlePar, at points first .. first + count - 1.
std::vector<double> CourseMiddle(bool middle_par, const ode_params &p, size_t first,
                                 size_t count) {
  gl::DeviceBuffer<double> d(count + 1);  // one more, which must keep the poison
  gl_status status = middle_par ? gl_yardstick_ode_middle_par(&p, first, count, d.get())
                                : gl_yardstick_ode_middle(&p, first, count, d.get());
  EXPECT_EQ(status, GL_OK) << gl_last_error();
  EXPECT_TRUE(gl::DeviceOk("the course's Middle"));
  std::vector<double> values = d.Download();
  uint64_t bits = 0;
  memcpy(&bits, &values[count], sizeof bits);
  EXPECT_EQ(bits, 0xCDCDCDCDCDCDCDCDull) << "written past the last point";
  values.resize(count);
  return values;
}

// As the lab's tests compare Middle values (ode_test.cpp): to 1e-12 of each and of the largest,
// since those near the maximum age are tiny and carry the largest's rounding.
::testing::AssertionResult NearCpu(const std::vector<double> &cpu, const std::vector<double> &got) {
  double largest = 0.0;
  for (double v : cpu) largest = std::max(largest, std::fabs(v));
  return gl::ArraysNear(cpu, got, 1e-12, 1e-12 * largest);
}

}  // namespace

TEST_F(YardstickOde, ReferenceAndMiddleParAgreeWithTheCpu) {
  // One step per year at every level (the CPU's 171 Middle calls then take well under a second),
  // and a retirement age and guarantee that fall between Outer's points.
  ode_params p = {35, 64.3, 9.6, 1, 1, 1};
  const size_t points = ode_outer_point_count(&p);
  std::vector<double> cpu(points);
  GL_ASSERT_OK(ode_ref_middle(&p, 0, points, cpu.data()));
  EXPECT_TRUE(NearCpu(cpu, CourseMiddle(false, p, 0, points))) << "the course's GPU reference";
  const size_t first = points / 3, count = 25;
  std::vector<double> part(cpu.begin() + first, cpu.begin() + first + count);
  EXPECT_TRUE(NearCpu(part, CourseMiddle(false, p, first, count)))
      << "the course's GPU reference, from point " << first;
  EXPECT_TRUE(NearCpu(part, CourseMiddle(true, p, first, count)))
      << "the course's MiddlePar, from point " << first;
}

TEST_F(YardstickOde, ReferenceGivesTheKnownReserves) {
  // The values computed independently of this project (labs/ode/README.md).
  ode_params p = {35, 65.0, 10.0, 1, 1, 1};
  std::vector<double> middle = CourseMiddle(false, p, 0, ode_outer_point_count(&p));
  std::vector<double> reserves(ode_year_count(&p));
  GL_ASSERT_OK(ode_ref_outer(&p, middle.data(), reserves.data()));
  EXPECT_NEAR(reserves[0], 0.6280958153610046, 1e-12 * 0.63) << "the known V(0)";
  EXPECT_NEAR(reserves[30], 1.8003210752208807, 1e-12 * 1.8) << "the known V(30)";
}

TEST_F(YardstickOde, RejectsARangeBeyondOutersPoints) {
  ode_params p = ode_report_params();
  const size_t points = ode_outer_point_count(&p);
  gl::DeviceBuffer<double> d(4);
  GL_EXPECT_STATUS(GL_ERR_SIZE, gl_yardstick_ode_middle(&p, points - 2, 4, d.get()));
  GL_EXPECT_STATUS(GL_ERR_SIZE, gl_yardstick_ode_middle_par(&p, points + 1, 0, d.get()));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, gl_yardstick_ode_middle(&p, 0, 1, nullptr));
  GL_EXPECT_OK(gl_yardstick_ode_middle(&p, points, 0, nullptr));
  p.h2 = 0;
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, gl_yardstick_ode_middle_par(&p, 0, 1, d.get()));
}
