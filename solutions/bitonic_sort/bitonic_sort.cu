// The bitonic_sort lab: your kernels. The bitonic sorting network on the GPU, three times over,
// each faster: one launch per layer, tiles in shared memory, keys in registers.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/bitonic_sort/bitonic_sort.h         the API the tests call
//   labs/bitonic_sort/bitonic_sort_steps.h   what each step below must define, and what it is handed
//   labs/bitonic_sort/bitonic_sort_given.cu  argument checks, step names, the dispatch to your steps
//
// The handout, docs/labs/bitonic_sort.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L bitonic_sort -R 'BitonicSortStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (the CPU reference) is given: common/src/reference/bitonic_sort.c
//   step 2  2-global      bitonic_step2, and the kernel of one layer
//   step 3  3-shared      bitonic_step3, and kernels that sort and merge tiles in shared memory
//   step 4  4-registers   bitonic_step4, and kernels that sort and merge in registers
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "bitonic_sort_steps.h"

// =============================================================================================
// Step 2: one launch per layer
//
// Read bitonic_ref_sort_iterative (step 1) first: this step runs its double loop on the GPU.
// Write a kernel for one layer of the network, for instance
//   __global__ void bitonic_global_layer(uint32_t *keys, uint32_t *values, unsigned n,
//                                        unsigned size, unsigned stride, int descending)
// Thread c owns comparator c: its lower position is lo = 2 * c - (c & (stride - 1)) (the
// seed's pos), its upper position the mirror lo ^ (size - 1) on the first layer of a size
// (stride == size / 2), else lo + stride. Skip the comparator when the upper position is >= n;
// otherwise exchange the two keys when they are out of order (never when they are equal),
// moving the values along. values may be NULL (keys only).
// Then bitonic_step2: for size = 2, 4, ..., next_pow2(n) and stride = size/2, ..., 1, launch
// the kernel with next_pow2(n) / 2 threads in blocks of `threads`, and check each launch with
// LAB_CHECK_LAUNCH(). The end of a launch is the only barrier between two layers.
// =============================================================================================

// The comparator, on global or shared memory: puts keys[lo] and keys[hi] (lo < hi) in order,
// moving the values along. Strict comparisons: equal keys are never exchanged, so a sentinel
// never trades places with a real key equal to it.
__device__ __forceinline__ void compare_exchange(uint32_t *keys, uint32_t *values, unsigned lo,
                                                 unsigned hi, int descending) {
  uint32_t a = keys[lo], b = keys[hi];
  bool out_of_order = descending ? a < b : a > b;
  if (out_of_order) {
    keys[lo] = b;
    keys[hi] = a;
    if (values != NULL) {
      uint32_t t = values[lo];
      values[lo] = values[hi];
      values[hi] = t;
    }
  }
}

// One layer of the network: thread c owns comparator c. Its lower position is c with a 0
// inserted at the stride's bit (the seed's pos); its partner is the mirror on the first layer of
// a size and pos + stride on the others. Comparators reaching past n are skipped.
__global__ void bitonic_global_layer(uint32_t *keys, uint32_t *values, unsigned n, unsigned size,
                                     unsigned stride, int descending) {
  unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lo = 2 * c - (c & (stride - 1));
  unsigned hi = stride == size / 2 ? lo ^ (size - 1) : lo + stride;
  if (hi >= n) return;
  compare_exchange(keys, values, lo, hi, descending);
}

static gl_status launch_global_layer(uint32_t *keys, uint32_t *values, unsigned n,
                                     unsigned padded, unsigned size, unsigned stride,
                                     int descending, int threads) {
  unsigned comparators = padded / 2;
  unsigned blocks = (comparators + threads - 1) / threads;
  bitonic_global_layer<<<blocks, threads>>>(keys, values, n, size, stride, descending);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status bitonic_step2(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                        int threads) {
  unsigned padded = next_pow2(n);
  for (unsigned size = 2; size <= padded; size <<= 1) {
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      GL_TRY(launch_global_layer(keys, values, n, padded, size, stride, descending, threads));
    }
  }
  return GL_OK;
}

