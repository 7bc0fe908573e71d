/* The stream-compaction lab's API: keep the elements of an int array that satisfy a predicate,
 * split an array into the elements that do and the ones that do not, and enqueue elements in
 * parallel with atomics.
 *
 * Implemented by labs/compaction/compaction_given.cu (given), which calls the steps of
 * labs/compaction/compaction.cu (yours; solutions/compaction/compaction.cu is the same file filled
 * in). All array pointers are device pointers. Every call may return before the GPU is done
 * (default stream); synchronise before reading the results.
 *
 * The count of kept elements is written to a device int (d_count), as CUB does, so a call never
 * waits for the GPU: copy it back with cudaMemcpy when the host needs it.
 */
#ifndef GPULABS_LAB_COMPACTION_H
#define GPULABS_LAB_COMPACTION_H

#include <stddef.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which elements are kept. */
typedef enum compaction_rule {
  COMPACTION_KEEP_NONZERO = 0, /* keep x != 0 (threshold is ignored) */
  COMPACTION_KEEP_BELOW = 1    /* keep x < threshold */
} compaction_rule;

typedef struct compaction_pred {
  compaction_rule rule;
  int threshold;
} compaction_pred;

/* The exercises, in the handout's order. Step 1 (compaction on the CPU, with and without a
 * scan) is the reference in labs/compaction/compaction_reference.h. */
typedef enum compaction_step {
  COMPACTION_STEP_MAP_SCAN_SCATTER = 0, /* 2:  flags, scan_exclusive, scatter         stable    */
  COMPACTION_STEP_SPLIT,                /* 3:  kept first, the rest after             stable    */
  COMPACTION_STEP_SPLIT_PAIRS,          /* 3:  the same for keys with values          stable    */
  COMPACTION_STEP_ATOMIC,               /* 4a: one atomicAdd per kept element         unordered */
  COMPACTION_STEP_WARP_AGGREGATED,      /* 4b: one atomicAdd per warp (ballot + popc) unordered */
  COMPACTION_STEP_COMPLEMENT,           /* 4c: kept and rest into two buffers          unordered */
  COMPACTION_STEP_SINGLE_PASS,          /* 5:  one pass, decoupled look-back          stable    */
  COMPACTION_STEP_PREFETCH,             /* 6:  step 5 + ramp + L2 prefetch (bonus)    stable    */
  COMPACTION_STEP_COUNT
} compaction_step;

/* "2-map-scan-scatter", "3-split", "3-split-pairs", "4a-atomic", "4b-warp-aggregated",
 * "4c-complement", "5-single-pass", "6-prefetch"; "unknown" for a value outside the list. */
const char *compaction_step_name(compaction_step step);
/* The handout's step number (2, 3, 3, 4, 4, 4, 5, 6); 0 for a value outside the list. */
int compaction_step_number(compaction_step step);
/* 1 when the step keeps the input order (2, 3, 5 and 6), 0 when it does not (4a, 4b, 4c). */
int compaction_step_is_stable(compaction_step step);

/* The largest n the lab accepts (GL_ERR_SIZE beyond it): the scan lab's limit. */
#define COMPACTION_MAX_N ((size_t)1 << 30)

/* Bytes of device scratch memory a step needs for n elements (any block size); 0 when it
 * needs none. Allocate at least this much (8-byte aligned, as cudaMalloc gives) and pass it as
 * d_scratch / scratch_bytes. The scratch holds no state between calls: its contents on entry
 * do not matter. */
size_t compaction_scratch_bytes(compaction_step step, size_t n);

/* Common rules for every call below:
 * - block_size: threads per block, 0 for the default (256; 512 for step 6) or a power of two in
 *   [32, 1024];
 * - n == 0 is valid: the count becomes 0 and nothing else is written;
 * - outputs must not overlap inputs (GL_ERR_INVALID_ARGUMENT);
 * - only out[0, count) is written: the rest of an output array is left as it was. */

/* Compaction: d_out[0, count) = the elements of d_in[0, n) that pred keeps; *d_count = count.
 * step is COMPACTION_STEP_MAP_SCAN_SCATTER, COMPACTION_STEP_SINGLE_PASS or
 * COMPACTION_STEP_PREFETCH (input order kept), or COMPACTION_STEP_ATOMIC or
 * COMPACTION_STEP_WARP_AGGREGATED (any order). */
gl_status compaction_compact(compaction_step step, compaction_pred pred, const int *d_in,
                             int *d_out, int *d_count, size_t n, int block_size, void *d_scratch,
                             size_t scratch_bytes);

/* Stable split (step 3): d_out[0, count) = the kept elements in input order, then
 * d_out[count, n) = the others in input order; *d_count = count. Built on scan_exclusive(). */
gl_status compaction_split(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                           size_t n, int block_size, void *d_scratch, size_t scratch_bytes);

/* Stable split of key-value pairs (step 3): pred looks at the keys; each value moves with its
 * key. All of d_keys_out[0, n) and d_values_out[0, n) is written. */
gl_status compaction_split_pairs(compaction_pred pred, const int *d_keys_in,
                                 const int *d_values_in, int *d_keys_out, int *d_values_out,
                                 int *d_count, size_t n, int block_size, void *d_scratch,
                                 size_t scratch_bytes);

/* Unordered split into two buffers (step 4c): the kept elements go to d_kept[0, d_counts[0]),
 * the others to d_rest[0, d_counts[1]), each in any order. d_counts points to two ints. */
gl_status compaction_enqueue_complement(compaction_pred pred, const int *d_in, int *d_kept,
                                        int *d_rest, int *d_counts, size_t n, int block_size);

#ifdef __cplusplus
}
#endif
#endif
