// The bitonic_sort lab: your kernels. The bitonic sorting network on the GPU, three times over,
// each faster: one launch per layer, tiles in shared memory, keys in registers; and a bonus
// fourth that cuts the passes over memory.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/bitonic_sort/bitonic_sort.h         the API the tests call
//   labs/bitonic_sort/bitonic_sort_steps.h   what each step below must define, and what it is handed
//   labs/bitonic_sort/bitonic_sort_given.cu  argument checks, step names, the dispatch to your steps
//
// The handout, labs/bitonic_sort/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L bitonic_sort -R 'BitonicSortStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (the CPU reference) is given: labs/bitonic_sort/bitonic_sort_reference.c
//   step 2  2-global      bitonic_step2, and the kernel of one layer
//   step 3  3-shared      bitonic_step3, and kernels that sort and merge tiles in shared memory
//   step 4  4-registers   bitonic_step4, and kernels that sort and merge in registers
//   step 5  5-windows     bitonic_step5, a window kernel and the host's plan (bonus)
#include <cuda_runtime.h>
#include <stdint.h>

#include <utility>

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

// =============================================================================================
// Step 5 (bonus): windows of the network, fewer passes
//
// Step 4 reads and writes the whole array 30 times for n = 2^24. Step 5 cuts that to 17 by
// making every pass do as many layers as a block can hold (the handout's step 5 section):
//   - a block holds 2^14 keys whose positions differ in 14 chosen bits: the low bits 0 .. a-1
//     and a band of bits h .. h+13-a; the block index supplies the other bits. Any layer on
//     those bits is then inside the block;
//   - one pass runs a *window*: a run of consecutive layers of the network whose bits fit,
//     straddling two sizes where it can (the last layers of size s, bits x .. 0, and
//     the first of size s+1, bits s .. y). A mirror layer also flips the bits between the low
//     part and the band: the upper half of the block takes those positions complemented;
//   - every block also holds position bits 0 .. 3, so it reads 64-byte pieces, never scattered
//     32-byte ones (a pass more, but faster passes);
//   - inside the block the keys live in shared memory, and the layers run in *groups*: a thread
//     reads 32 keys whose positions differ in 5 chosen bits, runs the group's layers on them in
//     registers, and writes them back; one barrier per group. No shuffles;
//   - let the compiler know as much as it can: number a block's local bits in the order of the
//     window's layers, and each group's layout and layers are compile-time constants (a word
//     per key of v + (v >> 5) + (v >> 10) makes every register's word a base plus a constant).
// The host plans the windows (the longest that fit, one after another) and hands each launch
// the one thing that is data: where the block's keys are. The tile sort (sizes 1 .. 14 in each
// block of 2^14 consecutive keys) is the same groups, its whole plan a compile-time constant.
// Then bitonic_step5: the tile sort and the plan's launches, shapes fixed at compile time.
// =============================================================================================

// Sizes of step 5's plans.
enum {
  S5_MAX_LOCAL_BITS = 15,   // position bits a block holds (keys per block: 2^log_m)
  S5_MAX_OPS = 24,          // layers of one group (the tile sort's first: sizes 1 .. log_e)
  S5_MAX_GROUPS = 40,       // groups of the tile sort
  S5_MAX_TILE_LAYERS = 120, // sizes 1 .. 15
  S5_MAX_WINDOW_GROUPS = 4, // groups of a window: up to 14 layers, 4 or more a group
  S5_MAX_SEQUENCE = 480,    // layers of sizes 15 .. 30 (at most 360), with room
};

// ---- Shared memory and layouts, common to the tile sort and the windows ----

// Word of local index v (a block's keys are numbered 0 .. 2^log_m - 1 by their local index):
// one padding word per 32 keys and one more per 1024, so bit j of v moves the bank by
// 2^(j mod 5). The 32 lanes of a warp whose 5 lane bits have different residues mod 5 then hit
// 32 different banks, whichever bits the layout makes lane bits. And the padding adds up: for
// disjoint bits, s5_pad(a | b) = s5_pad(a) + s5_pad(b), so register r's word is this thread's
// word plus a constant, which the compiler folds into the load or store instruction.
__host__ __device__ constexpr unsigned s5_pad(unsigned v) { return v + (v >> 5) + (v >> 10); }
__host__ __device__ constexpr unsigned s5_pad_words(int log_m) {
  return s5_pad((1u << log_m) - 1) + 1;
}

__host__ __device__ constexpr int s5_popcount(unsigned x) {
  int c = 0;
  for (; x != 0; x &= x - 1) ++c;
  return c;
}

// The lowest set bit of g > 0: registers are visited in Gray-code order, so that each next
// address is the last one plus or minus one vector.
__host__ __device__ constexpr int s5_ctz(int g) { return (g & 1) ? 0 : 1 + s5_ctz(g >> 1); }

// Blocks per SM for 64 registers a thread (32 keys and the rest).
__host__ __device__ constexpr int s5_blocks_per_sm(int log_threads) {
  return log_threads >= 10 ? 1 : 1 << (10 - log_threads);
}

// A group's layout: its register bits are the local bits regs (register k = the k-th lowest);
// thread bit i is the i-th of the others, lane bits (i < 5) first, chosen with different
// residues mod 5 where the free bits allow it.
__host__ __device__ constexpr int s5_thread_bit(unsigned regs, int log_m, int i) {
  unsigned taken = regs;
  int found = 0;
  for (int residue = 0; residue < 5; ++residue) {
    for (int j = residue; j < log_m; j += 5) {
      if (!((taken >> j) & 1)) {
        if (found++ == i) return j;
        taken |= 1u << j;
        break;
      }
    }
  }
  for (int j = 0; j < log_m; ++j) {
    if (!((taken >> j) & 1) && found++ == i) return j;
  }
  return -1;
}