// =============================================================================================
// Step 3: shared memory (the seed's bitonicSortShared)
//
// Two kernels on tiles of 2 * blockDim.x keys (and values) in dynamic shared memory
// (extern __shared__; the launch gives its size, twice as large with values). A block loads its
// tile two keys per thread, blockDim.x apart so that a warp reads consecutive addresses;
// positions past n get a sentinel that the comparator never moves (UINT32_MAX ascending,
// 0 descending), and only the positions below n are written back.
//   bitonic_shared_sort_tiles: the seed's bitonicSortShared. Every size up to the tile and
//     every stride, one comparator per thread per layer, a __syncthreads() before each layer.
//   bitonic_shared_merge: for a size larger than the tile, the layers whose stride is below the
//     tile (tile/2, ..., 1: none of them is a mirror layer), in shared memory as above.
// Then bitonic_step3: sort the tiles; then for each size from 2 * tile to next_pow2(n): one
// global layer (step 2's kernel) per stride >= tile, then one bitonic_shared_merge.
// =============================================================================================

// Loads this block's tile (2 keys per thread, blockDim.x apart so a warp reads consecutive
// addresses); positions past n get the sentinel, which the strict comparator never moves.
__device__ __forceinline__ void load_tile(const uint32_t *keys, const uint32_t *values,
                                          uint32_t *s_key, uint32_t *s_val, unsigned base,
                                          unsigned tile, unsigned n, int descending) {
  const uint32_t sentinel = descending ? 0u : UINT32_MAX;
  for (unsigned i = threadIdx.x; i < tile; i += blockDim.x) {
    unsigned g = base + i;
    s_key[i] = g < n ? keys[g] : sentinel;
    if (values != NULL) s_val[i] = g < n ? values[g] : 0u;
  }
}

__device__ __forceinline__ void store_tile(uint32_t *keys, uint32_t *values, const uint32_t *s_key,
                                           const uint32_t *s_val, unsigned base, unsigned tile,
                                           unsigned n) {
  for (unsigned i = threadIdx.x; i < tile; i += blockDim.x) {
    unsigned g = base + i;
    if (g < n) {
      keys[g] = s_key[i];
      if (values != NULL) values[g] = s_val[i];
    }
  }
}

// The seed's bitonicSortShared in the flip form: every size up to the tile, every stride, one
// comparator per thread per layer, a barrier before each layer.
__global__ void bitonic_shared_sort_tiles(uint32_t *keys, uint32_t *values, unsigned n,
                                          int descending) {
  extern __shared__ uint32_t shared[];
  const unsigned tile = 2 * blockDim.x;
  uint32_t *s_key = shared;
  uint32_t *s_val = values != NULL ? shared + tile : NULL;
  const unsigned base = blockIdx.x * tile;
  load_tile(keys, values, s_key, s_val, base, tile, n, descending);
  for (unsigned size = 2; size <= tile; size <<= 1) {
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned t = threadIdx.x;
      unsigned pos = 2 * t - (t & (stride - 1));
      unsigned partner = stride == size / 2 ? pos ^ (size - 1) : pos + stride;
      compare_exchange(s_key, s_val, pos, partner, descending);
    }
  }
  __syncthreads();
  store_tile(keys, values, s_key, s_val, base, tile, n);
}

// The strides below the tile of a size larger than the tile: all plain (non-mirror) layers.
__global__ void bitonic_shared_merge(uint32_t *keys, uint32_t *values, unsigned n,
                                     int descending) {
  extern __shared__ uint32_t shared[];
  const unsigned tile = 2 * blockDim.x;
  uint32_t *s_key = shared;
  uint32_t *s_val = values != NULL ? shared + tile : NULL;
  const unsigned base = blockIdx.x * tile;
  load_tile(keys, values, s_key, s_val, base, tile, n, descending);
  for (unsigned stride = tile / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned t = threadIdx.x;
    unsigned pos = 2 * t - (t & (stride - 1));
    compare_exchange(s_key, s_val, pos, pos + stride, descending);
  }
  __syncthreads();
  store_tile(keys, values, s_key, s_val, base, tile, n);
}

gl_status bitonic_step3(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                        int threads) {
  const unsigned tile = 2u * (unsigned)threads;
  const unsigned tiles = (n + tile - 1) / tile;
  const size_t shared_bytes = (values != NULL ? 2 : 1) * tile * sizeof(uint32_t);
  const unsigned padded = next_pow2(n);
  bitonic_shared_sort_tiles<<<tiles, threads, shared_bytes>>>(keys, values, n, descending);
  LAB_CHECK_LAUNCH();
  for (unsigned size = 2 * tile; size <= padded; size <<= 1) {
    for (unsigned stride = size / 2; stride >= tile; stride >>= 1) {
      GL_TRY(launch_global_layer(keys, values, n, padded, size, stride, descending, threads));
    }
    bitonic_shared_merge<<<tiles, threads, shared_bytes>>>(keys, values, n, descending);
    LAB_CHECK_LAUNCH();
  }
  return GL_OK;
}

