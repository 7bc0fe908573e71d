// The runtime API around kernels: memory, copies, errors, the described device, occupancy.
#include <cstring>

#include "sim_test.h"

TEST(Runtime, MemoryRoundTrips) {
  const size_t n = 1000;
  std::vector<int> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = (int)(i * 7);
  int *a = nullptr, *b = nullptr;
  CUDA_ASSERT(cudaMalloc(&a, n * sizeof(int)));
  CUDA_ASSERT(cudaMalloc(&b, n * sizeof(int)));
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(a) % 256) << "cudaMalloc aligns to 256 bytes";
  CUDA_ASSERT(cudaMemcpy(a, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_ASSERT(cudaMemcpy(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice));
  CUDA_ASSERT(cudaMemset(b + 10, 0, 5 * sizeof(int)));
  std::vector<int> back(n, -1);
  CUDA_ASSERT(cudaMemcpy(back.data(), b, n * sizeof(int), cudaMemcpyDefault));
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(i >= 10 && i < 15 ? 0 : host[i], back[i]) << i;
  CUDA_ASSERT(cudaMemcpy(back.data(), a, 0, cudaMemcpyDeviceToHost));  // nothing to copy
  CUDA_ASSERT(cudaFree(a));
  CUDA_ASSERT(cudaFree(b));
  CUDA_ASSERT(cudaFree(nullptr));
}

TEST(Runtime, FreeingWhatWasNotAllocatedFails) {
  int *a = nullptr;
  CUDA_ASSERT(cudaMalloc(&a, 64));
  CUDA_ASSERT(cudaFree(a));
  EXPECT_NE(cudaSuccess, cudaFree(a));  // twice
  cudaGetLastError();
}

TEST(Runtime, LastErrorIsReadOnceAndPeekKeepsIt) {
  cudaGetLastError();
  EXPECT_EQ(cudaErrorInvalidValue, cudaGetDeviceProperties(nullptr, 0));
  EXPECT_EQ(cudaErrorInvalidValue, cudaPeekAtLastError());
  EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_EQ(cudaErrorInvalidDevice, cudaSetDevice(99));
  EXPECT_EQ(cudaErrorInvalidDevice, cudaGetLastError());
}

TEST(Runtime, ErrorNamesAndStrings) {
  EXPECT_STREQ("cudaSuccess", cudaGetErrorName(cudaSuccess));
  EXPECT_STREQ("cudaErrorMemoryAllocation", cudaGetErrorName(cudaErrorMemoryAllocation));
  EXPECT_STREQ("cudaErrorInvalidConfiguration", cudaGetErrorName(cudaErrorInvalidConfiguration));
  EXPECT_STREQ("no error", cudaGetErrorString(cudaSuccess));
  EXPECT_STREQ("out of memory", cudaGetErrorString(cudaErrorMemoryAllocation));
  EXPECT_STREQ("invalid argument", cudaGetErrorString(cudaErrorInvalidValue));
}

TEST(Runtime, TheDeviceIsDescribed) {
  int count = 0;
  CUDA_ASSERT(cudaGetDeviceCount(&count));
  ASSERT_GE(count, 1);
  cudaDeviceProp prop;
  CUDA_ASSERT(cudaGetDeviceProperties(&prop, 0));
  EXPECT_EQ(32, prop.warpSize);
  EXPECT_EQ(1024, prop.maxThreadsPerBlock);
  EXPECT_EQ(1024, prop.maxThreadsDim[0]);
  EXPECT_EQ(64, prop.maxThreadsDim[2]);
  EXPECT_EQ(2147483647, prop.maxGridSize[0]);
  EXPECT_EQ(65535, prop.maxGridSize[1]);
  EXPECT_EQ(48u * 1024, prop.sharedMemPerBlock);
  EXPECT_GE(prop.sharedMemPerBlockOptin, prop.sharedMemPerBlock);
  EXPECT_GT(prop.multiProcessorCount, 0);
  EXPECT_GT(prop.totalGlobalMem, (size_t)1 << 30);
  EXPECT_GE(prop.major, 7) << "the course relies on independent thread scheduling";
  int value = 0;
  CUDA_ASSERT(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0));
  EXPECT_EQ(prop.multiProcessorCount, value);
  CUDA_ASSERT(cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, 0));
  EXPECT_GT(value, 0);
  CUDA_ASSERT(cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, 0));
  EXPECT_GT(value, 0);
  CUDA_ASSERT(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 0));
  EXPECT_EQ(32, value);
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_ASSERT(cudaMemGetInfo(&free_bytes, &total_bytes));
  EXPECT_LE(free_bytes, total_bytes);
  EXPECT_GT(total_bytes, 0u);
}

