// The scan lab: your kernels. Six GPU prefix sums, from Hillis-Steele to a single pass with
// decoupled look-back at CUB's speed.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/scan/scan.h          the API the tests call
//   labs/scan/scan_steps.h    what each step below must define, and what it is handed
//   labs/scan/scan_given.cu   argument checks, scratch memory, the dispatch to your steps
//
// The handout, labs/scan/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L scan -R 'ScanStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (the CPU reference) is given: labs/scan/scan_reference.c
//   step 2  2-naive             scan_step2             (naive_level_kernel)
//   step 3  3-blelloch-global   scan_step3             (the up-sweep and down-sweep kernels)
//   step 4  4-blelloch-shared   scan_step4_block_scan  (blelloch_shared_kernel)
//                               scan_step4_levels      (the levels of steps 4, 5 and 6)
//   step 5  5-blelloch-padded   scan_step5_block_scan  (blelloch_padded_kernel)
//   step 6  6-warp-shuffle      scan_step6_block_scan  (warp_shuffle_kernel)
//   step 7  7-single-pass       scan_step7             (single_pass_kernel)
//   step 8  8-prefetch (bonus)  scan_step8             (step 7's kernel, staggered and prefetching)
//   then    scan_exclusive      scan_exclusive_step    (the step compaction and radix sort use)
//
// Compute sums in unsigned int: they then wrap around like the CPU reference, while signed
// overflow would be undefined behaviour.
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "scan_steps.h"

// =============================================================================================
// Step 2: Hillis-Steele in global memory, one launch per level, double-buffered
//
// Write naive_level_kernel: one thread per element, out[i] = in[i] + in[i - offset] where
// i >= offset, else in[i]. Launch it once per level, offset = 1, 2, 4, ... < n, alternating
// between d_out and the second buffer d_tmp so that the last level writes d_out.
// - Exclusive: the exclusive scan is the inclusive scan of the input shifted right by one with
//   a 0 in front; let the first level read it shifted.
// - n == 1 still needs one launch.
// - In place (d_in == d_out): no level may read and write the same buffer.
// =============================================================================================

// One level: dst[i] = x[i] + x[i - offset] (or x[i] when i < offset), where x is src, or src
// shifted right by one with a 0 in front when `shift` is set (the first level of an exclusive
// scan: the exclusive scan is the inclusive scan of the shifted input).
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
naive_level_kernel(const int *src, int *dst, unsigned int n, unsigned int offset, int shift) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int value, earlier = 0;
  if (shift) {
    value = i >= 1 ? (unsigned int)src[i - 1] : 0u;
    if (i >= offset + 1) earlier = (unsigned int)src[i - offset - 1];
  } else {
    value = (unsigned int)src[i];
    if (i >= offset) earlier = (unsigned int)src[i - offset];
  }
  dst[i] = (int)(value + earlier);
}

gl_status scan_step2(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     int *d_tmp) {
  // Levels with offsets 1, 2, 4, ... < n; at least one launch, which for n == 1 only copies
  // (or, exclusive, writes the 0).
  int launches = 0;
  while (((size_t)1 << launches) < n) ++launches;
  if (launches == 0) launches = 1;

  // Levels alternate between d_out and d_tmp, ending in d_out. A level must never read and
  // write the same buffer (threads would read values other threads already overwrote), so when
  // the scan is in place and the first level would write d_out, the input is first copied aside.
  const int *src = d_in;
  int first_writes_out = (launches - 1) % 2 == 0;
  if (d_in == d_out && first_writes_out) {
    LAB_CHECK(cudaMemcpyAsync(d_tmp, d_in, n * sizeof(int), cudaMemcpyDeviceToDevice, 0));
    src = d_tmp;
  }
  unsigned int grid = (unsigned int)ceil_div(n, (size_t)block_size);
  unsigned int offset = 1;
  for (int level = 0; level < launches; ++level) {
    int *dst = (launches - 1 - level) % 2 == 0 ? d_out : d_tmp;
    naive_level_kernel<<<grid, block_size>>>(src, dst, (unsigned int)n, offset,
                                             level == 0 && kind == SCAN_EXCLUSIVE);
    LAB_CHECK_LAUNCH();
    src = dst;
    offset <<= 1;
  }
  return GL_OK;
}

// =============================================================================================
// Step 3: Blelloch up-sweep/down-sweep in global memory, one launch per level
//
// In the work buffer d_buf of m elements (m the power of two >= n): copy d_in into d_buf
// followed by zeros; one launch per up-sweep level (stride 2, 4, ..., m:
// buf[k*stride + stride-1] += buf[k*stride + stride/2-1]); set the root d_buf[m-1] to 0; one
// launch per down-sweep level (stride m, ..., 2); copy the first n results to d_out (inclusive:
// add the input element). Give thread k the k-th node of a level, not the element k with a
// `k % stride == 0` test. Only nodes whose subtree starts below n need a thread.
// =============================================================================================