// =============================================================================================
// Step 4: registers, shuffles, and several strides per pass
//
// The fast form (the handout's step 4 section). Suggested kernels:
//   - sort tiles of BITONIC_STEP4_THREADS_KEYS x 16 keys: each thread holds 16 keys in a register
//     array (fully unrolled loops, constant indices), strides inside a thread are register
//     compares, strides inside a warp are __shfl_xor_sync, larger strides go through one
//     shared-memory exchange into a layout where they are register compares again;
//   - for sizes beyond the tile: global passes that each do several strides at once (a thread
//     loads 2^K keys spaced by the smallest stride of the pass), then one tile merge like the
//     tile sort's last size.
// Pairs may use BITONIC_STEP4_THREADS_PAIRS threads to keep the shared memory under 48 KB.
// Then bitonic_step4: the launches, with the shapes fixed at compile time.
// =============================================================================================

// A thread holds E = 2^LOG_E keys in registers. Inside a block's tile of T = B * E keys, two
// layouts are used, swapped through shared memory:
//   low:  thread t holds positions t*E + r          (r = 0 .. E-1)
//         bits 0 .. LOG_E-1 of a position are register bits: those layers cost no traffic;
//         the next 5 bits are lane bits: those layers are warp shuffles.
//   high: thread t holds positions r*B + t
//         the top LOG_E bits are register bits: the strides that cross warps.
// Global memory is always read and written in the high layout (consecutive threads,
// consecutive addresses). Descending order is ascending order of the complemented keys
// (key ^ 0xFFFFFFFF), so the kernels sort ascending only and complement on load and store.

#define FULL_WARP 0xFFFFFFFFu

// Serpentine order: on every other pass the blocks walk the array from its end, so a pass
// starts on the data the previous pass wrote last, which is still in L2.
__device__ __forceinline__ unsigned block_in_order(int backwards) {
  return backwards ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
}

// The register comparator: the lower element gets the smaller key.
template <bool PAIRS>
__device__ __forceinline__ void order_pair(uint32_t &key_lo, uint32_t &key_hi, uint32_t &val_lo,
                                           uint32_t &val_hi) {
  if (PAIRS) {
    bool swap = key_lo > key_hi;
    uint32_t k = key_lo, v = val_lo;
    key_lo = swap ? key_hi : key_lo;
    key_hi = swap ? k : key_hi;
    val_lo = swap ? val_hi : val_lo;
    val_hi = swap ? v : val_hi;
  } else {
    uint32_t k = min(key_lo, key_hi);
    key_hi = max(key_lo, key_hi);
    key_lo = k;
  }
}

// Plain layers on register bits top .. bottom (inclusive, top first): element r meets r ^ 2^rb.
// The loops unroll completely, so every register index is a constant and the arrays stay in
// registers; only the (warp-uniform) range test is done at run time.
template <int LOG_E, bool PAIRS>
__device__ __forceinline__ void register_layers(uint32_t (&key)[1 << LOG_E],
                                                uint32_t (&val)[1 << LOG_E], int top, int bottom) {
#pragma unroll
  for (int rb = LOG_E - 1; rb >= 0; --rb) {
    if (rb <= top && rb >= bottom) {
#pragma unroll
      for (int r = 0; r < (1 << LOG_E); ++r) {
        if ((r & (1 << rb)) == 0) order_pair<PAIRS>(key[r], key[r | (1 << rb)], val[r], val[r | (1 << rb)]);
      }
    }
  }
}

// The mirror layer over register bits top .. 0: element r (bit top clear) meets r ^ (2^(top+1) - 1).
template <int LOG_E, bool PAIRS>
__device__ __forceinline__ void register_mirror(uint32_t (&key)[1 << LOG_E],
                                                uint32_t (&val)[1 << LOG_E], int top) {
#pragma unroll
  for (int tb = 0; tb < LOG_E; ++tb) {
    if (tb == top) {
      const int mask = (2 << tb) - 1;
#pragma unroll
      for (int r = 0; r < (1 << LOG_E); ++r) {
        if ((r & (1 << tb)) == 0) order_pair<PAIRS>(key[r], key[r ^ mask], val[r], val[r ^ mask]);
      }
    }
  }
}

