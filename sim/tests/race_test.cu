// The shuffled schedule catches races: a reduction that forgets a __syncthreads, or a warp
// that relies on lock-step execution without __syncwarp, computes a wrong sum under every
// schedule seed, and the same seed replays the same wrong answer. The correct forms of the
// same kernels pass under every seed. (Simulator only: on a GPU these races may go unseen.)
#include "sim_test.h"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kBlocks = 64;
constexpr int kSeeds = 40;

// The sequential-addressing reduction; kSync = false drops the barrier inside the loop.
template <bool kSync>
__global__ void reduce_block(const int *in, int *out) {
  __shared__ int partial[kBlock];
  const unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * kBlock + t];
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    if (kSync) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// The last warp unrolled. kMode 0: volatile only (the pre-Volta idiom, a race since Volta);
// 1: __syncwarp between reading and writing each step (correct); 2: shuffles (correct).
__device__ void warp_reduce_volatile(volatile int *p, unsigned t) {
  p[t] += p[t + 32];
  p[t] += p[t + 16];
  p[t] += p[t + 8];
  p[t] += p[t + 4];
  p[t] += p[t + 2];
  p[t] += p[t + 1];
}

__device__ void warp_reduce_syncwarp(int *p, unsigned t) {
  int v = p[t];
  for (unsigned offset = 32; offset > 0; offset >>= 1) {
    v += p[t + offset];
    __syncwarp();
    p[t] = v;
    __syncwarp();
  }
}

template <int kMode>
__global__ void reduce_last_warp(const int *in, int *out) {
  __shared__ int partial[kBlock];
  const unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * kBlock + t];
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 32; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    if (kMode == 0) {
      warp_reduce_volatile(partial, t);
    } else if (kMode == 1) {
      warp_reduce_syncwarp(partial, t);
    } else {
      int v = partial[t] + partial[t + 32];
      for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
      if (t == 0) partial[0] = v;
    }
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

struct Input {
  std::vector<int> values;
  std::vector<int> sums;  // per block
};

Input MakeInput(uint64_t seed) {
  Input in;
  TestRng rng(seed);
  in.values.resize(kBlock * kBlocks);
  for (int &v : in.values) v = (int)rng.Below(1000) + 1;
  in.sums.assign(kBlocks, 0);
  for (unsigned b = 0; b < kBlocks; ++b)
    for (unsigned t = 0; t < kBlock; ++t) in.sums[b] += in.values[b * kBlock + t];
  return in;
}

using Kernel = void (*)(const int *, int *);

// Runs `kernel` under `seed`; returns the per-block sums.
std::vector<int> RunUnderSeed(Kernel kernel, const Input &in, uint64_t seed) {
  gpulabs_sim_set_schedule_seed(seed);
  DeviceArray<int> d_in(in.values);
  DeviceArray<int> d_out(kBlocks);
  kernel<<<kBlocks, kBlock>>>(d_in.get(), d_out.get());
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  return d_out.Download();
}

// Where the sums first differ: "" when they agree.
std::string FirstWrongBlock(const Input &in, const std::vector<int> &got) {
  for (unsigned b = 0; b < kBlocks; ++b) {
    if (got[b] != in.sums[b]) {
      return "block " + std::to_string(b) + " summed to " + std::to_string(got[b]) +
             " instead of " + std::to_string(in.sums[b]);
    }
  }
  return "";
}

std::string SeedText(uint64_t seed) {
  char buf[64];
  snprintf(buf, sizeof buf, "schedule seed 0x%llx", (unsigned long long)seed);
  return buf;
}

// Every seed must expose the race (a wrong sum in some block).
void ExpectCaughtUnderEverySeed(Kernel racy, const char *what) {
  const Input in = MakeInput(7);
  for (int s = 1; s <= kSeeds; ++s) {
    const uint64_t seed = 0x5EED0000ull + (uint64_t)s * 7919u;
    const std::string wrong = FirstWrongBlock(in, RunUnderSeed(racy, in, seed));
    EXPECT_FALSE(wrong.empty()) << what << " computed the right sums under " << SeedText(seed)
                                << ": the shuffled schedule missed the race";
  }
}