__host__ __device__ constexpr int s5_reg_bit(unsigned regs, int k) {
  for (int j = 0; j < 16; ++j) {
    if (((regs >> j) & 1) && k-- == 0) return j;
  }
  return -1;
}

// The local bits of register index r.
__host__ __device__ constexpr unsigned s5_reg_local(unsigned regs, int r) {
  unsigned v = 0;
  for (int k = 0; (r >> k) != 0; ++k) {
    if ((r >> k) & 1) v |= 1u << s5_reg_bit(regs, k);
  }
  return v;
}

// Step 5's straight-line code is folds over std::integer_sequence. The comparators and the
// groups' shared-memory moves call helpers templated on nothing but PAIRS (and WRITE): one
// templated on each register or layer made thousands of functions for the front end to emit
// and the optimiser to inline. The constants inside a fold are variable templates, which the
// front end evaluates.
template <unsigned REGS, int LOG_M, int I>
constexpr int s5_thread_bit_of = s5_thread_bit(REGS, LOG_M, I);

// This thread's local bits in a group's layout: thread index bit i goes to thread bit i.
template <int LOG_M, unsigned REGS, int... I>
__device__ __forceinline__ unsigned thread_local_bits(unsigned t,
                                                      std::integer_sequence<int, I...>) {
  return ((((t >> I) & 1u) << s5_thread_bit_of<REGS, LOG_M, I>) | ... | 0u);
}

template <int LOG_M, unsigned REGS>
__device__ __forceinline__ unsigned thread_local_bits(unsigned t) {
  return thread_local_bits<LOG_M, REGS>(
      t, std::make_integer_sequence<int, LOG_M - s5_popcount(REGS)>());
}

// Reads (WRITE false) or writes back one register's key (and value) at word `at`.
template <bool PAIRS, bool WRITE>
__device__ __forceinline__ void move_word(uint32_t *s_key, uint32_t *s_val, unsigned at,
                                          uint32_t &key, uint32_t &val) {
  if (WRITE) {
    s_key[at] = key;
    if (PAIRS) s_val[at] = val;
  } else {
    key = s_key[at];
    if (PAIRS) val = s_val[at];
  }
}

// Register r's word is this thread's word (the twisted one if r has bit twist_k set) plus a
// constant.
template <unsigned REGS, int R>
constexpr unsigned s5_reg_offset = s5_pad(s5_reg_local(REGS, R));
template <int TWIST_K, int R>
constexpr bool s5_twisted = TWIST_K >= 0 && ((R >> (TWIST_K < 0 ? 0 : TWIST_K)) & 1) != 0;

// Reads or writes back all the registers R of a group, in order.
template <int LOG_E, bool PAIRS, bool WRITE, unsigned REGS, int TWIST_K, int... R>
__device__ __forceinline__ void group_move(uint32_t *s_key, uint32_t *s_val, unsigned mine,
                                           unsigned mine_twisted, uint32_t (&key)[1 << LOG_E],
                                           uint32_t (&val)[1 << LOG_E],
                                           std::integer_sequence<int, R...>) {
  (move_word<PAIRS, WRITE>(s_key, s_val,
                           (s5_twisted<TWIST_K, R> ? mine_twisted : mine) +
                               s5_reg_offset<REGS, R>,
                           key[R], val[R]),
   ...);
}

// Register r of the registers with bit b clear: i with a zero inserted at bit b.
__host__ __device__ constexpr int s5_insert_zero(int i, int b) {
  return ((i >> b) << (b + 1)) | (i & ((1 << b) - 1));
}

// Step 5's layers have compile-time bits, and no loops: each loop left to unroll costs the
// optimiser time in proportion to the whole kernel. One layer of pairs: register r (bit TB
// clear) meets r ^ MASK; I: the pairs in order. MASK = 2^TB is a layer on register bit TB,
// 2^(TB+1) - 1 the mirror over register bits TB .. 0.
template <int TB, int I>
constexpr int s5_pair_lo = s5_insert_zero(I, TB);

template <int LOG_E, bool PAIRS, int TB, int MASK, int... I>
__device__ __forceinline__ void register_pairs(uint32_t (&key)[1 << LOG_E],
                                               uint32_t (&val)[1 << LOG_E],
                                               std::integer_sequence<int, I...>) {
  (order_pair<PAIRS>(key[s5_pair_lo<TB, I>], key[s5_pair_lo<TB, I> ^ MASK],
                     val[s5_pair_lo<TB, I>], val[s5_pair_lo<TB, I> ^ MASK]),
   ...);
}

// ---- The tile sort: sizes 1 .. LOG_T inside each block of 2^LOG_T consecutive keys ----

// A layer: the local bit it compares across, and whether it is the first of its size (the
// mirror, flipping every bit below it).
typedef struct s5_layer {
  int8_t bit;
  int8_t mirror;
} s5_layer;

// A group of the tile sort: its register bits, the one mirror that flips bits outside them
// (its registers then take the twisted positions: thread bits below it complemented), and its
// layers as register bit k, plus 8 for a mirror.
typedef struct s5_group {
  uint16_t regs;
  int8_t twist; // local bit, or -1
  int8_t ops;
  int8_t op[S5_MAX_OPS];
} s5_group;

typedef struct s5_tile_plan {
  int groups; // 0 if the layers do not fit
  s5_group group[S5_MAX_GROUPS];
} s5_tile_plan;

// The register bits of a group holding these layers: their bits, then the lowest other local
// bits up to log_e; 0 if the layers need more, or if two mirrors need a twist, or another layer
// uses the twisted mirror's bit.
__host__ __device__ constexpr unsigned s5_group_bits(const s5_layer *layer, int count, int log_m,
                                                     int log_e, int *twist) {
  unsigned regs = 0;
  for (int i = 0; i < count; ++i) regs |= 1u << layer[i].bit;
  if (s5_popcount(regs) > log_e) return 0;
  for (int j = 0; j < log_m && s5_popcount(regs) < log_e; ++j) regs |= 1u << j;
  *twist = -1;
  for (int i = 0; i < count; ++i) {
    if (layer[i].mirror && (((1u << layer[i].bit) - 1) & ~regs) != 0) {
      if (*twist >= 0) return 0;
      *twist = layer[i].bit;
    }
  }
  int uses = 0;
  for (int i = 0; i < count; ++i) uses += layer[i].bit == *twist;
  return *twist >= 0 && uses > 1 ? 0 : regs;
}