// Keeps the smaller (lower) or larger (upper) of my key and my partner lane's key. Both lanes
// of a pair see the same strict comparison, so they agree on whether the pair is exchanged.
template <bool PAIRS>
__device__ __forceinline__ void keep_one(bool lower, uint32_t &key, uint32_t &val, uint32_t other_key,
                                         uint32_t other_val) {
  if (PAIRS) {
    bool take = lower ? other_key < key : other_key > key;
    key = take ? other_key : key;
    val = take ? other_val : val;
  } else {
    key = lower ? min(key, other_key) : max(key, other_key);
  }
}

// A plain layer on lane bit lb (low layout): every register meets the same register of lane
// lane ^ 2^lb, through a shuffle.
template <int LOG_E, bool PAIRS>
__device__ __forceinline__ void shuffle_layer(uint32_t (&key)[1 << LOG_E], uint32_t (&val)[1 << LOG_E],
                                              int lb) {
  const bool lower = ((threadIdx.x >> lb) & 1) == 0;
#pragma unroll
  for (int r = 0; r < (1 << LOG_E); ++r) {
    uint32_t other_key = __shfl_xor_sync(FULL_WARP, key[r], 1 << lb);
    uint32_t other_val = PAIRS ? __shfl_xor_sync(FULL_WARP, val[r], 1 << lb) : 0u;
    keep_one<PAIRS>(lower, key[r], val[r], other_key, other_val);
  }
}

// The mirror layer over lane bits top .. 0 and all register bits (low layout): register r of
// this lane meets register E-1-r of lane lane ^ (2^(top+1) - 1). Registers are taken in pairs
// (r, E-1-r) so that both shuffles read values from before the layer.
template <int LOG_E, bool PAIRS>
__device__ __forceinline__ void shuffle_mirror(uint32_t (&key)[1 << LOG_E], uint32_t (&val)[1 << LOG_E],
                                               int top) {
  const int E = 1 << LOG_E;
  const int mask = (2 << top) - 1;
  const bool lower = ((threadIdx.x >> top) & 1) == 0;
#pragma unroll
  for (int r = 0; r < E / 2; ++r) {
    uint32_t key_for_r = __shfl_xor_sync(FULL_WARP, key[E - 1 - r], mask);
    uint32_t key_for_mirror = __shfl_xor_sync(FULL_WARP, key[r], mask);
    uint32_t val_for_r = PAIRS ? __shfl_xor_sync(FULL_WARP, val[E - 1 - r], mask) : 0u;
    uint32_t val_for_mirror = PAIRS ? __shfl_xor_sync(FULL_WARP, val[r], mask) : 0u;
    keep_one<PAIRS>(lower, key[r], val[r], key_for_r, val_for_r);
    keep_one<PAIRS>(lower, key[E - 1 - r], val[E - 1 - r], key_for_mirror, val_for_mirror);
  }
}

// Shared-memory slot of register r of this thread. A tile position v is stored at
// v + v/32 (one padding word per 32 keys keeps the low layout's accesses, E words apart, free of
// bank conflicts). Low layout: v = t*E + r. High layout: v = r*B + u with u = t, or, for the
// registers whose bit twist_bit is set, u = t ^ (B-1): then the mirror partner of every
// register lies in the same thread (see the handout's step 4). Both are a per-thread base plus
// a constant per register (r never carries into v/32 in the low layout since E <= 32), so the
// compiler folds the offsets into the shared-memory instructions.
enum { LAYOUT_LOW = 0, LAYOUT_HIGH = 1 };

template <int LOG_B, int LOG_E>
__device__ __forceinline__ unsigned slot(int layout, int r, int twist_bit) {
  static_assert(LOG_E <= 5, "the low layout's slots assume at most 32 keys per thread");
  const unsigned t = threadIdx.x;
  if (layout == LAYOUT_LOW) {
    const unsigned v = t << LOG_E;
    return v + (v >> 5) + r;
  }
  const unsigned B = 1u << LOG_B;
  const bool twisted = twist_bit >= 0 && ((r >> twist_bit) & 1) != 0;
  const unsigned u = twisted ? t ^ (B - 1) : t;
  return u + (u >> 5) + (unsigned)r * (B + B / 32);
}

