// Cooperative groups at block and warp level, in the style of NVIDIA's samples (reduction,
// scan, bitonic sort, warp-aggregated atomics): each kernel's result is compared with a CPU
// computation. The same file builds with nvcc (cuda_cg_test) and must pass on a GPU as well.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include "sim_test.h"

namespace cg = cooperative_groups;

namespace {

std::vector<int> RandomInts(size_t n, uint64_t seed, uint32_t bound) {
  TestRng rng(seed);
  std::vector<int> v(n);
  for (int &x : v) x = (int)rng.Below(bound) - (int)(bound / 2);
  return v;
}

// ---- Reductions -------------------------------------------------------------------------

// The samples' reduce4/reduce5 shape: a tree in shared memory with cg::sync(cta), then the
// last warp with tile32.shfl_down.
template <unsigned kBlock>
__global__ void reduce_shfl_down(const int *in, int *out, unsigned n) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ int sdata[kBlock];
  const unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (kBlock * 2) + threadIdx.x;
  int sum = i < n ? in[i] : 0;
  if (i + kBlock < n) sum += in[i + kBlock];
  sdata[tid] = sum;
  cg::sync(cta);
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    cg::sync(cta);
  }
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    if (kBlock >= 64) sum += sdata[tid + 32];
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) sum += tile32.shfl_down(sum, offset);
  }
  if (cta.thread_rank() == 0) out[blockIdx.x] = sum;
}

// cg::reduce per warp, the partial sums by meta_group_rank, then cg::reduce again.
__global__ void reduce_cg_reduce(const int *in, int *out, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ int partial[32];
  const unsigned i = blockIdx.x * block.size() + block.thread_rank();
  const int v = i < n ? in[i] : 0;
  const int warp_sum = cg::reduce(warp, v, cg::plus<int>());
  if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = warp_sum;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    const int p = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0;
    const int total = cg::reduce(warp, p, cg::plus<int>());
    if (warp.thread_rank() == 0) out[blockIdx.x] = total;
  }
}

std::vector<int> BlockSums(const std::vector<int> &v, size_t per_block, size_t blocks) {
  std::vector<int> sums(blocks, 0);
  for (size_t i = 0; i < v.size(); ++i) sums[i / per_block] += v[i];
  return sums;
}

TEST(CgReduce, SharedTreeThenTileShflDown) {
  const unsigned n = 256 * 2 * 40 - 77;
  const std::vector<int> in = RandomInts(n, 1, 2001);
  DeviceArray<int> d_in(in), d_out(40);
  reduce_shfl_down<256><<<40, 256>>>(d_in.get(), d_out.get(), n);
  CUDA_ASSERT(cudaGetLastError());
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_EQ(BlockSums(in, 512, 40), d_out.Download()) << ScheduleNote();
}

TEST(CgReduce, CgReduceOverWarpsAndMetaGroupRank) {
  for (unsigned block : {32u, 96u, 256u, 1024u}) {
    const unsigned blocks = 13, n = block * blocks - 5;
    const std::vector<int> in = RandomInts(n, block, 1001);
    DeviceArray<int> d_in(in), d_out(blocks);
    reduce_cg_reduce<<<blocks, block>>>(d_in.get(), d_out.get(), n);
    CUDA_ASSERT(cudaDeviceSynchronize());
    EXPECT_EQ(BlockSums(in, block, blocks), d_out.Download()) << "block " << block << ScheduleNote();
  }
}

// Every operator on tiles of every width: six results per tile.
template <unsigned kTile>
__global__ void tile_reductions(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<kTile>(block);
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[i];
  const unsigned u = (unsigned)v;
  const int r[6] = {cg::reduce(tile, v, cg::plus<int>()),
                    cg::reduce(tile, v, cg::less<int>()),
                    cg::reduce(tile, v, cg::greater<int>()),
                    (int)cg::reduce(tile, u, cg::bit_and<unsigned>()),
                    (int)cg::reduce(tile, u, cg::bit_or<unsigned>()),
                    (int)cg::reduce(tile, u, cg::bit_xor<unsigned>())};
  const unsigned t = i / kTile;  // the tile's number in the grid
  if (tile.thread_rank() == kTile - 1) {
    for (int k = 0; k < 6; ++k) out[t * 6 + k] = r[k];
  }
  // Every thread got the same answer.
  for (int k = 0; k < 6; ++k) {
    if (tile.shfl(r[k], 0) != r[k]) out[t * 6 + k] = 0x7eadbeef;
  }
}

