/* The compaction lab: your file. The handout (docs/labs/compaction.md) walks through each step.
 *
 * Given: step names, argument checks, scratch sizes, the predicate keeps(), the ballot helper
 * lanes_below(), and the public calls at the bottom, which check their arguments and then call
 * the static function of each step. Yours: the kernels and those static functions, each of
 * which now returns gl_not_implemented(...). Steps 2 and 3 call scan_exclusive() from your scan
 * lab (compaction_split_pairs shares split_any with compaction_split). */
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

/* TODO (step 2): write
 *   map_kernel:     flags[i] = keeps(pred, in[i]) ? 1 : 0;
 *   scatter_kernel: a kept in[i] goes to out[offsets[i]]; the thread of the last element also
 *                   writes the count (its offset plus its flag) to *count.
 * and launch them here around scan_exclusive(flags, offsets, n), one element per thread:
 * (n + block_size - 1) / block_size blocks. The scratch holds the n flags, then the n offsets.
 * Check every launch with LAB_CHECK_LAUNCH() and pass on the scan's status with GL_TRY(). */
static gl_status compact_map_scan_scatter(compaction_pred pred, const int *d_in, int *d_out,
                                          int *d_count, size_t n, int block_size,
                                          void *d_scratch) {
  (void)pred, (void)d_in, (void)d_out, (void)d_count, (void)n, (void)block_size, (void)d_scratch;
  return gl_not_implemented(
      "compaction step 2 (2-map-scan-scatter): write map_kernel and scatter_kernel in "
      "labs/compaction/compaction.cu");
}

/* ------------------------------------------------------------------------------------------ */
/* Step 3: stable split (the thesis's kd-tree triangles).                                      */
/* ------------------------------------------------------------------------------------------ */

/* TODO (step 3): the same map and scan as step 2, then a scatter where every element moves:
 *   address = flag ? prefix : i - prefix + nf      (nf: the number kept)
 * d_values and d_values_out are NULL for a split of keys alone; otherwise each value moves to
 * its key's address. The thread of the last element writes nf to *d_count. */
static gl_status split_any(compaction_pred pred, const int *d_keys, const int *d_values,
                           int *d_keys_out, int *d_values_out, int *d_count, size_t n,
                           int block_size, void *d_scratch) {
  (void)pred, (void)d_keys, (void)d_values, (void)d_keys_out, (void)d_values_out, (void)d_count,
      (void)n, (void)block_size, (void)d_scratch;
  return gl_not_implemented(
      "compaction step 3 (3-split): write split_scatter_kernel in labs/compaction/compaction.cu");
}

/* ------------------------------------------------------------------------------------------ */
/* Step 4: parallel enqueue with atomics.                                                      */
/* ------------------------------------------------------------------------------------------ */

/* TODO (step 4a): enqueue_atomic_kernel, one element per thread:
 *   out[atomicAdd(count, 1)] = in[i] for every kept element.
 * TODO (step 4b): enqueue_warp_kernel, one atomicAdd per warp for a run of
 *   32 * ENQUEUE_ITEMS consecutive elements: item k of a lane is element
 *   run_start + 32 k + lane. One __ballot_sync per item; __popc counts and ranks; lane 0 adds
 *   the warp's total to the counter and __shfl_sync hands the base to every lane.
 * *d_count must be 0 before the kernel runs (cudaMemsetAsync). */
static gl_status compact_enqueue(compaction_step step, compaction_pred pred, const int *d_in,
                                 int *d_out, int *d_count, size_t n, int block_size) {
  (void)pred, (void)d_in, (void)d_out, (void)d_count, (void)n, (void)block_size;
  if (step == COMPACTION_STEP_ATOMIC) {
    return gl_not_implemented(
        "compaction step 4a (4a-atomic): write enqueue_atomic_kernel in "
        "labs/compaction/compaction.cu");
  }
  return gl_not_implemented(
      "compaction step 4b (4b-warp-aggregated): write enqueue_warp_kernel in "
      "labs/compaction/compaction.cu");
}

/* TODO (step 4c): enqueue_complement_kernel, the runs of step 4b with one ballot per item: a
 * rejected lane's rank is its lane number minus its rank among the kept lanes. Kept elements go
 * to d_kept, the rest to d_rest; d_counts[0] and d_counts[1] are the two atomic counters, one
 * atomicAdd each per warp. The counters are already zeroed when this is called. */
static gl_status complement_enqueue(compaction_pred pred, const int *d_in, int *d_kept,
                                    int *d_rest, int *d_counts, size_t n, int block_size) {
  (void)pred, (void)d_in, (void)d_kept, (void)d_rest, (void)d_counts, (void)n, (void)block_size;
  return gl_not_implemented(
      "compaction step 4c (4c-complement): write enqueue_complement_kernel in "
      "labs/compaction/compaction.cu");
}

/* ------------------------------------------------------------------------------------------ */
/* Step 5: single-pass stable compaction with decoupled look-back.                             */
/* ------------------------------------------------------------------------------------------ */

/* TODO (step 5): one kernel, one block per tile of block_size * SINGLE_PASS_ITEMS elements.
 * The scratch starts with a tile counter (hand tiles out in launch order with atomicAdd), then
 * one 64-bit status word per tile (flag and count in one word). Zero what you use with
 * cudaMemsetAsync before the launch. Each block: load its tile, count and rank its kept
 * elements (ballots), publish its count, stage the kept elements in shared memory, look back
 * for the count of all earlier tiles, publish the inclusive count, copy the staged elements
 * out; the last tile writes *d_count. The staging array holds a tile: at 1024 threads that is
 * 64 KiB of dynamic shared memory, which needs cudaFuncSetAttribute(...,
 * cudaFuncAttributeMaxDynamicSharedMemorySize, ...) before the launch. */
static gl_status compact_single_pass(compaction_pred pred, const int *d_in, int *d_out,
                                     int *d_count, size_t n, int block_size, void *d_scratch) {
  (void)pred, (void)d_in, (void)d_out, (void)d_count, (void)n, (void)block_size, (void)d_scratch;
  return gl_not_implemented(
      "compaction step 5 (5-single-pass): write single_pass_kernel in "
      "labs/compaction/compaction.cu");
}

/* ------------------------------------------------------------------------------------------ */
/* The public calls (given): check the arguments, then call the step.                          */
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
