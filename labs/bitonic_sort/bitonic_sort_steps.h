// The bitonic_sort lab: what each step of labs/bitonic_sort/bitonic_sort.cu must define, and
// what the given code (labs/bitonic_sort/bitonic_sort_given.cu) hands it. Given: do not edit.
//
// Every step runs the same network, the "flip" form of bitonic sort: for each size
// 2, 4, ..., next_pow2(n) a merge of layers with strides size/2, ..., 1. The first layer of a
// size compares position i with its mirror i ^ (size - 1); the others compare i with
// i + stride. Every comparator sends the smaller key to the lower position (the larger when
// sorting descending) and never exchanges equal keys, so positions >= n behave as +infinity
// that never moves: a comparator that touches one is skipped, or fed a sentinel key that a
// strict comparison never exchanges. That is how any n is sorted in place with no padding
// buffer. The CPU reference, bitonic_ref_sort_iterative in labs/bitonic_sort/bitonic_sort_reference.c
// (step 1, given), is this loop on one core.
//
// What every step is handed, from bitonic_sort_keys and bitonic_sort_pairs:
//   - the arguments checked: keys not NULL, 2 <= n <= BITONIC_MAX_N = 2^30 (n = 0 and n = 1
//     return before any step is called), so next_pow2(n), every position, size and stride fit
//     in 32-bit unsigned arithmetic;
//   - values: NULL for bitonic_sort_keys (keys only), else n values, each to travel with its
//     key (the sort need not be stable);
//   - descending: 0 (ascending) or 1 (descending).
// What every step must do: sort keys[0 .. n-1] (and values) in place, launching on the default
// stream without waiting for the kernels to finish, checking each launch with
// LAB_CHECK_LAUNCH(); allocate nothing, read and write nothing past index n - 1; return GL_OK
// (or the failed launch's status). Until it is written, a step returns gl_not_implemented(...)
// and launches nothing.
#ifndef GPULABS_LAB_BITONIC_SORT_STEPS_H
#define GPULABS_LAB_BITONIC_SORT_STEPS_H

#include <stdint.h>

#include "bitonic_sort.h"

// Host helpers the steps may use. The smallest power of two >= n (n <= 2^30 here).
static inline unsigned next_pow2(unsigned n) {
  unsigned p = 1;
  while (p < n) p <<= 1;
  return p;
}

// log2 of a power of two p.
static inline int log2_of_pow2(unsigned p) {
  int k = 0;
  while ((1u << k) < p) ++k;
  return k;
}

// Step 2 (2-global): one kernel launch per (size, stride) layer, every comparator reading and
// writing global memory. threads: the block size to launch with, a power of two in [32, 1024]
// (the caller's block_size, or 256 for 0).
gl_status bitonic_step2(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                        int threads);

// Step 3 (3-shared): tiles of 2 * threads keys sorted in shared memory; for sizes beyond a
// tile, global layers while the stride is at least a tile, then one shared-memory merge.
// threads: a power of two in [32, 1024] (the caller's block_size, or 512 for 0).
gl_status bitonic_step3(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                        int threads);

// Step 4 (4-registers): keys in registers, warp shuffles, several global strides per pass.
// No block size: the step fixes its own shapes at compile time (BITONIC_STEP4_THREADS_KEYS
// threads for keys, BITONIC_STEP4_THREADS_PAIRS for pairs, in bitonic_sort.h); the caller
// passed block_size 0.
gl_status bitonic_step4(uint32_t *keys, uint32_t *values, unsigned n, int descending);

// Step 5 (5-windows, a bonus): each pass over global memory runs the longest run of
// consecutive layers whose bits fit a block (BITONIC_STEP5_BLOCK_KEYS keys, or
// BITONIC_STEP5_BLOCK_PAIRS pairs, in bitonic_sort.h), across two sizes where it can. Like
// step 4, no block size: the caller passed block_size 0.
gl_status bitonic_step5(uint32_t *keys, uint32_t *values, unsigned n, int descending);

#endif