template <unsigned kTile>
void CheckTileReductions() {
  const unsigned block = 256, blocks = 6, n = block * blocks;
  std::vector<int> in = RandomInts(n, 40 + kTile, 1u << 20);
  DeviceArray<int> d_in(in), d_out(n / kTile * 6);
  tile_reductions<kTile><<<blocks, block>>>(d_in.get(), d_out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<int> want(n / kTile * 6);
  for (unsigned t = 0; t < n / kTile; ++t) {
    int sum = 0, mn = in[t * kTile], mx = mn;
    unsigned a = ~0u, o = 0, x = 0;
    for (unsigned k = 0; k < kTile; ++k) {
      const int v = in[t * kTile + k];
      sum += v;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
      a &= (unsigned)v;
      o |= (unsigned)v;
      x ^= (unsigned)v;
    }
    const int r[6] = {sum, mn, mx, (int)a, (int)o, (int)x};
    for (int k = 0; k < 6; ++k) want[t * 6 + k] = r[k];
  }
  EXPECT_EQ(want, d_out.Download()) << "tile " << kTile << ScheduleNote();
}

TEST(CgReduce, EveryOperatorOnTilesOf1To128) {
  CheckTileReductions<1>();
  CheckTileReductions<4>();
  CheckTileReductions<16>();
  CheckTileReductions<32>();
  CheckTileReductions<64>();
  CheckTileReductions<128>();
}

// ---- Scans ------------------------------------------------------------------------------

template <unsigned kTile>
__global__ void tile_scans(const int *in, int *incl, int *excl, int *incl_max) {
  auto tile = cg::tiled_partition<kTile>(cg::this_thread_block());
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  incl[i] = cg::inclusive_scan(tile, in[i]);
  excl[i] = cg::exclusive_scan(tile, in[i], cg::plus<int>());
  incl_max[i] = cg::inclusive_scan(tile, in[i], cg::greater<int>());
}

template <unsigned kTile>
void CheckTileScans() {
  const unsigned block = 128, blocks = 5, n = block * blocks;
  const std::vector<int> in = RandomInts(n, 70 + kTile, 201);
  DeviceArray<int> d_in(in), incl(n), excl(n), imax(n);
  tile_scans<kTile><<<blocks, block>>>(d_in.get(), incl.get(), excl.get(), imax.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<int> wi(n), we(n), wm(n);
  for (unsigned i = 0; i < n; ++i) {
    const bool first = i % kTile == 0;
    we[i] = first ? 0 : wi[i - 1];
    wi[i] = we[i] + in[i];
    wm[i] = first ? in[i] : std::max(wm[i - 1], in[i]);
  }
  EXPECT_EQ(wi, incl.Download()) << "tile " << kTile << ScheduleNote();
  EXPECT_EQ(we, excl.Download()) << "tile " << kTile << ScheduleNote();
  EXPECT_EQ(wm, imax.Download()) << "tile " << kTile << ScheduleNote();
}

TEST(CgScan, InclusiveAndExclusiveOnTilesOf4To128) {
  CheckTileScans<4>();
  CheckTileScans<16>();
  CheckTileScans<32>();
  CheckTileScans<64>();
  CheckTileScans<128>();
}

// A block-wide exclusive scan from warp scans (the samples' shfl_scan shape).
__global__ void block_scan(const int *in, int *out, int *totals) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ int warp_totals[32];
  const unsigned i = blockIdx.x * block.size() + block.thread_rank();
  const int v = in[i];
  const int incl = cg::inclusive_scan(warp, v);
  if (warp.thread_rank() == warp.size() - 1) warp_totals[warp.meta_group_rank()] = incl;
  cg::sync(block);
  if (warp.meta_group_rank() == 0) {
    const int t = warp.thread_rank() < warp.meta_group_size() ? warp_totals[warp.thread_rank()] : 0;
    warp_totals[warp.thread_rank()] = cg::exclusive_scan(warp, t);
    if (warp.thread_rank() == warp.meta_group_size() - 1) totals[blockIdx.x] = t + warp_totals[warp.thread_rank()];
  }
  cg::sync(block);
  out[i] = warp_totals[warp.meta_group_rank()] + incl - v;
}

TEST(CgScan, BlockScanFromWarpScans) {
  const unsigned block = 512, blocks = 7, n = block * blocks;
  const std::vector<int> in = RandomInts(n, 5, 1001);
  DeviceArray<int> d_in(in), d_out(n), d_totals(blocks);
  block_scan<<<blocks, block>>>(d_in.get(), d_out.get(), d_totals.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<int> want(n), totals(blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    int acc = 0;
    for (unsigned t = 0; t < block; ++t) {
      want[b * block + t] = acc;
      acc += in[b * block + t];
    }
    totals[b] = acc;
  }
  EXPECT_EQ(want, d_out.Download()) << ScheduleNote();
  EXPECT_EQ(totals, d_totals.Download()) << ScheduleNote();
}

// ---- Bitonic sort (the sortingNetworks sample's bitonicSortShared, with cg::sync) ----------

constexpr unsigned kSortSize = 1024;  // per block, two elements per thread

__device__ inline void Comparator(unsigned &key_a, unsigned &val_a, unsigned &key_b,
                                  unsigned &val_b, unsigned dir) {
  if ((key_a > key_b) == dir) {
    unsigned t = key_a;
    key_a = key_b;
    key_b = t;
    t = val_a;
    val_a = val_b;
    val_b = t;
  }
}

__global__ void bitonic_sort_shared(unsigned *keys, unsigned *vals, unsigned dir) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ unsigned s_key[kSortSize];
  __shared__ unsigned s_val[kSortSize];
  keys += blockIdx.x * kSortSize + threadIdx.x;
  vals += blockIdx.x * kSortSize + threadIdx.x;
  s_key[threadIdx.x] = keys[0];
  s_val[threadIdx.x] = vals[0];
  s_key[threadIdx.x + kSortSize / 2] = keys[kSortSize / 2];
  s_val[threadIdx.x + kSortSize / 2] = vals[kSortSize / 2];
  for (unsigned size = 2; size < kSortSize; size <<= 1) {
    const unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      cg::sync(cta);
      const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      Comparator(s_key[pos], s_val[pos], s_key[pos + stride], s_val[pos + stride], ddd);
    }
  }
  for (unsigned stride = kSortSize / 2; stride > 0; stride >>= 1) {
    cg::sync(cta);
    const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    Comparator(s_key[pos], s_val[pos], s_key[pos + stride], s_val[pos + stride], dir);
  }
  cg::sync(cta);
  keys[0] = s_key[threadIdx.x];
  vals[0] = s_val[threadIdx.x];
  keys[kSortSize / 2] = s_key[threadIdx.x + kSortSize / 2];
  vals[kSortSize / 2] = s_val[threadIdx.x + kSortSize / 2];
}

