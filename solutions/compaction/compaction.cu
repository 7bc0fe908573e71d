/* The compaction lab, reference solution. The handout (docs/labs/compaction.md) explains each
 * step; this file follows its order. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "compaction.h"
#include "gpulabs/check.h"
#include "scan.h"

/* ------------------------------------------------------------------------------------------ */
/* Given plumbing: names, argument checks, scratch sizes.                                      */
/* ------------------------------------------------------------------------------------------ */

#define DEFAULT_BLOCK_SIZE 256
#define FULL_WARP 0xffffffffu

/* Step 5 works on tiles of blockDim.x * SINGLE_PASS_ITEMS elements, each thread holding its
 * items in registers. If you change it, compaction_scratch_bytes() follows. */
#define SINGLE_PASS_ITEMS 16
#define SINGLE_PASS_SMALLEST_TILE (32 * SINGLE_PASS_ITEMS)

/* Steps 4b and 4c: elements per lane, so that one atomic serves 32 * ENQUEUE_ITEMS elements. */
#define ENQUEUE_ITEMS 16

static const char *const step_names[COMPACTION_STEP_COUNT] = {
    "2-map-scan-scatter", "3-split",       "3-split-pairs", "4a-atomic",
    "4b-warp-aggregated", "4c-complement", "5-single-pass"};
static const int step_numbers[COMPACTION_STEP_COUNT] = {2, 3, 3, 4, 4, 4, 5};
static const int step_stable[COMPACTION_STEP_COUNT] = {1, 1, 1, 0, 0, 0, 1};

static int step_is_known(compaction_step step) {
  return (int)step >= 0 && (int)step < COMPACTION_STEP_COUNT;
}

extern "C" const char *compaction_step_name(compaction_step step) {
  return step_is_known(step) ? step_names[step] : "unknown";
}

extern "C" int compaction_step_number(compaction_step step) {
  return step_is_known(step) ? step_numbers[step] : 0;
}

extern "C" int compaction_step_is_stable(compaction_step step) {
  return step_is_known(step) ? step_stable[step] : 0;
}

static size_t single_pass_tiles(size_t n, size_t tile_size) {
  return (n + tile_size - 1) / tile_size;
}

extern "C" size_t compaction_scratch_bytes(compaction_step step, size_t n) {
  switch (step) {
    case COMPACTION_STEP_MAP_SCAN_SCATTER:
    case COMPACTION_STEP_SPLIT:
    case COMPACTION_STEP_SPLIT_PAIRS:
      return 2 * n * sizeof(int); /* flags, then their exclusive scan */
    case COMPACTION_STEP_SINGLE_PASS:
      /* A tile counter, then one status word per tile (smallest tiles: any block size). */
      return sizeof(unsigned long long) * (1 + single_pass_tiles(n, SINGLE_PASS_SMALLEST_TILE));
    default:
      return 0;
  }
}

static int ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a_bytes > 0 && b_bytes > 0 && a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

static gl_status check_pred(const char *fn, compaction_pred pred) {
  if (pred.rule != COMPACTION_KEEP_NONZERO && pred.rule != COMPACTION_KEEP_BELOW) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: pred.rule %d is neither COMPACTION_KEEP_NONZERO nor COMPACTION_KEEP_BELOW",
                   fn, (int)pred.rule);
  }
  return GL_OK;
}

static gl_status check_n_and_block(const char *fn, size_t n, int *block_size) {
  if (n > COMPACTION_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds COMPACTION_MAX_N = %zu", fn, n,
                   COMPACTION_MAX_N);
  }
  if (*block_size == 0) *block_size = DEFAULT_BLOCK_SIZE;
  int b = *block_size;
  if (b < 32 || b > 1024 || (b & (b - 1)) != 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: block_size %d is not 0 or a power of two in [32, 1024]", fn, b);
  }
  return GL_OK;
}

