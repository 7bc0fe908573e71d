// Misuse that hangs or corrupts a GPU fails here at once, with a report naming the kernel,
// the block, the threads, the source line and the schedule seed; the process goes on.
// (Simulator only.)
#include "sim_test.h"

namespace {

// The launch's error and the simulator's report of it.
struct Failure {
  cudaError_t launch;
  cudaError_t sync;
  std::string report;
};

template <class Launch>
Failure RunFailing(Launch launch) {
  cudaGetLastError();
  launch();
  Failure f;
  f.launch = cudaPeekAtLastError();
  f.sync = cudaDeviceSynchronize();
  f.report = gpulabs_sim_last_failure();
  cudaGetLastError();
  return f;
}

void ExpectReportHas(const Failure &f, std::initializer_list<const char *> parts) {
  EXPECT_EQ(cudaErrorLaunchFailure, f.sync) << f.report;
  for (const char *part : parts) {
    EXPECT_NE(std::string::npos, f.report.find(part)) << "missing \"" << part << "\" in:\n"
                                                      << f.report;
  }
}

// After any failure the next kernel runs normally.
__global__ void fill(int *out, int value) { out[blockIdx.x * blockDim.x + threadIdx.x] = value; }

void ExpectRecovered() {
  DeviceArray<int> out(64);
  fill<<<2, 32>>>(out.get(), 9);
  ASSERT_EQ(cudaSuccess, cudaGetLastError());
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  for (int v : out.Download()) ASSERT_EQ(9, v);
}

}  // namespace

constexpr int kHalfBarrierLine = __LINE__ + 3;
__global__ void half_block_barrier(int *out) {
  if (threadIdx.x < 128) {
    __syncthreads();  // the other half never comes
  }
  out[threadIdx.x] = 1;
}

TEST(Deadlock, BarrierInDivergentCodeIsReported) {
  DeviceArray<int> out(256);
  gpulabs_sim_set_schedule_seed(0xD0D0);
  Failure f = RunFailing([&] { half_block_barrier<<<1, 256>>>(out.get()); });
  const std::string site = "threads 0-127 wait at __syncthreads() (deadlock_test.cu:" +
                           std::to_string(kHalfBarrierLine) + ")";
  ExpectReportHas(f, {"kernel half_block_barrier<<<(1,1,1), (256,1,1), 0>>>", "block (0,0,0)",
                      "deadlock", site.c_str(), "threads 128-255 have returned",
                      "schedule seed 0xd0d0", "GPULABS_SIM_SEED=0xd0d0"});
  // cudaGetErrorString tells the same story in one line.
  EXPECT_NE(std::string::npos,
            std::string(cudaGetErrorString(cudaErrorLaunchFailure)).find("half_block_barrier"));
  ExpectRecovered();
}

