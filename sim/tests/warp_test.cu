// Every warp function against its definition in the CUDA Programming Guide, on random cases:
// random sets of active lanes (the others have returned), masks equal to the active set or
// the full warp, every width, source lanes and offsets across the whole range (of lanes that
// take part: reading another is undefined, and deadlock_test.cu checks that the simulator
// reports it), and operand types of 4 and 8 bytes. The reference below is written from the
// documentation alone; the same file runs on a GPU (GPULABS_SIM_TESTS_ON_CUDA), which checks
// the reference too.
#include <cstring>

#include "sim_test.h"

namespace {

constexpr unsigned kFull = 0xffffffffu;

enum ShuffleOp { kIdx, kUp, kDown, kXor };

struct ShuffleCase {
  int op;
  unsigned active;  // lanes that take part; the others return first
  int width;
  int arg[32];  // srcLane, delta or laneMask, per lane
};

// The lane whose value `lane` receives, or -1 for "its own" (out of range): the Programming
// Guide's rules for __shfl_sync, __shfl_up_sync, __shfl_down_sync and __shfl_xor_sync.
int DocumentedSource(int op, int lane, int arg, int width) {
  const int segment = lane / width * width;  // first lane of the caller's subsection
  switch (op) {
    case kIdx: return segment + ((arg % width) + width) % width;  // srcLane modulo width
    case kUp: return lane % width < arg ? -1 : lane - arg;        // lower delta lanes unchanged
    case kDown: return lane % width + arg >= width ? -1 : lane + arg;
    default: {
      const int src = lane ^ arg;  // later subsections are out of reach
      return src / width > lane / width ? -1 : src;
    }
  }
}

template <class T>
__global__ void shuffle_cases(const ShuffleCase *cases, const T *values, T *out, int full_mask) {
  const ShuffleCase &c = cases[blockIdx.x];
  const unsigned lane = threadIdx.x;
  if (((c.active >> lane) & 1u) == 0) return;
  const unsigned mask = full_mask ? kFull : c.active;
  const T v = values[blockIdx.x * 32 + lane];
  const int arg = c.arg[lane];
  T r;
  switch (c.op) {
    case kIdx: r = __shfl_sync(mask, v, arg, c.width); break;
    case kUp: r = __shfl_up_sync(mask, v, (unsigned)arg, c.width); break;
    case kDown: r = __shfl_down_sync(mask, v, (unsigned)arg, c.width); break;
    default: r = __shfl_xor_sync(mask, v, arg, c.width); break;
  }
  out[blockIdx.x * 32 + lane] = r;
}

template <class T>
T ValueFor(TestRng &rng) {
  const uint64_t bits = rng.Next();
  if (std::is_floating_point<T>::value) return (T)((double)(bits >> 11) / 1024.0 - 4e12);
  T v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

std::vector<ShuffleCase> RandomShuffleCases(uint64_t seed, int count, int max_src) {
  TestRng rng(seed);
  std::vector<ShuffleCase> cases(count);
  for (int k = 0; k < count; ++k) {
    ShuffleCase &c = cases[k];
    c.op = k % 4;
    c.width = 1 << rng.Below(6);
    // Mostly the full warp; else a random set (never empty).
    c.active = rng.Below(3) == 0 ? (unsigned)rng.Next() | (1u << rng.Below(32)) : kFull;
    // srcLane may be negative or beyond the width; delta reaches 32; laneMask stays in a warp.
    // Each lane's source takes part (a few tries; else the lane reads its own value).
    for (int l = 0; l < 32; ++l) {
      int arg = c.op == kIdx ? l : 0;
      for (int tries = 0; tries < 8; ++tries) {
        const int a = c.op == kIdx ? (int)rng.Below(2 * max_src + 1) - max_src
                                   : (int)rng.Below(c.op == kXor ? 32 : 33);
        const int src = DocumentedSource(c.op, l, a, c.width);
        if ((c.active >> (src < 0 ? l : src)) & 1u) {
          arg = a;
          break;
        }
      }
      c.arg[l] = arg;
    }
  }
  return cases;
}

template <class T>
void CheckShuffles(uint64_t seed, int full_mask, int max_src) {
  const int count = 400;
  const std::vector<ShuffleCase> cases = RandomShuffleCases(seed, count, max_src);
  TestRng rng(seed ^ 0xABCDEF);
  std::vector<T> values(count * 32);
  for (T &v : values) v = ValueFor<T>(rng);
  DeviceArray<ShuffleCase> d_cases(cases);
  DeviceArray<T> d_values(values);
  DeviceArray<T> d_out(count * 32);
  shuffle_cases<T><<<count, 32>>>(d_cases.get(), d_values.get(), d_out.get(), full_mask);
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<T> got = d_out.Download();
  static const char *names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                "__shfl_xor_sync"};
  for (int k = 0; k < count; ++k) {
    const ShuffleCase &c = cases[k];
    for (int lane = 0; lane < 32; ++lane) {
      if (((c.active >> lane) & 1u) == 0) continue;
      const int src = DocumentedSource(c.op, lane, c.arg[lane], c.width);
      const int from = src < 0 ? lane : src;
      ASSERT_EQ(0, std::memcmp(&values[k * 32 + from], &got[k * 32 + lane], sizeof(T)))
          << names[c.op] << " case " << k << ": lane " << lane << " with arg " << c.arg[lane]
          << ", width " << c.width << ", active 0x" << std::hex << c.active << std::dec
          << " should get lane " << from << "'s value" << ScheduleNote();
    }
  }
}

}  // namespace