namespace {
__global__ void tiny(int *out) { out[threadIdx.x] = 1; }
}  // namespace

TEST(Runtime, KernelAttributesAndOccupancy) {
  cudaFuncAttributes attr;
  CUDA_ASSERT(cudaFuncGetAttributes(&attr, tiny));
  EXPECT_EQ(1024, attr.maxThreadsPerBlock);
  EXPECT_GT(attr.numRegs, 0);
  for (int block : {32, 128, 256, 1024}) {
    int blocks = 0;
    CUDA_ASSERT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, block, 0));
    EXPECT_GE(blocks, 1) << "block " << block;
    EXPECT_LE(blocks * block, 2048) << "block " << block;
  }
  int blocks = -1;  // a block larger than any allowed: none fits
  CUDA_ASSERT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiny, 2048, 0));
  EXPECT_EQ(0, blocks);
  int min_grid = 0, best_block = 0;
  CUDA_ASSERT(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, tiny));
  EXPECT_GT(min_grid, 0);
  EXPECT_GE(best_block, 32);
  EXPECT_LE(best_block, 1024);
}

#ifdef GPULABS_SIM
// Checks the simulator makes that a GPU makes in other ways (or not at all).
TEST(Runtime, CopiesMustTouchDeviceMemoryWhereTheKindSaysSo) {
  std::vector<int> host(16, 1), other(16, 2);
  int *dev = nullptr;
  CUDA_ASSERT(cudaMalloc(&dev, 16 * sizeof(int)));
  EXPECT_EQ(cudaErrorInvalidValue,
            cudaMemcpy(host.data(), other.data(), 64, cudaMemcpyHostToDevice));
  EXPECT_EQ(cudaErrorInvalidValue,
            cudaMemcpy(host.data(), other.data(), 64, cudaMemcpyDeviceToHost));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(dev, host.data(), 65, cudaMemcpyHostToDevice))
      << "one byte past the allocation";
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemset(host.data(), 0, 4));
  CUDA_ASSERT(cudaMemcpy(host.data(), other.data(), 64, cudaMemcpyHostToHost));
  EXPECT_EQ(2, host[5]);
  cudaGetLastError();
  CUDA_ASSERT(cudaFree(dev));
}

TEST(Runtime, FreshDeviceMemoryIsGarbageNotZeros) {
  DeviceArray<unsigned> fresh(8);
  for (unsigned v : fresh.Download()) EXPECT_EQ(0xCBCBCBCBu, v);
}

TEST(Runtime, StaleHandlesAreRefused) {
  cudaStream_t stream;
  CUDA_ASSERT(cudaStreamCreate(&stream));
  CUDA_ASSERT(cudaStreamDestroy(stream));
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaStreamSynchronize(stream));
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaStreamDestroy(stream));
  cudaEvent_t event;
  CUDA_ASSERT(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  float ms = 0;
  CUDA_ASSERT(cudaEventRecord(event));
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaEventElapsedTime(&ms, event, event))
      << "an event without timing cannot be timed";
  CUDA_ASSERT(cudaEventDestroy(event));
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaEventRecord(event));
  cudaGetLastError();
}
#endif
