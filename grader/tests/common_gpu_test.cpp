// GPU tests of common/: device query, copy bandwidth, poisoned buffers. Skipped without a GPU.
#include <algorithm>
#include <cstring>

#include "gltest.h"

// GPU tests of common: skipped without a device.
class CommonGpu : public GpuTest {};

TEST_F(CommonGpu, DeviceQueryIsPlausible) {
  gl_device_info info;
  GL_ASSERT_OK(gl_device_query(0, &info));
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.theoretical_gbps, 10.0);
  EXPECT_GT(strlen(info.name), 0u);
}

TEST_F(CommonGpu, CopyBandwidthIsBelowTheTheoreticalPeak) {
  gl_device_info info;
  GL_ASSERT_OK(gl_device_query(0, &info));
  double gbps = 0;
  GL_ASSERT_OK(gl_measure_copy_gbps((size_t)64 << 20, 5, &gbps));
  if (gl::OnCpuBackend()) {
    // The host's memcpy on a loaded machine runs at any speed: no bound on it means anything.
    GTEST_SKIP() << "the measurement ran (" << gbps << " GB/s), but bandwidth bounds need a GPU: "
                 << "timings mean nothing on the CPU backend";
  }
  EXPECT_GT(gbps, 0.05 * info.theoretical_gbps);
  EXPECT_LT(gbps, 1.05 * info.theoretical_gbps);
}

TEST_F(CommonGpu, PoisonedBufferReadsBackAsPoison) {
  gl::DeviceBuffer<int32_t> buffer(1000);
  std::vector<int32_t> host = buffer.Download();
  EXPECT_EQ(std::count(host.begin(), host.end(), GL_POISON_I32), 1000);
  gl::DeviceBuffer<int32_t> empty(0);
  EXPECT_NE(empty.get(), nullptr);
}