TEST(CgSort, BitonicSortSharedWithCgSync) {
  const unsigned blocks = 4, n = blocks * kSortSize;
  TestRng rng(9);
  std::vector<unsigned> keys(n), vals(n);
  for (unsigned i = 0; i < n; ++i) {
    keys[i] = rng.Below(5000);
    vals[i] = i;
  }
  DeviceArray<unsigned> d_keys(keys), d_vals(vals);
  bitonic_sort_shared<<<blocks, kSortSize / 2>>>(d_keys.get(), d_vals.get(), 1);
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<unsigned> got_keys = d_keys.Download(), got_vals = d_vals.Download();
  for (unsigned b = 0; b < blocks; ++b) {
    std::vector<unsigned> want(keys.begin() + b * kSortSize, keys.begin() + (b + 1) * kSortSize);
    std::sort(want.begin(), want.end());
    std::vector<unsigned> got(got_keys.begin() + b * kSortSize,
                              got_keys.begin() + (b + 1) * kSortSize);
    ASSERT_EQ(want, got) << "block " << b << ScheduleNote();
    for (unsigned k = 0; k < kSortSize; ++k) {  // each value still goes with its key
      ASSERT_EQ(keys[got_vals[b * kSortSize + k]], got[k]) << ScheduleNote();
    }
  }
}

// ---- Warp-aggregated atomics with coalesced_threads (the warpAggregatedAtomicsCG sample) --

__device__ int atomicAggInc(int *counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  int res = 0;
  if (active.thread_rank() == 0) res = atomicAdd(counter, (int)active.size());
  return active.shfl(res, 0) + (int)active.thread_rank();
}

__global__ void filter_positive(int *dst, int *nres, const int *src, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && src[i] > 0) dst[atomicAggInc(nres)] = src[i];
}