// The tile sort's plan: its layers packed into groups, each as long as it can be. Computed at
// compile time: the kernel's layers and shared-memory offsets are all constants.
__host__ __device__ constexpr s5_tile_plan s5_make_tile_plan(int log_t, int log_e) {
  s5_tile_plan plan = {};
  s5_layer layer[S5_MAX_TILE_LAYERS] = {};
  int count = 0;
  for (int s = 1; s <= log_t; ++s) {
    for (int bit = s - 1; bit >= 0; --bit) {
      layer[count].bit = (int8_t)bit;
      layer[count].mirror = (int8_t)(bit == s - 1);
      ++count;
    }
  }
  for (int start = 0; start < count;) {
    if (plan.groups == S5_MAX_GROUPS) return s5_tile_plan{};
    int end = start + 1, twist = -1;
    unsigned regs = s5_group_bits(layer + start, 1, log_t, log_e, &twist);
    while (end < count && end - start < S5_MAX_OPS) {
      int next_twist = -1;
      const unsigned next =
          s5_group_bits(layer + start, end + 1 - start, log_t, log_e, &next_twist);
      if (next == 0) break;
      regs = next, twist = next_twist, ++end;
    }
    s5_group &group = plan.group[plan.groups++];
    group.regs = (uint16_t)regs;
    group.twist = (int8_t)twist;
    group.ops = (int8_t)(end - start);
    for (int i = start; i < end; ++i) {
      int k = 0;
      while (s5_reg_bit(regs, k) != layer[i].bit) ++k;
      group.op[i - start] = (int8_t)(k | (layer[i].mirror ? 8 : 0));
    }
    start = end;
  }
  return plan;
}

template <int LOG_T, int LOG_E>
struct s5_tile {
  static constexpr s5_tile_plan plan = s5_make_tile_plan(LOG_T, LOG_E);
  static_assert(plan.groups > 0, "the tile sort's layers need more groups than a plan holds");
};

// Layer O of the tile sort's group G: register bit k, plus 8 for a mirror over bits k .. 0.
template <int LOG_T, int LOG_E, int G, int O>
constexpr int s5_tile_op = s5_tile<LOG_T, LOG_E>::plan.group[G].op[O];

// One layer of the tile sort, from its op: the pairs across register bit k, each partner at
// index ^ (1 << k), or for a mirror at index ^ (2^(k+1) - 1).
template <int LOG_E, bool PAIRS, int OP>
__device__ __forceinline__ void tile_layer(uint32_t (&key)[1 << LOG_E],
                                           uint32_t (&val)[1 << LOG_E]) {
  constexpr int k = OP & 7;
  constexpr int mask = (OP & 8) != 0 ? (2 << k) - 1 : 1 << k;
  register_pairs<LOG_E, PAIRS, k, mask>(key, val,
                                        std::make_integer_sequence<int, 1 << (LOG_E - 1)>());
}

// The layers of group G, in order.
template <int LOG_T, int LOG_E, bool PAIRS, int G, int... O>
__device__ __forceinline__ void tile_layers(uint32_t (&key)[1 << LOG_E],
                                            uint32_t (&val)[1 << LOG_E],
                                            std::integer_sequence<int, O...>) {
  (tile_layer<LOG_E, PAIRS, s5_tile_op<LOG_T, LOG_E, G, O>>(key, val), ...);
}

// Index k of local bit `bit` among the register bits regs.
__host__ __device__ constexpr int s5_reg_index(unsigned regs, int bit) {
  int k = 0;
  for (int j = 0; j < bit; ++j) k += (regs >> j) & 1;
  return k;
}

// The tile sort's group G: a barrier, this thread's keys in, the layers, back out.
// Each thread writes back the words it read, so one barrier per group suffices.
template <int LOG_T, int LOG_E, bool PAIRS, int G>
__device__ __forceinline__ void tile_group(uint32_t *s_key, uint32_t *s_val,
                                           uint32_t (&key)[1 << LOG_E],
                                           uint32_t (&val)[1 << LOG_E]) {
  constexpr unsigned regs = s5_tile<LOG_T, LOG_E>::plan.group[G].regs;
  constexpr int twist = s5_tile<LOG_T, LOG_E>::plan.group[G].twist;
  constexpr int twist_k = twist < 0 ? -1 : s5_reg_index(regs, twist);
  constexpr unsigned twist_mask = twist < 0 ? 0u : ((1u << twist) - 1) & ~regs;
  __syncthreads();
  const unsigned local = thread_local_bits<LOG_T, regs>(threadIdx.x);
  const unsigned mine = s5_pad(local), mine_twisted = s5_pad(local ^ twist_mask);
  group_move<LOG_E, PAIRS, false, regs, twist_k>(s_key, s_val, mine, mine_twisted, key, val,
                                                 std::make_integer_sequence<int, 1 << LOG_E>());
  tile_layers<LOG_T, LOG_E, PAIRS, G>(
      key, val, std::make_integer_sequence<int, s5_tile<LOG_T, LOG_E>::plan.group[G].ops>());
  group_move<LOG_E, PAIRS, true, regs, twist_k>(s_key, s_val, mine, mine_twisted, key, val,
                                                std::make_integer_sequence<int, 1 << LOG_E>());
}

