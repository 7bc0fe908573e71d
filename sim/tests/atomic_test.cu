// Atomics under contention from many blocks (so from several host threads at once under the
// simulator), locks, and the patterns the labs build on them: the last-block finish and the
// decoupled look-back, whose blocks wait for earlier blocks.
#include "sim_test.h"

namespace {

constexpr unsigned kBlocks = 300;
constexpr unsigned kThreads = 256;
constexpr unsigned kTotal = kBlocks * kThreads;

__global__ void add_everywhere(int *i32, unsigned *u32, unsigned long long *u64, float *f32,
                               double *f64) {
  const unsigned slot = threadIdx.x % 4;
  atomicAdd(&i32[slot], -3);
  atomicAdd(&u32[slot], 5u);
  atomicAdd(&u64[slot], 1ull << 33);
  atomicAdd(&f32[slot], 2.0f);  // exact: the sums stay below 2^24
  atomicAdd(&f64[slot], 0.5);
}

}  // namespace

TEST(Atomic, AddFromEveryThreadLosesNothing) {
  DeviceArray<int> i32(4);
  DeviceArray<unsigned> u32(4);
  DeviceArray<unsigned long long> u64(4);
  DeviceArray<float> f32(4);
  DeviceArray<double> f64(4);
  i32.Fill(0), u32.Fill(0), u64.Fill(0), f32.Fill(0), f64.Fill(0);
  add_everywhere<<<kBlocks, kThreads>>>(i32.get(), u32.get(), u64.get(), f32.get(), f64.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const unsigned per_slot = kTotal / 4;
  for (int v : i32.Download()) EXPECT_EQ(-3 * (int)per_slot, v);
  for (unsigned v : u32.Download()) EXPECT_EQ(5u * per_slot, v);
  for (unsigned long long v : u64.Download()) EXPECT_EQ((1ull << 33) * per_slot, v);
  for (float v : f32.Download()) EXPECT_EQ(2.0f * per_slot, v);
  for (double v : f64.Download()) EXPECT_EQ(0.5 * per_slot, v);
}

namespace {

__global__ void min_max(const int *values, int *imin, int *imax, unsigned *umin, unsigned *umax,
                        unsigned long long *lmin, unsigned long long *lmax, long long *smin,
                        long long *smax) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = values[i];
  atomicMin(imin, v);
  atomicMax(imax, v);
  atomicMin(umin, (unsigned)v);
  atomicMax(umax, (unsigned)v);
  atomicMin(lmin, (unsigned long long)(long long)v * 3ull);
  atomicMax(lmax, (unsigned long long)(long long)v * 3ull);
  atomicMin(smin, (long long)v * 1000000007ll);
  atomicMax(smax, (long long)v * 1000000007ll);
}

}  // namespace

TEST(Atomic, MinAndMaxFindTheExtremes) {
  TestRng rng(9);
  std::vector<int> values(kTotal);
  for (int &v : values) v = (int)rng.Next();
  DeviceArray<int> d_values(values);
  DeviceArray<int> imin(std::vector<int>{0x7fffffff}), imax(std::vector<int>{(int)0x80000000});
  DeviceArray<unsigned> umin(std::vector<unsigned>{~0u}), umax(std::vector<unsigned>{0u});
  DeviceArray<unsigned long long> lmin(std::vector<unsigned long long>{~0ull}),
      lmax(std::vector<unsigned long long>{0ull});
  DeviceArray<long long> smin(std::vector<long long>{0x7fffffffffffffffll}),
      smax(std::vector<long long>{(long long)0x8000000000000000ull});
  min_max<<<kBlocks, kThreads>>>(d_values.get(), imin.get(), imax.get(), umin.get(), umax.get(),
                                 lmin.get(), lmax.get(), smin.get(), smax.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  int e_imin = values[0], e_imax = values[0];
  unsigned e_umin = (unsigned)values[0], e_umax = (unsigned)values[0];
  unsigned long long e_lmin = ~0ull, e_lmax = 0;
  long long e_smin = (long long)values[0] * 1000000007ll, e_smax = e_smin;
  for (int v : values) {
    e_imin = std::min(e_imin, v), e_imax = std::max(e_imax, v);
    e_umin = std::min(e_umin, (unsigned)v), e_umax = std::max(e_umax, (unsigned)v);
    const unsigned long long l = (unsigned long long)(long long)v * 3ull;
    e_lmin = std::min(e_lmin, l), e_lmax = std::max(e_lmax, l);
    const long long s = (long long)v * 1000000007ll;
    e_smin = std::min(e_smin, s), e_smax = std::max(e_smax, s);
  }
  EXPECT_EQ(e_imin, imin.Download()[0]);
  EXPECT_EQ(e_imax, imax.Download()[0]);
  EXPECT_EQ(e_umin, umin.Download()[0]);
  EXPECT_EQ(e_umax, umax.Download()[0]);
  EXPECT_EQ(e_lmin, lmin.Download()[0]);
  EXPECT_EQ(e_lmax, lmax.Download()[0]);
  EXPECT_EQ(e_smin, smin.Download()[0]);
  EXPECT_EQ(e_smax, smax.Download()[0]);
}

namespace {

// Every thread swaps its id in; the old values it gets back, plus what is left, are each id
// (and the initial -1) exactly once.
__global__ void exchange_ids(int *slot, int *old, float *fslot, float *fold) {
  const int id = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  old[id] = atomicExch(slot, id);
  fold[id] = atomicExch(fslot, (float)id);
}

__global__ void inc_dec(unsigned *inc, unsigned *dec, unsigned *inc_old, unsigned *dec_old) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  inc_old[id] = atomicInc(inc, 9u);
  dec_old[id] = atomicDec(dec, 9u);
}

__global__ void bitwise(unsigned *ors, unsigned *ands, unsigned *xors, unsigned long long *wide) {
  const unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned bit = 1u << (id % 32);
  atomicOr(&ors[(id / 32) % 8], bit);
  atomicAnd(&ands[(id / 32) % 8], ~bit);
  atomicXor(&xors[id % 8], bit);  // each bit toggled an even number of times
  atomicOr(wide, 1ull << (id % 64));
}

}  // namespace