// The scan works in a scratch buffer of m elements, m the power of two >= n, holding the input
// followed by zeros: the balanced tree needs a power of two, and padding with the identity
// leaves the first n results unchanged. A level only visits the nodes whose subtree starts
// below n (a subtree that lies wholly in the padding holds zeros and stays zero). Thread k
// handles the k-th such node, so the active threads of a level are contiguous (no warp is
// split between idle and busy threads as with the `k % stride == 0` form).

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
pad_copy_kernel(const int *d_in, unsigned int *buf, unsigned int n, unsigned int m) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) buf[i] = i < n ? (unsigned int)d_in[i] : 0u;
}

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
up_sweep_kernel(unsigned int *buf, unsigned int nodes, unsigned int stride) {
  unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nodes) return;
  unsigned int right = k * stride + stride - 1;
  buf[right] += buf[right - stride / 2];
}

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
down_sweep_kernel(unsigned int *buf, unsigned int nodes, unsigned int stride) {
  unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nodes) return;
  unsigned int right = k * stride + stride - 1;
  unsigned int left = right - stride / 2;
  unsigned int left_sum = buf[left];
  buf[left] = buf[right];   // the left child gets the parent's prefix
  buf[right] += left_sum;   // the right child gets the parent's prefix plus the left subtree
}

// Copies the exclusive result out; inclusive adds the element itself (read before the write of
// the same index by the same thread, so in place is safe).
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
finish_kernel(const unsigned int *buf, const int *d_in, int *d_out, unsigned int n, int inclusive) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int value = buf[i];
  if (inclusive) value += (unsigned int)d_in[i];
  d_out[i] = (int)value;
}

gl_status scan_step3(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_buf, size_t m) {
  pad_copy_kernel<<<(unsigned int)ceil_div(m, block_size), block_size>>>(
      d_in, d_buf, (unsigned int)n, (unsigned int)m);
  LAB_CHECK_LAUNCH();
  for (size_t stride = 2; stride <= m; stride <<= 1) {
    size_t nodes = ceil_div(n, stride);
    up_sweep_kernel<<<(unsigned int)ceil_div(nodes, block_size), block_size>>>(
        d_buf, (unsigned int)nodes, (unsigned int)stride);
    LAB_CHECK_LAUNCH();
  }
  // The root holds the total; the exclusive scan starts from the identity.
  LAB_CHECK(cudaMemsetAsync(d_buf + (m - 1), 0, sizeof(unsigned int), 0));
  for (size_t stride = m; stride >= 2; stride >>= 1) {
    size_t nodes = ceil_div(n, stride);
    down_sweep_kernel<<<(unsigned int)ceil_div(nodes, block_size), block_size>>>(
        d_buf, (unsigned int)nodes, (unsigned int)stride);
    LAB_CHECK_LAUNCH();
  }
  finish_kernel<<<(unsigned int)ceil_div(n, block_size), block_size>>>(
      d_buf, d_in, d_out, (unsigned int)n, kind == SCAN_INCLUSIVE);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 4: Blelloch per block in shared memory, the tile totals scanned recursively
//
// Steps 4-6 scan each tile in one block, scan the tile totals, and add them back. Two
// functions, the first for step 4 alone, the second for steps 4, 5 and 6:
// - scan_step4_block_scan: write blelloch_shared_kernel: each thread loads 2 elements into
//   shared memory (thread t: t and t + blockDim.x, so loads are coalesced), up-sweep, save the
//   total, clear the root, down-sweep, write back. Launch it with one block per tile and
//   2 * block_size * sizeof(unsigned int) bytes of dynamic shared memory.
// - scan_step4_levels (called only when n needs more than one tile): scan the tiles with
//   scan_block_scan(step, ...), writing their totals to d_sums; scan the `tiles` totals
//   (exclusive, in place, with the given scan_levels: the space after them in d_sums is
//   theirs; it calls you back when they need more than one tile themselves); then add total b's
//   scan to every element of tile b with a kernel of your own.
// =============================================================================================

// Shared memory has 32 banks of 4 bytes. The tree's strided indices (offset * (2t + 1) - 1)
// make the threads of a warp hit few banks; one spare word after every 32 spreads them.
static __device__ __forceinline__ unsigned int tile_slot(unsigned int i, int padded) {
  return padded ? i + (i >> 5) : i;
}

// One block scans a tile of 2 * blockDim.x elements: thread t loads elements t and t + B (so a
// warp's loads are coalesced), the tree is built and swept in shared memory, the tile's total is
// written to block_sums[blockIdx.x] (when block_sums is not NULL).
static __device__ __forceinline__ void blelloch_tile(const int *d_in, int *d_out, unsigned int n,
                                                     int *block_sums, int inclusive, int padded) {
  extern __shared__ unsigned int tree[];
  const unsigned int t = threadIdx.x;
  const unsigned int half = blockDim.x;
  const unsigned int size = 2 * half;
  const unsigned int base = blockIdx.x * size;

  unsigned int a = base + t < n ? (unsigned int)d_in[base + t] : 0u;
  unsigned int b = base + half + t < n ? (unsigned int)d_in[base + half + t] : 0u;
  tree[tile_slot(t, padded)] = a;
  tree[tile_slot(half + t, padded)] = b;

  // Up-sweep (reduce): after the level with `active` nodes, each node holds its subtree's sum.
  unsigned int offset = 1;
  for (unsigned int active = half; active > 0; active >>= 1) {
    __syncthreads();
    if (t < active) {
      unsigned int left = offset * (2 * t + 1) - 1;
      unsigned int right = offset * (2 * t + 2) - 1;
      tree[tile_slot(right, padded)] += tree[tile_slot(left, padded)];
    }
    offset <<= 1;
  }
  // Thread 0 wrote the root in the last level, so it may read it without a barrier.
  if (t == 0) {
    if (block_sums != NULL) block_sums[blockIdx.x] = (int)tree[tile_slot(size - 1, padded)];
    tree[tile_slot(size - 1, padded)] = 0;
  }
  // Down-sweep: each node passes its prefix to its left child, and prefix + left sum to its
  // right child.
  for (unsigned int active = 1; active < size; active <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < active) {
      unsigned int left = offset * (2 * t + 1) - 1;
      unsigned int right = offset * (2 * t + 2) - 1;
      unsigned int left_sum = tree[tile_slot(left, padded)];
      tree[tile_slot(left, padded)] = tree[tile_slot(right, padded)];
      tree[tile_slot(right, padded)] += left_sum;
    }
  }
  __syncthreads();
  if (base + t < n) d_out[base + t] = (int)(tree[tile_slot(t, padded)] + (inclusive ? a : 0u));
  if (base + half + t < n) {
    d_out[base + half + t] = (int)(tree[tile_slot(half + t, padded)] + (inclusive ? b : 0u));
  }
}

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
blelloch_shared_kernel(const int *d_in, int *d_out, unsigned int n, int *block_sums, int inclusive) {
  blelloch_tile(d_in, d_out, n, block_sums, inclusive, 0);
}

