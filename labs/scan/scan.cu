/* The scan lab: exclusive and inclusive prefix sums of int. This is your file.
 *
 * Given (works as it is): the argument checks, the step names and default block sizes, the
 * scratch buffer, the dispatch from scan_run to one function per step, and in each of those
 * functions the scratch memory it needs. The exercises are marked TODO(step N): the kernels,
 * their launch loops, the recursion of steps 4-6 and the look-back of step 7. Each returns
 * "not implemented" until you write it; docs/labs/scan.md walks through them in order.
 *
 * Compute sums in unsigned int: they then wrap around like the CPU reference, while signed
 * overflow would be undefined behaviour. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "scan.h"

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu
#define MAX_BLOCK_SIZE 1024

/* ------------------------------------------------------------------------------------------ */
/* Given plumbing                                                                             */
/* ------------------------------------------------------------------------------------------ */

const char *scan_step_name(scan_step step) {
  switch (step) {
    case SCAN_STEP_NAIVE: return "2-naive";
    case SCAN_STEP_BLELLOCH_GLOBAL: return "3-blelloch-global";
    case SCAN_STEP_BLELLOCH_SHARED: return "4-blelloch-shared";
    case SCAN_STEP_BLELLOCH_PADDED: return "5-blelloch-padded";
    case SCAN_STEP_WARP_SHUFFLE: return "6-warp-shuffle";
    case SCAN_STEP_SINGLE_PASS: return "7-single-pass";
  }
  return "unknown";
}

/* The defaults are the fastest block sizes of each step at n = 2^26 on an H100 (labbench). */
int scan_default_block_size(scan_step step) {
  switch (step) {
    case SCAN_STEP_NAIVE: return 256;
    case SCAN_STEP_BLELLOCH_GLOBAL: return 256;
    case SCAN_STEP_BLELLOCH_SHARED: return 128;
    case SCAN_STEP_BLELLOCH_PADDED: return 128;
    case SCAN_STEP_WARP_SHUFFLE: return 256;
    case SCAN_STEP_SINGLE_PASS: return 1024;
  }
  return 0;
}

/* Elements one block scans in steps 4-7 (its "tile"). */
#define SINGLE_PASS_VECTORS 4 /* int4 loads per thread in step 7 */
#define SINGLE_PASS_ITEMS (4 * SINGLE_PASS_VECTORS)

