// The compaction lab: your kernels. Stream compaction, the stable split and parallel enqueue,
// from map -> scan -> scatter on your own scan to a single pass with decoupled look-back.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/compaction/compaction.h         the API the tests call
//   labs/compaction/compaction_steps.h   what each step below must define, and what it is handed
//   labs/compaction/compaction_given.cu  argument checks, scratch sizes, the dispatch to your steps
// Steps 2 and 3 call scan_exclusive() from your scan lab (labs/scan/scan.cu, also yours): a bug
// in your scan shows up here too.
//
// The handout, labs/compaction/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L compaction -R 'CompactionStep3Split\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (compaction on the CPU) is given: labs/compaction/compaction_reference.c
//   step 2   2-map-scan-scatter       map_kernel, scatter_kernel, compact_step2
//   step 3   3-split, 3-split-pairs   split_scatter_kernel, compact_step3
//   step 4a  4a-atomic                enqueue_atomic_kernel, compact_step4_atomic
//   step 4b  4b-warp-aggregated       enqueue_warp_kernel, compact_step4_warp_aggregated
//   step 4c  4c-complement            enqueue_complement_kernel, compact_step4_complement
//   step 5   5-single-pass            single_pass_kernel, compact_step5
//   step 6   6-prefetch (a bonus)     compact_step6 (step 5's kernel, ramped and prefetching)
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "scan.h"  // scan_exclusive(), from your scan lab: steps 2 and 3 call it
#include "compaction_steps.h"

// =============================================================================================
// Step 2: map -> scan -> scatter
//
// Write two kernels, one element per thread, and launch them around your scan:
//   map_kernel:     flags[i] = keeps(pred, in[i]) ? 1 : 0;
//   scan_exclusive(flags, offsets, n), your scan lab's fastest step;
//   scatter_kernel: a kept in[i] goes to out[offsets[i]]; the thread of the last element also
//                   writes the count (its offset plus its flag) to *count.
// Suggested signatures:
//   __global__ void map_kernel(compaction_pred pred, const int *in, int *flags, size_t n);
//   __global__ void scatter_kernel(const int *in, const int *flags, const int *offsets,
//                                  int *out, int *count, size_t n);
// Launch (n + block_size - 1) / block_size blocks. The scratch holds the n flags, then the n
// offsets. Check every launch with LAB_CHECK_LAUNCH() and pass on the scan's status with
// GL_TRY(): until your scan is written, its "not implemented" is what this step returns.
// =============================================================================================

// Blocks of block_size threads that cover n elements, one element per thread (steps 2 to 4).
static unsigned blocks_for(size_t n, int block_size) {
  return (unsigned)((n + (size_t)block_size - 1) / (size_t)block_size);
}

// Map: one 0/1 flag per element.
static __global__ void map_kernel(compaction_pred pred, const int *in, int *flags, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = keeps(pred, in[i]) ? 1 : 0;
}

// Scatter: offsets is the exclusive scan of flags, so a kept element's offset is its place in
// the output. The last thread also writes the count: the last offset plus the last flag.
static __global__ void scatter_kernel(const int *in, const int *flags, const int *offsets,
                                      int *out, int *count, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (flags[i]) out[offsets[i]] = in[i];
  if (i == n - 1) *count = offsets[i] + flags[i];
}

// The map and the scan shared by steps 2 and 3: flags and offsets live in the scratch.
static gl_status map_and_scan(compaction_pred pred, const int *d_in, int *flags, int *offsets,
                              size_t n, int block_size) {
  map_kernel<<<blocks_for(n, block_size), block_size>>>(pred, d_in, flags, n);
  LAB_CHECK_LAUNCH();
  return scan_exclusive(flags, offsets, n);  // the student's own scan, from the scan lab
}

