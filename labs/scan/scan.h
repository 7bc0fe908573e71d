/* The scan lab's API: exclusive and inclusive prefix sums of int on the GPU.
 *
 * Implemented by labs/scan/scan_given.cu (given), which calls the steps of labs/scan/scan.cu
 * (yours; solutions/scan/scan.cu is the same file filled in). All pointers are device pointers. In-
 * place scans (d_out == d_in) are allowed for every step. Sums wrap around like unsigned 32-bit
 * arithmetic (two's complement), as the CPU reference does.
 */
#ifndef GPULABS_LAB_SCAN_H
#define GPULABS_LAB_SCAN_H

#include <stddef.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder, numbered as in the handout (step 1 is the CPU reference in common/). */
typedef enum scan_step {
  SCAN_STEP_NAIVE = 2,           /* Hillis-Steele in global memory, one launch per level */
  SCAN_STEP_BLELLOCH_GLOBAL = 3, /* work-efficient up-sweep/down-sweep, one launch per level */
  SCAN_STEP_BLELLOCH_SHARED = 4, /* Blelloch per block in shared memory, block sums scanned
                                    recursively and added back */
  SCAN_STEP_BLELLOCH_PADDED = 5, /* step 4 with padding that avoids shared-memory bank conflicts */
  SCAN_STEP_WARP_SHUFFLE = 6,    /* __shfl_up_sync scans inside a block, hierarchical across blocks */
  SCAN_STEP_SINGLE_PASS = 7,     /* one pass with decoupled look-back (Merrill & Garland) */
  SCAN_STEP_PREFETCH = 8         /* bonus: step 7 with a staggered first wave and each tile's
                                    input prefetched into L2 part of a wave ahead */
} scan_step;

#define SCAN_FIRST_STEP SCAN_STEP_NAIVE
#define SCAN_LAST_STEP SCAN_STEP_PREFETCH

typedef enum scan_kind {
  SCAN_EXCLUSIVE = 0, /* out[i] = in[0] + ... + in[i-1], out[0] = 0 */
  SCAN_INCLUSIVE = 1  /* out[i] = in[0] + ... + in[i] */
} scan_kind;

/* The largest n the lab accepts (GL_ERR_SIZE beyond it). */
#define SCAN_MAX_N ((size_t)1 << 30)

/* "2-naive", "3-blelloch-global", ... ; "unknown" for a value outside the ladder. */
const char *scan_step_name(scan_step step);

/* Runs one step of the ladder. block_size: threads per block, a power of two in [32, 1024],
 * or 0 for the step's own default. n == 0 is valid and writes nothing. */
gl_status scan_run(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                   int block_size);

/* The exclusive scan the later labs (compaction, radix sort) are built on: your fastest
 * correct step. Same rules as scan_run (in place allowed, n up to SCAN_MAX_N). */
gl_status scan_exclusive(const int *d_in, int *d_out, size_t n);

/* The block size a step uses when scan_run is given block_size 0; 0 for a value outside the
 * ladder. (Benchmarks report it, so their block-size plots show the size that really ran.) */
int scan_default_block_size(scan_step step);

/* The steps keep their scratch memory (block sums, tile status words, a second buffer) in one
 * device buffer that grows when a larger n needs more and is reused by later calls, so that
 * a timed call does no cudaMalloc. This frees it; the next call allocates again. Optional: the
 * process's exit frees it too. Not thread-safe: call the lab from one host thread at a time. */
void scan_release_scratch(void);

#ifdef __cplusplus
}
#endif
#endif
