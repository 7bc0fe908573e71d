// "GPU" tests of the fake course skip when FAKE_COURSE_NO_GPU is set, with the message the
// course's tests give without a device.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>

class FakeGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("FAKE_COURSE_NO_GPU")) GTEST_SKIP() << "no CUDA device (cudaErrorNoDevice: fake)";
  }
};