// Moves the registers from one layout to another through shared memory. The first barrier
// keeps this write from overwriting words another thread has not yet read.
template <int LOG_B, int LOG_E, bool PAIRS>
__device__ __forceinline__ void relayout(uint32_t (&key)[1 << LOG_E], uint32_t (&val)[1 << LOG_E],
                                         uint32_t *s_key, uint32_t *s_val, int from, int from_twist,
                                         int to, int to_twist) {
  __syncthreads();
#pragma unroll
  for (int r = 0; r < (1 << LOG_E); ++r) {
    unsigned v = slot<LOG_B, LOG_E>(from, r, from_twist);
    s_key[v] = key[r];
    if (PAIRS) s_val[v] = val[r];
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < (1 << LOG_E); ++r) {
    unsigned v = slot<LOG_B, LOG_E>(to, r, to_twist);
    key[r] = s_key[v];
    if (PAIRS) val[r] = s_val[v];
  }
}

// Global memory <-> registers in the high layout; past n: the sentinel (largest key). One base
// pointer plus constant offsets r*B, so the 16 addresses cost no registers of their own.
template <int LOG_B, int LOG_E, bool PAIRS>
__device__ __forceinline__ void load_high(const uint32_t *keys, const uint32_t *values, unsigned base,
                                          unsigned n, uint32_t flip, uint32_t (&key)[1 << LOG_E],
                                          uint32_t (&val)[1 << LOG_E]) {
  const unsigned first = base + threadIdx.x;
  const int remaining = (int)n - (int)first; // positions of this thread below n: r*B < remaining
  const uint32_t *key_src = keys + first;
  const uint32_t *val_src = PAIRS ? values + first : NULL;
#pragma unroll
  for (int r = 0; r < (1 << LOG_E); ++r) {
    const bool inside = (r << LOG_B) < remaining;
    key[r] = inside ? key_src[r << LOG_B] ^ flip : UINT32_MAX;
    if (PAIRS) val[r] = inside ? val_src[r << LOG_B] : 0u;
  }
}

template <int LOG_B, int LOG_E, bool PAIRS>
__device__ __forceinline__ void store_high(uint32_t *keys, uint32_t *values, unsigned base, unsigned n,
                                           uint32_t flip, const uint32_t (&key)[1 << LOG_E],
                                           const uint32_t (&val)[1 << LOG_E]) {
  const unsigned first = base + threadIdx.x;
  const int remaining = (int)n - (int)first;
  uint32_t *key_dst = keys + first;
  uint32_t *val_dst = PAIRS ? values + first : NULL;
#pragma unroll
  for (int r = 0; r < (1 << LOG_E); ++r) {
    if ((r << LOG_B) < remaining) {
      key_dst[r << LOG_B] = key[r] ^ flip;
      if (PAIRS) val_dst[r << LOG_B] = val[r];
    }
  }
}

// In the low layout, the layers of tile bits top .. 0 where top < LOG_B: lane bits by shuffles,
// then register bits; the first one is the mirror when `mirror` is set.
template <int LOG_B, int LOG_E, bool PAIRS>
__device__ __forceinline__ void low_layers(uint32_t (&key)[1 << LOG_E], uint32_t (&val)[1 << LOG_E],
                                           int top, bool mirror) {
  if (top >= LOG_E) {
    int lane_top = top - LOG_E;
    if (mirror) shuffle_mirror<LOG_E, PAIRS>(key, val, lane_top);
    for (int lb = mirror ? lane_top - 1 : lane_top; lb >= 0; --lb) shuffle_layer<LOG_E, PAIRS>(key, val, lb);
    register_layers<LOG_E, PAIRS>(key, val, LOG_E - 1, 0);
  } else {
    if (mirror) register_mirror<LOG_E, PAIRS>(key, val, top);
    register_layers<LOG_E, PAIRS>(key, val, mirror ? top - 1 : top, 0);
  }
}

// Blocks of a tile kernel that should fit on one SM (which caps the registers per thread):
// enough for 16384 keys, or 2 blocks of pairs.
__host__ __device__ constexpr int tile_blocks_per_sm(int log_tile, bool pairs) {
  return pairs ? 2 : (log_tile >= 14 ? 1 : (1 << (14 - log_tile)));
}