// data[i] += offsets[tile of i], skipping tile 0 (its offset is 0).
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
add_block_offsets_kernel(int *data, const int *offsets, unsigned int n, unsigned int tile) {
  const unsigned int which = blockIdx.x + 1;
  const unsigned int offset = (unsigned int)offsets[which];
  const unsigned int base = which * tile;
  for (unsigned int i = threadIdx.x; i < tile; i += blockDim.x) {
    if (base + i < n) data[base + i] = (int)((unsigned int)data[base + i] + offset);
  }
}

gl_status scan_step4_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums) {
  unsigned int grid =
      (unsigned int)ceil_div(n, tile_elements(SCAN_STEP_BLELLOCH_SHARED, block_size));
  int inclusive = kind == SCAN_INCLUSIVE;
  size_t tree_words = 2 * (size_t)block_size;
  blelloch_shared_kernel<<<grid, block_size, tree_words * sizeof(unsigned int)>>>(
      d_in, d_out, (unsigned int)n, d_block_sums, inclusive);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status scan_step4_levels(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                            size_t n, int block_size, int *d_sums) {
  size_t tile = tile_elements(step, block_size);
  size_t tiles = ceil_div(n, tile);
  GL_TRY(scan_block_scan(step, kind, d_in, d_out, n, block_size, d_sums));
  // The exclusive scan of the tile totals is each tile's offset; it runs in place.
  GL_TRY(scan_levels(step, SCAN_EXCLUSIVE, d_sums, d_sums, tiles, block_size, d_sums + tiles));
  add_block_offsets_kernel<<<(unsigned int)(tiles - 1), block_size>>>(d_out, d_sums,
                                                                      (unsigned int)n,
                                                                      (unsigned int)tile);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 5: padding against shared-memory bank conflicts
//
// Write blelloch_padded_kernel: step 4's kernel with shared index i stored at i + (i >> 5)
// (write the tile scan once as a __device__ function with a `padded` flag and call it from
// both kernels). Launch it like step 4's, with room for the padding words:
// (2 * block_size + 2 * block_size / 32) * sizeof(unsigned int) bytes. scan_step4_levels does
// the rest.
// =============================================================================================

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
blelloch_padded_kernel(const int *d_in, int *d_out, unsigned int n, int *block_sums, int inclusive) {
  blelloch_tile(d_in, d_out, n, block_sums, inclusive, 1);
}

gl_status scan_step5_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums) {
  unsigned int grid =
      (unsigned int)ceil_div(n, tile_elements(SCAN_STEP_BLELLOCH_PADDED, block_size));
  int inclusive = kind == SCAN_INCLUSIVE;
  size_t tree_words = 2 * (size_t)block_size;
  blelloch_padded_kernel<<<grid, block_size,
                           (tree_words + tree_words / 32) * sizeof(unsigned int)>>>(
      d_in, d_out, (unsigned int)n, d_block_sums, inclusive);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 6: warp-shuffle scan in a block
//
// Write warp_shuffle_kernel: one element a thread (a tile of block_size elements), an inclusive
// scan in each warp with __shfl_up_sync, the warp totals scanned by warp 0, each warp's offset
// added. Every lane must execute every __shfl_up_sync: load 0 past n rather than returning
// early. scan_step4_levels does the rest.
// =============================================================================================

// Inclusive scan across the 32 lanes of a warp (Hillis-Steele on registers). Every lane must
// call it: __shfl_up_sync names all 32 lanes.
static __device__ __forceinline__ unsigned int warp_inclusive_scan(unsigned int value,
                                                                   unsigned int lane) {
#pragma unroll
  for (unsigned int delta = 1; delta < WARP_SIZE; delta <<= 1) {
    unsigned int below = __shfl_up_sync(FULL_MASK, value, delta);
    if (lane >= delta) value += below;
  }
  return value;
}

static __device__ __forceinline__ unsigned int warp_sum(unsigned int value) {
#pragma unroll
  for (unsigned int delta = WARP_SIZE / 2; delta > 0; delta >>= 1) {
    value += __shfl_xor_sync(FULL_MASK, value, delta);
  }
  return value;
}

// One element a thread, a tile of blockDim.x elements: scan inside each warp, scan the warp
// totals in warp 0, add each warp's offset.
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
warp_shuffle_kernel(const int *d_in, int *d_out, unsigned int n, int *block_sums, int inclusive) {
  __shared__ unsigned int warp_offsets[MAX_BLOCK_SIZE / WARP_SIZE];
  const unsigned int lane = threadIdx.x % WARP_SIZE;
  const unsigned int warp = threadIdx.x / WARP_SIZE;
  const unsigned int warps = blockDim.x / WARP_SIZE;
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

  unsigned int x = i < n ? (unsigned int)d_in[i] : 0u;
  unsigned int scan = warp_inclusive_scan(x, lane);
  if (lane == WARP_SIZE - 1) warp_offsets[warp] = scan; // the warp's total, for now
  __syncthreads();
  if (warp == 0) {
    unsigned int total = lane < warps ? warp_offsets[lane] : 0u;
    unsigned int prefix = warp_inclusive_scan(total, lane);
    if (lane < warps) warp_offsets[lane] = prefix - total; // each lane rewrites its own slot
    if (lane == WARP_SIZE - 1 && block_sums != NULL) block_sums[blockIdx.x] = (int)prefix;
  }
  __syncthreads();
  if (i < n) d_out[i] = (int)(warp_offsets[warp] + scan - (inclusive ? 0u : x));
}

gl_status scan_step6_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums) {
  unsigned int grid =
      (unsigned int)ceil_div(n, tile_elements(SCAN_STEP_WARP_SHUFFLE, block_size));
  int inclusive = kind == SCAN_INCLUSIVE;
  warp_shuffle_kernel<<<grid, block_size>>>(d_in, d_out, (unsigned int)n, d_block_sums,
                                            inclusive);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 7: single pass with decoupled look-back (Merrill & Garland)
//
// Write single_pass_kernel, one block per tile of SINGLE_PASS_ITEMS * block_size elements, and
// launch it with `tiles` blocks; the tile counter and the status words are handed to you, zeroed.
// Each block: takes its tile number from atomicAdd on the counter (not blockIdx.x); scans its
// tile in registers (16-byte loads need d_in and d_out 16-byte aligned, which cudaMalloc gives
// but d_in + 1 does not, and a whole tile); publishes its total as an "aggregate" status word;
// lets one warp look back over the status words of the tiles before it until it meets an
// "inclusive prefix"; publishes its own inclusive prefix; adds its exclusive prefix and writes
// out. Flag and sum share one 64-bit word, read and written with volatile accesses.
// =============================================================================================

// The reference uses tiles three times the exercise's: 48 elements a thread (SCAN7_VECTORS int4
// loads) where scan_steps.h says 16. A block that waits for its prefix holds its tile in
// registers and moves no bytes meanwhile, so on an H100 the scan is fastest with the largest
// tile the registers hold: 48 ints and the rest of a thread's 64 registers, at 1024 threads the
// whole register file of an SM (fewer ints a thread mean more tiles, each paying its wait). Its
// tiles are bigger, so it needs fewer of the status words the given code reserves for
// SINGLE_PASS_ITEMS-sized tiles.
#ifndef SCAN7_VECTORS
#define SCAN7_VECTORS 12 // int4 loads per thread
#endif
#define SCAN7_ITEMS (4 * SCAN7_VECTORS)     // elements per thread
#define WARP_ITEMS (WARP_SIZE * SCAN7_ITEMS) // elements per warp

// Each tile publishes one 64-bit status word: the flag in the high half, a 32-bit sum in the
// low half. Flag and sum travel in one aligned 64-bit store and load, so a reader can never see
// a new flag with an old sum (with two separate words it would need a __threadfence() between
// writing the sum and the flag, and a matching order on the reading side).
#define TILE_EMPTY 0ull     // nothing published yet (the memset at each call)
#define TILE_AGGREGATE 1ull // the sum holds this tile's own total
#define TILE_PREFIX 2ull    // the sum holds the total of this tile and all tiles before it

static __device__ __forceinline__ unsigned long long status_word(unsigned long long flag,
                                                                 unsigned int sum) {
  return (flag << 32) | sum;
}

// Volatile: every poll goes to L2 (the point of coherence), never to a stale L1 copy.
static __device__ __forceinline__ void publish(unsigned long long *status, unsigned int tile,
                                               unsigned long long word) {
  *(volatile unsigned long long *)&status[tile] = word;
}

// Run by all 32 lanes of one warp: the sum of all tiles before `tile`. Lane k looks at the tile
// k + 1 places back; the warp waits until every tile up to the nearest one holding a full
// prefix has published something, adds them up and stops there, or adds all 32 aggregates and
// moves its window 32 tiles back. Tiles before `tile` have already started (tile numbers are
// handed out in the order blocks start), so the wait always ends.
static __device__ unsigned int look_back(unsigned long long *status, unsigned int tile,
                                         unsigned int lane) {
  const volatile unsigned long long *seen = status;
  unsigned int exclusive = 0;
  int window = (int)tile - 1;
  for (;;) {
    int predecessor = window - (int)lane;
    // Before tile 0 there is nothing: read it as a prefix of 0.
    unsigned long long word =
        predecessor >= 0 ? seen[predecessor] : status_word(TILE_PREFIX, 0u);
    unsigned int prefixes, nearest;
    for (;;) {
      prefixes = __ballot_sync(FULL_MASK, (word >> 32) == TILE_PREFIX);
      nearest = prefixes != 0 ? (unsigned int)__ffs(prefixes) - 1 : WARP_SIZE - 1;
      // Tiles beyond the nearest prefix do not count: wait only for empty ones before it.
      bool waiting = lane <= nearest && (word >> 32) == TILE_EMPTY;
      if (!__any_sync(FULL_MASK, waiting)) break;
      if (waiting) word = seen[predecessor];
    }
    exclusive += warp_sum(lane <= nearest ? (unsigned int)word : 0u);
    if (prefixes != 0) return exclusive;
    window -= WARP_SIZE;
  }
}

// Run by one warp once the tile's total is known: publishes it, looks back, publishes the
// inclusive prefix and returns (in every lane) the tile's exclusive prefix.
static __device__ __forceinline__ unsigned int resolve_tile(unsigned long long *status,
                                                            unsigned int tile,
                                                            unsigned int aggregate,
                                                            unsigned int lane) {
  if (tile == 0) {
    if (lane == 0) publish(status, 0, status_word(TILE_PREFIX, aggregate));
    return 0u;
  }
  // Publish the aggregate at once so later tiles need not wait for our look-back.
  if (lane == 0) publish(status, tile, status_word(TILE_AGGREGATE, aggregate));
  unsigned int exclusive = look_back(status, tile, lane);
  if (lane == 0) publish(status, tile, status_word(TILE_PREFIX, exclusive + aggregate));
  return exclusive;
}

// Warp w of a tile owns `rounds` * 128 consecutive elements (WARP_ITEMS in a full tile; fewer
// in step 8's first tiles) and reads them in rounds of 128: in round r lane l holds elements
// r*128 + 4l .. r*128 + 4l + 3, one 16-byte load, so each round is one fully coalesced 512-byte
// access, and every round is issued before the first is used. `full`: the warp's elements all
// exist and the arrays are 16-byte aligned; otherwise one int at a time, zeros past n. Rounds
// past `rounds` hold zeros.
static __device__ __forceinline__ void load_tile(unsigned int v[][4], const int *d_in,
                                                 unsigned int warp_base, unsigned int n,
                                                 int full, unsigned int lane, int rounds) {
  if (full) {
#pragma unroll
    for (int r = 0; r < SCAN7_VECTORS; ++r) {
      // __ldcs: a streaming load, each byte is read once (evict it first).
      int4 q = r < rounds ? __ldcs((const int4 *)(d_in + warp_base + r * 4 * WARP_SIZE) + lane)
                          : make_int4(0, 0, 0, 0);
      v[r][0] = (unsigned int)q.x, v[r][1] = (unsigned int)q.y;
      v[r][2] = (unsigned int)q.z, v[r][3] = (unsigned int)q.w;
    }
  } else {
#pragma unroll
    for (int r = 0; r < SCAN7_VECTORS; ++r) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        unsigned int i = warp_base + r * 4 * WARP_SIZE + 4 * lane + j;
        v[r][j] = r < rounds && i < n ? (unsigned int)d_in[i] : 0u;
      }
    }
  }
}