gl_status compact_step2(compaction_pred pred, const int *d_in, int *d_out, int *d_count, size_t n,
                        int block_size, void *d_scratch) {
  int *flags = (int *)d_scratch;
  int *offsets = flags + n;
  GL_TRY(map_and_scan(pred, d_in, flags, offsets, n, block_size));
  scatter_kernel<<<blocks_for(n, block_size), block_size>>>(d_in, flags, offsets, d_out, d_count,
                                                            n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 3: the stable split (the thesis's kd-tree triangles)
//
// The same map and scan as step 2, then one kernel, split_scatter_kernel, where every element
// moves:
//   address = flag ? prefix : i - prefix + nf      (nf: the number kept)
// nf is offsets[n - 1] + flags[n - 1], which every thread can read. d_values and d_values_out
// are NULL for a split of keys alone (compaction_split); otherwise each value moves to its
// key's address (compaction_split_pairs). The thread of the last element writes nf to *d_count.
// Suggested signature:
//   __global__ void split_scatter_kernel(const int *keys, const int *values, const int *flags,
//                                        const int *offsets, int *keys_out, int *values_out,
//                                        int *count, size_t n);
// =============================================================================================

// address = flag ? prefix : i - prefix + nf, where nf (the number kept) is the last offset plus
// the last flag. values may be NULL (keys only).
static __global__ void split_scatter_kernel(const int *keys, const int *values, const int *flags,
                                            const int *offsets, int *keys_out, int *values_out,
                                            int *count, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  size_t nf = (size_t)offsets[n - 1] + (size_t)flags[n - 1];
  size_t prefix = (size_t)offsets[i];
  size_t address = flags[i] ? prefix : i - prefix + nf;
  keys_out[address] = keys[i];
  if (values != NULL) values_out[address] = values[i];
  if (i == n - 1) *count = (int)nf;
}

gl_status compact_step3(compaction_pred pred, const int *d_keys, const int *d_values,
                        int *d_keys_out, int *d_values_out, int *d_count, size_t n,
                        int block_size, void *d_scratch) {
  int *flags = (int *)d_scratch;
  int *offsets = flags + n;
  GL_TRY(map_and_scan(pred, d_keys, flags, offsets, n, block_size));
  split_scatter_kernel<<<blocks_for(n, block_size), block_size>>>(
      d_keys, d_values, flags, offsets, d_keys_out, d_values_out, d_count, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 4a: parallel enqueue, one atomic per element
//
// enqueue_atomic_kernel, one element per thread: out[atomicAdd(count, 1)] = in[i] for every
// kept element. *d_count is the counter and holds anything on entry: zero it with
// cudaMemsetAsync before the launch.
// Suggested signature:
//   __global__ void enqueue_atomic_kernel(compaction_pred pred, const int *in, int *out,
//                                         int *count, size_t n);
// =============================================================================================

// 4a: every kept element takes the next free slot with its own atomicAdd. The slots come out in
// whatever order the atomics happen to run in.
static __global__ void enqueue_atomic_kernel(compaction_pred pred, const int *in, int *out,
                                             int *count, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && keeps(pred, in[i])) out[atomicAdd(count, 1)] = in[i];
}

gl_status compact_step4_atomic(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                               size_t n, int block_size) {
  LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
  enqueue_atomic_kernel<<<blocks_for(n, block_size), block_size>>>(pred, d_in, d_out, d_count, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 4b: parallel enqueue, one atomic per warp
//
// enqueue_warp_kernel, one atomicAdd per warp for a run of 32 * ENQUEUE_ITEMS consecutive
// elements: item k of a lane is element run_start + 32 k + lane, one warp per run. One
// __ballot_sync per item; __popc counts and ranks (with lanes_below()); lane 0 adds the warp's
// total to the counter and __shfl_sync hands the base to every lane. Every lane takes part in
// every ballot and shuffle: a lane past n votes "no" instead of returning. As in step 4a,
// *d_count must be 0 before the kernel runs (cudaMemsetAsync).
// Suggested signature:
//   __global__ void enqueue_warp_kernel(compaction_pred pred, const int *in, int *out,
//                                       int *count, size_t n);
// =============================================================================================

// A warp's run of 32 * ENQUEUE_ITEMS consecutive elements (steps 4b and 4c; step 5 lays out its
// tiles the same way): item k of a lane is element run_start + 32 k + lane, so each load of the
// warp reads 32 consecutive ints and a ballot per item ranks the lanes in input order.
typedef struct warp_run {
  unsigned start;      // the run's first element (n <= 2^30: indices fit in 32 bits)
  unsigned remaining;  // elements of the run that exist: n - start, at most the run
} warp_run;

static __device__ warp_run this_warps_run(size_t n, unsigned items) {
  unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  warp_run run;
  run.start = warp * 32 * items;
  run.remaining = run.start < (unsigned)n ? (unsigned)n - run.start : 0;
  if (run.remaining > 32 * items) run.remaining = 32 * items;
  return run;
}

// Lanes of item k that exist: all 32, except in the last run. They are always the lowest ones.
static __device__ __forceinline__ unsigned lanes_in_item(warp_run run, unsigned k) {
  unsigned before = 32 * k;
  if (run.remaining <= before) return 0;
  return run.remaining - before >= 32 ? 32 : run.remaining - before;
}

// 4b: the warp counts its kept elements with one ballot per item, one lane reserves room for all
// of them with a single atomicAdd, and each kept lane writes at the base plus its rank. No
// lane may leave before a ballot or a shuffle: every lane of the warp takes part in them.
static __global__ void enqueue_warp_kernel(compaction_pred pred, const int *__restrict__ in,
                                           int *__restrict__ out, int *count, size_t n) {
  const unsigned lane = threadIdx.x & 31;
  const warp_run run = this_warps_run(n, ENQUEUE_ITEMS);
  const int *src = in + run.start + lane;
  int values[ENQUEUE_ITEMS];
#pragma unroll
  for (unsigned k = 0; k < ENQUEUE_ITEMS; ++k) {
    values[k] = lane < lanes_in_item(run, k) ? src[32 * k] : 0;
  }
  unsigned total = 0;
#pragma unroll
  for (unsigned k = 0; k < ENQUEUE_ITEMS; ++k) {
    bool keep = lane < lanes_in_item(run, k) && keeps(pred, values[k]);
    total += __popc(__ballot_sync(FULL_WARP, keep));
  }
  if (total == 0) return;  // the same for the whole warp
  unsigned base = 0;
  if (lane == 0) base = (unsigned)atomicAdd(count, (int)total);
  base = __shfl_sync(FULL_WARP, base, 0);
#pragma unroll
  for (unsigned k = 0; k < ENQUEUE_ITEMS; ++k) {
    bool keep = lane < lanes_in_item(run, k) && keeps(pred, values[k]);
    unsigned kept = __ballot_sync(FULL_WARP, keep);
    if (keep) out[base + __popc(kept & lanes_below())] = values[k];
    base += __popc(kept);
  }
}

// One warp per run of 32 * ENQUEUE_ITEMS elements.
gl_status compact_step4_warp_aggregated(compaction_pred pred, const int *d_in, int *d_out,
                                        int *d_count, size_t n, int block_size) {
  LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
  enqueue_warp_kernel<<<blocks_for(n, block_size * ENQUEUE_ITEMS), block_size>>>(
      pred, d_in, d_out, d_count, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 4c: two buffers with one ballot
//
// enqueue_complement_kernel, the runs of step 4b with one ballot per item: a rejected lane's
// rank is its lane number minus its rank among the kept lanes (the lanes of an item that exist
// are always the lowest ones). Kept elements go to d_kept, the rest to d_rest; d_counts[0] and
// d_counts[1] are the two atomic counters, one atomicAdd each per warp. The given code has
// already zeroed them when this is called.
// Suggested signature:
//   __global__ void enqueue_complement_kernel(compaction_pred pred, const int *in,
//                                             int *kept_out, int *rest_out, int *counts,
//                                             size_t n);
// =============================================================================================

// 4c: one ballot per item ranks both kinds of lanes. The lanes of an item that exist are the
// lowest ones, so such a lane's rank among the rejected is its lane number minus its rank among
// the kept: the complement, with no second ballot. Two atomics per warp, one per buffer.
static __global__ void enqueue_complement_kernel(compaction_pred pred, const int *__restrict__ in,
                                                 int *__restrict__ kept_out,
                                                 int *__restrict__ rest_out, int *counts,
                                                 size_t n) {
  const unsigned lane = threadIdx.x & 31;
  const warp_run run = this_warps_run(n, ENQUEUE_ITEMS);
  const int *src = in + run.start + lane;
  int values[ENQUEUE_ITEMS];
#pragma unroll
  for (unsigned k = 0; k < ENQUEUE_ITEMS; ++k) {
    values[k] = lane < lanes_in_item(run, k) ? src[32 * k] : 0;
  }
  unsigned keep_total = 0;
#pragma unroll
  for (unsigned k = 0; k < ENQUEUE_ITEMS; ++k) {
    bool keep = lane < lanes_in_item(run, k) && keeps(pred, values[k]);
    keep_total += __popc(__ballot_sync(FULL_WARP, keep));
  }
  const unsigned rest_total = run.remaining - keep_total;
  unsigned keep_base = 0, rest_base = 0;
  if (lane == 0) {
    if (keep_total > 0) keep_base = (unsigned)atomicAdd(&counts[0], (int)keep_total);
    if (rest_total > 0) rest_base = (unsigned)atomicAdd(&counts[1], (int)rest_total);
  }
  keep_base = __shfl_sync(FULL_WARP, keep_base, 0);
  rest_base = __shfl_sync(FULL_WARP, rest_base, 0);
#pragma unroll
  for (unsigned k = 0; k < ENQUEUE_ITEMS; ++k) {
    const unsigned lanes = lanes_in_item(run, k);
    bool keep = lane < lanes && keeps(pred, values[k]);
    unsigned kept = __ballot_sync(FULL_WARP, keep);
    unsigned keep_rank = __popc(kept & lanes_below());
    if (keep) {
      kept_out[keep_base + keep_rank] = values[k];
    } else if (lane < lanes) {
      rest_out[rest_base + lane - keep_rank] = values[k];
    }
    keep_base += __popc(kept);
    rest_base += lanes - __popc(kept);
  }
}

gl_status compact_step4_complement(compaction_pred pred, const int *d_in, int *d_kept,
                                   int *d_rest, int *d_counts, size_t n, int block_size) {
  enqueue_complement_kernel<<<blocks_for(n, block_size * ENQUEUE_ITEMS), block_size>>>(
      pred, d_in, d_kept, d_rest, d_counts, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 5: single-pass stable compaction
//
// One kernel, single_pass_kernel, one block per tile of block_size * SINGLE_PASS_ITEMS
// elements. The scratch starts with a tile counter (hand tiles out in launch order with
// atomicAdd, never by blockIdx.x), then one 64-bit status word per tile (flag and count in one
// word). It holds anything on entry: zero what you use with cudaMemsetAsync before the launch.
// Each block: load its tile, count and rank its kept elements (ballots), publish its count,
// stage the kept elements in shared memory, look back for the count of all earlier tiles,
// publish the inclusive count, copy the staged elements out; the last tile writes *d_count.
// The staging array holds a tile: at 1024 threads that is 64 KiB of dynamic shared memory,
// which needs cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...)
// before the launch.
// Suggested signature:
//   __global__ void single_pass_kernel(compaction_pred pred, const int *in, int *out, int *count,
//                                      size_t n, unsigned long long *status,
//                                      unsigned *tile_counter, unsigned num_tiles);
// =============================================================================================

// The reference uses tiles three times the exercise's: COMP5_ITEMS = 48 elements a thread where
// compaction_steps.h says 16 (SINGLE_PASS_ITEMS). A block that waits for its offset holds its
// tile and moves no bytes meanwhile, so on an H100 the compaction is fastest with the largest
// tile the registers hold: 48 ints and the rest of a thread's 64 registers (fewer ints a
// thread mean more tiles, each paying its wait). Its tiles are bigger, so it needs fewer of the
// status words the given scratch has room for.
#ifndef COMP5_ITEMS
#define COMP5_ITEMS 48
#endif

// Each tile publishes one 64-bit status word: a flag in the high half and a count in the low
// half, written and read as one word so that a reader never sees a flag with a stale count.
#define TILE_EMPTY 0u      // nothing published yet
#define TILE_AGGREGATE 1u  // the count of this tile alone
#define TILE_PREFIX 2u     // the count of this tile and every tile before it

static __device__ __forceinline__ void publish(unsigned long long *status, unsigned tile,
                                               unsigned flag, unsigned value) {
  volatile unsigned long long *slot = status + tile;
  *slot = ((unsigned long long)flag << 32) | value;
}

static __device__ __forceinline__ unsigned long long read_status(const unsigned long long *status,
                                                                 long long tile) {
  if (tile < 0) return (unsigned long long)TILE_PREFIX << 32;  // before the first tile: 0
  const volatile unsigned long long *slot = status + tile;
  return *slot;
}

// Warp 0 of a tile: sums the counts of all earlier tiles. Lane k looks at the tile k + 1 places
// back; the warp waits until every tile up to the nearest PREFIX has published, adds their
// counts and stops there, or adds all 32 aggregates and looks 32 tiles further back.
static __device__ unsigned look_back(const unsigned long long *status, unsigned tile) {
  const unsigned lane = threadIdx.x & 31;
  unsigned exclusive = 0;
  long long look = (long long)tile - 1;
  for (;;) {
    unsigned long long word = read_status(status, look - lane);
    unsigned prefixes, nearest;
    for (;;) {
      prefixes = __ballot_sync(FULL_WARP, (unsigned)(word >> 32) == TILE_PREFIX);
      nearest = prefixes != 0 ? (unsigned)__ffs(prefixes) - 1 : 31;
      // Tiles beyond the nearest PREFIX do not count: wait only for empty ones before it.
      bool waiting = lane <= nearest && (unsigned)(word >> 32) == TILE_EMPTY;
      if (!__any_sync(FULL_WARP, waiting)) break;
      if (waiting) word = read_status(status, look - lane);
    }
    unsigned count = lane <= nearest ? (unsigned)word : 0;
    for (int offset = 16; offset > 0; offset /= 2) {
      count += __shfl_xor_sync(FULL_WARP, count, offset);
    }
    exclusive += count;
    if (prefixes != 0) return exclusive;
    look -= 32;
  }
}

// Step 6 (below) turns on two things this kernel can do, both off in step 5: a ramp of smaller
// first tiles, and an L2 prefetch of a tile a part of a wave ahead. What a launch does is its
// shape: step 5 passes ramp_tiles = 0 and ahead = 0. The step-6 helpers are defined in step 6's
// part of the file, since the prefetch is inline PTX and the rubric allows that there only.
typedef struct single_pass_shape {
  unsigned num_tiles;      // tiles of the launch, ramp included
  unsigned ramp_q;         // tiles of each ramp size (>= 1)
  unsigned ramp_tiles;     // the ramp's tiles, RAMP_SIZES q (0: no ramp)
  unsigned ramp_elements;  // the elements they cover
  unsigned ahead;          // prefetch the tile this many tiles later (0: no prefetch)
} single_pass_shape;

static __host__ __device__ __forceinline__ unsigned ramp_items_before(unsigned t, unsigned q);
static __device__ __forceinline__ void prefetch_warp_share(const int *in, size_t n,
                                                           unsigned start);

// One block per tile, tiles handed out in launch order by an atomic counter: a tile only ever
// waits for tiles that running blocks already hold, so the wait always ends. Warp w owns the
// tile's w-th run of 32 * COMP5_ITEMS elements; its k-th load covers 32 consecutive elements,
// so every load is coalesced and ballots rank the kept lanes in input order. The launch bounds
// say one block of 1024 threads per SM is enough (64 registers a thread), which 48 items need.
// A ramp tile has fewer items a thread (cap): its warps' runs are 32 * cap elements.
static __global__ void __launch_bounds__(1024, 1)
single_pass_kernel(compaction_pred pred, const int *__restrict__ in, int *__restrict__ out,
                   int *count, size_t n, unsigned long long *status, unsigned *tile_counter,
                   single_pass_shape shape) {
  extern __shared__ int staged[];  // this tile's kept elements, in order
  __shared__ unsigned warp_counts[32];
  __shared__ unsigned tile_id, tile_offset;

  const int lane = (int)(threadIdx.x & 31);
  const int warp = (int)(threadIdx.x >> 5);
  const int num_warps = (int)(blockDim.x >> 5);
  if (threadIdx.x == 0) tile_id = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned tile = tile_id;
  const unsigned full_tile = blockDim.x * COMP5_ITEMS;
  // n <= COMPACTION_MAX_N = 2^30, so element indices fit in 32 bits.
  unsigned cap = COMP5_ITEMS;  // items a thread in this tile
  unsigned tile_start = shape.ramp_elements + (tile - shape.ramp_tiles) * full_tile;
  if (tile < shape.ramp_tiles) {
    cap = 4 * (1 + tile / shape.ramp_q);
    tile_start = ramp_items_before(tile, shape.ramp_q) * blockDim.x;
  }
  const unsigned first = tile_start + (unsigned)warp * 32 * cap + (unsigned)lane;
  const int *src = in + first;  // item k is src[32 * k]
  // Items in range: all of them (cap), except in the last tile.
  const unsigned remaining = first < (unsigned)n ? (unsigned)n - first : 0;
  const unsigned items = remaining >= 32 * cap ? cap : (remaining + 31) / 32;

  // Load every item first, so that all of the tile's reads are in flight together.
  int values[COMP5_ITEMS];
#pragma unroll
  for (unsigned k = 0; k < COMP5_ITEMS; ++k) values[k] = k < items ? src[32 * k] : 0;
  // Step 6: with the loads issued, ask the L2 for this warp's share of a later (full) tile, so
  // that its bytes arrive while this block counts, waits for its offset and writes.
  const unsigned later = tile + shape.ahead;
  if (shape.ahead != 0 && lane == 0 && later >= shape.ramp_tiles && later < shape.num_tiles) {
    prefetch_warp_share(in, n, shape.ramp_elements + (later - shape.ramp_tiles) * full_tile +
                                   (unsigned)warp * 32 * COMP5_ITEMS);
  }
  unsigned warp_count = 0;
#pragma unroll
  for (unsigned k = 0; k < COMP5_ITEMS; ++k) {
    warp_count += __popc(__ballot_sync(FULL_WARP, k < items && keeps(pred, values[k])));
  }
  if (lane == 0) warp_counts[warp] = warp_count;
  __syncthreads();

  unsigned warp_offset = 0, tile_count = 0;
  for (int w = 0; w < num_warps; ++w) {
    unsigned c = warp_counts[w];
    if (w < warp) warp_offset += c;
    tile_count += c;
  }

  // Publish this tile's count at once, so that later tiles can use it while we look back.
  if (threadIdx.x == 0) publish(status, tile, tile == 0 ? TILE_PREFIX : TILE_AGGREGATE, tile_count);

  // Stage the kept elements in tile order (the ballots again: cheaper than keeping masks).
  unsigned rank = warp_offset;
#pragma unroll
  for (unsigned k = 0; k < COMP5_ITEMS; ++k) {
    bool keep = k < items && keeps(pred, values[k]);
    unsigned kept = __ballot_sync(FULL_WARP, keep);
    if (keep) staged[rank + __popc(kept & lanes_below())] = values[k];
    rank += __popc(kept);
  }

  if (warp == 0) {
    unsigned exclusive = tile == 0 ? 0 : look_back(status, tile);
    if (lane == 0) {
      if (tile != 0) publish(status, tile, TILE_PREFIX, exclusive + tile_count);
      tile_offset = exclusive;
    }
  }
  __syncthreads();

  // Coalesced copy of the staged elements to their place in the output.
  const unsigned offset = tile_offset;
  int *dst = out + offset;
  for (unsigned j = threadIdx.x; j < tile_count; j += blockDim.x) dst[j] = staged[j];
  if (tile == shape.num_tiles - 1 && threadIdx.x == 0) *count = (int)(offset + tile_count);
}

// The kernel's shared memory (a tile's staging array), and the opt-in above 48 KiB: a block may
// use 48 KiB, its static words included, unless the kernel asks for more. A tile of 48 ints a
// thread needs 48 KiB at 256 threads, 192 KiB at 1024.
static gl_status single_pass_shared(int block_size, size_t *shared_bytes) {
  *shared_bytes = (size_t)block_size * COMP5_ITEMS * sizeof(int);
  if (*shared_bytes + 1024 > 48 * 1024) {
    LAB_CHECK(cudaFuncSetAttribute(single_pass_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)*shared_bytes));
  }
  return GL_OK;
}

// Steps 5 and 6: one memset, one launch of the given shape.
static gl_status single_pass_launch(compaction_pred pred, const int *d_in, int *d_out,
                                    int *d_count, size_t n, int block_size, void *d_scratch,
                                    size_t shared_bytes, single_pass_shape shape) {
  unsigned *tile_counter = (unsigned *)d_scratch;
  unsigned long long *status = (unsigned long long *)d_scratch + 1;
  // Every status starts EMPTY and the counter at 0: one memset, in stream order.
  LAB_CHECK(cudaMemsetAsync(d_scratch, 0, sizeof(unsigned long long) * (1 + shape.num_tiles)));
  single_pass_kernel<<<shape.num_tiles, block_size, shared_bytes>>>(pred, d_in, d_out, d_count, n,
                                                                    status, tile_counter, shape);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status compact_step5(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                        size_t n, int block_size, void *d_scratch) {
  size_t shared_bytes = 0;
  GL_TRY(single_pass_shared(block_size, &shared_bytes));
  single_pass_shape shape;  // equal tiles, no prefetch
  shape.num_tiles = (unsigned)single_pass_tiles(n, (size_t)block_size * COMP5_ITEMS);
  shape.ramp_q = 1;
  shape.ramp_tiles = 0;
  shape.ramp_elements = 0;
  shape.ahead = 0;
  return single_pass_launch(pred, d_in, d_out, d_count, n, block_size, d_scratch, shared_bytes,
                            shape);
}

// =============================================================================================
// Step 6: prefetch a part of a wave ahead (a bonus)
//
// Step 5's kernel, launched with a ramp and an L2 prefetch (the kernel and its shape are in
// step 5; the device helpers they need are here).
// =============================================================================================

// The ramp: tiles of 4, 8, ..., COMP5_ITEMS - 4 items a thread, q tiles of each size.
#define RAMP_SIZES (COMP5_ITEMS / 4 - 1)
#if COMP5_ITEMS % 4 != 0 || COMP5_ITEMS < 8
#error "step 6's ramp needs COMP5_ITEMS a multiple of 4, at least 8"
#endif
// Its length, in % of a wave of blocks (SMs x blocks an SM holds): long enough that the first
// blocks free their slots one after another, short enough that few small tiles pay a wait.
#define RAMP_WAVE_PERCENT 75
// Prefetch the tile this far ahead, in % of a wave: far enough that its bytes arrive while this
// block waits, near enough that L2 still holds them when their block reads them (half a wave
// ahead is slower than no prefetch on an H100: the lines are evicted first).
#define PREFETCH_WAVE_PERCENT 25

// Ramp tile t has 4 (1 + t / q) items a thread: the items a thread of all ramp tiles before it,
// in closed form. With k = t / q: q tiles each of 4, 8, ..., 4k items, then t - kq of 4 (k + 1).
static __host__ __device__ __forceinline__ unsigned ramp_items_before(unsigned t, unsigned q) {
  unsigned k = t / q;
  return 4 * (q * (k * (k + 1) / 2) + (k + 1) * (t - k * q));
}

// Lane 0 of a warp: ask the L2 for the warp's share of a later tile, 32 * COMP5_ITEMS elements
// from `start`, clamped to n. The bulk prefetch wants a 16-byte aligned address and a multiple
// of 16 bytes: the share is cut to whole 4-int groups, and an unaligned input is not
// prefetched (every share then starts unaligned). sm_90 and newer; a no-op elsewhere and on
// the CPU backend, which compiles no __CUDA_ARCH__.
static __device__ __forceinline__ void prefetch_warp_share(const int *in, size_t n,
                                                           unsigned start) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (start >= (unsigned)n || ((uintptr_t)(in + start) & 15) != 0) return;
  unsigned ints = (unsigned)n - start;
  if (ints > 32 * COMP5_ITEMS) ints = 32 * COMP5_ITEMS;
  ints &= ~3u;
  if (ints == 0) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + start), "r"(ints * 4)
               : "memory");
#else
  (void)in, (void)n, (void)start;
#endif
}

// The ramp's q and the prefetch distance depend on the GPU and the block size only: worked out
// once per (device, block size) and kept, so that a call does not ask the driver each time.
typedef struct step6_numbers {
  int known;
  unsigned ramp_q, ahead;
} step6_numbers;

static gl_status step6_numbers_for(int block_size, size_t shared_bytes, step6_numbers *out) {
  enum { DEVICES = 16, BLOCK_SIZES = 6 };  // block sizes 32 .. 1024
  static step6_numbers cache[DEVICES][BLOCK_SIZES];
  int device = 0;
  LAB_CHECK(cudaGetDevice(&device));
  int b = 0;
  while ((32 << b) < block_size) ++b;
  step6_numbers *slot = device >= 0 && device < DEVICES ? &cache[device][b] : NULL;
  if (slot != NULL && slot->known) {
    *out = *slot;
    return GL_OK;
  }
  int sms = 0, per_sm = 0, l2_bytes = 0;
  LAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LAB_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  LAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, single_pass_kernel, block_size,
                                                          shared_bytes));
  if (per_sm < 1) per_sm = 1;
  const unsigned wave = (unsigned)sms * (unsigned)per_sm;  // blocks running at once
  step6_numbers numbers;
  numbers.known = 1;
  // The ramp: 75% of a wave, in RAMP_SIZES sizes of q tiles each.
  numbers.ramp_q = wave * RAMP_WAVE_PERCENT / 100 / RAMP_SIZES;
  if (numbers.ramp_q == 0) numbers.ramp_q = 1;
  // The prefetch: 25% of a wave ahead, and the tiles in flight at most a quarter of the L2, so
  // that a GPU with a small L2 does not evict what it prefetched before it is read.
  const size_t tile_bytes = (size_t)block_size * COMP5_ITEMS * sizeof(int);
  size_t ahead = (size_t)wave * PREFETCH_WAVE_PERCENT / 100;
  const size_t l2_bound = l2_bytes > 0 ? (size_t)l2_bytes / 4 / tile_bytes : 0;
  if (ahead > l2_bound) ahead = l2_bound;
  numbers.ahead = (unsigned)ahead;
  if (slot != NULL) *slot = numbers;
  *out = numbers;
  return GL_OK;
}

gl_status compact_step6(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                        size_t n, int block_size, void *d_scratch) {
  size_t shared_bytes = 0;
  GL_TRY(single_pass_shared(block_size, &shared_bytes));
  step6_numbers numbers = {0, 1, 0};
  GL_TRY(step6_numbers_for(block_size, shared_bytes, &numbers));
  const size_t tile_size = (size_t)block_size * COMP5_ITEMS;
  single_pass_shape shape;
  shape.num_tiles = (unsigned)single_pass_tiles(n, tile_size);
  shape.ramp_q = 1;
  shape.ramp_tiles = 0;
  shape.ramp_elements = 0;
  shape.ahead = numbers.ahead;
  // The ramp, where the array is more than twice as long as it. The first wave of equal tiles
  // would load, wait for its offsets and store in lock-step, leaving the memory idle between;
  // tiles that grow make the first blocks finish one after another, and the waves after them
  // stay staggered. Its smaller tiles must still fit the scratch's status words.
  const unsigned q = numbers.ramp_q;
  const size_t ramp_elements = (size_t)ramp_items_before(q * RAMP_SIZES, q) * block_size;
  if (n > 2 * ramp_elements) {
    const size_t tiles = (size_t)q * RAMP_SIZES + single_pass_tiles(n - ramp_elements, tile_size);
    if (tiles <= single_pass_tiles(n, SINGLE_PASS_SMALLEST_TILE)) {
      shape.num_tiles = (unsigned)tiles;
      shape.ramp_q = q;
      shape.ramp_tiles = q * RAMP_SIZES;
      shape.ramp_elements = (unsigned)ramp_elements;
    }
  }
  return single_pass_launch(pred, d_in, d_out, d_count, n, block_size, d_scratch, shared_bytes,
                            shape);
}