// All the groups, in order.
template <int LOG_T, int LOG_E, bool PAIRS, int... G>
__device__ __forceinline__ void tile_groups(uint32_t *s_key, uint32_t *s_val,
                                            uint32_t (&key)[1 << LOG_E],
                                            uint32_t (&val)[1 << LOG_E],
                                            std::integer_sequence<int, G...>) {
  (tile_group<LOG_T, LOG_E, PAIRS, G>(s_key, s_val, key, val), ...);
}

// A thread's keys of a tile in step 4's high layout (thread t holds t + r * 2^LOG_B): one
// base pointer plus constant offsets. CHECKED: past n, the sentinel. flip complements the keys
// of a descending sort on the way in and out (then every comparator sorts ascending).
template <int LOG_B, int LOG_E, bool PAIRS, bool CHECKED, int R>
__device__ __forceinline__ void tile_load_one(const uint32_t *keys, const uint32_t *values,
                                              unsigned first, int remaining, uint32_t flip,
                                              uint32_t (&key)[1 << LOG_E],
                                              uint32_t (&val)[1 << LOG_E]) {
  const bool inside = !CHECKED || (R << LOG_B) < remaining;
  key[R] = (inside ? keys[first + (R << LOG_B)] : ~flip) ^ flip;
  if (PAIRS) val[R] = inside ? values[first + (R << LOG_B)] : 0u;
}

template <int LOG_B, int LOG_E, bool PAIRS, bool CHECKED, int R>
__device__ __forceinline__ void tile_store_one(uint32_t *keys, uint32_t *values, unsigned first,
                                               int remaining, uint32_t flip,
                                               const uint32_t (&key)[1 << LOG_E],
                                               const uint32_t (&val)[1 << LOG_E]) {
  if (!CHECKED || (R << LOG_B) < remaining) {
    keys[first + (R << LOG_B)] = key[R] ^ flip;
    if (PAIRS) values[first + (R << LOG_B)] = val[R];
  }
}

// All the registers R, as folds like the layers: no loop left to unroll.
template <int LOG_B, int LOG_E, bool PAIRS, bool CHECKED, int... R>
__device__ __forceinline__ void tile_load(const uint32_t *keys, const uint32_t *values,
                                          unsigned first, unsigned n, uint32_t flip,
                                          uint32_t (&key)[1 << LOG_E],
                                          uint32_t (&val)[1 << LOG_E],
                                          std::integer_sequence<int, R...>) {
  const int remaining = (int)n - (int)first;
  (tile_load_one<LOG_B, LOG_E, PAIRS, CHECKED, R>(keys, values, first, remaining, flip, key, val),
   ...);
}

template <int LOG_B, int LOG_E, bool PAIRS, bool CHECKED, int... R>
__device__ __forceinline__ void tile_store(uint32_t *keys, uint32_t *values, unsigned first,
                                           unsigned n, uint32_t flip,
                                           const uint32_t (&key)[1 << LOG_E],
                                           const uint32_t (&val)[1 << LOG_E],
                                           std::integer_sequence<int, R...>) {
  const int remaining = (int)n - (int)first;
  (tile_store_one<LOG_B, LOG_E, PAIRS, CHECKED, R>(keys, values, first, remaining, flip, key,
                                                   val),
   ...);
}

template <int LOG_T, int LOG_E, bool PAIRS>
__global__ void __launch_bounds__(1 << (LOG_T - LOG_E), s5_blocks_per_sm(LOG_T - LOG_E))
    tile_sort_pass(uint32_t *keys, uint32_t *values, unsigned n, uint32_t flip) {
  const int LOG_B = LOG_T - LOG_E;
  extern __shared__ uint32_t shared[];
  uint32_t *s_key = shared;
  uint32_t *s_val = shared + s5_pad_words(LOG_T);
  uint32_t key[1 << LOG_E], val[1 << LOG_E];
  const unsigned base = blockIdx.x << LOG_T;
  const unsigned first = base + threadIdx.x;
  const bool whole = n - base >= (1u << LOG_T);
  constexpr std::make_integer_sequence<int, 1 << LOG_E> regs{};
  if (whole) tile_load<LOG_B, LOG_E, PAIRS, false>(keys, values, first, n, flip, key, val, regs);
  else tile_load<LOG_B, LOG_E, PAIRS, true>(keys, values, first, n, flip, key, val, regs);
  // The same layout in shared memory is a group's with register bits LOG_B .. LOG_T - 1.
  const unsigned mine = s5_pad(threadIdx.x);
  constexpr unsigned high = ((1u << LOG_E) - 1) << LOG_B;
  group_move<LOG_E, PAIRS, true, high, -1>(s_key, s_val, mine, mine, key, val, regs);
  constexpr int groups = s5_tile<LOG_T, LOG_E>::plan.groups;
  tile_groups<LOG_T, LOG_E, PAIRS>(s_key, s_val, key, val,
                                   std::make_integer_sequence<int, groups>());
  __syncthreads();
  group_move<LOG_E, PAIRS, false, high, -1>(s_key, s_val, mine, mine, key, val, regs);
  if (whole) tile_store<LOG_B, LOG_E, PAIRS, false>(keys, values, first, n, flip, key, val, regs);
  else tile_store<LOG_B, LOG_E, PAIRS, true>(keys, values, first, n, flip, key, val, regs);
}

// ---- The windows ----

// A window, as the host plans it and the kernel reads it. Its layers are numbered in order and
// layer i compares across local bit LOG_M-1-i: group g (layers g*E .. g*E+E-1) then always
// holds the same local bits in registers, so the groups' layouts, like the tile sort's, are
// compile-time constants. Only the mapping of local bits to positions is data: the block holds
// position bits 0 .. a-1 and h .. h+b-1, and the block index gives the rest.
typedef struct s5_window {
  int8_t low_bits, band_shift, band_bits; // a, h, b
  int8_t groups;
  int8_t shape[S5_MAX_WINDOW_GROUPS]; // per group: 8 * layers + 1 + (index of its mirror, or -1)
  // The load layout (thread t holds the block's 2^LOG_B lowest positions, in order, and
  // register r the others): for each of its bits, the position bit as a vector to XOR (the
  // mirror's bit also complements the middle bits a .. h-1: the twist) and the word of its
  // local bit.
  uint32_t pos[S5_MAX_LOCAL_BITS];
  uint16_t word[S5_MAX_LOCAL_BITS];
} s5_window;