static size_t tile_elements(scan_step step, int block_size) {
  switch (step) {
    case SCAN_STEP_BLELLOCH_SHARED:
    case SCAN_STEP_BLELLOCH_PADDED: return 2 * (size_t)block_size; /* two elements a thread */
    case SCAN_STEP_WARP_SHUFFLE: return (size_t)block_size;        /* one element a thread */
    case SCAN_STEP_SINGLE_PASS: return SINGLE_PASS_ITEMS * (size_t)block_size;
    default: return 0;
  }
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* The scratch buffer, kept between calls: cudaMalloc and cudaFree cost more than a whole scan of
 * a million elements (and cudaFree waits for the GPU), so a fast scan must not call them each
 * time. It only grows; scan_release_scratch() frees it. */
static void *scratch = NULL;
static size_t scratch_bytes = 0;

static gl_status reserve_scratch(size_t bytes, void **out) {
  if (bytes > scratch_bytes) {
    size_t rounded = (bytes + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1); /* whole MiB */
    if (scratch != NULL) LAB_CHECK(cudaFree(scratch));
    scratch = NULL;
    scratch_bytes = 0;
    cudaError_t err = cudaMalloc(&scratch, rounded);
    if (err != cudaSuccess) {
      cudaGetLastError(); /* an out-of-memory error is not sticky: leave no trace of it */
      return gl_fail(GL_ERR_NO_MEMORY, "scan: cannot allocate %zu bytes of scratch memory: %s",
                     rounded, cudaGetErrorString(err));
    }
    scratch_bytes = rounded;
  }
  *out = scratch;
  return GL_OK;
}

void scan_release_scratch(void) {
  if (scratch != NULL) cudaFree(scratch);
  scratch = NULL;
  scratch_bytes = 0;
}

static int is_valid_block_size(int block_size) {
  return block_size >= 32 && block_size <= MAX_BLOCK_SIZE && (block_size & (block_size - 1)) == 0;
}

/* The exercises, one per step (below). */
static gl_status run_naive(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size);
static gl_status run_blelloch_global(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                     int block_size);
static gl_status run_hierarchical(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                                  size_t n, int block_size);
static gl_status run_single_pass(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                 int block_size);

static gl_status dispatch(const char *caller, scan_step step, scan_kind kind, const int *d_in,
                          int *d_out, size_t n, int block_size) {
  if (step < SCAN_FIRST_STEP || step > SCAN_LAST_STEP) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d is not a step of the ladder (%d..%d)",
                   caller, (int)step, SCAN_FIRST_STEP, SCAN_LAST_STEP);
  }
  if (kind != SCAN_EXCLUSIVE && kind != SCAN_INCLUSIVE) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: kind %d is neither SCAN_EXCLUSIVE (0) nor SCAN_INCLUSIVE (1)", caller,
                   (int)kind);
  }
  if (block_size != 0 && !is_valid_block_size(block_size)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: block_size %d is not 0 (the step's default) or a power of two in [32, %d]",
                   caller, block_size, MAX_BLOCK_SIZE);
  }
  if (n > SCAN_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds SCAN_MAX_N = %zu", caller, n, SCAN_MAX_N);
  }
  if (n == 0) return GL_OK; /* nothing to read or write: the pointers are not needed */
  if (d_in == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_in is NULL (n = %zu)", caller, n);
  if (d_out == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_out is NULL (n = %zu)", caller, n);
  if (block_size == 0) block_size = scan_default_block_size(step);

  switch (step) {
    case SCAN_STEP_NAIVE: return run_naive(kind, d_in, d_out, n, block_size);
    case SCAN_STEP_BLELLOCH_GLOBAL: return run_blelloch_global(kind, d_in, d_out, n, block_size);
    case SCAN_STEP_BLELLOCH_SHARED:
    case SCAN_STEP_BLELLOCH_PADDED:
    case SCAN_STEP_WARP_SHUFFLE: return run_hierarchical(step, kind, d_in, d_out, n, block_size);
    case SCAN_STEP_SINGLE_PASS: return run_single_pass(kind, d_in, d_out, n, block_size);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d", caller, (int)step); /* not reached */
}

gl_status scan_run(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                   int block_size) {
  return dispatch("scan_run", step, kind, d_in, d_out, n, block_size);
}

/* The step the later labs (compaction, radix sort) build on. Step 4 is the first that scans
 * any n efficiently; once step 7 passes its tests, point this at it (or at whichever of your
 * steps is fastest): ScanPerf.BestVsCub times scan_exclusive. */
#define SCAN_EXCLUSIVE_STEP SCAN_STEP_BLELLOCH_SHARED

gl_status scan_exclusive(const int *d_in, int *d_out, size_t n) {
  return dispatch("scan_exclusive", SCAN_EXCLUSIVE_STEP, SCAN_EXCLUSIVE, d_in, d_out, n, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Step 2: Hillis-Steele in global memory, one launch per level, double-buffered              */
/* ------------------------------------------------------------------------------------------ */

static gl_status run_naive(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size) {
  /* Given: a second buffer of n ints, so each level can read one buffer and write the other. */
  void *tmp_raw = NULL;
  GL_TRY(reserve_scratch(n * sizeof(int), &tmp_raw));

  /* TODO(step 2): write naive_level_kernel: one thread per element, out[i] = in[i] +
   * in[i - offset] where i >= offset, else in[i]. Launch it once per level, offset = 1, 2, 4,
   * ... < n, alternating between d_out and the second buffer (int *)tmp_raw so that the last
   * level writes d_out.
   * - Exclusive: the exclusive scan is the inclusive scan of the input shifted right by one
   *   with a 0 in front; let the first level read it shifted.
   * - n == 1 still needs one launch.
   * - In place (d_in == d_out): no level may read and write the same buffer. */
  (void)kind, (void)d_in, (void)d_out, (void)block_size;
  return gl_not_implemented(
      "scan step 2 (2-naive): write naive_level_kernel and its launch loop in run_naive, "
      "labs/scan/scan.cu");
}

/* ------------------------------------------------------------------------------------------ */
/* Step 3: Blelloch up-sweep/down-sweep in global memory, one launch per level                */
/* ------------------------------------------------------------------------------------------ */

static gl_status run_blelloch_global(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                     int block_size) {
  /* Given: a work buffer of m elements, m the power of two >= n (the balanced tree needs a
   * power of two; pad the input with zeros, the identity of +). */
  size_t m = 1;
  while (m < n) m <<= 1;
  void *buf_raw = NULL;
  GL_TRY(reserve_scratch(m * sizeof(unsigned int), &buf_raw));

  /* TODO(step 3): with buf = (unsigned int *)buf_raw: copy d_in into buf followed by zeros; one launch per up-sweep level (stride
   * 2, 4, ..., m: buf[k*stride + stride-1] += buf[k*stride + stride/2-1]); set the root buf[m-1]
   * to 0; one launch per down-sweep level (stride m, ..., 2); copy the first n results to d_out
   * (inclusive: add the input element). Give thread k the k-th node of a level, not the element
   * k with a `k % stride == 0` test. Only nodes whose subtree starts below n need a thread. */
  (void)kind, (void)d_in, (void)d_out, (void)block_size;
  return gl_not_implemented(
      "scan step 3 (3-blelloch-global): write the up-sweep and down-sweep kernels and their "
      "launch loops in run_blelloch_global, labs/scan/scan.cu");
}

/* ------------------------------------------------------------------------------------------ */
/* Steps 4-6: scan each tile in one block, scan the tile totals, add them back                */
/* ------------------------------------------------------------------------------------------ */

/* Launches the block scan of step 4, 5 or 6 over all tiles of d_in: block b scans tile b
 * (tile_elements(step, block_size) elements) into d_out, as `kind` says, and writes the tile's
 * total to d_block_sums[b] unless d_block_sums is NULL. */
static gl_status launch_block_scan(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                                   size_t n, int block_size, int *d_block_sums) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_block_sums;
  switch (step) {
    case SCAN_STEP_BLELLOCH_SHARED:
      /* TODO(step 4): write blelloch_shared_kernel: each thread loads 2 elements into shared
       * memory (thread t: t and t + blockDim.x, so loads are coalesced), up-sweep, save the
       * total, clear the root, down-sweep, write back. Launch it here with
       * 2 * block_size * sizeof(unsigned int) bytes of dynamic shared memory. */
      return gl_not_implemented(
          "scan step 4 (4-blelloch-shared): write blelloch_shared_kernel and launch it in "
          "launch_block_scan, labs/scan/scan.cu");
    case SCAN_STEP_BLELLOCH_PADDED:
      /* TODO(step 5): step 4's kernel with shared index i stored at i + (i >> 5). */
      return gl_not_implemented(
          "scan step 5 (5-blelloch-padded): write blelloch_padded_kernel and launch it in "
          "launch_block_scan, labs/scan/scan.cu");
    case SCAN_STEP_WARP_SHUFFLE:
      /* TODO(step 6): write warp_shuffle_kernel: one element a thread, an inclusive scan in
       * each warp with __shfl_up_sync, the warp totals scanned by warp 0, each warp's offset
       * added. */
      return gl_not_implemented(
          "scan step 6 (6-warp-shuffle): write warp_shuffle_kernel and launch it in "
          "launch_block_scan, labs/scan/scan.cu");
    default:
      return gl_fail(GL_ERR_INVALID_ARGUMENT, "launch_block_scan: step %d has no block scan",
                     (int)step);
  }
}

/* Scans n elements, tile by tile. d_sums has room for the tile totals of this level followed by
 * those of every level below it. */
static gl_status scan_levels(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                             size_t n, int block_size, int *d_sums) {
  size_t tile = tile_elements(step, block_size);
  size_t tiles = ceil_div(n, tile);
  if (tiles == 1) return launch_block_scan(step, kind, d_in, d_out, n, block_size, NULL);
  /* TODO(step 4): more than one tile: scan the tiles writing their totals to d_sums, scan the
   * `tiles` totals (exclusive, in place, with this same function: the space after them is
   * theirs), then add total b's scan to every element of tile b with a kernel of your own. */
  (void)kind, (void)d_in, (void)d_out, (void)d_sums;
  return gl_fail(GL_ERR_NOT_IMPLEMENTED,
                 "not implemented: scan step %d (%s) with more than one tile: write the "
                 "recursion in scan_levels and the kernel that adds the tile offsets, "
                 "labs/scan/scan.cu",
                 (int)step, scan_step_name(step));
}

static gl_status run_hierarchical(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                                  size_t n, int block_size) {
  /* Given: room for the tile totals of every level: n/tile + n/tile^2 + ... */
  size_t tile = tile_elements(step, block_size);
  size_t sum_words = 0;
  for (size_t count = ceil_div(n, tile); count > 1; count = ceil_div(count, tile)) {
    sum_words += count;
  }
  int *d_sums = NULL;
  if (sum_words > 0) {
    void *raw = NULL;
    GL_TRY(reserve_scratch(sum_words * sizeof(int), &raw));
    d_sums = (int *)raw;
  }
  return scan_levels(step, kind, d_in, d_out, n, block_size, d_sums);
}

/* ------------------------------------------------------------------------------------------ */
/* Step 7: single pass with decoupled look-back (Merrill & Garland)                           */
/* ------------------------------------------------------------------------------------------ */

static gl_status run_single_pass(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                 int block_size) {
  /* Given: a tile counter (padded to 8 bytes) followed by one 64-bit status word per tile, all
   * zero at the start of every call. */
  size_t tiles = ceil_div(n, tile_elements(SCAN_STEP_SINGLE_PASS, block_size));
  size_t bytes = (1 + tiles) * sizeof(unsigned long long);
  void *raw = NULL;
  GL_TRY(reserve_scratch(bytes, &raw));
  LAB_CHECK(cudaMemsetAsync(raw, 0, bytes, 0));

  /* TODO(step 7): write single_pass_kernel, one block per tile of SINGLE_PASS_ITEMS *
   * block_size elements, and launch it with `tiles` blocks; the tile counter is
   * (unsigned int *)raw, the status words (unsigned long long *)raw + 1. Each block: takes its
   * tile number from atomicAdd on the counter (not blockIdx.x); scans its tile in registers
   * (16-byte loads need d_in and d_out 16-byte aligned, which cudaMalloc gives but d_in + 1
   * does not, and a whole tile); publishes its total as an "aggregate" status word;
   * lets one warp look back over the status words of the tiles before it until it meets an
   * "inclusive prefix"; publishes its own inclusive prefix; adds its exclusive prefix and writes
   * out. Flag and sum share one 64-bit word, read and written with volatile accesses. */
  (void)kind, (void)d_in, (void)d_out;
  return gl_not_implemented(
      "scan step 7 (7-single-pass): write single_pass_kernel and launch it in run_single_pass, "
      "labs/scan/scan.cu");
}