void ExpectCorrectUnderEverySeed(Kernel kernel, const char *what) {
  const Input in = MakeInput(11);
  for (int s = 1; s <= kSeeds; ++s) {
    const uint64_t seed = 0xC0DE0000ull + (uint64_t)s * 104729u;
    const std::string wrong = FirstWrongBlock(in, RunUnderSeed(kernel, in, seed));
    EXPECT_TRUE(wrong.empty()) << what << ": " << wrong << " under " << SeedText(seed)
                               << " (GPULABS_SIM_SEED replays it)";
  }
}

}  // namespace

TEST(Race, MissingSyncthreadsIsCaughtUnderEverySeed) {
  ExpectCaughtUnderEverySeed(reduce_block<false>, "the reduction without __syncthreads");
}

TEST(Race, ReductionWithSyncthreadsIsRightUnderEverySeed) {
  ExpectCorrectUnderEverySeed(reduce_block<true>, "the reduction with __syncthreads");
}

TEST(Race, LockStepWarpWithoutSyncwarpIsCaughtUnderEverySeed) {
  ExpectCaughtUnderEverySeed(reduce_last_warp<0>, "the volatile last-warp reduction");
}

TEST(Race, LastWarpWithSyncwarpOrShufflesIsRightUnderEverySeed) {
  ExpectCorrectUnderEverySeed(reduce_last_warp<1>, "the last warp with __syncwarp");
  ExpectCorrectUnderEverySeed(reduce_last_warp<2>, "the last warp with shuffles");
}

// What a student sees: the test's failure names the seed, and that seed replays the same
// wrong answer (block for block), so the bug can be chased in a debugger.
TEST(Race, TheSeedInTheMessageReplaysTheFailure) {
  const Input in = MakeInput(3);
  const uint64_t seed = 0xBADC0DEull;
  const std::vector<int> first = RunUnderSeed(reduce_block<false>, in, seed);
  const std::string message = FirstWrongBlock(in, first) + " under " + SeedText(seed);
  EXPECT_NE(std::string::npos, message.find("schedule seed 0xbadc0de")) << message;
  for (int workers : {1, 2, 5}) {
    gpulabs_sim_set_worker_count(workers);
    EXPECT_EQ(first, RunUnderSeed(reduce_block<false>, in, seed))
        << "seed 0x" << std::hex << seed << " did not replay with " << std::dec << workers
        << " host threads";
  }
  gpulabs_sim_set_worker_count(2);
  // And a different seed gives a different schedule (hence, here, other wrong sums).
  EXPECT_NE(first, RunUnderSeed(reduce_block<false>, in, seed + 1));
}

// The seed line of the simulator reaches stderr with the launch that failed: the kernel
// report for a deadlock (deadlock_test.cu) carries it, and gpulabs_sim_schedule_seed()
// returns the seed in force.
TEST(Race, ScheduleSeedCanBeSetAndRead) {
  gpulabs_sim_set_schedule_seed(0x1234);
  EXPECT_EQ(0x1234u, gpulabs_sim_schedule_seed());
  EXPECT_EQ(0u, gpulabs_sim_launch_count());
}

namespace {
__global__ void linear_index(unsigned *out) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  out[blockIdx.x * blockDim.x * blockDim.y * blockDim.z + t] =
      threadIdx.x * 10000 + threadIdx.y * 100 + threadIdx.z;
}
}  // namespace

// Setting the seed restarts the launch numbering: a worker must not take a new launch with an
// old number for the old one (its threads' indices follow the new block's shape).
TEST(Race, BlockShapesChangeAcrossSeedResets) {
  const dim3 shapes[] = {dim3(64), dim3(8, 8), dim3(4, 4, 4), dim3(2, 32)};
  for (const dim3 &block : shapes) {
    gpulabs_sim_set_schedule_seed(77);
    const unsigned threads = block.x * block.y * block.z;
    DeviceArray<unsigned> out(3 * threads);
    linear_index<<<3, block>>>(out.get());
    CUDA_ASSERT(cudaDeviceSynchronize());
    const std::vector<unsigned> got = out.Download();
    for (unsigned b = 0; b < 3; ++b)
      for (unsigned z = 0; z < block.z; ++z)
        for (unsigned y = 0; y < block.y; ++y)
          for (unsigned x = 0; x < block.x; ++x) {
            const unsigned t = x + block.x * (y + block.y * z);
            ASSERT_EQ(x * 10000 + y * 100 + z, got[b * threads + t])
                << "block shape (" << block.x << "," << block.y << "," << block.z << ")";
          }
  }
}