TEST(Warp, ShufflesFollowTheDocumentedRules) {
  // The last argument bounds |srcLane|: beyond the width it wraps modulo the width.
  CheckShuffles<int>(1, 0, 31);
  CheckShuffles<unsigned>(2, 1, 31);
  CheckShuffles<float>(3, 0, 70);
  CheckShuffles<double>(4, 1, 31);
  CheckShuffles<long long>(5, 0, 40);
  CheckShuffles<unsigned long long>(6, 1, 31);
}

namespace {

// Offsets and lane masks of 32 and more: the guide does not say; the PTX shfl.sync
// instruction uses only their low 5 bits. (Run on a GPU, this test is what settles it.)
__global__ void shuffle_big_offsets(int *out, unsigned offset) {
  const int lane = (int)threadIdx.x;
  out[0 * 32 + lane] = __shfl_down_sync(kFull, lane, offset);
  out[1 * 32 + lane] = __shfl_up_sync(kFull, lane, offset);
  out[2 * 32 + lane] = __shfl_xor_sync(kFull, lane, (int)offset);
}

}  // namespace

TEST(Warp, OffsetsFromThirtyTwoUseTheirLowFiveBits) {
  for (unsigned offset : {32u, 33u, 35u, 63u, 100u}) {
    DeviceArray<int> out(3 * 32);
    shuffle_big_offsets<<<1, 32>>>(out.get(), offset);
    CUDA_ASSERT(cudaDeviceSynchronize());
    const std::vector<int> got = out.Download();
    const int b = (int)(offset & 31);
    for (int lane = 0; lane < 32; ++lane) {
      EXPECT_EQ(lane + b <= 31 ? lane + b : lane, got[0 * 32 + lane])
          << "down by " << offset << ", lane " << lane;
      EXPECT_EQ(lane - b >= 0 ? lane - b : lane, got[1 * 32 + lane])
          << "up by " << offset << ", lane " << lane;
      EXPECT_EQ(lane ^ b, got[2 * 32 + lane]) << "xor " << offset << ", lane " << lane;
    }
  }
}