static __device__ __forceinline__ void store_tile(const unsigned int v[][4], unsigned int offset,
                                                  int *d_out, unsigned int warp_base,
                                                  unsigned int n, int full, unsigned int lane,
                                                  int rounds) {
  if (full) {
#pragma unroll
    for (int r = 0; r < SCAN7_VECTORS; ++r) {
      if (r >= rounds) break;
      int4 q = make_int4((int)(v[r][0] + offset), (int)(v[r][1] + offset),
                         (int)(v[r][2] + offset), (int)(v[r][3] + offset));
      __stcs((int4 *)(d_out + warp_base + r * 4 * WARP_SIZE) + lane, q); // streaming store
    }
  } else {
#pragma unroll
    for (int r = 0; r < SCAN7_VECTORS; ++r) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        unsigned int i = warp_base + r * 4 * WARP_SIZE + 4 * lane + j;
        if (r < rounds && i < n) d_out[i] = (int)(v[r][j] + offset);
      }
    }
  }
}

// Scans the warp's elements in place: each lane its 4 of a round in registers, one warp scan of
// the lanes' sums per round, a running carry across the rounds.
static __device__ __forceinline__ void scan_warp_items(unsigned int v[][4], unsigned int lane,
                                                       int inclusive) {
  unsigned int carry = 0;
#pragma unroll
  for (int r = 0; r < SCAN7_VECTORS; ++r) {
    unsigned int x0 = v[r][0], x1 = x0 + v[r][1], x2 = x1 + v[r][2], x3 = x2 + v[r][3];
    unsigned int lanes_incl = warp_inclusive_scan(x3, lane);
    unsigned int before = carry + lanes_incl - x3; // everything before this lane's 4 elements
    if (inclusive) {
      v[r][0] = before + x0, v[r][1] = before + x1, v[r][2] = before + x2, v[r][3] = before + x3;
    } else {
      v[r][0] = before, v[r][1] = before + x0, v[r][2] = before + x1, v[r][3] = before + x2;
    }
    carry += __shfl_sync(FULL_MASK, lanes_incl, WARP_SIZE - 1);
  }
}

