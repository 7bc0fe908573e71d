// The fake lab's correctness tests.
#include "fake_gpu.h"

#include <string>

extern "C" {
#include "reduction.h"
}

class FakeStep1 : public FakeGpuTest {};
class FakeStep2 : public FakeGpuTest {};
class FakeStep3 : public FakeGpuTest {};
class FakeStep4 : public FakeGpuTest {};

TEST_F(FakeStep1, Adds) { EXPECT_EQ(fake_add(2, 3), 5) << "fake_add(2, 3)"; }
TEST_F(FakeStep1, AddsNegatives) { EXPECT_EQ(fake_add(-2, -3), -5); }
TEST_F(FakeStep2, Multiplies) { EXPECT_EQ(fake_mul(4, 5), 20); }
TEST_F(FakeStep3, Returns) { EXPECT_EQ(fake_wait(), 0); }
TEST_F(FakeStep4, Touches) {
  int cell = 7;
  EXPECT_EQ(fake_touch(&cell), 7);
}

// A parameterized case with a named parameter, as the course names them: CTest calls it
// "Fake/FakeParam.Adds/One  # GetParam() = 1", Google Test's [ RUN ] line
// "Fake/FakeParam.Adds/One"; the grader matches the two when a shard ends early. No rubric item
// counts it.
class FakeParam : public ::testing::TestWithParam<int> {};
TEST_P(FakeParam, Adds) { EXPECT_EQ(fake_add(GetParam(), 0), GetParam()); }
INSTANTIATE_TEST_SUITE_P(Fake, FakeParam, ::testing::Values(1),
                         [](const ::testing::TestParamInfo<int> &) { return std::string("One"); });