TEST(CgCoalesced, WarpAggregatedAtomicFilter) {
  const int n = 100003;
  const std::vector<int> src = RandomInts(n, 21, 2001);
  DeviceArray<int> d_src(src), d_dst(n), d_count(1);
  d_count.Fill(0);
  filter_positive<<<(n + 255) / 256, 256>>>(d_dst.get(), d_count.get(), d_src.get(), n);
  CUDA_ASSERT(cudaDeviceSynchronize());
  std::vector<int> want;
  for (int v : src)
    if (v > 0) want.push_back(v);
  const int count = d_count.Download()[0];
  ASSERT_EQ((int)want.size(), count) << ScheduleNote();
  std::vector<int> got = d_dst.Download();
  got.resize(count);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(want, got) << ScheduleNote();
}

// Inside a branch, coalesced_threads() is some set of the lanes that took it, containing the
// caller: whatever the set, its members agree on it, their ranks are 0..size-1, and the
// group's collectives (shfl, ballot, any/all, reduce, scan, tiled_partition) agree.
struct CoalescedView {
  int size, rank, leader, ballot_count, any, all, sum, prefix, tile_size, tile_rank;
};

__global__ void coalesced_view(CoalescedView *out) {
  const int lane = threadIdx.x % 32;
  CoalescedView v{};
  v.size = -1;
  if (lane % 3 != 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    v.size = (int)g.size();
    v.rank = (int)g.thread_rank();
    v.leader = g.shfl(lane, 0);
    v.ballot_count = __popc(g.ballot(1));
    v.any = g.any(v.rank == 0);
    v.all = g.all(lane % 3 != 1);
    v.sum = cg::reduce(g, 1, cg::plus<int>());
    v.prefix = cg::exclusive_scan(g, 2);
    cg::coalesced_group pair = cg::tiled_partition(g, 2);
    v.tile_size = (int)pair.size();
    v.tile_rank = (int)pair.thread_rank();
    g.sync();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

TEST(CgCoalesced, GroupsInABranchAreConsistent) {
  const unsigned block = 128, blocks = 3, n = block * blocks;
  DeviceArray<CoalescedView> d_out(n);
  coalesced_view<<<blocks, block>>>(d_out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<CoalescedView> out = d_out.Download();
#ifdef GPULABS_SIM
  // Here the group is the lanes that reached the call in the same round: more than the caller.
  int largest = 0;
  for (const CoalescedView &v : out) largest = std::max(largest, v.size);
  EXPECT_GT(largest, 1);
#endif
  for (unsigned w = 0; w < n / 32; ++w) {
    for (unsigned l = 0; l < 32; ++l) {
      const CoalescedView &v = out[w * 32 + l];
      if (l % 3 == 1) {
        EXPECT_EQ(-1, v.size);
        continue;
      }
      ASSERT_GE(v.size, 1);
      ASSERT_LT(v.rank, v.size);
      const CoalescedView &lead = out[w * 32 + v.leader];
      EXPECT_EQ(0, lead.rank) << "lane " << l;
      EXPECT_EQ(v.size, lead.size);
      EXPECT_EQ(v.size, v.ballot_count);
      EXPECT_EQ(1, v.any);
      EXPECT_EQ(1, v.all);
      EXPECT_EQ(v.size, v.sum);
      EXPECT_EQ(2 * v.rank, v.prefix);
      EXPECT_EQ(v.rank % 2, v.tile_rank);
      EXPECT_EQ(std::min(2, v.size - (v.rank / 2) * 2), v.tile_size);
      // The members with this leader are `size` lanes with distinct ranks.
      unsigned ranks = 0;
      int members = 0;
      for (unsigned k = 0; k < 32; ++k) {
        const CoalescedView &o = out[w * 32 + k];
        if (k % 3 != 1 && o.leader == v.leader) {
          ++members;
          ranks |= 1u << o.rank;
        }
      }
      EXPECT_EQ(v.size, members);
      EXPECT_EQ(v.size == 32 ? ~0u : (1u << v.size) - 1, ranks);
    }
  }
}

// ---- Tiles: shuffles, votes, matches, meta groups -----------------------------------------

struct TileView {
  int rank, size, meta_rank, meta_size, down, up, xr, idx, any, all, ballot, match;
};

template <unsigned kTile>
__global__ void tile_view(TileView *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<kTile> tile = cg::tiled_partition<kTile>(block);
  const int t = (int)block.thread_rank();
  TileView v;
  v.rank = (int)tile.thread_rank();
  v.size = (int)tile.num_threads();
  v.meta_rank = (int)tile.meta_group_rank();
  v.meta_size = (int)tile.meta_group_size();
  v.down = tile.shfl_down(t, 1);
  v.up = tile.shfl_up(t, 2);
  v.xr = tile.shfl_xor(t, kTile / 2);
  v.idx = tile.shfl(t, (int)kTile - 1);
  v.any = tile.any(t % 7 == 0);
  v.all = tile.all(t % 2 == 0);
  v.ballot = (int)tile.ballot(t % 3 == 0);
  v.match = (int)tile.match_any(t % 3);
  out[blockIdx.x * blockDim.x + t] = v;
}

template <unsigned kTile>
void CheckTileView() {
  const unsigned block = 192, blocks = 2;
  DeviceArray<TileView> d_out(block * blocks);
  tile_view<kTile><<<blocks, block>>>(d_out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<TileView> out = d_out.Download();
  for (unsigned i = 0; i < block * blocks; ++i) {
    const int t = (int)(i % block), r = t % (int)kTile, base = t - r;
    const TileView &v = out[i];
    EXPECT_EQ(r, v.rank);
    EXPECT_EQ((int)kTile, v.size);
    EXPECT_EQ(t / (int)kTile, v.meta_rank);
    EXPECT_EQ((int)((block + kTile - 1) / kTile), v.meta_size);
    EXPECT_EQ(r + 1 < (int)kTile ? t + 1 : t, v.down) << "tile " << kTile << " thread " << t;
    EXPECT_EQ(r >= 2 ? t - 2 : t, v.up);
    EXPECT_EQ(kTile == 1 ? t : base + (r ^ (int)(kTile / 2)), v.xr);
    EXPECT_EQ(base + (int)kTile - 1, v.idx);
    int any = 0, all = 1, ballot = 0, match = 0;
    for (int k = 0; k < (int)kTile; ++k) {
      any |= (base + k) % 7 == 0;
      all &= (base + k) % 2 == 0;
      ballot |= ((base + k) % 3 == 0) << k;
      match |= ((base + k) % 3 == t % 3) << k;
    }
    EXPECT_EQ(any, v.any);
    EXPECT_EQ(all, v.all);
    EXPECT_EQ(ballot, v.ballot);
    EXPECT_EQ(match, v.match);
  }
}

TEST(CgTile, ShufflesVotesMatchesAndMetaGroupsOnTilesOf1To32) {
  CheckTileView<1>();
  CheckTileView<2>();
  CheckTileView<4>();
  CheckTileView<8>();
  CheckTileView<16>();
  CheckTileView<32>();
}

// Tiles wider than a warp: shfl, any, all, sync through shared memory, and a warp tile
// partitioned out of one, with and without block_tile_memory.
template <unsigned kTile, bool kScratch>
__global__ void wide_tile(int *out) {
  __shared__ cg::block_tile_memory<256> scratch;
  __shared__ int ring[256];
  cg::thread_block block = kScratch ? cg::this_thread_block(scratch) : cg::this_thread_block();
  cg::thread_block_tile<kTile> tile = cg::tiled_partition<kTile>(block);
  const int t = (int)block.thread_rank();
  int *o = out + (blockIdx.x * blockDim.x + t) * 6;
  o[0] = tile.shfl(t * 3, 5);
  o[1] = tile.any(t == 70) + 2 * tile.all(t < 1000) + 4 * tile.all(t % 64 != 1);
  ring[t] = t * t;
  tile.sync();
  o[2] = ring[(t + 1) % kTile + (t - (int)tile.thread_rank())];
  auto warp = cg::tiled_partition<32>(tile);
  o[3] = (int)(warp.meta_group_rank() * 1000 + warp.meta_group_size());
  o[4] = (int)(tile.meta_group_rank() * 1000 + tile.meta_group_size());
  o[5] = cg::reduce(tile, t, cg::plus<int>());
}

template <unsigned kTile, bool kScratch>
void CheckWideTile() {
  const unsigned block = 256, blocks = 3;
  DeviceArray<int> d_out(block * blocks * 6);
  wide_tile<kTile, kScratch><<<blocks, block>>>(d_out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<int> out = d_out.Download();
  for (unsigned i = 0; i < block * blocks; ++i) {
    const int t = (int)(i % block), base = t - t % (int)kTile;
    const int *o = &out[i * 6];
    EXPECT_EQ((base + 5) * 3, o[0]) << "tile " << kTile << " thread " << t << ScheduleNote();
    const int any70 = base <= 70 && 70 < base + (int)kTile;
    EXPECT_EQ(any70 + 2 + 0, o[1]) << "tile " << kTile << " thread " << t;
    const int next = base + (t - base + 1) % (int)kTile;
    EXPECT_EQ(next * next, o[2]) << "tile " << kTile << " thread " << t << ScheduleNote();
    EXPECT_EQ((int)(((t - base) / 32) * 1000 + kTile / 32), o[3]);
    EXPECT_EQ((int)((t / kTile) * 1000 + block / kTile), o[4]);
    EXPECT_EQ((int)kTile * base + (int)(kTile * (kTile - 1) / 2), o[5]);
  }
}

TEST(CgTile, TilesOf64And128AndBlockTileMemory) {
  CheckWideTile<64, false>();
  CheckWideTile<128, false>();
  CheckWideTile<128, true>();
  CheckWideTile<256, true>();
}

// The dynamic tiled_partition(block, n) returns a thread_group.
__global__ void dynamic_tiles(int *out, unsigned n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group tile = cg::tiled_partition(block, n);
  __shared__ int data[256];
  const unsigned t = block.thread_rank();
  data[t] = (int)t;
  tile.sync();
  const unsigned base = t - (unsigned)tile.thread_rank();
  out[blockIdx.x * blockDim.x + t] =
      (int)(tile.size() * 10000 + tile.thread_rank() * 100) + data[base + (tile.thread_rank() + 1) % tile.size()] - (int)base;
}

TEST(CgTile, DynamicTiledPartition) {
  for (unsigned n : {1u, 8u, 32u}) {
    DeviceArray<int> d_out(256);
    dynamic_tiles<<<1, 256>>>(d_out.get(), n);
    CUDA_ASSERT(cudaDeviceSynchronize());
    const std::vector<int> out = d_out.Download();
    for (unsigned t = 0; t < 256; ++t) {
      EXPECT_EQ((int)(n * 10000 + (t % n) * 100 + (t % n + 1) % n), out[t]) << "n " << n << " thread " << t;
    }
  }
}

// ---- Block indices -----------------------------------------------------------------------

__global__ void block_indices(unsigned *out) {
  cg::thread_block b = cg::this_thread_block();
  const unsigned r = b.thread_rank();
  unsigned *o = out + (((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * b.size() + r) * 6;
  o[0] = b.size() * 1000 + b.num_threads();
  o[1] = b.group_index().x * 100 + b.group_index().y * 10 + b.group_index().z;
  o[2] = b.thread_index().x * 10000 + b.thread_index().y * 100 + b.thread_index().z;
  o[3] = b.dim_threads().x * 10000 + b.dim_threads().y * 100 + b.dim_threads().z;
  o[4] = (unsigned)cg::thread_rank(b) - r + (unsigned)cg::group_size(b);
  o[5] = (unsigned)cg::this_grid().thread_rank();
}

TEST(CgBlock, IndicesIn3DBlocks) {
  const dim3 grid(2, 3, 2), block(8, 4, 2);
  const unsigned threads = 64, blocks = 12;
  DeviceArray<unsigned> d_out(threads * blocks * 6);
  block_indices<<<grid, block>>>(d_out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<unsigned> out = d_out.Download();
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 3; ++by)
      for (unsigned bx = 0; bx < 2; ++bx)
        for (unsigned r = 0; r < threads; ++r) {
          const unsigned blin = (bz * 3 + by) * 2 + bx;
          const unsigned *o = &out[(blin * threads + r) * 6];
          const unsigned x = r % 8, y = (r / 8) % 4, z = r / 32;
          EXPECT_EQ(64u * 1000 + 64, o[0]);
          EXPECT_EQ(bx * 100 + by * 10 + bz, o[1]);
          EXPECT_EQ(x * 10000 + y * 100 + z, o[2]);
          EXPECT_EQ(8u * 10000 + 4 * 100 + 2, o[3]);
          EXPECT_EQ(64u, o[4]);
          EXPECT_EQ(blin * threads + r, o[5]);
        }
}

}  // namespace