// The layers J of a window's group: layer j on register bit K_FIRST - j, the MIRROR-th the
// mirror. The mirror flips every local bit of the block: register r meets r ^ (2^LOG_E - 1),
// the twist gives the thread bits.
template <int LOG_E, bool PAIRS, int K_FIRST, int MIRROR, int... J>
__device__ __forceinline__ void window_layers(uint32_t (&key)[1 << LOG_E],
                                              uint32_t (&val)[1 << LOG_E],
                                              std::integer_sequence<int, J...>) {
  constexpr std::make_integer_sequence<int, 1 << (LOG_E - 1)> pairs{};
  (register_pairs<LOG_E, PAIRS, K_FIRST - J,
                  J == MIRROR ? (1 << LOG_E) - 1 : 1 << (K_FIRST - J)>(key, val, pairs),
   ...);
}

// Group G of a window, with LEN layers and its mirror at MIRROR (-1: none). Its registers hold
// local bits BASE .. BASE + LOG_E - 1; a mirror flips every local bit.
template <int LOG_M, int LOG_E>
__host__ __device__ constexpr int s5_window_base(int g) {
  return LOG_M - LOG_E * (g + 1) > 0 ? LOG_M - LOG_E * (g + 1) : 0;
}

template <int LOG_M, int LOG_E, bool PAIRS, int G, int LEN, int MIRROR>
__device__ __forceinline__ void window_group(uint32_t *s_key, uint32_t *s_val,
                                             uint32_t (&key)[1 << LOG_E],
                                             uint32_t (&val)[1 << LOG_E]) {
  constexpr int base = s5_window_base<LOG_M, LOG_E>(G);
  constexpr unsigned regs = ((1u << LOG_E) - 1) << base;
  constexpr int k_first = LOG_M - 1 - LOG_E * G - base;
  constexpr int twist_k = MIRROR < 0 ? -1 : k_first - MIRROR;
  constexpr unsigned twist_mask = MIRROR < 0 ? 0u : ((1u << LOG_M) - 1) & ~regs;
  const unsigned local = thread_local_bits<LOG_M, regs>(threadIdx.x);
  const unsigned mine = s5_pad(local), mine_twisted = s5_pad(local ^ twist_mask);
  group_move<LOG_E, PAIRS, false, regs, twist_k>(s_key, s_val, mine, mine_twisted, key, val,
                                                 std::make_integer_sequence<int, 1 << LOG_E>());
  window_layers<LOG_E, PAIRS, k_first, MIRROR>(key, val, std::make_integer_sequence<int, LEN>());
  group_move<LOG_E, PAIRS, true, regs, twist_k>(s_key, s_val, mine, mine_twisted, key, val,
                                                std::make_integer_sequence<int, 1 << LOG_E>());
}

// The shapes (8 * layers + 1 + mirror index) that group g of a window takes in some plan, as
// bits of a mask. Only those are compiled: all 98 shapes made this file's compile about 8 s
// longer than these 26 (28.7 against 20.7 s on 2 cores).
typedef struct s5_shape_set {
  uint64_t group[S5_MAX_WINDOW_GROUPS];
} s5_shape_set;

__host__ __device__ constexpr int s5_shape_count(uint64_t shapes) {
  return s5_popcount((unsigned)shapes) + s5_popcount((unsigned)(shapes >> 32));
}

// The k-th lowest shape of a mask (k < its count).
__host__ __device__ constexpr int s5_nth_shape(uint64_t shapes, int k) {
  int s = 0;
  for (; k > 0 || ((shapes >> s) & 1) == 0; ++s) k -= (int)((shapes >> s) & 1);
  return s;
}

// s5_window_shapes<LOG_T, LOG_M, LOG_E, COALESCE>::set: defined with the planner below.
template <int LOG_T, int LOG_M, int LOG_E, int COALESCE>
struct s5_window_shapes;

// Runs group G as shape `shape`, one of the shapes FIRST .. LAST - 1 of the mask SHAPES (in
// increasing order): a binary search, each shape straight-line code. The host refuses a plan
// with a shape outside the mask (launch_window).
template <int LOG_M, int LOG_E, bool PAIRS, int G, uint64_t SHAPES, int FIRST, int LAST>
__device__ __forceinline__ void window_shape(int shape, uint32_t *s_key, uint32_t *s_val,
                                             uint32_t (&key)[1 << LOG_E],
                                             uint32_t (&val)[1 << LOG_E]) {
  if constexpr (LAST - FIRST == 1) {
    constexpr int shape_here = s5_nth_shape(SHAPES, FIRST);
    constexpr int len = shape_here / 8, mirror = shape_here % 8 - 1;
    constexpr int k_first = LOG_M - 1 - LOG_E * G - s5_window_base<LOG_M, LOG_E>(G);
    static_assert(len >= 1 && len <= k_first + 1 && mirror < len, "a planned shape must fit");
    window_group<LOG_M, LOG_E, PAIRS, G, len, mirror>(s_key, s_val, key, val);
  } else {
    constexpr int MIDDLE = (FIRST + LAST) / 2;
    if (shape < s5_nth_shape(SHAPES, MIDDLE)) {
      window_shape<LOG_M, LOG_E, PAIRS, G, SHAPES, FIRST, MIDDLE>(shape, s_key, s_val, key, val);
    } else {
      window_shape<LOG_M, LOG_E, PAIRS, G, SHAPES, MIDDLE, LAST>(shape, s_key, s_val, key, val);
    }
  }
}

