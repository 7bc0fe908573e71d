/* The bitonic_sort lab's API: sort uint32 keys, or key-value pairs, on the GPU with the bitonic
 * sorting network.
 *
 * Implemented by labs/bitonic_sort/bitonic_sort_given.cu (given), which calls the steps of
 * labs/bitonic_sort/bitonic_sort.cu (yours; solutions/bitonic_sort/bitonic_sort.cu is the same file
 * filled in). All pointers are device pointers; the sort is in place.
 *
 * Any n, no padding buffer: the GPU runs the "flip" form of the network (the first layer of
 * each merge compares every key with its mirror image instead of sorting half the sequences
 * backwards), in which every comparator sends the smaller key to the lower index. Positions
 * n .. next_pow2(n) - 1 then behave as +infinity that never moves, so a comparator touching one
 * is simply skipped (or fed a sentinel key that is never exchanged). Nothing is allocated and
 * nothing beyond d_keys[n - 1] is read or written. The handout explains the network.
 *
 * Bitonic sort is not stable: pairs with equal keys may come out in any order.
 */
#ifndef GPULABS_LAB_BITONIC_SORT_H
#define GPULABS_LAB_BITONIC_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder, numbered as in the handout (step 1 is the CPU reference in common/). */
typedef enum bitonic_step {
  BITONIC_STEP_GLOBAL = 2,    /* one kernel launch per (size, stride) layer, in global memory */
  BITONIC_STEP_SHARED = 3,    /* tiles of 2 * block_size keys sorted in shared memory (the
                                 seed's bitonicSortShared); global layers for strides >= the
                                 tile, a shared-memory merge for the smaller strides */
  BITONIC_STEP_REGISTERS = 4, /* keys held in registers (16 per thread), warp shuffles for the
                                 strides inside a warp, several global strides fused per pass */
  BITONIC_STEP_WINDOWS = 5    /* bonus: each pass runs the longest window of consecutive layers
                                 that fits a block of 2^14 keys held in shared memory, across
                                 two sizes where it can: 17 passes for 2^24 keys */
} bitonic_step;

#define BITONIC_FIRST_STEP BITONIC_STEP_GLOBAL
#define BITONIC_LAST_STEP BITONIC_STEP_WINDOWS

typedef enum bitonic_order {
  BITONIC_ASCENDING = 0,
  BITONIC_DESCENDING = 1
} bitonic_order;

/* The largest n the lab accepts (GL_ERR_SIZE beyond it): 2^30 keys (4 GiB). The network then
 * spans at most 2^30 positions, so every index, size and stride fits in 32-bit unsigned
 * arithmetic inside the kernels. */
#define BITONIC_MAX_N ((size_t)1 << 30)

/* Threads per block of step 4's kernels: fixed at compile time (its registers are unrolled
 * arrays), so step 4 accepts block_size 0 only. */
#define BITONIC_STEP4_THREADS_KEYS 512
#define BITONIC_STEP4_THREADS_PAIRS 256

/* Keys per block of step 5 (its tile sort sorts blocks of that many consecutive keys): fixed at
 * compile time too, so step 5 also accepts block_size 0 only. */
#define BITONIC_STEP5_BLOCK_KEYS 16384
#define BITONIC_STEP5_BLOCK_PAIRS 8192

/* "2-global", "3-shared", "4-registers", "5-windows"; "unknown" for a value outside the ladder. */
const char *bitonic_step_name(bitonic_step step);

/* Sorts d_keys[0 .. n-1] in place, in the given order, with one step of the ladder.
 * block_size: threads per block. Steps 2 and 3: a power of two in [32, 1024], or 0 for the
 * step's default (step 3 sorts tiles of 2 * block_size keys). Steps 4 and 5: 0 only.
 * n == 0 is valid and touches nothing. Errors: GL_ERR_NULL_POINTER (d_keys NULL),
 * GL_ERR_SIZE (n > BITONIC_MAX_N), GL_ERR_INVALID_ARGUMENT (step, order or block_size). */
gl_status bitonic_sort_keys(bitonic_step step, bitonic_order order, uint32_t *d_keys, size_t n,
                            int block_size);

/* Sorts the pairs (d_keys[i], d_values[i]) by key, in place: each value moves with its key.
 * Same rules as bitonic_sort_keys; d_values must not be NULL. Not stable. */
gl_status bitonic_sort_pairs(bitonic_step step, bitonic_order order, uint32_t *d_keys,
                             uint32_t *d_values, size_t n, int block_size);

#ifdef __cplusplus
}
#endif
#endif
