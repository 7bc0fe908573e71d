// Cooperative groups are as strict as the rest of the backend (simulator only): a missing
// tile.sync() or cg::sync(cta) computes a wrong answer under every schedule seed (the correct
// forms are right under each); a divergent thread_block::sync() or tile sync is reported as a
// deadlock; grid-wide sync fails the launch with a report naming the call.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "sim_test.h"

namespace cg = cooperative_groups;

namespace {

constexpr int kSeeds = 12;
constexpr unsigned kBlock = 256, kBlocks = 16;

// Each thread writes its value, then reads its neighbour's in the same tile (or block).
// kSync = false drops the group's sync between the write and the read.
template <unsigned kTile, bool kSync>
__global__ void neighbour(const int *in, int *out) {
  __shared__ int data[kBlock];
  cg::thread_block block = cg::this_thread_block();
  const unsigned t = block.thread_rank();
  data[t] = in[blockIdx.x * kBlock + t];
  if constexpr (kTile == kBlock) {
    if (kSync) cg::sync(block);
    out[blockIdx.x * kBlock + t] = data[(t + 1) % kBlock];
  } else {
    auto tile = cg::tiled_partition<kTile>(block);
    if (kSync) tile.sync();
    const unsigned base = t - tile.thread_rank();
    out[blockIdx.x * kBlock + t] = data[base + (tile.thread_rank() + 1) % kTile];
  }
}

// The samples' reduction with the cg::sync(cta) in its loop dropped (kSync = false).
template <bool kSync>
__global__ void tree_reduce(const int *in, int *out) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ int sdata[kBlock];
  const unsigned tid = cta.thread_rank();
  sdata[tid] = in[blockIdx.x * kBlock + tid];
  cg::sync(cta);
  for (unsigned s = kBlock / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    if (kSync) cg::sync(cta);
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

using Kernel = void (*)(const int *, int *);

std::vector<int> RunUnderSeed(Kernel k, const std::vector<int> &in, size_t outputs, uint64_t seed) {
  gpulabs_sim_set_schedule_seed(seed);
  DeviceArray<int> d_in(in), d_out(outputs);
  k<<<kBlocks, kBlock>>>(d_in.get(), d_out.get());
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  return d_out.Download();
}

std::vector<int> Input() {
  TestRng rng(17);
  std::vector<int> v(kBlock * kBlocks);
  for (int &x : v) x = (int)rng.Below(1000) + 1;
  return v;
}

std::vector<int> NeighbourWant(const std::vector<int> &in, unsigned tile) {
  std::vector<int> want(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t base = i - i % tile;
    want[i] = in[base + (i - base + 1) % tile];
  }
  return want;
}

std::vector<int> SumWant(const std::vector<int> &in) {
  std::vector<int> want(kBlocks, 0);
  for (size_t i = 0; i < in.size(); ++i) want[i / kBlock] += in[i];
  return want;
}

template <unsigned kTile>
void ExpectNeighbourStrict() {
  const std::vector<int> in = Input();
  const std::vector<int> want = NeighbourWant(in, kTile);
  for (int s = 1; s <= kSeeds; ++s) {
    const uint64_t seed = 0xC60000ull + (uint64_t)s * 7919u;
    EXPECT_NE(want, RunUnderSeed(neighbour<kTile, false>, in, in.size(), seed))
        << "tile " << kTile << " without sync was right under schedule seed 0x" << std::hex << seed;
    EXPECT_EQ(want, RunUnderSeed(neighbour<kTile, true>, in, in.size(), seed))
        << "tile " << kTile << " with sync was wrong under schedule seed 0x" << std::hex << seed;
  }
}

}  // namespace

TEST(CgStrict, MissingTileSyncIsCaughtUnderEverySeed) {
  ExpectNeighbourStrict<4>();
  ExpectNeighbourStrict<32>();
  ExpectNeighbourStrict<64>();
  ExpectNeighbourStrict<128>();
  ExpectNeighbourStrict<kBlock>();  // cg::sync(block)
}

TEST(CgStrict, MissingCgSyncInAReductionIsCaughtUnderEverySeedAndReplays) {
  const std::vector<int> in = Input();
  const std::vector<int> want = SumWant(in);
  for (int s = 1; s <= kSeeds; ++s) {
    const uint64_t seed = 0xFEED00ull + (uint64_t)s * 104729u;
    const std::vector<int> wrong = RunUnderSeed(tree_reduce<false>, in, kBlocks, seed);
    EXPECT_NE(want, wrong) << "no cg::sync, right under schedule seed 0x" << std::hex << seed;
    EXPECT_EQ(wrong, RunUnderSeed(tree_reduce<false>, in, kBlocks, seed)) << "the seed did not replay";
    EXPECT_EQ(want, RunUnderSeed(tree_reduce<true>, in, kBlocks, seed));
  }
}

namespace {

struct Failure {
  cudaError_t sync;
  std::string report;
};

template <class Launch>
Failure RunFailing(Launch launch) {
  cudaGetLastError();
  launch();
  Failure f;
  f.sync = cudaDeviceSynchronize();
  f.report = gpulabs_sim_last_failure();
  cudaGetLastError();
  return f;
}

void ExpectReportHas(const Failure &f, std::initializer_list<std::string> parts) {
  EXPECT_EQ(cudaErrorLaunchFailure, f.sync) << f.report;
  for (const std::string &part : parts) {
    EXPECT_NE(std::string::npos, f.report.find(part)) << "missing \"" << part << "\" in:\n"
                                                      << f.report;
  }
}

constexpr int kDivergentLine = __LINE__ + 4;
__global__ void divergent_block_sync(int *out) {
  cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() < 100) {
    block.sync();
  }
  out[block.thread_rank()] = 1;
}

constexpr int kTileLine = __LINE__ + 5;
__global__ void divergent_tile_sync(int *out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<64>(block);
  if (tile.thread_rank() != 5) {
    tile.sync();
  }
  out[block.thread_rank()] = 1;
}

constexpr int kGridLine = __LINE__ + 4;
__global__ void grid_sync(int *out) {
  cg::grid_group grid = cg::this_grid();
  out[grid.thread_rank()] = 1;
  grid.sync();
}

}  // namespace