// The sum of v over the warp, in every lane: one instruction (__reduce_add_sync) from sm_80 on,
// five shuffles on the older GPUs the course also builds for.
__device__ __forceinline__ unsigned int warp_total_of(unsigned int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(FULL_MASK, v, offset);
  return v;
#else
  return __reduce_add_sync(FULL_MASK, v);
#endif
}

// Step 8's additions to step 7's kernel, all zero in step 7.
// - The ramp: tiles 0 .. ramp_tiles - 1 are smaller and grow (1 + t / ramp_q int4 loads a
//   thread: 1, 1, ..., 2, 2, ..., up to SCAN7_VECTORS - 1), so the first wave of blocks, which
//   starts together, does not also load together and store together while memory idles in
//   between; full tiles start at ramp_elements.
// - The prefetch: each warp asks L2 for its part of the tile `ahead` tiles later, so that tile's
//   reads from memory happen while this block waits for its prefix and stores.
typedef struct single_pass_extras {
  unsigned int ramp_q, ramp_tiles, ramp_elements, ahead;
} single_pass_extras;

// The elements of ramp tiles 0 .. t - 1, in units of 4 * blockDim.x (one int4 a thread): the
// sum of 1 + i / q over i < t.
static __host__ __device__ __forceinline__ unsigned int ramp_units_before(unsigned int t,
                                                                         unsigned int q) {
  unsigned int k = t / q;
  return t + q * (k * (k - 1) / 2) + k * (t - k * q);
}