namespace {

struct VoteCase {
  unsigned active;
  int full_mask;
  int predicate[32];
  unsigned value[32];           // for match and reduce (few distinct values)
  unsigned long long wide[32];  // for the 64-bit match
};

// Per lane: ballot, any, all, match_any(32), match_all(32), its predicate, match_any(64),
// reduce add, min (unsigned), max (unsigned), min (int), max (int), and, or, xor.
constexpr int kVoteOutputs = 15;

__global__ void vote_cases(const VoteCase *cases, unsigned *out) {
  const VoteCase &c = cases[blockIdx.x];
  const unsigned lane = threadIdx.x;
  if (((c.active >> lane) & 1u) == 0) return;
  const unsigned mask = c.full_mask ? kFull : c.active;
  unsigned *o = out + (blockIdx.x * 32 + lane) * kVoteOutputs;
  const int p = c.predicate[lane];
  const unsigned v = c.value[lane];
  o[0] = __ballot_sync(mask, p);
  o[1] = (unsigned)(__any_sync(mask, p) != 0);
  o[2] = (unsigned)(__all_sync(mask, p) != 0);
  o[3] = __match_any_sync(mask, v);
  int pred = -1;
  o[4] = __match_all_sync(mask, v, &pred);
  o[5] = (unsigned)pred;
  o[6] = __match_any_sync(mask, c.wide[lane]);
  o[7] = __reduce_add_sync(mask, v);
  o[8] = __reduce_min_sync(mask, v);
  o[9] = __reduce_max_sync(mask, v);
  o[10] = (unsigned)__reduce_min_sync(mask, (int)v);
  o[11] = (unsigned)__reduce_max_sync(mask, (int)v);
  o[12] = __reduce_and_sync(mask, v);
  o[13] = __reduce_or_sync(mask, v);
  o[14] = __reduce_xor_sync(mask, v);
}

// What the guide defines, over the lanes that take part (active ones; with the full mask the
// others have exited, which the guide allows).
std::vector<unsigned> DocumentedVotes(const VoteCase &c, int lane) {
  const unsigned members = c.active;
  unsigned ballot = 0, match_any = 0, match_any_wide = 0, sum = 0, umin = ~0u, umax = 0,
           all_and = ~0u, all_or = 0, all_xor = 0;
  int smin = 0x7fffffff, smax = (int)0x80000000;
  bool all_same = true;
  int first = -1;
  for (int l = 0; l < 32; ++l) {
    if (((members >> l) & 1u) == 0) continue;
    if (first < 0) first = l;
    const unsigned v = c.value[l];
    if (c.predicate[l] != 0) ballot |= 1u << l;
    if (v == c.value[lane]) match_any |= 1u << l;
    if (c.wide[l] == c.wide[lane]) match_any_wide |= 1u << l;
    if (v != c.value[first]) all_same = false;
    sum += v;
    umin = v < umin ? v : umin;
    umax = v > umax ? v : umax;
    smin = (int)v < smin ? (int)v : smin;
    smax = (int)v > smax ? (int)v : smax;
    all_and &= v;
    all_or |= v;
    all_xor ^= v;
  }
  // __match_all_sync answers with the lanes that took part (a GPU leaves out lanes of the
  // mask that have exited).
  return {ballot,
          ballot != 0,
          ballot == members,
          match_any,
          all_same ? members : 0u,
          all_same ? 1u : 0u,
          match_any_wide,
          sum,
          umin,
          umax,
          (unsigned)smin,
          (unsigned)smax,
          all_and,
          all_or,
          all_xor};
}

}  // namespace