template <int LOG_M, int LOG_E, bool PAIRS, class SHAPES, int G>
__device__ __forceinline__ void window_groups(const s5_window &w, uint32_t *s_key, uint32_t *s_val,
                                              uint32_t (&key)[1 << LOG_E],
                                              uint32_t (&val)[1 << LOG_E]) {
  if constexpr (G < S5_MAX_WINDOW_GROUPS) {
    constexpr uint64_t shapes = SHAPES::set.group[G];
    if constexpr (shapes != 0) {
      if (G < w.groups) {
        __syncthreads();
        window_shape<LOG_M, LOG_E, PAIRS, G, shapes, 0, s5_shape_count(shapes)>(w.shape[G], s_key,
                                                                              s_val, key, val);
        window_groups<LOG_M, LOG_E, PAIRS, SHAPES, G + 1>(w, s_key, s_val, key, val);
      }
    }
  }
}

// Loads (STORE false) or stores a thread's keys of one block in the load layout, registers in
// Gray-code order: each next position is the last XOR one vector, each next word the last plus
// or minus one. CHECKED: positions past n get the sentinel, or are not written. Step G of the
// walk: from register G-1 to register G (G > 0), then register G's key.
template <int LOG_E, bool PAIRS, bool STORE, bool CHECKED, int G>
__device__ __forceinline__ void window_move_one(uint32_t *keys, uint32_t *values, unsigned n,
                                                uint32_t flip, unsigned &pos, unsigned &at,
                                                const unsigned (&reg_pos)[LOG_E],
                                                const unsigned (&reg_word)[LOG_E],
                                                uint32_t *s_key, uint32_t *s_val) {
  if constexpr (G > 0) {
    constexpr int k = s5_ctz(G);
    pos ^= reg_pos[k];
    at = ((G ^ (G >> 1)) >> k) & 1 ? at + reg_word[k] : at - reg_word[k];
  }
  if (STORE) {
    if (!CHECKED || pos < n) {
      keys[pos] = s_key[at] ^ flip;
      if (PAIRS) values[pos] = s_val[at];
    }
  } else {
    const bool inside = !CHECKED || pos < n;
    s_key[at] = (inside ? keys[pos] : ~flip) ^ flip;
    if (PAIRS) s_val[at] = inside ? values[pos] : 0u;
  }
}

// The whole walk, G = 0, 1, ... in order (a fold: no loop left to unroll).
template <int LOG_E, bool PAIRS, bool STORE, bool CHECKED, int... G>
__device__ __forceinline__ void window_move(uint32_t *keys, uint32_t *values, unsigned n,
                                            uint32_t flip, unsigned pos, unsigned at,
                                            const unsigned (&reg_pos)[LOG_E],
                                            const unsigned (&reg_word)[LOG_E], uint32_t *s_key,
                                            uint32_t *s_val, std::integer_sequence<int, G...>) {
  (window_move_one<LOG_E, PAIRS, STORE, CHECKED, G>(keys, values, n, flip, pos, at, reg_pos,
                                                    reg_word, s_key, s_val),
   ...);
}

// One window of the network over every block of 2^LOG_M keys: load, the groups, store. LOG_T and
// COALESCE pick the plan, whose shapes alone are compiled.
template <int LOG_T, int LOG_M, int LOG_E, int COALESCE, bool PAIRS>
__global__ void __launch_bounds__(1 << (LOG_M - LOG_E), s5_blocks_per_sm(LOG_M - LOG_E))
    window_pass(uint32_t *keys, uint32_t *values, unsigned n, uint32_t flip, int backwards,
                const s5_window w) {
  const int LOG_B = LOG_M - LOG_E;
  extern __shared__ uint32_t shared[];
  uint32_t *s_key = shared;
  uint32_t *s_val = shared + s5_pad_words(LOG_M);
  uint32_t key[1 << LOG_E], val[1 << LOG_E];
  const unsigned t = threadIdx.x;
  const int a = w.low_bits, h = w.band_shift, b = w.band_bits;
  const unsigned block = block_in_order(backwards);
  const unsigned base = ((block & ((1u << (h - a)) - 1)) << a) | ((block >> (h - a)) << (h + b));
  if (base >= n) return; // the block's lowest position is past n: so are all the others
  unsigned pos = base, at = 0, top = base;
  // Loops, unlike the rest: folding these two saved no measurable compile time and added 16
  // instructions of address setup to the pairs kernel.
#pragma unroll
  for (int i = 0; i < LOG_B; ++i) {
    if ((t >> i) & 1) pos ^= w.pos[i], at += w.word[i];
    top ^= w.pos[i];
  }
  unsigned reg_pos[LOG_E], reg_word[LOG_E];
#pragma unroll
  for (int k = 0; k < LOG_E; ++k) {
    reg_pos[k] = w.pos[LOG_B + k], reg_word[k] = w.word[LOG_B + k];
    top ^= reg_pos[k];
  }
  // top: the block's highest position (every local bit set, the upper half twisted).
  const bool whole = top < n;
  constexpr std::make_integer_sequence<int, 1 << LOG_E> walk{};
  if (whole) {
    window_move<LOG_E, PAIRS, false, false>(keys, values, n, flip, pos, at, reg_pos, reg_word,
                                            s_key, s_val, walk);
  } else {
    window_move<LOG_E, PAIRS, false, true>(keys, values, n, flip, pos, at, reg_pos, reg_word,
                                           s_key, s_val, walk);
  }
  window_groups<LOG_M, LOG_E, PAIRS, s5_window_shapes<LOG_T, LOG_M, LOG_E, COALESCE>, 0>(
      w, s_key, s_val, key, val);
  __syncthreads();
  if (whole) {
    window_move<LOG_E, PAIRS, true, false>(keys, values, n, flip, pos, at, reg_pos, reg_word,
                                           s_key, s_val, walk);
  } else {
    window_move<LOG_E, PAIRS, true, true>(keys, values, n, flip, pos, at, reg_pos, reg_word,
                                          s_key, s_val, walk);
  }
}