// Step 8's L2 prefetch, defined in step 8's part of the file (inline PTX, which the rubric
// allows there only).
static __device__ __forceinline__ void prefetch_warp_part(const int *d_in, unsigned int n,
                                                          unsigned int tile, unsigned int warp,
                                                          single_pass_extras x);

// One block per tile of SCAN7_ITEMS * blockDim.x elements (step 8's ramp tiles: fewer). The
// launch bounds say one block of 1024 threads per SM is enough (64 registers a thread), which
// the 48 elements need.
__global__ void __launch_bounds__(MAX_BLOCK_SIZE, 1)
single_pass_kernel(const int *d_in, int *d_out, unsigned int n, unsigned long long *status,
                   unsigned int *tile_counter, unsigned int tiles, int inclusive, int vector_ok,
                   single_pass_extras x) {
  __shared__ unsigned int warp_totals[MAX_BLOCK_SIZE / WARP_SIZE];
  __shared__ unsigned int tile_shared, tile_prefix_shared;
  __shared__ unsigned long long arrivals; // warps that added their total (low half), the sum
  const unsigned int lane = threadIdx.x % WARP_SIZE;
  const unsigned int warp = threadIdx.x / WARP_SIZE;

  // Tile numbers come from a counter, not blockIdx.x: CUDA does not promise to start blocks in
  // index order, and a block waiting for a tile whose block has not started could wait forever
  // while it holds the SM that block needs.
  if (threadIdx.x == 0) {
    tile_shared = atomicAdd(tile_counter, 1u);
    arrivals = 0;
  }
  __syncthreads();
  const unsigned int tile = tile_shared;
  int rounds = SCAN7_VECTORS;
  unsigned int tile_base = x.ramp_elements + (tile - x.ramp_tiles) * (blockDim.x * SCAN7_ITEMS);
  if (tile < x.ramp_tiles) {
    rounds = 1 + (int)(tile / x.ramp_q);
    tile_base = ramp_units_before(tile, x.ramp_q) * 4 * blockDim.x;
  }
  const unsigned int warp_items = (unsigned int)rounds * 4 * WARP_SIZE;
  const unsigned int warp_base = tile_base + warp * warp_items;
  const int full = vector_ok && warp_base + warp_items <= n;

  unsigned int v[SCAN7_VECTORS][4];
  load_tile(v, d_in, warp_base, n, full, lane, rounds);
  if (x.ahead != 0 && lane == 0 && tile + x.ahead < tiles && tile + x.ahead >= x.ramp_tiles)
    prefetch_warp_part(d_in, n, tile + x.ahead, warp, x);
  unsigned int mine = 0;
#pragma unroll
  for (int r = 0; r < SCAN7_VECTORS; ++r) mine += v[r][0] + v[r][1] + v[r][2] + v[r][3];

  // The tile's total is known as soon as the last warp has added its own: a shared atomic
  // counts the warps, and the last one publishes the total and looks back at once, without a
  // barrier, while the other warps scan their elements.
  const unsigned int warp_total = warp_total_of(mine);
  unsigned long long arrived = 0;
  if (lane == 0) {
    warp_totals[warp] = warp_total;
    arrived = atomicAdd(&arrivals, ((unsigned long long)warp_total << 32) | 1ull);
  }
  arrived = __shfl_sync(FULL_MASK, arrived, 0);
  if ((unsigned int)arrived == blockDim.x / WARP_SIZE - 1) {
    unsigned int aggregate = (unsigned int)(arrived >> 32) + warp_total;
    unsigned int exclusive = resolve_tile(status, tile, aggregate, lane);
    if (lane == 0) tile_prefix_shared = exclusive;
  }
  // A warp whose elements all lie past n (in the last tile only) has nothing to scan. The vote
  // makes plain that the whole warp takes the branch together, as its shuffles need.
  if (__any_sync(FULL_MASK, warp_base < n)) scan_warp_items(v, lane, inclusive);
  __syncthreads();

  // This warp's offset in the tile: the totals of the warps before it.
  const unsigned int warp_offset = warp_sum(lane < warp ? warp_totals[lane] : 0u);
  store_tile(v, tile_prefix_shared + warp_offset, d_out, warp_base, n, full, lane, rounds);
}

