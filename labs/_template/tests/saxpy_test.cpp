// GPU tests of the saxpy lab: step 1 at every block size, on the standard sizes and a large
// one, against the CPU reference.
//
// Names: SaxpyStep1.<case>, one case per block size (the rubric selects the step's tests by
// SaxpyStep1.*), SaxpyApi.* for the given argument checks (no points).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "saxpy.h"
#include "saxpy_reference.h"
}

namespace {

const saxpy_step kStep = SAXPY_STEP_GRID_STRIDE;

// Elements after n that the step must leave alone (they hold the poison value).
const size_t kGuard = 37;

// How near the GPU's answer must be: one rounding apart (a kernel without fmaf rounds twice).
const double kRelTol = 1e-6, kAbsTol = 1e-6;

// Checks that the guard past n still holds the poison bytes.
::testing::AssertionResult GuardUntouched(const std::vector<float> &got, size_t n) {
  for (size_t i = n; i < got.size(); ++i) {
    uint32_t bits = 0;
    memcpy(&bits, &got[i], sizeof bits);
    if (bits != GL_POISON_U32) {
      return ::testing::AssertionFailure() << "wrote past the end: element n + " << (i - n)
                                           << " (n = " << n << ") changed; seed 0x" << std::hex
                                           << gl::Seed();
    }
  }
  return ::testing::AssertionSuccess();
}

// Runs step 1 on fresh inputs of n elements and compares every element with the reference.
void CheckSize(int block_size, size_t n) {
  SCOPED_TRACE("saxpy_run(1-grid-stride, n = " + std::to_string(n) + ", block_size = " +
               std::to_string(block_size) + ")");
  const uint64_t label = ((uint64_t)block_size << 40) ^ n;
  std::vector<float> x(n), y(n);
  gl_fill_float(x.data(), n, -1.0f, 1.0f, GL_DIST_UNIFORM, gl::SeedFor(2 * label));
  gl_fill_float(y.data(), n, -1.0f, 1.0f, GL_DIST_UNIFORM, gl::SeedFor(2 * label + 1));
  const float a = 1.5f + (float)(n % 7);
  std::vector<float> expected = y;
  saxpy_ref(a, x.data(), expected.data(), n);

  float poison = 0;
  const uint32_t poison_bits = GL_POISON_U32;
  memcpy(&poison, &poison_bits, sizeof poison);
  std::vector<float> padded = y;
  padded.resize(n + kGuard, poison);
  gl::DeviceBuffer<float> d_x(x), d_y(padded);
  GL_ASSERT_OK(saxpy_run(kStep, a, d_x.get(), d_y.get(), n, block_size));
  GL_ASSERT_DEVICE_OK("saxpy_run");
  std::vector<float> got = d_y.Download();
  EXPECT_TRUE(GuardUntouched(got, n));
  got.resize(n);
  EXPECT_TRUE(gl::ArraysNear(expected, got, kRelTol, kAbsTol));
  EXPECT_TRUE(d_x.Download() == x) << "the input x changed";
}

void CheckBlockSize(int block_size) {
  for (size_t n : gl::StandardSizes(100003)) {
    CheckSize(block_size, n);
    if (::testing::Test::HasFatalFailure()) return;
  }
  for (size_t n : gl::CapSizes({((size_t)1 << 24) + 3})) CheckSize(block_size, n);
}

}  // namespace

class SaxpyStep1 : public GpuTest {};

TEST_F(SaxpyStep1, DefaultBlockSize) { CheckBlockSize(0); }
TEST_F(SaxpyStep1, Block32) { CheckBlockSize(32); }
TEST_F(SaxpyStep1, Block128) { CheckBlockSize(128); }
TEST_F(SaxpyStep1, Block256) { CheckBlockSize(256); }
TEST_F(SaxpyStep1, Block1024) { CheckBlockSize(1024); }

class SaxpyApi : public GpuTest {};

TEST_F(SaxpyApi, NamesTheStep) {
  EXPECT_STREQ(saxpy_step_name(kStep), "1-grid-stride");
  EXPECT_STREQ(saxpy_step_name((saxpy_step)0), "unknown");
}

TEST_F(SaxpyApi, RejectsBadArguments) {
  gl::DeviceBuffer<float> d(4);
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, saxpy_run(kStep, 1.0f, nullptr, d.get(), 4, 0));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, saxpy_run(kStep, 1.0f, d.get(), nullptr, 4, 0));
  GL_EXPECT_STATUS(GL_ERR_SIZE, saxpy_run(kStep, 1.0f, d.get(), d.get(), SAXPY_MAX_N + 1, 0));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, saxpy_run(kStep, 1.0f, d.get(), d.get(), 4, 48));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, saxpy_run((saxpy_step)7, 1.0f, d.get(), d.get(), 4, 0));
  GL_EXPECT_OK(saxpy_run(kStep, 1.0f, nullptr, nullptr, 0, 0));
}