// ---- The host: the plan of windows and the launches ----

// Walks the network of next_pow2(n) keys window by window, after the tile sort (sizes 1 ..
// log_tile): windows in blocks of 2^log_m keys, groups of log_e register bits.
typedef struct s5_planner {
  int log_m, log_e, coalesce, log_padded;
  int next, count; // the next layer of the sequence after the tile sort
  s5_layer sequence[S5_MAX_SEQUENCE];
  int16_t end[S5_MAX_SEQUENCE]; // the window that starts at layer i ends before layer end[i]
} s5_planner;

// The block of a window [from, to): the band is the run of consecutive bits down from the
// window's highest bit, when that bit is beyond the low part; the other layers then lie in
// bits 0 .. a-1. Returns 0 if the window does not fit a block (two layers on one bit, or more
// than log_m bits with bits 0 .. coalesce-1, which every block reads, added).
static constexpr int s5_window_block(const s5_planner *plan, int from, int to, int *a, int *h) {
  unsigned bits = 0;
  int top = 0;
  for (int i = from; i < to; ++i) {
    const unsigned bit = 1u << plan->sequence[i].bit;
    if (bits & bit) return 0;
    bits |= bit;
    top = plan->sequence[i].bit > top ? plan->sequence[i].bit : top;
  }
  if (s5_popcount(bits | ((1u << plan->coalesce) - 1)) > plan->log_m) return 0;
  *a = plan->log_m, *h = plan->log_m;
  if (top >= plan->log_m) {
    *h = top;
    while (*h > 0 && ((bits >> (*h - 1)) & 1)) --*h;
    *a = plan->log_m - (top - *h + 1);
  }
  return 1;
}

// The plan: the longest window that fits, each in turn (the fewest passes). Constexpr, like
// s5_plan_next: s5_window_shapes runs them at compile time.
static constexpr void s5_plan_start(s5_planner *plan, int log_padded, int log_tile, int log_m,
                                    int log_e, int coalesce) {
  plan->log_m = log_m, plan->log_e = log_e, plan->coalesce = coalesce;
  plan->log_padded = log_padded;
  plan->next = 0, plan->count = 0;
  for (int s = log_tile + 1; s <= plan->log_padded; ++s) {
    for (int bit = s - 1; bit >= 0; --bit) {
      plan->sequence[plan->count].bit = (int8_t)bit;
      plan->sequence[plan->count].mirror = (int8_t)(bit == s - 1);
      ++plan->count;
    }
  }
  // A longer window may fit where a shorter one does not: the coalescing bits come free once the
  // window reaches bit 0.
  for (int from = 0; from < plan->count; from = plan->end[from]) {
    plan->end[from] = (int16_t)(from + 1);
    for (int to = from + 1; to <= plan->count && to - from <= log_m; ++to) {
      int a = 0, h = 0;
      if (s5_window_block(plan, from, to, &a, &h)) plan->end[from] = (int16_t)to;
    }
  }
}

// The next window of the plan into *w: 1, or 0 when the network is done.
static constexpr int s5_plan_next(s5_planner *plan, s5_window *w) {
  const int log_m = plan->log_m, log_e = plan->log_e;
  if (plan->next >= plan->count) return 0;
  const int from = plan->next, to = plan->end[from];
  plan->next = to;
  int a = 0, h = 0;
  s5_window_block(plan, from, to, &a, &h);
  w->low_bits = (int8_t)a, w->band_shift = (int8_t)h, w->band_bits = (int8_t)(log_m - a);
  // Local bits: layer i on local bit log_m-1-i; the block's other positions, lowest first, on
  // local bits 0, 1, ...
  int local_of[32] = {};
  for (int p = 0; p < 32; ++p) local_of[p] = -1;
  for (int i = from; i < to; ++i) local_of[plan->sequence[i].bit] = log_m - 1 - (i - from);
  int next_local = 0;
  int position_of_load_bit[S5_MAX_LOCAL_BITS] = {0};
  int held = 0;
  for (int p = 0; p < 32 && held < log_m; ++p) {
    if (p < a || (p >= h && p < h + log_m - a)) {
      if (local_of[p] < 0) local_of[p] = next_local++;
      position_of_load_bit[held++] = p; // the load layout takes positions in order
    }
  }
  const unsigned middle = ((1u << h) - 1) & ~((1u << a) - 1);
  for (int i = 0; i < log_m; ++i) {
    const int p = position_of_load_bit[i];
    int mirror_here = 0;
    for (int j = from; j < to; ++j) {
      mirror_here |= plan->sequence[j].mirror && plan->sequence[j].bit == p;
    }
    w->pos[i] = (1u << p) ^ (mirror_here ? middle : 0u);
    w->word[i] = (uint16_t)s5_pad(1u << local_of[p]);
  }
  // Groups of log_e layers in order, and where the mirror falls.
  int mirror = -1;
  for (int i = from; i < to; ++i) {
    if (plan->sequence[i].mirror) mirror = i - from;
  }
  const int layers = to - from;
  w->groups = (int8_t)((layers + log_e - 1) / log_e);
  for (int g = 0; g < w->groups; ++g) {
    const int len = layers - g * log_e < log_e ? layers - g * log_e : log_e;
    const int m = mirror >= g * log_e && mirror < g * log_e + len ? mirror - g * log_e : -1;
    w->shape[g] = (int8_t)(8 * len + 1 + m);
  }
  return 1;
}