static gl_status check_pointer(const char *fn, const char *name, const void *ptr) {
  if (ptr == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: %s is NULL", fn, name);
  return GL_OK;
}

static gl_status check_scratch(const char *fn, compaction_step step, size_t n, void *d_scratch,
                               size_t scratch_bytes) {
  size_t needed = compaction_scratch_bytes(step, n);
  if (needed == 0) return GL_OK;
  GL_TRY(check_pointer(fn, "d_scratch", d_scratch));
  if ((uintptr_t)d_scratch % sizeof(unsigned long long) != 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: d_scratch %p is not 8-byte aligned", fn,
                   d_scratch);
  }
  if (scratch_bytes < needed) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: scratch_bytes %zu is less than compaction_scratch_bytes(%s, %zu) = %zu",
                   fn, scratch_bytes, compaction_step_name(step), n, needed);
  }
  return GL_OK;
}

static gl_status check_disjoint(const char *fn, const char *a_name, const void *a,
                                const char *b_name, const void *b, size_t bytes) {
  if (ranges_overlap(a, bytes, b, bytes)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: %s and %s overlap", fn, a_name, b_name);
  }
  return GL_OK;
}

/* Blocks of block_size threads that cover n elements, one element per thread. */
static unsigned blocks_for(size_t n, int block_size) {
  return (unsigned)((n + (size_t)block_size - 1) / (size_t)block_size);
}

/* The predicate, for every kernel you write. */
__device__ __forceinline__ bool keeps(compaction_pred pred, int x) {
  return pred.rule == COMPACTION_KEEP_BELOW ? x < pred.threshold : x != 0;
}

/* Bits of the lanes below this one: popc(mask & lanes_below()) ranks a lane among the set
 * lanes of a ballot. */
__device__ __forceinline__ unsigned lanes_below(void) {
  return (1u << (threadIdx.x & 31)) - 1u;
}

/* ------------------------------------------------------------------------------------------ */
/* Step 2: map -> scan -> scatter.                                                             */
/* ------------------------------------------------------------------------------------------ */

/* Map: one 0/1 flag per element. */
static __global__ void map_kernel(compaction_pred pred, const int *in, int *flags, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = keeps(pred, in[i]) ? 1 : 0;
}

/* Scatter: offsets is the exclusive scan of flags, so a kept element's offset is its place in
 * the output. The last thread also writes the count: the last offset plus the last flag. */
static __global__ void scatter_kernel(const int *in, const int *flags, const int *offsets,
                                      int *out, int *count, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (flags[i]) out[offsets[i]] = in[i];
  if (i == n - 1) *count = offsets[i] + flags[i];
}

/* The map and the scan shared by steps 2 and 3: flags and offsets live in the scratch. */
static gl_status map_and_scan(compaction_pred pred, const int *d_in, int *flags, int *offsets,
                              size_t n, int block_size) {
  map_kernel<<<blocks_for(n, block_size), block_size>>>(pred, d_in, flags, n);
  LAB_CHECK_LAUNCH();
  return scan_exclusive(flags, offsets, n); /* the student's own scan, from the scan lab */
}

