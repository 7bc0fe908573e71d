// __syncthreads and its variants: what a thread writes before the barrier, every thread of
// the block reads after it; thread and block indices cover the grid as on a GPU.
#include "sim_test.h"

// Each thread writes, waits, then reads its neighbour's value; twice, to reuse the barrier.
__global__ void neighbour_exchange(int *out) {
  extern __shared__ int slots[];
  const unsigned t = threadIdx.x;
  const unsigned n = blockDim.x;
  slots[t] = (int)(blockIdx.x * 1000 + t);
  __syncthreads();
  int first = slots[(t + 1) % n];
  __syncthreads();
  slots[t] = first * 2;
  __syncthreads();
  out[blockIdx.x * n + t] = slots[(t + n - 1) % n];
}

TEST(Barrier, NeighbourExchangeSeesEveryWrite) {
  const unsigned sizes[] = {1, 2, 31, 33, 100, 256, 1024};
  for (unsigned threads : sizes) {
    const unsigned blocks = 37;
    DeviceArray<int> out(blocks * threads);
    neighbour_exchange<<<blocks, threads, threads * sizeof(int)>>>(out.get());
    CUDA_ASSERT(cudaGetLastError());
    CUDA_ASSERT(cudaDeviceSynchronize());
    std::vector<int> got = out.Download();
    for (unsigned b = 0; b < blocks; ++b) {
      for (unsigned t = 0; t < threads; ++t) {
        // Thread t reads what thread t-1 stored: twice the value of thread t.
        const int expected = 2 * (int)(b * 1000 + t);
        ASSERT_EQ(expected, got[b * threads + t])
            << "block " << b << " thread " << t << " of " << threads << ScheduleNote();
      }
    }
  }
}

// A tree sum in shared memory: one barrier per level, in a loop.
template <unsigned kBlock>
__global__ void block_sum(const int *in, int *out) {
  __shared__ int partial[kBlock];
  const unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * kBlock + t];
  __syncthreads();
  for (unsigned stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

template <unsigned kBlock>
void CheckBlockSum(unsigned blocks) {
  TestRng rng(kBlock * 7919u + blocks);
  std::vector<int> in(blocks * kBlock);
  for (int &v : in) v = (int)rng.Below(2001) - 1000;
  DeviceArray<int> d_in(in);
  DeviceArray<int> d_out(blocks);
  block_sum<kBlock><<<blocks, kBlock>>>(d_in.get(), d_out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<int> got = d_out.Download();
  for (unsigned b = 0; b < blocks; ++b) {
    int expected = 0;
    for (unsigned t = 0; t < kBlock; ++t) expected += in[b * kBlock + t];
    ASSERT_EQ(expected, got[b]) << "block " << b << " of block size " << kBlock << ScheduleNote();
  }
}

TEST(Barrier, TreeSumWithBarrierPerLevel) {
  CheckBlockSum<32>(300);
  CheckBlockSum<128>(200);
  CheckBlockSum<1024>(50);
}

// Linear thread numbering is x fastest, then y, then z; blocks likewise.
__global__ void record_indices(unsigned *out) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned *slot = out + 6 * (b * threads + t);
  slot[0] = threadIdx.x;
  slot[1] = threadIdx.y;
  slot[2] = threadIdx.z;
  slot[3] = blockIdx.x;
  slot[4] = blockIdx.y;
  slot[5] = blockIdx.z;
}

TEST(Barrier, ThreeDimensionalIndicesCoverTheGrid) {
  const dim3 grid(3, 2, 4), block(5, 4, 3);
  const unsigned threads = block.x * block.y * block.z;
  const unsigned blocks = grid.x * grid.y * grid.z;
  DeviceArray<unsigned> out(6 * threads * blocks);
  out.Fill(0xFF);
  record_indices<<<grid, block>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<unsigned> got = out.Download();
  size_t k = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              const unsigned expected[6] = {tx, ty, tz, bx, by, bz};
              for (unsigned c = 0; c < 6; ++c)
                ASSERT_EQ(expected[c], got[k * 6 + c]) << "slot " << k;
              ++k;
            }
}

// __syncthreads_count/_and/_or return the same block-wide answer to every thread.
__global__ void barrier_votes(const int *predicates, int *out) {
  const unsigned t = threadIdx.x;
  const int p = predicates[blockIdx.x * blockDim.x + t];
  const int count = __syncthreads_count(p);
  const int all = __syncthreads_and(p);
  const int any = __syncthreads_or(p);
  int *slot = out + 3 * (blockIdx.x * blockDim.x + t);
  slot[0] = count;
  slot[1] = all;
  slot[2] = any;
}

TEST(Barrier, CountAndOrVariants) {
  const unsigned threads = 96, blocks = 4;
  std::vector<int> pred(threads * blocks);
  TestRng rng(42);
  for (unsigned t = 0; t < threads; ++t) {
    pred[0 * threads + t] = 0;                        // none
    pred[1 * threads + t] = (int)(rng.Below(3) + 1);  // all, with values other than 1
    pred[2 * threads + t] = t == 77 ? -5 : 0;         // exactly one
    pred[3 * threads + t] = (int)(rng.Below(2));      // some
  }
  DeviceArray<int> d_pred(pred);
  DeviceArray<int> out(3 * threads * blocks);
  barrier_votes<<<blocks, threads>>>(d_pred.get(), out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<int> got = out.Download();
  for (unsigned b = 0; b < blocks; ++b) {
    int count = 0;
    for (unsigned t = 0; t < threads; ++t) count += pred[b * threads + t] != 0;
    for (unsigned t = 0; t < threads; ++t) {
      const int *slot = &got[3 * (b * threads + t)];
      ASSERT_EQ(count, slot[0]) << "block " << b;
      ASSERT_EQ(count == (int)threads ? 1 : 0, slot[1] != 0) << "block " << b;
      ASSERT_EQ(count > 0 ? 1 : 0, slot[2] != 0) << "block " << b;
    }
  }
}