// The shapes of every plan of the lab's sizes, padded to 2^1 .. BITONIC_MAX_N: a plan depends on
// nothing else (s5_plan_start takes no n).
static constexpr s5_shape_set s5_plan_shapes(int log_t, int log_m, int log_e, int coalesce) {
  s5_shape_set set = {};
  s5_planner plan = {}; // out of the loop: the host compiler evaluates this faster
  s5_window w = {};
  for (int log_padded = 1; ((size_t)1 << log_padded) <= BITONIC_MAX_N; ++log_padded) {
    s5_plan_start(&plan, log_padded, log_t, log_m, log_e, coalesce);
    while (s5_plan_next(&plan, &w)) {
      for (int g = 0; g < w.groups; ++g) set.group[g] |= (uint64_t)1 << w.shape[g];
    }
  }
  return set;
}

template <int LOG_T, int LOG_M, int LOG_E, int COALESCE>
struct s5_window_shapes {
  static constexpr s5_shape_set set = s5_plan_shapes(LOG_T, LOG_M, LOG_E, COALESCE);
};

// Launches one window over all blocks of 2^LOG_M keys (one block when the network is smaller).
template <int LOG_T, int LOG_M, int LOG_E, int COALESCE, bool PAIRS>
static gl_status launch_window(const s5_window *w, uint32_t *keys, uint32_t *values, unsigned n,
                               unsigned padded, uint32_t flip, int backwards) {
  // Never fails (the set holds every plan's shapes), but a shape outside it would silently run
  // another shape's layers.
  const s5_shape_set &set = s5_window_shapes<LOG_T, LOG_M, LOG_E, COALESCE>::set;
  for (int g = 0; g < w->groups; ++g) {
    if (g >= S5_MAX_WINDOW_GROUPS || w->shape[g] < 0 || w->shape[g] >= 64 ||
        ((set.group[g] >> w->shape[g]) & 1) == 0) {
      return gl_fail(GL_ERR_INVALID_ARGUMENT,
                     "bitonic_step5: n = %u: window group %d has shape %d, not compiled in "
                     "window_pass (see s5_plan_shapes)",
                     n, g, (int)w->shape[g]);
    }
  }
  const unsigned blocks = padded > (1u << LOG_M) ? padded >> LOG_M : 1u;
  const size_t shared_bytes = (PAIRS ? 2u : 1u) * (size_t)s5_pad_words(LOG_M) * sizeof(uint32_t);
  static int raised = 0; // per instantiation: more than 48 KB needs the opt-in once
  if (!raised && shared_bytes > 48 * 1024) {
    LAB_CHECK(cudaFuncSetAttribute(window_pass<LOG_T, LOG_M, LOG_E, COALESCE, PAIRS>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes));
    raised = 1;
  }
  window_pass<LOG_T, LOG_M, LOG_E, COALESCE, PAIRS>
      <<<blocks, 1u << (LOG_M - LOG_E), shared_bytes>>>(keys, values, n, flip, backwards, *w);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// Launches the tile sort over the tiles below n.
template <int LOG_T, int LOG_E, bool PAIRS>
static gl_status launch_tile(uint32_t *keys, uint32_t *values, unsigned n, uint32_t flip) {
  const unsigned tiles = (n + (1u << LOG_T) - 1) >> LOG_T;
  const size_t shared_bytes = (PAIRS ? 2u : 1u) * (size_t)s5_pad_words(LOG_T) * sizeof(uint32_t);
  static int raised = 0;
  if (!raised && shared_bytes > 48 * 1024) {
    LAB_CHECK(cudaFuncSetAttribute(tile_sort_pass<LOG_T, LOG_E, PAIRS>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes));
    raised = 1;
  }
  tile_sort_pass<LOG_T, LOG_E, PAIRS><<<tiles, 1u << (LOG_T - LOG_E), shared_bytes>>>(
      keys, values, n, flip);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// Runs step 5 with one shape: the tile sort in blocks of 2^LOG_T keys (groups of E_T register
// bits), then windows in blocks of 2^LOG_M keys (groups of LOG_E bits) that hold position bits
// 0 .. COALESCE-1 at least. For n = 2^24 keys, (14, 5, 14, 5) and COALESCE 4: 17 passes.
template <int LOG_T, int E_T, int LOG_M, int LOG_E, int COALESCE, bool PAIRS>
static gl_status sort_step5_shaped(uint32_t *keys, uint32_t *values, unsigned n, uint32_t flip) {
  // Every window's mirror then flips all the bits its block holds (sizes past LOG_M - 1 only).
  static_assert(LOG_T >= LOG_M - 1, "the tile sort must cover sizes up to LOG_M - 1");
  s5_planner plan;
  s5_window w;
  const unsigned padded = next_pow2(n);
  GL_TRY((launch_tile<LOG_T, E_T, PAIRS>(keys, values, n, flip)));
  s5_plan_start(&plan, log2_of_pow2(padded), LOG_T, LOG_M, LOG_E, COALESCE);
  for (int backwards = 1; s5_plan_next(&plan, &w); backwards = !backwards) {
    // Serpentine order, as in step 4 (the tile sort went forwards).
    GL_TRY((launch_window<LOG_T, LOG_M, LOG_E, COALESCE, PAIRS>(&w, keys, values, n, padded, flip,
                                                                backwards)));
  }
  return GL_OK;
}

// Keys: blocks of 2^14 keys, 512 threads x 32 keys, 66 KB of shared memory (two blocks per
// SM); the longest windows whose blocks hold 4 low bits (64-byte pieces), one pass more than
// the fewest but faster on an H100, whose windows read 32-byte pieces more slowly (the
// handout's step 5 says why). Pairs: blocks of 2^13 pairs, 512 threads x
// 16 pairs, 66 KB for keys and values, the longest windows with 3 low bits.
gl_status bitonic_step5(uint32_t *keys, uint32_t *values, unsigned n, int descending) {
  const uint32_t flip = descending ? 0xFFFFFFFFu : 0u;
  if (values == NULL) {
    return sort_step5_shaped<14, 5, 14, 5, 4, false>(keys, NULL, n, flip);
  }
  return sort_step5_shaped<13, 4, 13, 4, 3, true>(keys, values, n, flip);
}
