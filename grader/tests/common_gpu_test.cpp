// GPU tests of common/: device query, copy bandwidth, poisoned buffers. Skipped without a GPU.
#include <algorithm>
#include <cstring>

#include <cuda_runtime_api.h>

#include "gltest.h"

extern "C" {
#include "gpulabs/scratch.h"
}

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

TEST_F(CommonGpu, ScratchGrowsOnlyWhenItMustAndNeverStaysNull) {
  gl_scratch scratch = GL_SCRATCH_INIT;
  // Even 0 bytes gives a real block: CUB takes a NULL pointer as "tell me the size".
  GL_ASSERT_OK(gl_scratch_reserve(&scratch, 0));
  ASSERT_NE(scratch.ptr, nullptr);
  EXPECT_EQ(scratch.bytes, 1u);
  GL_ASSERT_OK(gl_scratch_reserve(&scratch, 4096));
  void *grown = scratch.ptr;
  EXPECT_EQ(scratch.bytes, 4096u);
  // A smaller or equal need keeps the block: a timed call must not allocate.
  GL_ASSERT_OK(gl_scratch_reserve(&scratch, 100));
  GL_ASSERT_OK(gl_scratch_reserve(&scratch, 4096));
  EXPECT_EQ(scratch.ptr, grown);
  EXPECT_EQ(scratch.bytes, 4096u);
  // The block is usable device memory of that size.
  ASSERT_EQ(cudaMemset(scratch.ptr, 0x5a, scratch.bytes), cudaSuccess);
  std::vector<unsigned char> back(scratch.bytes);
  ASSERT_EQ(cudaMemcpy(back.data(), scratch.ptr, back.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::count(back.begin(), back.end(), (unsigned char)0x5a), (long)back.size());
  gl_scratch_release(&scratch);
  EXPECT_EQ(scratch.ptr, nullptr);
  EXPECT_EQ(scratch.bytes, 0u);
  gl_scratch_release(&scratch);  // twice is harmless
  EXPECT_EQ(gl_scratch_reserve(nullptr, 1), GL_ERR_NULL_POINTER);
}
