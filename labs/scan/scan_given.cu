// The scan lab: the given code. This file is given: the grader always takes it from the course,
// never from a submission.
//
// The API of scan.h: the step names and default block sizes, the argument checks, the scratch
// buffer, the dispatch from scan_run and scan_exclusive to your steps (labs/scan/scan.cu, as
// labs/scan/scan_steps.h declares them), the scratch memory each step is handed, and the levels
// of steps 4-6 as far as they are not the lesson.
#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "scan_steps.h"

const char *scan_step_name(scan_step step) {
  switch (step) {
    case SCAN_STEP_NAIVE: return "2-naive";
    case SCAN_STEP_BLELLOCH_GLOBAL: return "3-blelloch-global";
    case SCAN_STEP_BLELLOCH_SHARED: return "4-blelloch-shared";
    case SCAN_STEP_BLELLOCH_PADDED: return "5-blelloch-padded";
    case SCAN_STEP_WARP_SHUFFLE: return "6-warp-shuffle";
    case SCAN_STEP_SINGLE_PASS: return "7-single-pass";
    case SCAN_STEP_PREFETCH: return "8-prefetch";
  }
  return "unknown";
}

// The defaults are the fastest block sizes of each step at n = 2^26 on an H100 (labbench).
int scan_default_block_size(scan_step step) {
  switch (step) {
    case SCAN_STEP_NAIVE: return 256;
    case SCAN_STEP_BLELLOCH_GLOBAL: return 256;
    case SCAN_STEP_BLELLOCH_SHARED: return 128;
    case SCAN_STEP_BLELLOCH_PADDED: return 128;
    case SCAN_STEP_WARP_SHUFFLE: return 256;
    case SCAN_STEP_SINGLE_PASS: return 1024;
    case SCAN_STEP_PREFETCH: return 1024;
  }
  return 0;
}

// The scratch buffer, kept between calls: cudaMalloc and cudaFree cost more than a whole scan of
// a million elements (and cudaFree waits for the GPU), so a fast scan must not call them each
// time. It only grows; scan_release_scratch() frees it.
static void *scratch = NULL;
static size_t scratch_bytes = 0;

static gl_status reserve_scratch(size_t bytes, void **out) {
  if (bytes > scratch_bytes) {
    size_t rounded = (bytes + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1); // whole MiB
    if (scratch != NULL) LAB_CHECK(cudaFree(scratch));
    scratch = NULL;
    scratch_bytes = 0;
    cudaError_t err = cudaMalloc(&scratch, rounded);
    if (err != cudaSuccess) {
      cudaGetLastError(); // an out-of-memory error is not sticky: leave no trace of it
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

// Step 2: a second buffer of n ints, so each level can read one buffer and write the other.
static gl_status run_naive(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size) {
  void *tmp_raw = NULL;
  GL_TRY(reserve_scratch(n * sizeof(int), &tmp_raw));
  return scan_step2(kind, d_in, d_out, n, block_size, (int *)tmp_raw);
}

// Step 3: a work buffer of m elements, m the power of two >= n (the balanced tree needs a power
// of two; the step pads the input with zeros, the identity of +).
static gl_status run_blelloch_global(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                     int block_size) {
  size_t m = 1;
  while (m < n) m <<= 1; // n <= 2^30, so m <= 2^30
  void *buf_raw = NULL;
  GL_TRY(reserve_scratch(m * sizeof(unsigned int), &buf_raw));
  return scan_step3(kind, d_in, d_out, n, block_size, (unsigned int *)buf_raw, m);
}

// Steps 4-6: the block scan of the step.
gl_status scan_block_scan(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                          int block_size, int *d_block_sums) {
  switch (step) {
    case SCAN_STEP_BLELLOCH_SHARED:
      return scan_step4_block_scan(kind, d_in, d_out, n, block_size, d_block_sums);
    case SCAN_STEP_BLELLOCH_PADDED:
      return scan_step5_block_scan(kind, d_in, d_out, n, block_size, d_block_sums);
    case SCAN_STEP_WARP_SHUFFLE:
      return scan_step6_block_scan(kind, d_in, d_out, n, block_size, d_block_sums);
    default:
      return gl_fail(GL_ERR_INVALID_ARGUMENT, "scan_block_scan: step %d has no block scan",
                     (int)step);
  }
}

// Steps 4-6: n elements, tile by tile. One tile: the block scan alone; more: your levels.
gl_status scan_levels(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                      int block_size, int *d_sums) {
  size_t tiles = ceil_div(n, tile_elements(step, block_size));
  if (tiles == 1) return scan_block_scan(step, kind, d_in, d_out, n, block_size, NULL);
  return scan_step4_levels(step, kind, d_in, d_out, n, block_size, d_sums);
}

// Steps 4-6: room for the tile totals of every level: n/tile + n/tile^2 + ...
static gl_status run_hierarchical(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                                  size_t n, int block_size) {
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

// Steps 7 and 8: a tile counter (padded to 8 bytes) followed by one 64-bit status word per
// tile, all zero at the start of every call: the counter at tile 0, every tile "nothing
// published yet".
static gl_status run_single_pass(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                                 size_t n, int block_size) {
  size_t tiles = ceil_div(n, tile_elements(step, block_size));
  size_t bytes = (1 + tiles) * sizeof(unsigned long long);
  void *raw = NULL;
  GL_TRY(reserve_scratch(bytes, &raw));
  LAB_CHECK(cudaMemsetAsync(raw, 0, bytes, 0));
  unsigned int *counter = (unsigned int *)raw;
  unsigned long long *status = (unsigned long long *)raw + 1;
  if (step == SCAN_STEP_PREFETCH)
    return scan_step8(kind, d_in, d_out, n, block_size, counter, status, tiles);
  return scan_step7(kind, d_in, d_out, n, block_size, counter, status, tiles);
}

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
  if (n == 0) return GL_OK; // nothing to read or write: the pointers are not needed
  if (d_in == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_in is NULL (n = %zu)", caller, n);
  if (d_out == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_out is NULL (n = %zu)", caller, n);
  if (block_size == 0) block_size = scan_default_block_size(step);

  switch (step) {
    case SCAN_STEP_NAIVE: return run_naive(kind, d_in, d_out, n, block_size);
    case SCAN_STEP_BLELLOCH_GLOBAL: return run_blelloch_global(kind, d_in, d_out, n, block_size);
    case SCAN_STEP_BLELLOCH_SHARED:
    case SCAN_STEP_BLELLOCH_PADDED:
    case SCAN_STEP_WARP_SHUFFLE: return run_hierarchical(step, kind, d_in, d_out, n, block_size);
    case SCAN_STEP_SINGLE_PASS:
    case SCAN_STEP_PREFETCH: return run_single_pass(step, kind, d_in, d_out, n, block_size);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d", caller, (int)step); // not reached
}

gl_status scan_run(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                   int block_size) {
  return dispatch("scan_run", step, kind, d_in, d_out, n, block_size);
}

// The step the later labs (compaction, radix sort) build on: scan_exclusive_step() in your file.
gl_status scan_exclusive(const int *d_in, int *d_out, size_t n) {
  return dispatch("scan_exclusive", scan_exclusive_step(), SCAN_EXCLUSIVE, d_in, d_out, n, 0);
}