TEST(Warp, VotesMatchesAndReductionsFollowTheDocumentedRules) {
  const int count = 500;
  TestRng rng(77);
  std::vector<VoteCase> cases(count);
  for (int k = 0; k < count; ++k) {
    VoteCase &c = cases[k];
    const unsigned shape = rng.Below(4);
    c.active =
        shape == 0 ? (unsigned)rng.Next() | 1u : (shape == 1 ? (1u << rng.Below(32)) : kFull);
    // A full mask while some lanes have returned is allowed.
    c.full_mask = c.active == kFull ? 1 : (int)rng.Below(2);
    const unsigned distinct = 1 + rng.Below(k % 3 == 0 ? 1 : 4);  // sometimes all equal
    const unsigned predicate_kind = rng.Below(4);                 // none, all, or random
    for (int l = 0; l < 32; ++l) {
      c.predicate[l] =
          predicate_kind == 0
              ? 0
              : (predicate_kind == 1 ? 7 : (int)rng.Below(2) * (int)(1 + rng.Below(5)));
      c.value[l] = (unsigned)(rng.Below(distinct) * 0x9E3779B1u);  // some look negative as int
      c.wide[l] = ((unsigned long long)rng.Below(distinct) << 40) | 5u;
    }
  }
  DeviceArray<VoteCase> d_cases(cases);
  DeviceArray<unsigned> d_out(count * 32 * kVoteOutputs);
  vote_cases<<<count, 32>>>(d_cases.get(), d_out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<unsigned> got = d_out.Download();
  static const char *names[kVoteOutputs] = {"__ballot_sync",
                                            "__any_sync",
                                            "__all_sync",
                                            "__match_any_sync",
                                            "__match_all_sync",
                                            "__match_all_sync's pred",
                                            "__match_any_sync (64-bit)",
                                            "__reduce_add_sync",
                                            "__reduce_min_sync (unsigned)",
                                            "__reduce_max_sync (unsigned)",
                                            "__reduce_min_sync (int)",
                                            "__reduce_max_sync (int)",
                                            "__reduce_and_sync",
                                            "__reduce_or_sync",
                                            "__reduce_xor_sync"};
  for (int k = 0; k < count; ++k) {
    for (int lane = 0; lane < 32; ++lane) {
      if (((cases[k].active >> lane) & 1u) == 0) continue;
      const std::vector<unsigned> expected = DocumentedVotes(cases[k], lane);
      for (int o = 0; o < kVoteOutputs; ++o) {
        ASSERT_EQ(expected[o], got[(k * 32 + lane) * kVoteOutputs + o])
            << names[o] << ", case " << k << ", lane " << lane << ", active 0x" << std::hex
            << cases[k].active << ScheduleNote();
      }
    }
  }
}

namespace {

// Exited lanes named in the mask do not take part (the guide: "all non-exited threads named
// in mask must execute the same intrinsic").
__global__ void ballot_after_exit(unsigned *out, int n) {
  const int i = (int)threadIdx.x;
  if (i >= n) return;
  out[i] = __ballot_sync(kFull, i % 3 == 0);
}

}  // namespace

TEST(Warp, LanesThatReturnedDoNotTakePart) {
  for (int n : {1, 5, 17, 31}) {
    DeviceArray<unsigned> out(32);
    ballot_after_exit<<<1, 32>>>(out.get(), n);
    CUDA_ASSERT(cudaDeviceSynchronize());
    const std::vector<unsigned> got = out.Download();
    unsigned expected = 0;
    for (int i = 0; i < n; i += 3) expected |= 1u << i;
    for (int i = 0; i < n; ++i) ASSERT_EQ(expected, got[i]) << "n = " << n << ", lane " << i;
  }
}

namespace {

// Warps are consecutive linear thread indices, also in 2-D blocks and in a last partial warp.
__global__ void warp_layout(unsigned *out) {
  const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  out[t] = __ballot_sync(kFull, threadIdx.y % 2 == 0);
  out[t + blockDim.x * blockDim.y] = (unsigned)__shfl_sync(kFull, (int)t, 0);
}

// Two halves of a warp in different branches, each shuffling among itself.
__global__ void split_warp(int *out) {
  const int lane = (int)threadIdx.x;
  int v;
  if (lane < 16) {
    v = __shfl_down_sync(0x0000ffffu, lane * 10, 1, 16);
  } else {
    v = __shfl_up_sync(0xffff0000u, lane * 10, 2, 16);
  }
  __syncwarp();
  out[lane] = v;
}

}  // namespace

TEST(Warp, WarpsFollowLinearThreadIndices) {
  const dim3 block(16, 3);  // 48 threads: warp 0 is rows 0-1, warp 1 is row 2 (16 lanes)
  DeviceArray<unsigned> out(96);
  warp_layout<<<1, block>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<unsigned> got = out.Download();
  for (unsigned t = 0; t < 48; ++t) {
    EXPECT_EQ(0x0000ffffu, got[t]) << "thread " << t;  // rows 0 and 2 vote yes: lanes 0-15
    EXPECT_EQ(t < 32 ? 0u : 32u, got[48 + t]) << "thread " << t;
  }
}

TEST(Warp, DivergentHalvesShuffleIndependently) {
  DeviceArray<int> out(32);
  split_warp<<<1, 32>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<int> got = out.Download();
  for (int lane = 0; lane < 32; ++lane) {
    int expected;
    if (lane < 16) {
      expected = lane + 1 < 16 ? (lane + 1) * 10 : lane * 10;
    } else {
      expected = lane - 16 >= 2 ? (lane - 2) * 10 : lane * 10;
    }
    EXPECT_EQ(expected, got[lane]) << "lane " << lane;
  }
}

namespace {

// __syncwarp orders shared-memory traffic within a warp: a transpose through shared memory.
__global__ void syncwarp_exchange(int *out) {
  __shared__ int slots[64];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int round = 0; round < 4; ++round) {
    slots[warp * 32 + lane] = (int)(lane * 100 + round);
    __syncwarp();
    const int v = slots[warp * 32 + (31 - lane)];
    __syncwarp();
    out[round * 64 + threadIdx.x] = v;
  }
}

}  // namespace

TEST(Warp, SyncwarpOrdersSharedMemoryWithinTheWarp) {
  DeviceArray<int> out(4 * 64);
  syncwarp_exchange<<<1, 64>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<int> got = out.Download();
  for (int round = 0; round < 4; ++round)
    for (int t = 0; t < 64; ++t)
      ASSERT_EQ((31 - t % 32) * 100 + round, got[round * 64 + t])
          << "round " << round << " thread " << t << ScheduleNote();
}