// Steps 7 and 8: one launch of `tiles` blocks.
static gl_status launch_single_pass(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                    int block_size, unsigned int *d_tile_counter,
                                    unsigned long long *d_status, size_t tiles,
                                    single_pass_extras x) {
  // 16-byte loads and stores need 16-byte aligned arrays (cudaMalloc gives 256).
  int vector_ok = ((uintptr_t)d_in % 16 == 0) && ((uintptr_t)d_out % 16 == 0);
  if (!vector_ok) x.ahead = 0; // a bulk prefetch needs a 16-byte aligned address
  single_pass_kernel<<<(unsigned int)tiles, block_size>>>(d_in, d_out, (unsigned int)n, d_status,
                                                           d_tile_counter, (unsigned int)tiles,
                                                           kind == SCAN_INCLUSIVE, vector_ok, x);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status scan_step7(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_tile_counter, unsigned long long *d_status, size_t tiles) {
  // The given `tiles` counts tiles of SINGLE_PASS_ITEMS; ours are larger, so there are fewer.
  tiles = ceil_div(n, SCAN7_ITEMS * (size_t)block_size);
  single_pass_extras none = {1, 0, 0, 0};
  return launch_single_pass(kind, d_in, d_out, n, block_size, d_tile_counter, d_status, tiles,
                            none);
}

// =============================================================================================
// Step 8: a staggered first wave and an L2 prefetch part of a wave ahead (bonus)
// =============================================================================================

// Lane 0 of each warp asks L2 for the warp's part of full tile `tile` (one bulk prefetch, no
// registers, nothing to wait for). sm_90 and later; elsewhere (and on the CPU backend) nothing.
static __device__ __forceinline__ void prefetch_warp_part(const int *d_in, unsigned int n,
                                                          unsigned int tile, unsigned int warp,
                                                          single_pass_extras x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned int base = x.ramp_elements + (tile - x.ramp_tiles) * (blockDim.x * SCAN7_ITEMS) +
                      warp * WARP_ITEMS;
  if (base >= n) return;
  unsigned int count = n - base < WARP_ITEMS ? (n - base) & ~3u : WARP_ITEMS; // 16-byte units
  if (count == 0) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(d_in + base), "r"(count * 4)
               : "memory");
#else
  (void)d_in, (void)n, (void)tile, (void)warp, (void)x;
#endif
}

