// The compaction lab: the given code. The step names, the argument checks, the scratch sizes,
// and the four public calls of compaction.h, which check their arguments, handle n == 0, and
// then call the step that labs/compaction/compaction.cu defines (labs/compaction/
// compaction_steps.h says what each step is handed).
//
// This file is given: do not edit it. The grader always takes it from the course, never from a
// submission. Your kernels go in labs/compaction/compaction.cu.
#include <cuda_runtime.h>
#include <stdint.h>

#include "compaction.h"
#include "compaction_steps.h"
#include "gpulabs/check.h"

// =============================================================================================
// Step names, scratch sizes, argument checks
// =============================================================================================

static const char *const step_names[COMPACTION_STEP_COUNT] = {
    "2-map-scan-scatter", "3-split",       "3-split-pairs", "4a-atomic",
    "4b-warp-aggregated", "4c-complement", "5-single-pass", "6-prefetch"};
static const int step_numbers[COMPACTION_STEP_COUNT] = {2, 3, 3, 4, 4, 4, 5, 6};
static const int step_stable[COMPACTION_STEP_COUNT] = {1, 1, 1, 0, 0, 0, 1, 1};
// The block size 0 stands for: 256, except step 6's 512 (two blocks of 512 an SM was the fastest
// shape of the reference's kernel).
static const int step_default_block[COMPACTION_STEP_COUNT] = {256, 256, 256, 256,
                                                              256, 256, 256, 512};

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

extern "C" size_t compaction_scratch_bytes(compaction_step step, size_t n) {
  switch (step) {
    case COMPACTION_STEP_MAP_SCAN_SCATTER:
    case COMPACTION_STEP_SPLIT:
    case COMPACTION_STEP_SPLIT_PAIRS:
      return 2 * n * sizeof(int);  // flags, then their exclusive scan
    case COMPACTION_STEP_SINGLE_PASS:
    case COMPACTION_STEP_PREFETCH:
      // A tile counter, then one status word per tile (smallest tiles: any block size).
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

static gl_status check_n_and_block(const char *fn, compaction_step step, size_t n,
                                   int *block_size) {
  if (n > COMPACTION_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds COMPACTION_MAX_N = %zu", fn, n,
                   COMPACTION_MAX_N);
  }
  if (*block_size == 0) *block_size = step_default_block[step];
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

// =============================================================================================
// The public calls: check the arguments, then call the step
// =============================================================================================

extern "C" gl_status compaction_compact(compaction_step step, compaction_pred pred,
                                        const int *d_in, int *d_out, int *d_count, size_t n,
                                        int block_size, void *d_scratch, size_t scratch_bytes) {
  const char *fn = "compaction_compact";
  if (step != COMPACTION_STEP_MAP_SCAN_SCATTER && step != COMPACTION_STEP_ATOMIC &&
      step != COMPACTION_STEP_WARP_AGGREGATED && step != COMPACTION_STEP_SINGLE_PASS &&
      step != COMPACTION_STEP_PREFETCH) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: step %d (%s) is not a compaction (2-map-scan-scatter, 4a-atomic, "
                   "4b-warp-aggregated, 5-single-pass or 6-prefetch)",
                   fn, (int)step, compaction_step_name(step));
  }
  GL_TRY(check_pred(fn, pred));
  GL_TRY(check_pointer(fn, "d_in", d_in));
  GL_TRY(check_pointer(fn, "d_out", d_out));
  GL_TRY(check_pointer(fn, "d_count", d_count));
  GL_TRY(check_n_and_block(fn, step, n, &block_size));
  GL_TRY(check_scratch(fn, step, n, d_scratch, scratch_bytes));
  GL_TRY(check_disjoint(fn, "d_in", d_in, "d_out", d_out, n * sizeof(int)));
  if (n == 0) {
    LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
    return GL_OK;
  }
  switch (step) {
    case COMPACTION_STEP_MAP_SCAN_SCATTER:
      return compact_step2(pred, d_in, d_out, d_count, n, block_size, d_scratch);
    case COMPACTION_STEP_SINGLE_PASS:
      return compact_step5(pred, d_in, d_out, d_count, n, block_size, d_scratch);
    case COMPACTION_STEP_PREFETCH:
      return compact_step6(pred, d_in, d_out, d_count, n, block_size, d_scratch);
    case COMPACTION_STEP_ATOMIC:
      return compact_step4_atomic(pred, d_in, d_out, d_count, n, block_size);
    default:  // COMPACTION_STEP_WARP_AGGREGATED, the last one the check above lets through
      return compact_step4_warp_aggregated(pred, d_in, d_out, d_count, n, block_size);
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
  GL_TRY(check_n_and_block(fn, COMPACTION_STEP_SPLIT, n, &block_size));
  GL_TRY(check_scratch(fn, COMPACTION_STEP_SPLIT, n, d_scratch, scratch_bytes));
  GL_TRY(check_disjoint(fn, "d_in", d_in, "d_out", d_out, n * sizeof(int)));
  if (n == 0) {
    LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
    return GL_OK;
  }
  return compact_step3(pred, d_in, NULL, d_out, NULL, d_count, n, block_size, d_scratch);
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
  GL_TRY(check_n_and_block(fn, COMPACTION_STEP_SPLIT_PAIRS, n, &block_size));
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
  return compact_step3(pred, d_keys_in, d_values_in, d_keys_out, d_values_out, d_count, n,
                       block_size, d_scratch);
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
  GL_TRY(check_n_and_block(fn, COMPACTION_STEP_COMPLEMENT, n, &block_size));
  GL_TRY(check_disjoint(fn, "d_in", d_in, "d_kept", d_kept, bytes));
  GL_TRY(check_disjoint(fn, "d_in", d_in, "d_rest", d_rest, bytes));
  GL_TRY(check_disjoint(fn, "d_kept", d_kept, "d_rest", d_rest, bytes));
  LAB_CHECK(cudaMemsetAsync(d_counts, 0, 2 * sizeof(int)));
  if (n == 0) return GL_OK;
  return compact_step4_complement(pred, d_in, d_kept, d_rest, d_counts, n, block_size);
}
