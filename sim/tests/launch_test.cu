// Kernel launches: every form of <<<...>>> the course writes, configurations a GPU rejects,
// kernel arguments, __constant__ and __device__ variables, and device printf.
#include "sim_test.h"

namespace {

__global__ void write_index(int *out, int n) {
  const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = i;
}

void ExpectRejected(cudaError_t expected, dim3 grid, dim3 block, size_t shared = 0) {
  DeviceArray<int> out(4);
  out.Fill(0x7F);
  cudaGetLastError();
  write_index<<<grid, block, shared>>>(out.get(), 4);
  EXPECT_EQ(expected, cudaGetLastError())
      << "grid (" << grid.x << "," << grid.y << "," << grid.z << "), block (" << block.x << ","
      << block.y << "," << block.z << "), " << shared << " bytes of shared memory";
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  for (int v : out.Download()) EXPECT_EQ(0x7F7F7F7F, v) << "a rejected kernel must not run";
}

}  // namespace

// CUDA 13 on an H100 reports each of these as cudaErrorInvalidValue.
TEST(Launch, ConfigurationsAGpuRejectsAreRejected) {
  ExpectRejected(cudaErrorInvalidValue, dim3(1), dim3(0));
  ExpectRejected(cudaErrorInvalidValue, dim3(0), dim3(32));  // n = 0 computed as 0 blocks
  ExpectRejected(cudaErrorInvalidValue, dim3(1), dim3(1025));
  ExpectRejected(cudaErrorInvalidValue, dim3(1), dim3(32, 32, 2));
  ExpectRejected(cudaErrorInvalidValue, dim3(1), dim3(1, 1, 65));
  ExpectRejected(cudaErrorInvalidValue, dim3(1, 65536), dim3(32));
  ExpectRejected(cudaErrorInvalidValue, dim3(1, 1, 65536), dim3(32));
  ExpectRejected(cudaErrorInvalidValue, dim3(1), dim3(32), 300 * 1024);  // more than any GPU has
}

TEST(Launch, GridsBeyond65535BlocksInX) {
  const int n = 70000 * 32;
  DeviceArray<int> out(n);
  write_index<<<70000, 32>>>(out.get(), n);
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<int> got = out.Download();
  for (int i = 0; i < n; ++i) ASSERT_EQ(i, got[i]);
}

namespace {

__global__ void big_dynamic_shared(int *out, int count) {
  extern __shared__ int big[];
  for (int k = (int)threadIdx.x; k < count; k += (int)blockDim.x) big[k] = k;
  __syncthreads();
  int sum = 0;
  for (int k = 0; k < count; ++k) sum += big[k];
  out[threadIdx.x] = sum;
}

}  // namespace

// Above 48 KiB a kernel must opt in, as on a GPU; at most 227 KiB.
TEST(Launch, DynamicSharedMemoryAbove48KiBNeedsTheAttribute) {
  const int count = 100 * 1024 / 4;
  DeviceArray<int> out(64);
  cudaGetLastError();
#ifdef GPULABS_SIM
  // (A GPU keeps the attribute per kernel; the simulator has one limit for all, so this
  // check only holds before any kernel raised it.)
  big_dynamic_shared<<<1, 64, count * sizeof(int)>>>(out.get(), count);
  EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
#endif
  EXPECT_EQ(cudaErrorInvalidValue,
            cudaFuncSetAttribute(big_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 300 * 1024));
  cudaGetLastError();
  CUDA_ASSERT(cudaFuncSetAttribute(big_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   count * (int)sizeof(int)));
  big_dynamic_shared<<<2, 64, count * sizeof(int)>>>(out.get(), count);
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const int expected = (count - 1) * count / 2;
  for (int v : out.Download()) EXPECT_EQ(expected, v);
}

