// Shared memory: each block has its own, static and dynamic; declarations of every shape
// the course uses; and, under the simulator with AddressSanitizer, an out-of-bounds access
// names its line.
#include "sim_test.h"

namespace {

constexpr unsigned kIsolationBlocks = 400;

// Every block fills its arrays with its own number, lets the others run, and checks nothing
// changed: blocks running at the same time on other host threads must not share memory.
__global__ void isolation(int *ok) {
  __shared__ int mine[1024];
  extern __shared__ int dynamic_mine[];
  const int me = (int)blockIdx.x;
  for (unsigned k = threadIdx.x; k < 1024; k += blockDim.x) {
    mine[k] = me;
    dynamic_mine[k] = -me;
  }
  __syncthreads();
  __threadfence();  // a scheduling point under the simulator
  __syncthreads();
  int good = 1;
  for (unsigned k = 0; k < 1024; ++k) good &= mine[k] == me && dynamic_mine[k] == -me;
  ok[blockIdx.x * blockDim.x + threadIdx.x] = good;
}

}  // namespace

TEST(Shared, EachBlockHasItsOwn) {
  DeviceArray<int> ok(kIsolationBlocks * 64);
  isolation<<<kIsolationBlocks, 64, 1024 * sizeof(int)>>>(ok.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<int> got = ok.Download();
  for (unsigned i = 0; i < got.size(); ++i)
    ASSERT_EQ(1, got[i]) << "thread " << i << ScheduleNote();
}

namespace {

// A __shared__ variable in a __device__ function is one per block, however often it is called.
__device__ int bump(int by) {
  __shared__ int counter;
  if (threadIdx.x == 0) counter = (by == 1) ? 100 : counter + by;
  __syncthreads();
  return counter;
}

// Shapes: several declarators, two dimensions, a pointer, volatile, a type with a comma.
template <class A, class B>
struct Pair {
  A a;
  B b;
};

__global__ void shapes(int *out) {
  __shared__ int a[8], b[8];
  __shared__ float tile[4][5];
  __shared__ int *where;
  volatile __shared__ int flags[2];
  __shared__ Pair<int, short> pairs[2];
  __shared__ __align__(16) unsigned char raw[32];
  const unsigned t = threadIdx.x;
  a[t] = (int)t;
  b[t] = (int)t * 10;
  tile[t % 4][t % 5] = 0.0f;
  if (t == 0) {
    where = &b[3];
    flags[1] = 7;
    pairs[1].a = 5;
    pairs[1].b = 6;
  }
  raw[t] = (unsigned char)t;
  __syncthreads();
  out[t] = a[7 - t] + b[t] + (int)tile[t % 4][t % 5];  // the arrays do not overlap
  if (t == 0) {
    out[8] = *where;
    out[9] = flags[1];
    out[10] = pairs[1].a * 10 + pairs[1].b;
    out[11] = (int)(reinterpret_cast<uintptr_t>(raw) % 16);
  }
  bump(1);
  out[12 + t] = bump(5);  // 100, then + 5 by the one shared counter
}

}  // namespace

TEST(Shared, DeclarationsOfEveryShape) {
  DeviceArray<int> out(20);
  shapes<<<3, 8>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<int> got = out.Download();
  for (int t = 0; t < 8; ++t) EXPECT_EQ((7 - t) + t * 10, got[t]) << "thread " << t;
  EXPECT_EQ(30, got[8]);
  EXPECT_EQ(7, got[9]);
  EXPECT_EQ(56, got[10]);
  EXPECT_EQ(0, got[11]) << "an __align__(16) shared array is 16-byte aligned";
  for (int t = 0; t < 8; ++t) EXPECT_EQ(105, got[12 + t]) << "thread " << t;
}

namespace {

// Every extern __shared__ array starts at the same address: the block's dynamic shared memory.
__device__ float read_as_float(unsigned k) {
  extern __shared__ float as_float[];
  return as_float[k];
}

__global__ void dynamic_alias(float *out) {
  extern __shared__ int as_int[];
  as_int[threadIdx.x] = __float_as_int((float)threadIdx.x * 0.5f);
  __syncthreads();
  out[threadIdx.x] = read_as_float(blockDim.x - 1 - threadIdx.x);
}

// Namespace-scope declarations, as older CUDA code writes them.
__shared__ int file_tile[64];
extern __shared__ double file_dynamic[];

__global__ void file_scope(double *out) {
  file_tile[threadIdx.x] = (int)threadIdx.x + 1;
  file_dynamic[threadIdx.x] = 0.25 * threadIdx.x;
  __syncthreads();
  int *p = file_tile + 1;
  out[threadIdx.x] = file_dynamic[63 - threadIdx.x] + p[threadIdx.x % 63];
}

}  // namespace

TEST(Shared, ExternArraysShareTheDynamicMemory) {
  DeviceArray<float> out(128);
  dynamic_alias<<<5, 128, 128 * sizeof(int)>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<float> got = out.Download();
  for (unsigned t = 0; t < 128; ++t) EXPECT_EQ((float)(127 - t) * 0.5f, got[t]) << "thread " << t;
}

TEST(Shared, NamespaceScopeDeclarations) {
  DeviceArray<double> out(64);
  file_scope<<<4, 64, 64 * sizeof(double)>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<double> got = out.Download();
  for (unsigned t = 0; t < 64; ++t)
    EXPECT_EQ(0.25 * (63 - t) + (double)(t % 63 + 2), got[t]) << "thread " << t;
}

#ifdef GPULABS_SIM
namespace {

// Shared memory starts out as garbage, not zeros: a kernel that forgets to initialise it
// fails here as it may on a GPU.
__global__ void read_uninitialised(unsigned *out) {
  __shared__ unsigned never_written[4];
  extern __shared__ unsigned dynamic_never_written[];
  out[threadIdx.x] = never_written[threadIdx.x];
  out[4 + threadIdx.x] = dynamic_never_written[threadIdx.x];
}

}  // namespace

TEST(Shared, UninitialisedSharedMemoryIsGarbage) {
  DeviceArray<unsigned> out(8);
  read_uninitialised<<<1, 4, 4 * sizeof(unsigned)>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  for (unsigned v : out.Download()) EXPECT_EQ(0xCBCBCBCBu, v);
}

#if defined(SIM_TEST_ASAN)
namespace {

constexpr int kOverrunLine = __LINE__ + 4;
__global__ void shared_overrun(int *out) {
  __shared__ int tile[32];
  tile[threadIdx.x] = 1;
  out[threadIdx.x] = tile[threadIdx.x + 1];  // thread 31 reads past the end
}

constexpr int kDynamicOverrunLine = __LINE__ + 3;
__global__ void dynamic_overrun(int *out) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x + 8] = 1;  // 8 ints asked for at launch
  out[threadIdx.x] = 0;
}

