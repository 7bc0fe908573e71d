// The fake lab's performance test: reports the lab's ratio, as gl::ReportRatio does.
#include <cstdio>

#include "fake_gpu.h"

extern "C" {
#include "reduction.h"
}

class FakePerf : public FakeGpuTest {};

TEST_F(FakePerf, Speed) {
  ASSERT_EQ(fake_add(1, 1), 2) << "a fast wrong answer earns nothing";
  printf("GPULABS_METRIC name=fake_speed ratio=%.4f fake detail\n", fake_speed());
}