// A ramp over 3/4 of a wave, and a prefetch 2/5 of a wave ahead (labs/scan/README.md, step 8):
// further ahead is slower on an H100 (a whole wave ahead, slower than no prefetch at all), the
// prefetched lines being evicted before their block reads them.
#define RAMP_WAVE_PERCENT 75
#define PREFETCH_WAVE_PERCENT 40

// The blocks the GPU holds at once (SMs times blocks an SM holds) and its L2 size, asked once
// for each device and block size.
static gl_status gpu_slots(int block_size, unsigned int *slots, size_t *l2_bytes) {
  static int cached_device = -1, cached_block = 0, cached_slots = 0, cached_l2 = 0;
  int device = 0;
  LAB_CHECK(cudaGetDevice(&device));
  if (device != cached_device || block_size != cached_block) {
    int sms = 0, per_sm = 0, l2 = 0;
    LAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    LAB_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    LAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, single_pass_kernel,
                                                            block_size, 0));
    cached_slots = sms * (per_sm > 0 ? per_sm : 1);
    cached_l2 = l2;
    cached_device = device, cached_block = block_size;
  }
  *slots = (unsigned int)cached_slots;
  *l2_bytes = (size_t)cached_l2;
  return GL_OK;
}

gl_status scan_step8(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_tile_counter, unsigned long long *d_status, size_t tiles) {
  const size_t reserved = tiles; // status words the given code zeroed
  const size_t tile_size = SCAN7_ITEMS * (size_t)block_size;
  unsigned int slots = 0;
  size_t l2_bytes = 0;
  GL_TRY(gpu_slots(block_size, &slots, &l2_bytes));
  single_pass_extras x = {1, 0, 0, 0};
  tiles = ceil_div(n, tile_size);

  // The ramp: SCAN7_VECTORS - 1 sizes, q tiles each, over RAMP_WAVE_PERCENT of a wave; only
  // where n is well beyond it and the status words suffice.
  unsigned int q = slots * RAMP_WAVE_PERCENT / 100 / (SCAN7_VECTORS - 1);
  if (q == 0) q = 1;
  const unsigned int ramp_tiles = q * (SCAN7_VECTORS - 1);
  const size_t ramp_elements = (size_t)ramp_units_before(ramp_tiles, q) * 4 * block_size;
  if (n > 2 * ramp_elements) {
    size_t with_ramp = ramp_tiles + ceil_div(n - ramp_elements, tile_size);
    if (with_ramp <= reserved) {
      x.ramp_q = q, x.ramp_tiles = ramp_tiles, x.ramp_elements = (unsigned int)ramp_elements;
      tiles = with_ramp;
    }
  }

  // The prefetch distance: PREFETCH_WAVE_PERCENT of a wave, and no more than a quarter of L2.
  size_t ahead = (size_t)slots * PREFETCH_WAVE_PERCENT / 100;
  const size_t tile_bytes = tile_size * sizeof(int);
  if (ahead * tile_bytes > l2_bytes / 4) ahead = l2_bytes / 4 / tile_bytes;
  x.ahead = (unsigned int)ahead;
  return launch_single_pass(kind, d_in, d_out, n, block_size, d_tile_counter, d_status, tiles, x);
}

// =============================================================================================
// scan_exclusive: the step the later labs build on
//
// scan_exclusive (what compaction and radix sort call) runs the step this returns. Step 4 is
// the first that scans any n efficiently; once step 7 passes its tests, return it (or whichever
// of your steps is fastest): ScanPerf.BestVsCub times scan_exclusive.
// =============================================================================================

scan_step scan_exclusive_step(void) { return SCAN_STEP_PREFETCH; }