namespace {

// A block size as a template parameter, picked by a switch at launch (the unrolled reduction).
template <unsigned kBlock>
__global__ void block_sum(const int *in, int *out) {
  __shared__ int s[kBlock];
  s[threadIdx.x] = in[blockIdx.x * kBlock + threadIdx.x];
  __syncthreads();
#pragma unroll
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

cudaError_t LaunchBlockSum(unsigned block, unsigned blocks, const int *in, int *out) {
  switch (block) {
    case 1024: block_sum<1024><<<blocks, 1024>>>(in, out); break;
    case 512: block_sum<512><<<blocks, 512>>>(in, out); break;
    case 256: block_sum<256><<<blocks, 256>>>(in, out); break;
    case 128: block_sum<128><<<blocks, 128>>>(in, out); break;
    case 64: block_sum<64><<<blocks, 64>>>(in, out); break;
    case 32: block_sum<32><<<blocks, 32>>>(in, out); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

namespace inner {
__global__ void scale(float *data, float by) { data[threadIdx.x] *= by; }
}  // namespace inner

struct Params {
  int offset;
  double factor;
  char tag;
};

// Arguments by value: a struct, a double, a char; each thread gets its own copy to change.
__global__ void with_params(Params p, double extra, char c, long long *out) {
  p.offset += (int)threadIdx.x;
  out[threadIdx.x] = (long long)(p.offset * p.factor + extra) + p.tag + c;
}

}  // namespace

TEST(Launch, TemplateKernelsPickedBySwitch) {
  for (unsigned block : {32u, 64u, 128u, 256u, 512u, 1024u}) {
    const unsigned blocks = 7;
    std::vector<int> in(block * blocks);
    for (size_t i = 0; i < in.size(); ++i) in[i] = (int)(i % 13);
    DeviceArray<int> d_in(in), d_out(blocks);
    CUDA_ASSERT(LaunchBlockSum(block, blocks, d_in.get(), d_out.get()));
    CUDA_ASSERT(cudaDeviceSynchronize());
    const std::vector<int> got = d_out.Download();
    for (unsigned b = 0; b < blocks; ++b) {
      int expected = 0;
      for (unsigned t = 0; t < block; ++t) expected += in[b * block + t];
      EXPECT_EQ(expected, got[b]) << "block size " << block << ", block " << b;
    }
  }
}

TEST(Launch, QualifiedNamesPointersAndArguments) {
  DeviceArray<float> data(std::vector<float>(32, 2.0f));
  inner::scale<<<1, 32>>>(data.get(), 1.5f);
  void (*pointer)(float *, float) = inner::scale;
  pointer<<<dim3(1, 1, 1), dim3(32)>>>(data.get(), 2.0f);
  CUDA_ASSERT(cudaDeviceSynchronize());
  for (float v : data.Download()) EXPECT_EQ(6.0f, v);

  DeviceArray<long long> out(8);
  const Params params{100, 0.5, 'a'};
  with_params<<<1, 8>>>(params, 0.25, (char)1, out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<long long> got = out.Download();
  for (int t = 0; t < 8; ++t)
    EXPECT_EQ((long long)((100 + t) * 0.5 + 0.25) + 'a' + 1, got[t]) << "thread " << t;
}

namespace {

__global__ void on_stream(int *out) { out[threadIdx.x] += 1; }

}  // namespace

TEST(Launch, StreamsAndEventsKeepOrder) {
  cudaStream_t stream;
  CUDA_ASSERT(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CUDA_ASSERT(cudaEventCreate(&start));
  CUDA_ASSERT(cudaEventCreate(&stop));
  DeviceArray<int> out(64);
  CUDA_ASSERT(cudaMemsetAsync(out.get(), 0, 64 * sizeof(int), stream));
  CUDA_ASSERT(cudaEventRecord(start, stream));
  for (int k = 0; k < 100; ++k) on_stream<<<1, 64, 0, stream>>>(out.get());
  CUDA_ASSERT(cudaEventRecord(stop, stream));
  CUDA_ASSERT(cudaEventSynchronize(stop));
  float ms = -1.0f;
  CUDA_ASSERT(cudaEventElapsedTime(&ms, start, stop));
  EXPECT_GE(ms, 0.0f);
  std::vector<int> host(64, -1);
  CUDA_ASSERT(
      cudaMemcpyAsync(host.data(), out.get(), 64 * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CUDA_ASSERT(cudaStreamSynchronize(stream));
  for (int v : host) EXPECT_EQ(100, v);
  CUDA_ASSERT(cudaEventDestroy(start));
  CUDA_ASSERT(cudaEventDestroy(stop));
  CUDA_ASSERT(cudaStreamDestroy(stream));
}

namespace {

__constant__ float c_weights[8];
__constant__ int c_offset;
__device__ unsigned long long d_calls;

__global__ void weigh(const float *in, float *out) {
  const unsigned t = threadIdx.x;
  out[t] = in[t] * c_weights[t % 8] + (float)c_offset;
  atomicAdd(&d_calls, 1ull);
}

}  // namespace

TEST(Launch, ConstantAndDeviceVariables) {
  float weights[8];
  for (int k = 0; k < 8; ++k) weights[k] = (float)(k + 1);
  const int offset = 3;
  const unsigned long long zero = 0;
  CUDA_ASSERT(cudaMemcpyToSymbol(c_weights, weights, sizeof weights));
  CUDA_ASSERT(cudaMemcpyToSymbol(c_offset, &offset, sizeof offset));
  CUDA_ASSERT(cudaMemcpyToSymbol(d_calls, &zero, sizeof zero));
  // A copy that does not fit the variable is refused.
  float too_many[9] = {};
  EXPECT_NE(cudaSuccess, cudaMemcpyToSymbol(c_weights, too_many, sizeof too_many));
  EXPECT_NE(cudaSuccess,
            cudaMemcpyToSymbol(c_weights, weights, 2 * sizeof(float), 7 * sizeof(float)));
  cudaGetLastError();
  DeviceArray<float> in(std::vector<float>(32, 2.0f)), out(32);
  weigh<<<3, 32>>>(in.get(), out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<float> got = out.Download();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(2.0f * (float)(t % 8 + 1) + 3.0f, got[t]);
  unsigned long long calls = 0;
  CUDA_ASSERT(cudaMemcpyFromSymbol(&calls, d_calls, sizeof calls));
  EXPECT_EQ(96u, calls);
  float back[2] = {};
  CUDA_ASSERT(cudaMemcpyFromSymbol(back, c_weights, sizeof back, 6 * sizeof(float)));
  EXPECT_EQ(7.0f, back[0]);
  EXPECT_EQ(8.0f, back[1]);
}

namespace {

__global__ void say_hello(int base) {
  if (threadIdx.x == 0)
    printf("hello from block %d, value %d\n", (int)blockIdx.x, base + (int)blockIdx.x);
}

}  // namespace

TEST(Launch, DevicePrintfReachesStdout) {
  ::testing::internal::CaptureStdout();
  say_hello<<<3, 32>>>(40);
  cudaDeviceSynchronize();
  fflush(stdout);
  const std::string text = ::testing::internal::GetCapturedStdout();
  for (int b = 0; b < 3; ++b) {
    const std::string line =
        "hello from block " + std::to_string(b) + ", value " + std::to_string(40 + b);
    EXPECT_NE(std::string::npos, text.find(line)) << text;
  }
}

TEST(Launch, ManySmallLaunchesInARow) {
  DeviceArray<int> out(128);
  for (int k = 0; k < 2000; ++k) write_index<<<4, 32>>>(out.get(), 128);
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<int> got = out.Download();
  for (int i = 0; i < 128; ++i) ASSERT_EQ(i, got[i]);
}