// Sorts each tile of T = 2^(LOG_B + LOG_E) keys completely: sizes 2 .. T.
template <int LOG_B, int LOG_E, bool PAIRS>
__global__ void __launch_bounds__(1 << LOG_B, tile_blocks_per_sm(LOG_B + LOG_E, PAIRS))
    register_sort_tiles(uint32_t *keys, uint32_t *values, unsigned n, uint32_t flip, int backwards) {
  static_assert(LOG_B > LOG_E && LOG_B <= LOG_E + 5,
                "the high layout's register bits must cover every bit above the lane bits");
  const int LOG_T = LOG_B + LOG_E;
  const unsigned T = 1u << LOG_T;
  extern __shared__ uint32_t shared[];
  uint32_t *s_key = shared;
  uint32_t *s_val = shared + T + T / 32;
  uint32_t key[1 << LOG_E], val[1 << LOG_E];
  const unsigned base = block_in_order(backwards) * T;

  load_high<LOG_B, LOG_E, PAIRS>(keys, values, base, n, flip, key, val);
  relayout<LOG_B, LOG_E, PAIRS>(key, val, s_key, s_val, LAYOUT_HIGH, -1, LAYOUT_LOW, -1);
  for (int s = 1; s <= LOG_T; ++s) {
    int top = s - 1; // the size's highest bit: its first layer is the mirror
    if (top >= LOG_B) {
      // The strides that cross warps: in the twisted high layout the mirror stays in-thread.
      int register_top = top - LOG_B;
      relayout<LOG_B, LOG_E, PAIRS>(key, val, s_key, s_val, LAYOUT_LOW, -1, LAYOUT_HIGH, register_top);
      register_mirror<LOG_E, PAIRS>(key, val, register_top);
      register_layers<LOG_E, PAIRS>(key, val, register_top - 1, 0);
      relayout<LOG_B, LOG_E, PAIRS>(key, val, s_key, s_val, LAYOUT_HIGH, register_top, LAYOUT_LOW, -1);
      low_layers<LOG_B, LOG_E, PAIRS>(key, val, LOG_B - 1, false);
    } else {
      low_layers<LOG_B, LOG_E, PAIRS>(key, val, top, true);
    }
  }
  relayout<LOG_B, LOG_E, PAIRS>(key, val, s_key, s_val, LAYOUT_LOW, -1, LAYOUT_HIGH, -1);
  store_high<LOG_B, LOG_E, PAIRS>(keys, values, base, n, flip, key, val);
}

// For a size larger than the tile: the layers of the tile's bits (strides T/2 .. 1), no mirror.
template <int LOG_B, int LOG_E, bool PAIRS>
__global__ void __launch_bounds__(1 << LOG_B, tile_blocks_per_sm(LOG_B + LOG_E, PAIRS))
    register_merge_tiles(uint32_t *keys, uint32_t *values, unsigned n, uint32_t flip, int backwards) {
  const unsigned T = 1u << (LOG_B + LOG_E);
  extern __shared__ uint32_t shared[];
  uint32_t *s_key = shared;
  uint32_t *s_val = shared + T + T / 32;
  uint32_t key[1 << LOG_E], val[1 << LOG_E];
  const unsigned base = block_in_order(backwards) * T;

  load_high<LOG_B, LOG_E, PAIRS>(keys, values, base, n, flip, key, val);
  register_layers<LOG_E, PAIRS>(key, val, LOG_E - 1, 0); // strides T/2 .. B
  relayout<LOG_B, LOG_E, PAIRS>(key, val, s_key, s_val, LAYOUT_HIGH, -1, LAYOUT_LOW, -1);
  low_layers<LOG_B, LOG_E, PAIRS>(key, val, LOG_B - 1, false); // strides B/2 .. 1
  relayout<LOG_B, LOG_E, PAIRS>(key, val, s_key, s_val, LAYOUT_LOW, -1, LAYOUT_HIGH, -1);
  store_high<LOG_B, LOG_E, PAIRS>(keys, values, base, n, flip, key, val);
}