TEST(Atomic, ExchangeHandsOutEveryValueOnce) {
  DeviceArray<int> slot(std::vector<int>{-1});
  DeviceArray<float> fslot(std::vector<float>{-1.0f});
  DeviceArray<int> old(kTotal);
  DeviceArray<float> fold(kTotal);
  exchange_ids<<<kBlocks, kThreads>>>(slot.get(), old.get(), fslot.get(), fold.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<int> seen = old.Download();
  seen.push_back(slot.Download()[0]);
  std::sort(seen.begin(), seen.end());
  for (size_t k = 0; k < seen.size(); ++k) ASSERT_EQ((int)k - 1, seen[k]);
  std::vector<float> fseen = fold.Download();
  fseen.push_back(fslot.Download()[0]);
  std::sort(fseen.begin(), fseen.end());
  for (size_t k = 0; k < fseen.size(); ++k) ASSERT_EQ((float)k - 1.0f, fseen[k]);
}

TEST(Atomic, IncAndDecWrapAtTheirLimit) {
  DeviceArray<unsigned> inc(std::vector<unsigned>{0}), dec(std::vector<unsigned>{0});
  DeviceArray<unsigned> inc_old(kTotal), dec_old(kTotal);
  inc_dec<<<kBlocks, kThreads>>>(inc.get(), dec.get(), inc_old.get(), dec_old.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  // Both cycle through 0..9; kTotal = 76800 calls is a whole number of cycles.
  EXPECT_EQ(0u, inc.Download()[0]);
  EXPECT_EQ(0u, dec.Download()[0]);
  for (const std::vector<unsigned> &olds : {inc_old.Download(), dec_old.Download()}) {
    std::vector<unsigned> counts(10, 0);
    for (unsigned v : olds) {
      ASSERT_LT(v, 10u);
      ++counts[v];
    }
    for (unsigned c : counts) EXPECT_EQ(kTotal / 10, c);
  }
}

TEST(Atomic, BitwiseOperationsCombine) {
  DeviceArray<unsigned> ors(std::vector<unsigned>(8, 0u)), ands(std::vector<unsigned>(8, ~0u)),
      xors(std::vector<unsigned>(8, 0x0F0F0F0Fu));
  DeviceArray<unsigned long long> wide(std::vector<unsigned long long>{0});
  bitwise<<<kBlocks, kThreads>>>(ors.get(), ands.get(), xors.get(), wide.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  for (unsigned v : ors.Download()) EXPECT_EQ(~0u, v);
  for (unsigned v : ands.Download()) EXPECT_EQ(0u, v);
  for (unsigned v : xors.Download()) EXPECT_EQ(0x0F0F0F0Fu, v);
  EXPECT_EQ(~0ull, wide.Download()[0]);
}

namespace {

// One lock for the whole grid, taken by lane 0 of every warp with atomicCAS; the count it
// protects is a plain variable. Warps of the same block contend too: a thread spinning on
// the lock must let the holder of its own block run.
__global__ void locked_count(int *lock, volatile int *count) {
  if (threadIdx.x % 32 != 0) return;
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  *count = *count + 1;
  __threadfence();
  atomicExch(lock, 0);
}

// A histogram in shared memory, merged into global memory.
__global__ void histogram(const unsigned *values, unsigned *bins) {
  __shared__ unsigned local[16];
  if (threadIdx.x < 16) local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&local[values[blockIdx.x * blockDim.x + threadIdx.x] % 16], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

}  // namespace

TEST(Atomic, SpinLockAcrossAndWithinBlocks) {
  DeviceArray<int> lock(std::vector<int>{0}), count(std::vector<int>{0});
  locked_count<<<kBlocks, kThreads>>>(lock.get(), count.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_EQ((int)(kTotal / 32), count.Download()[0]);
}

TEST(Atomic, SharedMemoryHistogram) {
  TestRng rng(21);
  std::vector<unsigned> values(kTotal);
  std::vector<unsigned> expected(16, 0);
  for (unsigned &v : values) {
    v = (unsigned)rng.Next();
    ++expected[v % 16];
  }
  DeviceArray<unsigned> d_values(values), bins(std::vector<unsigned>(16, 0u));
  histogram<<<kBlocks, kThreads>>>(d_values.get(), bins.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_EQ(expected, bins.Download());
}

namespace {

// The last block to finish adds up every block's partial sum (threadfence + atomic counter).
__global__ void sum_with_last_block(const int *in, int *partials, unsigned *done, int *total) {
  __shared__ int s[128];
  __shared__ bool is_last;
  s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  for (unsigned stride = 64; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s[0];
    __threadfence();
    is_last = atomicInc(done, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last && threadIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += ((volatile int *)partials)[b];
    *total = sum;
  }
}

// An inclusive scan of one value per block, chained through the blocks: block k waits until
// block k-1 has published its prefix. The tile index comes from a counter, so a block only
// waits for a block that started before it.
__global__ void chained_scan(const int *in, int *out, unsigned *next_tile, volatile int *flags,
                             volatile int *prefixes) {
  __shared__ unsigned tile;
  if (threadIdx.x == 0) tile = atomicAdd(next_tile, 1u);
  __syncthreads();
  if (threadIdx.x == 0) {
    int prefix = 0;
    if (tile > 0) {
      while (flags[tile - 1] == 0) {
        __threadfence();  // also what lets the others run, under the simulator
      }
      prefix = prefixes[tile - 1];
    }
    prefix += in[tile];
    prefixes[tile] = prefix;
    __threadfence();
    flags[tile] = 1;
    out[tile] = prefix;
  }
}

}  // namespace

TEST(Atomic, LastBlockFinishSeesEveryPartialSum) {
  const unsigned blocks = 500;
  TestRng rng(4);
  std::vector<int> in(blocks * 128);
  int expected = 0;
  for (int &v : in) {
    v = (int)rng.Below(100);
    expected += v;
  }
  DeviceArray<int> d_in(in), partials(blocks), total(std::vector<int>{-1});
  DeviceArray<unsigned> done(std::vector<unsigned>{0});
  sum_with_last_block<<<blocks, 128>>>(d_in.get(), partials.get(), done.get(), total.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_EQ(expected, total.Download()[0]) << ScheduleNote();
  EXPECT_EQ(0u, done.Download()[0]);  // atomicInc wrapped back for the next call
}

TEST(Atomic, ChainedScanAcrossBlocksMakesProgress) {
  const unsigned blocks = 3000;
  std::vector<int> in(blocks);
  TestRng rng(8);
  for (int &v : in) v = (int)rng.Below(10);
#ifdef GPULABS_SIM
  const int worker_counts[] = {1, 2, 7};
#else
  const int worker_counts[] = {0};
#endif
  for (int workers : worker_counts) {
#ifdef GPULABS_SIM
    gpulabs_sim_set_worker_count(workers);
#endif
    DeviceArray<int> d_in(in), out(blocks), flags(std::vector<int>(blocks, 0)), prefixes(blocks);
    DeviceArray<unsigned> next(std::vector<unsigned>{0});
    chained_scan<<<blocks, 64>>>(d_in.get(), out.get(), next.get(), flags.get(), prefixes.get());
    CUDA_ASSERT(cudaDeviceSynchronize());
    const std::vector<int> got = out.Download();
    int prefix = 0;
    for (unsigned k = 0; k < blocks; ++k) {
      prefix += in[k];
      ASSERT_EQ(prefix, got[k]) << "tile " << k << " with " << workers << " host threads";
    }
  }
#ifdef GPULABS_SIM
  gpulabs_sim_set_worker_count(2);
#endif
}