TEST(CgStrict, DivergentBlockSyncIsADeadlock) {
  DeviceArray<int> out(128);
  gpulabs_sim_set_schedule_seed(0xCC);
  const Failure f = RunFailing([&] { divergent_block_sync<<<1, 128>>>(out.get()); });
  ExpectReportHas(f, {"divergent_block_sync", "deadlock",
                      "threads 0-99 wait at cooperative_groups::thread_block::sync() (cg_race_test.cu:" +
                          std::to_string(kDivergentLine) + ")",
                      "threads 100-127 have returned", "GPULABS_SIM_SEED=0xcc"});
}

TEST(CgStrict, DivergentWideTileSyncIsADeadlock) {
  DeviceArray<int> out(128);
  const Failure f = RunFailing([&] { divergent_tile_sync<<<1, 128>>>(out.get()); });
  ExpectReportHas(f, {"deadlock", "thread_block_tile<64>", "cg_race_test.cu:" + std::to_string(kTileLine),
                      "threads 5, 69 have returned"});
}

TEST(CgStrict, GridSyncFailsNamingTheCall) {
  DeviceArray<int> out(4 * 64);
  const Failure f = RunFailing([&] { grid_sync<<<4, 64>>>(out.get()); });
  ExpectReportHas(f, {"grid_sync", "cooperative_groups::grid_group::sync()", "not simulated",
                      "run this kernel on a GPU", "cg_race_test.cu:" + std::to_string(kGridLine)});
}

TEST(CgStrict, WideTileThatDoesNotDivideTheBlockIsReported) {
  DeviceArray<int> out(96);
  const Failure f = RunFailing([&] { divergent_tile_sync<<<1, 96>>>(out.get()); });
  ExpectReportHas(f, {"tiled_partition<Size>(block)", "multiple of Size"});
}
