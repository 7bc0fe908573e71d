/* The reduction lab's API: the sum of an int array on the GPU by each step of the optimisation
 * ladder, and the final kernel's sum, min and max of int and float arrays.
 *
 * Implemented by labs/reduction/reduction_given.cu (given), which calls the steps of
 * labs/reduction/reduction.cu (yours; solutions/reduction/reduction.cu is the same file filled in).
 * Pointers whose names start with d_ are device pointers; the result is written to the device (one
 * element) and the call may return before the GPU has finished (default stream).
 *
 * Types: int sums accumulate in 64 bits and are returned as int64_t, so they never overflow for
 * any n up to REDUCE_MAX_N (|sum| <= 2^32 * 2^31 = 2^63). int min and max are returned widened
 * to int64_t. float sums accumulate in float (see the handout for the error this allows).
 * n == 0 is valid: the result is the operator's identity (0, INT_MAX / +INFINITY for min,
 * INT_MIN / -INFINITY for max) and d_in is not read (it may be NULL).
 */
#ifndef GPULABS_LAB_REDUCTION_H
#define GPULABS_LAB_REDUCTION_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder, numbered as in the handout (labs/reduction/README.md). */
typedef enum reduce_step {
  REDUCE_STEP_INTERLEAVED_DIVERGENT = 1, /* interleaved addressing, tid % (2*s) picks the adders */
  REDUCE_STEP_INTERLEAVED_STRIDED = 2,   /* interleaved addressing, strided index: bank conflicts */
  REDUCE_STEP_SEQUENTIAL = 3,            /* sequential addressing: conflict-free */
  REDUCE_STEP_FIRST_ADD = 4,             /* first add during the load: half the blocks */
  REDUCE_STEP_UNROLL_LAST_WARP = 5,      /* last warp unrolled, synchronised with __syncwarp */
  REDUCE_STEP_COMPLETE_UNROLL = 6,       /* block size as a template parameter, fully unrolled */
  REDUCE_STEP_MULTIPLE_ELEMENTS = 7,     /* many elements per thread: grid-stride, cascading */
  REDUCE_STEP_WARP_SHUFFLE = 8           /* shuffles, 16-byte loads, one launch: the final kernel */
} reduce_step;

#define REDUCE_FIRST_STEP REDUCE_STEP_INTERLEAVED_DIVERGENT
#define REDUCE_LAST_STEP REDUCE_STEP_WARP_SHUFFLE

/* The operators of the final kernel (the ladder sums). */
typedef enum reduce_op {
  REDUCE_SUM = 0, /* identity 0 */
  REDUCE_MIN = 1, /* identity INT_MAX / +INFINITY */
  REDUCE_MAX = 2  /* identity INT_MIN / -INFINITY */
} reduce_op;

/* The largest n the lab accepts (GL_ERR_SIZE beyond it): 2^32 elements, the most whose int sum
 * is certain to fit in an int64_t. */
#define REDUCE_MAX_N ((size_t)1 << 32)

/* Block sizes: a power of two in [REDUCE_MIN_BLOCK, REDUCE_MAX_BLOCK], or 0 for
 * REDUCE_DEFAULT_BLOCK. */
#define REDUCE_MIN_BLOCK 32
#define REDUCE_MAX_BLOCK 1024
#define REDUCE_DEFAULT_BLOCK 256

/* "1-interleaved-divergent", "2-interleaved-strided", ...; "unknown" outside the ladder. */
const char *reduce_step_name(reduce_step step);
/* "sum", "min", "max"; "unknown" for anything else. */
const char *reduce_op_name(reduce_op op);

/* The sum of d_in[0..n) by one step of the ladder, written to *d_sum. */
gl_status reduce_sum_int(reduce_step step, const int *d_in, size_t n, int block_size,
                         int64_t *d_sum);

/* The final kernel (step 8) with any operator: the sum, min or max of d_in[0..n). */
gl_status reduce_int(reduce_op op, const int *d_in, size_t n, int block_size, int64_t *d_result);
gl_status reduce_float(reduce_op op, const float *d_in, size_t n, int block_size,
                       float *d_result);

/* The lab keeps a little device memory between calls (the partial results of the blocks, and
 * the final kernel's block counter), so that no call pays for cudaMalloc. This frees it; the
 * next call allocates it again. Optional: the process's exit frees it too. */
void reduce_free_scratch(void);

#ifdef __cplusplus
}
#endif
#endif
