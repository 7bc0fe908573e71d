// The schedule catches lost updates: a thread may lose the CPU right after a branch condition
// (README, "How kernels run"), so a check-then-write without an atomic (read a word, store to
// it when it looked empty) lets another thread read the same empty word in between, and one of
// the two updates is lost, as on a GPU. The seed replays where that happened; the atomicCAS
// forms of the same kernels lose nothing under any seed. (Simulator only: on a GPU the races
// happen too, but not on demand.)
#include "sim_test.h"

namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kBlocks = 64;
constexpr unsigned kTables = 4;  // blocks of the insert kernels
constexpr unsigned kEmpty = 0;
constexpr int kSeeds = 40;

uint64_t SeedNumber(int s) { return 0x10570000ull + (uint64_t)s * 7919u; }

// Every thread of a block tries to take the block's one slot and counts itself in owners[] when
// it did. kAtomic: atomicCAS (one owner); else a plain read, then a store when the slot looked
// empty: two threads that both read it empty both take it.
template <bool kAtomic>
__global__ void claim_slot(unsigned *slots, unsigned *owners) {
  unsigned *slot = &slots[blockIdx.x];
  const unsigned me = blockIdx.x * blockDim.x + threadIdx.x + 1;
  bool took;
  if (kAtomic) {
    took = atomicCAS(slot, kEmpty, me) == kEmpty;
  } else {
    const unsigned old = *slot;
    took = old == kEmpty;
    if (took) *slot = me;
  }
  if (took) atomicAdd(&owners[blockIdx.x], 1u);
}

// Linear probing as in the hashing lab, every key of a block with the same home slot: each
// thread inserts its key (never kEmpty) into its block's table of kBlock * 2 slots.
template <bool kAtomic>
__global__ void insert_colliding(unsigned *tables) {
  unsigned *table = tables + blockIdx.x * kBlock * 2;
  const unsigned key = threadIdx.x + 1;
  unsigned slot = 5;
  for (unsigned probe = 0; probe < kBlock * 2; ++probe, slot = (slot + 1) % (kBlock * 2)) {
    unsigned old;
    if (kAtomic) {
      old = atomicCAS(&table[slot], kEmpty, key);
    } else {
      old = table[slot];
      if (old == kEmpty) table[slot] = key;
    }
    if (old == kEmpty || old == key) return;
  }
}

// The number of owners of each block's slot under `seed`.
std::vector<unsigned> ClaimUnderSeed(bool atomic, uint64_t seed) {
  gpulabs_sim_set_schedule_seed(seed);
  DeviceArray<unsigned> slots(kBlocks), owners(kBlocks);
  slots.Fill(0);
  owners.Fill(0);
  if (atomic) {
    claim_slot<true><<<kBlocks, kBlock>>>(slots.get(), owners.get());
  } else {
    claim_slot<false><<<kBlocks, kBlock>>>(slots.get(), owners.get());
  }
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  return owners.Download();
}

// How many keys of each block's table are missing after the inserts under `seed`.
std::vector<unsigned> LostKeysUnderSeed(bool atomic, uint64_t seed) {
  gpulabs_sim_set_schedule_seed(seed);
  DeviceArray<unsigned> tables(kTables * kBlock * 2);
  tables.Fill(0);
  if (atomic) {
    insert_colliding<true><<<kTables, kBlock>>>(tables.get());
  } else {
    insert_colliding<false><<<kTables, kBlock>>>(tables.get());
  }
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  const std::vector<unsigned> all = tables.Download();
  std::vector<unsigned> lost(kTables, 0);
  for (unsigned b = 0; b < kTables; ++b) {
    std::vector<bool> seen(kBlock + 1, false);
    for (unsigned s = 0; s < kBlock * 2; ++s) {
      const unsigned key = all[b * kBlock * 2 + s];
      if (key != kEmpty && key <= kBlock) seen[key] = true;
    }
    for (unsigned key = 1; key <= kBlock; ++key) lost[b] += !seen[key];
  }
  return lost;
}

unsigned Sum(const std::vector<unsigned> &v) {
  unsigned sum = 0;
  for (unsigned x : v) sum += x;
  return sum;
}

std::string SeedText(uint64_t seed) {
  char buf[64];
  snprintf(buf, sizeof buf, "schedule seed 0x%llx", (unsigned long long)seed);
  return buf;
}

}  // namespace

// One check-then-write of one word per block: a slot with two owners under some seed, and that
// seed replays the same owners block for block, with any number of host threads.
TEST(LostUpdate, CheckThenWriteOnOneWordLosesAnUpdateUnderSomeSeed) {
  int losing = 0;
  uint64_t first_losing = 0;
  std::vector<unsigned> first_owners;
  for (int s = 1; s <= kSeeds; ++s) {
    const std::vector<unsigned> owners = ClaimUnderSeed(false, SeedNumber(s));
    if (*std::max_element(owners.begin(), owners.end()) < 2) continue;
    if (losing++ == 0) {
      first_losing = SeedNumber(s);
      first_owners = owners;
    }
  }
  ASSERT_GT(losing, 0) << "under none of " << kSeeds
                       << " seeds did two threads both read the slot empty";
  for (int workers : {1, 2, 5}) {
    gpulabs_sim_set_worker_count(workers);
    EXPECT_EQ(first_owners, ClaimUnderSeed(false, first_losing))
        << SeedText(first_losing) << " did not replay with " << workers << " host threads";
  }
  gpulabs_sim_set_worker_count(2);
}

TEST(LostUpdate, AtomicCasClaimsOnceUnderEverySeed) {
  for (int s = 1; s <= kSeeds; ++s) {
    EXPECT_EQ(std::vector<unsigned>(kBlocks, 1u), ClaimUnderSeed(true, SeedNumber(s)))
        << SeedText(SeedNumber(s));
  }
}

// Many threads probing past one home slot read many empty slots just before taking them: the
// check-then-write insert loses keys under every seed, the atomicCAS insert none.
TEST(LostUpdate, CheckThenWriteInsertLosesKeysUnderEverySeed) {
  for (int s = 1; s <= kSeeds; ++s) {
    EXPECT_GT(Sum(LostKeysUnderSeed(false, SeedNumber(s))), 0u)
        << "no key lost under " << SeedText(SeedNumber(s));
  }
}

TEST(LostUpdate, AtomicCasInsertKeepsEveryKeyUnderEverySeed) {
  for (int s = 1; s <= kSeeds; ++s) {
    EXPECT_EQ(0u, Sum(LostKeysUnderSeed(true, SeedNumber(s)))) << SeedText(SeedNumber(s));
  }
}

namespace {
// Threads wait for thread 0 of their block with a plain loop on a volatile flag: the loop's
// condition is a branch, where the waiting threads let thread 0 run.
__global__ void wait_for_thread0(int *flags, int *seen) {
  volatile int *flag = &flags[blockIdx.x];
  if (threadIdx.x == 0) {
    seen[blockIdx.x * blockDim.x] = 1;
    *flag = 1;
    return;
  }
  while (*flag == 0) {
  }
  seen[blockIdx.x * blockDim.x + threadIdx.x] = *flag;
}
}  // namespace

TEST(LostUpdate, SpinningOnAThreadOfTheSameBlockGoesOn) {
  gpulabs_sim_set_schedule_seed(0x5B1);
  DeviceArray<int> flags(8), seen(8 * 128);
  flags.Fill(0);
  wait_for_thread0<<<8, 128>>>(flags.get(), seen.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  EXPECT_EQ(std::vector<int>(8 * 128, 1), seen.Download());
}