// The classic: threads past the end return before the barrier the others wait at.
__global__ void early_return(const int *in, int *out, int n) {
  __shared__ int tile[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}

TEST(Deadlock, EarlyReturnBeforeBarrierNamesTheLastBlock) {
  const int n = 1000;  // 7 full blocks and one of 104 threads
  DeviceArray<int> in(n), out(n);
  in.Fill(0);
  Failure f = RunFailing([&] { early_return<<<8, 128>>>(in.get(), out.get(), n); });
  ExpectReportHas(f, {"early_return", "block (7,0,0)", "threads 0-103 wait at __syncthreads()",
                      "threads 104-127 have returned"});
  ExpectRecovered();
}

__global__ void shuffle_waits_for_barrier(int *out) {
  const unsigned lane = threadIdx.x % 32;
  int v = (int)lane;
  if (lane < 16) {
    v = __shfl_down_sync(0xffffffffu, v, 1);  // lanes 16-31 are elsewhere
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = v;
}

TEST(Deadlock, WarpFunctionWaitingForLanesAtABarrierIsReported) {
  DeviceArray<int> out(32);
  Failure f = RunFailing([&] { shuffle_waits_for_barrier<<<1, 32>>>(out.get()); });
  ExpectReportHas(f, {"deadlock", "threads 0-15 wait at __shfl_down_sync(mask 0xffffffff)",
                      "for lanes 16-31 of warp 0", "threads 16-31 wait at __syncthreads()"});
  ExpectRecovered();
}

constexpr int kFirstBarrierLine = __LINE__ + 3;
__global__ void two_barriers(int *out) {
  if (threadIdx.x % 2 == 0) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  out[threadIdx.x] = 1;
}

TEST(Deadlock, DifferentBarriersAreReported) {
  DeviceArray<int> out(64);
  Failure f = RunFailing([&] { two_barriers<<<1, 64>>>(out.get()); });
  const std::string first = "deadlock_test.cu:" + std::to_string(kFirstBarrierLine) + ")";
  const std::string second = "deadlock_test.cu:" + std::to_string(kFirstBarrierLine + 2) + ")";
  ExpectReportHas(f, {"threads reached different barriers", first.c_str(), second.c_str()});
  ExpectRecovered();
}

__global__ void mask_without_self(int *out) {
  const unsigned lane = threadIdx.x % 32;
  out[threadIdx.x] = __shfl_sync(0x0000ffffu, (int)lane, 0);  // lanes 16-31 are not in it
}

TEST(Deadlock, MaskWithoutTheCallingLaneIsReported) {
  DeviceArray<int> out(32);
  Failure f = RunFailing([&] { mask_without_self<<<1, 32>>>(out.get()); });
  ExpectReportHas(f, {"__shfl_sync(mask 0x0000ffff)", "leaves out the calling lane"});
  ExpectRecovered();
}

__global__ void mixed_warp_functions(unsigned *out) {
  const unsigned lane = threadIdx.x % 32;
  if (lane < 16) {
    out[lane] = __ballot_sync(0xffffffffu, 1);
  } else {
    out[lane] = (unsigned)__shfl_sync(0xffffffffu, (int)lane, 0);
  }
}

TEST(Deadlock, LanesCallingDifferentWarpFunctionsAreReported) {
  DeviceArray<unsigned> out(32);
  Failure f = RunFailing([&] { mixed_warp_functions<<<1, 32>>>(out.get()); });
  ExpectReportHas(f, {"__ballot_sync(mask 0xffffffff)", "__shfl_sync(mask 0xffffffff)",
                      "must all call the same warp function"});
  ExpectRecovered();
}

__global__ void bad_width(int *out) {
  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, (int)threadIdx.x, 1, 24);
}

TEST(Deadlock, ShuffleWidthThatIsNotAPowerOfTwoIsReported) {
  DeviceArray<int> out(32);
  Failure f = RunFailing([&] { bad_width<<<1, 32>>>(out.get()); });
  ExpectReportHas(f, {"width 24 is not a power of two"});
  ExpectRecovered();
}

// A shuffle must read lanes that take part; anything else is undefined on a GPU. As in NVIDIA's
// reduction sample's kernel 7 (its branch for GPUs before sm_80): a mask from a ballot, and a
// shuffle down that reaches past it.
constexpr int kOutsideMaskLine = __LINE__ + 4;
__global__ void shuffle_outside_mask(int *out) {
  int v = (int)threadIdx.x;
  const unsigned mask = __ballot_sync(0xffffffffu, threadIdx.x < 20);
  if (threadIdx.x < 20) v += __shfl_down_sync(mask, v, 8);  // lanes 12-19 read lanes 20-27
  out[threadIdx.x] = v;
}

TEST(Deadlock, ShuffleFromALaneOutsideTheMaskIsReported) {
  DeviceArray<int> out(64);
  Failure f = RunFailing([&] { shuffle_outside_mask<<<2, 32>>>(out.get()); });
  const std::string site = "__shfl_down_sync(mask 0x000fffff) at deadlock_test.cu:" +
                           std::to_string(kOutsideMaskLine) +
                           " reads lane 20, which the mask leaves out";
  ExpectReportHas(f, {"kernel shuffle_outside_mask<<<(2,1,1), (32,1,1), 0>>>",
                      "thread (12,0,0), lane 12 of warp 0", site.c_str(), "undefined",
                      "schedule seed"});
  ExpectRecovered();
}

constexpr int kFromExitedLine = __LINE__ + 3;
__global__ void shuffle_from_exited(int *out) {
  if (threadIdx.x >= 24) return;
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, (int)threadIdx.x, 8);  // 16-23 read 24-31
}

TEST(Deadlock, ShuffleFromALaneThatReturnedIsReported) {
  DeviceArray<int> out(32);
  Failure f = RunFailing([&] { shuffle_from_exited<<<1, 32>>>(out.get()); });
  const std::string site = "__shfl_down_sync(mask 0xffffffff) at deadlock_test.cu:" +
                           std::to_string(kFromExitedLine) + " reads lane 24, which has returned";
  ExpectReportHas(f, {"block (0,0,0): thread (16,0,0), lane 16 of warp 0", site.c_str()});
  ExpectRecovered();
}

__global__ void shuffle_past_partial_warp(int *out) {
  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, (int)threadIdx.x, 16);
}

TEST(Deadlock, ShuffleFromALaneMissingInAPartialWarpIsReported) {
  DeviceArray<int> out(48);
  Failure f = RunFailing([&] { shuffle_past_partial_warp<<<1, 48>>>(out.get()); });
  ExpectReportHas(f, {"thread (32,0,0), lane 0 of warp 1", "__shfl_xor_sync(mask 0xffffffff)",
                      "reads lane 16, which is not a thread of the block"});
  ExpectRecovered();
}

__global__ void traps(int *out) {
  if (blockIdx.x == 3 && threadIdx.x == 5) __trap();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

TEST(Deadlock, TrapStopsTheKernel) {
  DeviceArray<int> out(8 * 32);
  Failure f = RunFailing([&] { traps<<<8, 32>>>(out.get()); });
  ExpectReportHas(f, {"__trap()", "block (3,0,0)", "thread (5,0,0)"});
  ExpectRecovered();
}

__global__ void too_much_static_shared(int *out) {
  __shared__ int big[13 * 1024];  // 52 KiB: over the 48 KiB static limit
  big[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = big[threadIdx.x];
}

TEST(Deadlock, StaticSharedMemoryOverTheLimitIsReported) {
  DeviceArray<int> out(32);
  Failure f = RunFailing([&] { too_much_static_shared<<<1, 32>>>(out.get()); });
  ExpectReportHas(f, {"48 KiB"});
  ExpectRecovered();
}

// A failure is reported once: by the first synchronising call (or cudaGetLastError).
TEST(Deadlock, FailureIsReportedOnceThenCleared) {
  DeviceArray<int> out(256);
  half_block_barrier<<<1, 256>>>(out.get());
  EXPECT_EQ(cudaErrorLaunchFailure, cudaPeekAtLastError());
  EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  cudaGetLastError();
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
}