constexpr int kGlobalOverrunLine = __LINE__ + 2;
__global__ void global_overrun(int *out, int n) {
  out[threadIdx.x] = n;  // out has n elements; the block has more threads
}

}  // namespace

// The report names the kernel's file and line (AddressSanitizer's "use-after-poison" on the
// redzone around shared memory, "heap-buffer-overflow" on global memory).
TEST(SharedDeathTest, OutOfBoundsSharedAccessNamesTheLine) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  const std::string line = "shared_test.cu:" + std::to_string(kOverrunLine);
  EXPECT_DEATH(
      {
        DeviceArray<int> out(32);
        shared_overrun<<<1, 32>>>(out.get());
        cudaDeviceSynchronize();
      },
      "AddressSanitizer(.|\n)*" + line);
  const std::string dyn_line = "shared_test.cu:" + std::to_string(kDynamicOverrunLine);
  EXPECT_DEATH(
      {
        DeviceArray<int> out(8);
        dynamic_overrun<<<1, 8, 8 * sizeof(int)>>>(out.get());
        cudaDeviceSynchronize();
      },
      "AddressSanitizer(.|\n)*" + dyn_line);
}

TEST(SharedDeathTest, OutOfBoundsGlobalAccessNamesTheLine) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  const std::string line = "shared_test.cu:" + std::to_string(kGlobalOverrunLine);
  EXPECT_DEATH(
      {
        int *out = nullptr;
        cudaMalloc(&out, 10 * sizeof(int));
        global_overrun<<<1, 16>>>(out, 10);
        cudaDeviceSynchronize();
      },
      "heap-buffer-overflow(.|\n)*" + line);
}
#endif  // SIM_TEST_ASAN
#endif  // GPULABS_SIM
