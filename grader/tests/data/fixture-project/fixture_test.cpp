// One test per way a test can end, so the grader's JUnit reader is tested on CTest's real
// output (see regen.sh). The messages mimic what the labs' tests print.
#include <csignal>
#include <cstdlib>
#include <unistd.h>

#include "gltest.h"

TEST(Fixture, Passes) { EXPECT_EQ(1 + 1, 2); }

TEST(Fixture, FailsWithAMismatch) {
  std::vector<int32_t> expected = {1, 2, 3, 4};
  std::vector<int32_t> got = {1, 2, 7, 4};
  EXPECT_TRUE(gl::ArraysEqual(expected, got)) << "n = 4, block size 256";
}

TEST(Fixture, NotImplemented) {
  GL_ASSERT_OK(gl_not_implemented(
      "reduction step 3 (sequential): write reduce_sequential in labs/reduction/reduction.cu"));
}

TEST(Fixture, CudaError) {
  ADD_FAILURE() << "the GPU reported cudaErrorIllegalAddress (an illegal memory access was "
                   "encountered) after reduce(step 3, n = 1025); seed 0x1234";
}

TEST(Fixture, HangsUntilTheWatchdog) {
  for (;;) pause();
}

TEST(Fixture, HangsUntilCTestKillsIt) {
  signal(SIGALRM, SIG_IGN);  // as if the watchdog could not run: CTest's TIMEOUT ends it
  for (;;) pause();
}

TEST(Fixture, Segfaults) {
  volatile int *nowhere = nullptr;
  *nowhere = 1;
}

TEST(Fixture, Aborts) {
  fprintf(stderr, "gpulabs test helper: cudaMalloc (test buffer) failed: out of memory "
                  "(cudaErrorMemoryAllocation)\n");
  abort();
}

TEST(Fixture, ExitsEarly) {
  // Lab code that calls exit(0) in the middle of a test.
  exit(0);
}

TEST(Fixture, SkipsWithoutAGpu) { GTEST_SKIP() << "no CUDA device (cudaErrorNoDevice: no CUDA-capable device is detected)"; }

TEST(Fixture, ReportsAMetric) {
  gl::ReportRatio("final_vs_cub", 0.7312, "student 0.1306 ms, CUB 0.0955 ms, n = 67108864");
}

TEST(Fixture, PrintsSpecialCharacters) {
  printf("<tag> & \"quotes\" 'apostrophes' \x01 control, caf\xc3\xa9 and a bad byte \xff\n");
  FAIL() << "a < b && c > d";
}