static gl_status compact_map_scan_scatter(compaction_pred pred, const int *d_in, int *d_out,
                                          int *d_count, size_t n, int block_size,
                                          void *d_scratch) {
  int *flags = (int *)d_scratch;
  int *offsets = flags + n;
  GL_TRY(map_and_scan(pred, d_in, flags, offsets, n, block_size));
  scatter_kernel<<<blocks_for(n, block_size), block_size>>>(d_in, flags, offsets, d_out, d_count,
                                                            n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Step 3: stable split (the thesis's kd-tree triangles).                                      */
/* ------------------------------------------------------------------------------------------ */

/* address = flag ? prefix : i - prefix + nf, where nf (the number kept) is the last offset plus
 * the last flag. values may be NULL (keys only). */
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

static gl_status split_any(compaction_pred pred, const int *d_keys, const int *d_values,
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

/* ------------------------------------------------------------------------------------------ */
/* Step 4: parallel enqueue with atomics.                                                      */
/* ------------------------------------------------------------------------------------------ */

/* 4a: every kept element takes the next free slot with its own atomicAdd. The slots come out in
 * whatever order the atomics happen to run in. */
static __global__ void enqueue_atomic_kernel(compaction_pred pred, const int *in, int *out,
                                             int *count, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && keeps(pred, in[i])) out[atomicAdd(count, 1)] = in[i];
}

/* A warp's run of 32 * ENQUEUE_ITEMS consecutive elements (steps 4b and 4c; step 5 lays out its
 * tiles the same way): item k of a lane is element run_start + 32 k + lane, so each load of the
 * warp reads 32 consecutive ints and a ballot per item ranks the lanes in input order. */
typedef struct warp_run {
  unsigned start;     /* the run's first element (n <= 2^30: indices fit in 32 bits) */
  unsigned remaining; /* elements of the run that exist: n - start, at most the run */
} warp_run;

static __device__ warp_run this_warps_run(size_t n, unsigned items) {
  unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  warp_run run;
  run.start = warp * 32 * items;
  run.remaining = run.start < (unsigned)n ? (unsigned)n - run.start : 0;
  if (run.remaining > 32 * items) run.remaining = 32 * items;
  return run;
}

/* Lanes of item k that exist: all 32, except in the last run. They are always the lowest ones. */
static __device__ __forceinline__ unsigned lanes_in_item(warp_run run, unsigned k) {
  unsigned before = 32 * k;
  if (run.remaining <= before) return 0;
  return run.remaining - before >= 32 ? 32 : run.remaining - before;
}

/* 4b: the warp counts its kept elements with one ballot per item, one lane reserves room for all
 * of them with a single atomicAdd, and each kept lane writes at the base plus its rank. No
 * lane may leave before a ballot or a shuffle: every lane of the warp takes part in them. */
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
  if (total == 0) return; /* the same for the whole warp */
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

/* 4c: one ballot per item ranks both kinds of lanes. The lanes of an item that exist are the
 * lowest ones, so such a lane's rank among the rejected is its lane number minus its rank among
 * the kept: the complement, with no second ballot. Two atomics per warp, one per buffer. */
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

static gl_status compact_enqueue(compaction_step step, compaction_pred pred, const int *d_in,
                                 int *d_out, int *d_count, size_t n, int block_size) {
  LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
  if (step == COMPACTION_STEP_ATOMIC) {
    enqueue_atomic_kernel<<<blocks_for(n, block_size), block_size>>>(pred, d_in, d_out, d_count,
                                                                     n);
  } else {
    /* One warp per run of 32 * ENQUEUE_ITEMS elements. */
    enqueue_warp_kernel<<<blocks_for(n, block_size * ENQUEUE_ITEMS), block_size>>>(
        pred, d_in, d_out, d_count, n);
  }
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

/* The counters are already zeroed when this is called. */
static gl_status complement_enqueue(compaction_pred pred, const int *d_in, int *d_kept,
                                    int *d_rest, int *d_counts, size_t n, int block_size) {
  enqueue_complement_kernel<<<blocks_for(n, block_size * ENQUEUE_ITEMS), block_size>>>(
      pred, d_in, d_kept, d_rest, d_counts, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Step 5: single-pass stable compaction with decoupled look-back.                             */
/* ------------------------------------------------------------------------------------------ */

/* Each tile publishes one 64-bit status word: a flag in the high half and a count in the low
 * half, written and read as one word so that a reader never sees a flag with a stale count. */
#define TILE_EMPTY 0u     /* nothing published yet */
#define TILE_AGGREGATE 1u /* the count of this tile alone */
#define TILE_PREFIX 2u    /* the count of this tile and every tile before it */

static __device__ __forceinline__ void publish(unsigned long long *status, unsigned tile,
                                               unsigned flag, unsigned value) {
  volatile unsigned long long *slot = status + tile;
  *slot = ((unsigned long long)flag << 32) | value;
}

static __device__ __forceinline__ unsigned long long read_status(const unsigned long long *status,
                                                                 long long tile) {
  if (tile < 0) return (unsigned long long)TILE_PREFIX << 32; /* before the first tile: 0 */
  const volatile unsigned long long *slot = status + tile;
  return *slot;
}

/* Warp 0 of a tile: sums the counts of all earlier tiles. Lane k looks at tile (look - k); the
 * warp waits until all 32 have published, adds the counts up to the nearest PREFIX and stops
 * there, or adds all 32 aggregates and looks 32 tiles further back. */
static __device__ unsigned look_back(const unsigned long long *status, unsigned tile) {
  int lane = (int)(threadIdx.x & 31);
  unsigned exclusive = 0;
  long long look = (long long)tile - 1;
  for (;;) {
    unsigned long long word;
    do {
      word = read_status(status, look - lane);
    } while (__any_sync(FULL_WARP, (unsigned)(word >> 32) == TILE_EMPTY));
    unsigned flag = (unsigned)(word >> 32);
    unsigned count = (unsigned)word;
    unsigned prefixes = __ballot_sync(FULL_WARP, flag == TILE_PREFIX);
    /* Lanes past the nearest PREFIX would count tiles that it already includes. */
    if (prefixes != 0 && lane > __ffs(prefixes) - 1) count = 0;
    for (int offset = 16; offset > 0; offset /= 2) {
      count += __shfl_xor_sync(FULL_WARP, count, offset);
    }
    exclusive += count;
    if (prefixes != 0) return exclusive;
    look -= 32;
  }
}

/* One block per tile, tiles handed out in launch order by an atomic counter: a tile only ever
 * waits for tiles that running blocks already hold, so the wait always ends. Warp w owns the
 * tile's w-th run of 32 * SINGLE_PASS_ITEMS elements; its k-th load covers 32 consecutive
 * elements, so every load is coalesced and ballots rank the kept lanes in input order. */
static __global__ void single_pass_kernel(compaction_pred pred, const int *__restrict__ in,
                                          int *__restrict__ out, int *count, size_t n,
                                          unsigned long long *status, unsigned *tile_counter,
                                          unsigned num_tiles) {
  extern __shared__ int staged[]; /* this tile's kept elements, in order */
  __shared__ unsigned warp_counts[32];
  __shared__ unsigned tile_id, tile_offset;

  const int lane = (int)(threadIdx.x & 31);
  const int warp = (int)(threadIdx.x >> 5);
  const int num_warps = (int)(blockDim.x >> 5);
  if (threadIdx.x == 0) tile_id = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned tile = tile_id;
  /* n <= COMPACTION_MAX_N = 2^30, so element indices fit in 32 bits. */
  const unsigned tile_start = tile * blockDim.x * SINGLE_PASS_ITEMS;
  const unsigned first = tile_start + (unsigned)warp * 32 * SINGLE_PASS_ITEMS + (unsigned)lane;
  const int *src = in + first; /* item k is src[32 * k] */
  /* Items in range: all of them, except in the last tile. */
  const unsigned remaining = first < (unsigned)n ? (unsigned)n - first : 0;
  const unsigned items = remaining >= 32 * SINGLE_PASS_ITEMS ? SINGLE_PASS_ITEMS
                                                             : (remaining + 31) / 32;

  /* Load every item first, so that all of the tile's reads are in flight together. */
  int values[SINGLE_PASS_ITEMS];
#pragma unroll
  for (unsigned k = 0; k < SINGLE_PASS_ITEMS; ++k) values[k] = k < items ? src[32 * k] : 0;
  unsigned warp_count = 0;
#pragma unroll
  for (unsigned k = 0; k < SINGLE_PASS_ITEMS; ++k) {
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

  /* Publish this tile's count at once, so that later tiles can use it while we look back. */
  if (threadIdx.x == 0) publish(status, tile, tile == 0 ? TILE_PREFIX : TILE_AGGREGATE, tile_count);

  /* Stage the kept elements in tile order (the ballots again: cheaper than keeping masks). */
  unsigned rank = warp_offset;
#pragma unroll
  for (unsigned k = 0; k < SINGLE_PASS_ITEMS; ++k) {
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

  /* Coalesced copy of the staged elements to their place in the output. */
  const unsigned offset = tile_offset;
  int *dst = out + offset;
  for (unsigned j = threadIdx.x; j < tile_count; j += blockDim.x) dst[j] = staged[j];
  if (tile == num_tiles - 1 && threadIdx.x == 0) *count = (int)(offset + tile_count);
}

static gl_status compact_single_pass(compaction_pred pred, const int *d_in, int *d_out,
                                     int *d_count, size_t n, int block_size, void *d_scratch) {
  const size_t tile_size = (size_t)block_size * SINGLE_PASS_ITEMS;
  const size_t num_tiles = single_pass_tiles(n, tile_size);
  unsigned *tile_counter = (unsigned *)d_scratch;
  unsigned long long *status = (unsigned long long *)d_scratch + 1;
  /* Every status starts EMPTY and the counter at 0: one memset, in stream order. */
  LAB_CHECK(cudaMemsetAsync(d_scratch, 0, sizeof(unsigned long long) * (1 + num_tiles)));
  const size_t shared_bytes = tile_size * sizeof(int);
  if (shared_bytes > 48 * 1024) {
    /* Tiles of 1024 threads need 64 KiB: more than a block may use without opting in. */
    LAB_CHECK(cudaFuncSetAttribute(single_pass_kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes));
  }
  single_pass_kernel<<<(unsigned)num_tiles, block_size, shared_bytes>>>(
      pred, d_in, d_out, d_count, n, status, tile_counter, (unsigned)num_tiles);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The public calls.                                                                           */
/* ------------------------------------------------------------------------------------------ */

extern "C" gl_status compaction_compact(compaction_step step, compaction_pred pred,
                                        const int *d_in, int *d_out, int *d_count, size_t n,
                                        int block_size, void *d_scratch, size_t scratch_bytes) {
  const char *fn = "compaction_compact";
  if (step != COMPACTION_STEP_MAP_SCAN_SCATTER && step != COMPACTION_STEP_ATOMIC &&
      step != COMPACTION_STEP_WARP_AGGREGATED && step != COMPACTION_STEP_SINGLE_PASS) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: step %d (%s) is not a compaction (2-map-scan-scatter, 4a-atomic, "
                   "4b-warp-aggregated or 5-single-pass)",
                   fn, (int)step, compaction_step_name(step));
  }
  GL_TRY(check_pred(fn, pred));
  GL_TRY(check_pointer(fn, "d_in", d_in));
  GL_TRY(check_pointer(fn, "d_out", d_out));
  GL_TRY(check_pointer(fn, "d_count", d_count));
  GL_TRY(check_n_and_block(fn, n, &block_size));
  GL_TRY(check_scratch(fn, step, n, d_scratch, scratch_bytes));
  GL_TRY(check_disjoint(fn, "d_in", d_in, "d_out", d_out, n * sizeof(int)));
  if (n == 0) {
    LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
    return GL_OK;
  }
  switch (step) {
    case COMPACTION_STEP_MAP_SCAN_SCATTER:
      return compact_map_scan_scatter(pred, d_in, d_out, d_count, n, block_size, d_scratch);
    case COMPACTION_STEP_SINGLE_PASS:
      return compact_single_pass(pred, d_in, d_out, d_count, n, block_size, d_scratch);
    default:
      return compact_enqueue(step, pred, d_in, d_out, d_count, n, block_size);
  }
}

extern "C" gl_status compaction_split(compaction_pred pred, const int *d_in, int *d_out,
                                      int *d_count, size_t n, int block_size, void *d_scratch,
                                      size_t scratch_bytes) {
  const char *fn = "compaction_split";
  GL_TRY(check_pred(fn, pred));
  GL_TRY(check_pointer(fn, "d_in", d_in));
  GL_TRY(check_pointer(fn, "d_out", d_out));
  GL_TRY(check_pointer(fn, "d_count", d_count));
  GL_TRY(check_n_and_block(fn, n, &block_size));
  GL_TRY(check_scratch(fn, COMPACTION_STEP_SPLIT, n, d_scratch, scratch_bytes));
  GL_TRY(check_disjoint(fn, "d_in", d_in, "d_out", d_out, n * sizeof(int)));
  if (n == 0) {
    LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
    return GL_OK;
  }
  return split_any(pred, d_in, NULL, d_out, NULL, d_count, n, block_size, d_scratch);
}

extern "C" gl_status compaction_split_pairs(compaction_pred pred, const int *d_keys_in,
                                            const int *d_values_in, int *d_keys_out,
                                            int *d_values_out, int *d_count, size_t n,
                                            int block_size, void *d_scratch,
                                            size_t scratch_bytes) {
  const char *fn = "compaction_split_pairs";
  const size_t bytes = n * sizeof(int);
  GL_TRY(check_pred(fn, pred));
  GL_TRY(check_pointer(fn, "d_keys_in", d_keys_in));
  GL_TRY(check_pointer(fn, "d_values_in", d_values_in));
  GL_TRY(check_pointer(fn, "d_keys_out", d_keys_out));
  GL_TRY(check_pointer(fn, "d_values_out", d_values_out));
  GL_TRY(check_pointer(fn, "d_count", d_count));
  GL_TRY(check_n_and_block(fn, n, &block_size));
  GL_TRY(check_scratch(fn, COMPACTION_STEP_SPLIT_PAIRS, n, d_scratch, scratch_bytes));
  GL_TRY(check_disjoint(fn, "d_keys_in", d_keys_in, "d_keys_out", d_keys_out, bytes));
  GL_TRY(check_disjoint(fn, "d_keys_in", d_keys_in, "d_values_out", d_values_out, bytes));
  GL_TRY(check_disjoint(fn, "d_values_in", d_values_in, "d_keys_out", d_keys_out, bytes));
  GL_TRY(check_disjoint(fn, "d_values_in", d_values_in, "d_values_out", d_values_out, bytes));
  GL_TRY(check_disjoint(fn, "d_keys_out", d_keys_out, "d_values_out", d_values_out, bytes));
  if (n == 0) {
    LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
    return GL_OK;
  }
  return split_any(pred, d_keys_in, d_values_in, d_keys_out, d_values_out, d_count, n, block_size,
                   d_scratch);
}

extern "C" gl_status compaction_enqueue_complement(compaction_pred pred, const int *d_in,
                                                   int *d_kept, int *d_rest, int *d_counts,
                                                   size_t n, int block_size) {
  const char *fn = "compaction_enqueue_complement";
  const size_t bytes = n * sizeof(int);
  GL_TRY(check_pred(fn, pred));
  GL_TRY(check_pointer(fn, "d_in", d_in));
  GL_TRY(check_pointer(fn, "d_kept", d_kept));
  GL_TRY(check_pointer(fn, "d_rest", d_rest));
  GL_TRY(check_pointer(fn, "d_counts", d_counts));
  GL_TRY(check_n_and_block(fn, n, &block_size));
  GL_TRY(check_disjoint(fn, "d_in", d_in, "d_kept", d_kept, bytes));
  GL_TRY(check_disjoint(fn, "d_in", d_in, "d_rest", d_rest, bytes));
  GL_TRY(check_disjoint(fn, "d_kept", d_kept, "d_rest", d_rest, bytes));
  LAB_CHECK(cudaMemsetAsync(d_counts, 0, 2 * sizeof(int)));
  if (n == 0) return GL_OK;
  return complement_enqueue(pred, d_in, d_kept, d_rest, d_counts, n, block_size);
}