namespace {

__global__ void bit_intrinsics(const unsigned *in, unsigned *out, int n) {
  const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const unsigned x = in[2 * i], y = in[2 * i + 1];
  const unsigned long long xy = ((unsigned long long)x << 32) | y;
  unsigned *o = out + 12 * i;
  o[0] = (unsigned)__popc(x);
  o[1] = (unsigned)__popcll(xy);
  o[2] = (unsigned)__clz((int)x);
  o[3] = (unsigned)__clzll((long long)xy);
  o[4] = (unsigned)__ffs((int)x);
  o[5] = (unsigned)__ffsll((long long)xy);
  o[6] = __brev(x);
  o[7] = (unsigned)(__brevll(xy) >> 32);
  o[8] = __byte_perm(x, y, y);
  o[9] = __funnelshift_l(x, y, y);
  o[10] = __funnelshift_r(x, y, y);
  o[11] = __umulhi(x, y);
}

}  // namespace

TEST(Intrinsics, BitFunctionsFollowTheirDefinitions) {
  const int n = 2000;
  TestRng rng(5);
  std::vector<unsigned> in(2 * n);
  for (int i = 0; i < 2 * n; ++i) {
    // Plenty of zeros, single bits and all-ones, where the edge cases are.
    const unsigned kind = rng.Below(5);
    in[i] = kind == 0   ? 0u
            : kind == 1 ? 1u << rng.Below(32)
            : kind == 2 ? ~0u
                        : (unsigned)rng.Next();
  }
  DeviceArray<unsigned> d_in(in);
  DeviceArray<unsigned> d_out(12 * n);
  bit_intrinsics<<<(n + 127) / 128, 128>>>(d_in.get(), d_out.get(), n);
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<unsigned> got = d_out.Download();
  for (int i = 0; i < n; ++i) {
    const unsigned x = in[2 * i], y = in[2 * i + 1];
    const unsigned long long xy = ((unsigned long long)x << 32) | y;
    unsigned e[12] = {};
    for (int b = 0; b < 32; ++b) e[0] += (x >> b) & 1u;
    for (int b = 0; b < 64; ++b) e[1] += (unsigned)((xy >> b) & 1u);
    e[2] = 32;
    for (int b = 31; b >= 0; --b)
      if ((x >> b) & 1u) {
        e[2] = 31 - b;
        break;
      }
    e[3] = 64;
    for (int b = 63; b >= 0; --b)
      if ((xy >> b) & 1u) {
        e[3] = 63 - b;
        break;
      }
    for (int b = 0; b < 32; ++b)
      if ((x >> b) & 1u) {
        e[4] = b + 1;
        break;
      }
    for (int b = 0; b < 64; ++b)
      if ((xy >> b) & 1u) {
        e[5] = b + 1;
        break;
      }
    for (int b = 0; b < 32; ++b) e[6] |= ((x >> b) & 1u) << (31 - b);
    unsigned long long rev = 0;
    for (int b = 0; b < 64; ++b) rev |= ((xy >> b) & 1ull) << (63 - b);
    e[7] = (unsigned)(rev >> 32);
    const unsigned char bytes[8] = {(unsigned char)x,         (unsigned char)(x >> 8),
                                    (unsigned char)(x >> 16), (unsigned char)(x >> 24),
                                    (unsigned char)y,         (unsigned char)(y >> 8),
                                    (unsigned char)(y >> 16), (unsigned char)(y >> 24)};
    // Each selector nibble picks one of the 8 bytes by its low 3 bits (the 4th is ignored).
    for (int k = 0; k < 4; ++k) e[8] |= (unsigned)bytes[(y >> (4 * k)) & 7u] << (8 * k);
    // funnel shifts of the 64-bit y:x by y mod 32: the high word of the left shift, the low of the
    // right
    const unsigned long long yx = ((unsigned long long)y << 32) | x;
    e[9] = (unsigned)((yx << (y & 31u)) >> 32);
    e[10] = (unsigned)(yx >> (y & 31u));
    e[11] = (unsigned)(((unsigned long long)x * y) >> 32);
    for (int k = 0; k < 12; ++k) {
      ASSERT_EQ(e[k], got[12 * i + k])
          << "intrinsic " << k << " on x = 0x" << std::hex << x << ", y = 0x" << y;
    }
  }
}

#ifdef GPULABS_SIM
// __activemask: the simulator promises only the calling lane (threads are not guaranteed to
// run converged), which is what correct code may count on.
__global__ void active_mask(unsigned *out) { out[threadIdx.x] = __activemask(); }

TEST(Warp, ActiveMaskHoldsTheCallingLane) {
  DeviceArray<unsigned> out(32);
  active_mask<<<1, 32>>>(out.get());
  CUDA_ASSERT(cudaDeviceSynchronize());
  const std::vector<unsigned> got = out.Download();
  for (unsigned lane = 0; lane < 32; ++lane) EXPECT_EQ(1u << lane, got[lane]);
}
#endif