// Up to K layers of strides at least a tile, in one pass over global memory. Thread g holds the
// 2^K positions base + r * 2^low_bit, r = 0 .. 2^K - 1: register bit rb is position bit
// low_bit + rb. On the first pass of a size (mirror set), the upper half of the registers
// (bit K-1 set) takes the positions with the bits below low_bit complemented, so that each
// register's mirror partner is in the same thread. Consecutive threads, consecutive addresses.
template <int K, bool PAIRS>
__global__ void __launch_bounds__(256, 3)
    register_merge_global(uint32_t *keys, uint32_t *values, unsigned n, int low_bit, int bottom,
                          int mirror, uint32_t flip, int backwards) {
  const unsigned g = block_in_order(backwards) * blockDim.x + threadIdx.x;
  const unsigned low_mask = (1u << low_bit) - 1;
  const unsigned low = g & low_mask;
  const unsigned group = (g >> low_bit) << (low_bit + K);
  if ((group | low) >= n) return; // every position of this thread is past n
  uint32_t key[1 << K], val[1 << K];
#pragma unroll
  for (int r = 0; r < (1 << K); ++r) {
    bool twisted = mirror && (r >> (K - 1)) != 0;
    unsigned pos = group | ((unsigned)r << low_bit) | (twisted ? low ^ low_mask : low);
    key[r] = pos < n ? keys[pos] ^ flip : UINT32_MAX;
    if (PAIRS) val[r] = pos < n ? values[pos] : 0u;
  }
  if (mirror) register_mirror<K, PAIRS>(key, val, K - 1);
  register_layers<K, PAIRS>(key, val, mirror ? K - 2 : K - 1, bottom);
#pragma unroll
  for (int r = 0; r < (1 << K); ++r) {
    bool twisted = mirror && (r >> (K - 1)) != 0;
    unsigned pos = group | ((unsigned)r << low_bit) | (twisted ? low ^ low_mask : low);
    if (pos < n) {
      keys[pos] = key[r] ^ flip;
      if (PAIRS) values[pos] = val[r];
    }
  }
}

// Runs step 4 with one block shape: tiles of 2^LOG_B threads x 2^LOG_E keys, global passes of up
// to K strides. For n = 2^24 keys: 1 tile sort, then for each of the 11 sizes 2^14 .. 2^24 its
// global passes (1 to 3 of them) and one tile merge: 30 passes over the keys in all.
template <int LOG_B, int LOG_E, int K, bool PAIRS>
static gl_status sort_step4_shaped(uint32_t *keys, uint32_t *values, unsigned n, uint32_t flip) {
  const int LOG_T = LOG_B + LOG_E;
  const unsigned T = 1u << LOG_T;
  const unsigned threads = 1u << LOG_B;
  const unsigned tiles = (n + T - 1) / T;
  const size_t shared_bytes = (PAIRS ? 2 : 1) * (T + T / 32) * sizeof(uint32_t);
  const unsigned padded = next_pow2(n);
  const int log_padded = log2_of_pow2(padded);
  const unsigned global_blocks = ((padded >> K) + 255) / 256;
  int backwards = 0; // flips before every launch after the first: serpentine order

  register_sort_tiles<LOG_B, LOG_E, PAIRS><<<tiles, threads, shared_bytes>>>(keys, values, n, flip,
                                                                            backwards);
  LAB_CHECK_LAUNCH();
  for (int s = LOG_T + 1; s <= log_padded; ++s) {
    // Bits s-1 .. LOG_T of the size: global passes of up to K bits each, top first. A pass's
    // register window is bits low_bit .. low_bit + K - 1; the bits below LOG_T in it are left
    // to the tile merge.
    for (int top = s - 1; top >= LOG_T; top -= K) {
      const int low_bit = top - K + 1;
      const int bottom_bit = low_bit > LOG_T ? low_bit : LOG_T;
      backwards = !backwards;
      register_merge_global<K, PAIRS><<<global_blocks, 256>>>(
          keys, values, n, low_bit, bottom_bit - low_bit, top == s - 1, flip, backwards);
      LAB_CHECK_LAUNCH();
    }
    backwards = !backwards;
    register_merge_tiles<LOG_B, LOG_E, PAIRS><<<tiles, threads, shared_bytes>>>(keys, values, n,
                                                                               flip, backwards);
    LAB_CHECK_LAUNCH();
  }
  return GL_OK;
}

// Keys: 512 threads x 16 keys (tiles of 8192), 5 strides per global pass (32 keys per thread).
// Pairs: 256 threads x 16 pairs (tiles of 4096), 4 strides per global pass. Both tiles need
// 33 KB of shared memory, under the 48 KB a block gets without opting in.
gl_status bitonic_step4(uint32_t *keys, uint32_t *values, unsigned n, int descending) {
  const uint32_t flip = descending ? 0xFFFFFFFFu : 0u;
  if (values == NULL) return sort_step4_shaped<9, 4, 5, false>(keys, NULL, n, flip);
  return sort_step4_shaped<8, 4, 4, true>(keys, values, n, flip);
}
