// The bitonic_sort lab: your kernels. The bitonic sorting network on the GPU, three times over,
// each faster: one launch per layer, tiles in shared memory, keys in registers.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/bitonic_sort/bitonic_sort.h         the API the tests call
//   labs/bitonic_sort/bitonic_sort_steps.h   what each step below must define, and what it is handed
//   labs/bitonic_sort/bitonic_sort_given.cu  argument checks, step names, the dispatch to your steps
//
// The handout, docs/labs/bitonic_sort.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L bitonic_sort -R 'BitonicSortStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (the CPU reference) is given: common/src/reference/bitonic_sort.c
//   step 2  2-global      bitonic_step2, and the kernel of one layer
//   step 3  3-shared      bitonic_step3, and kernels that sort and merge tiles in shared memory
//   step 4  4-registers   bitonic_step4, and kernels that sort and merge in registers
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "bitonic_sort_steps.h"

// =============================================================================================
// Step 2: one launch per layer
//
// Read bitonic_ref_sort_iterative (step 1) first: this step runs its double loop on the GPU.
// Write a kernel for one layer of the network, for instance
//   __global__ void bitonic_global_layer(uint32_t *keys, uint32_t *values, unsigned n,
//                                        unsigned size, unsigned stride, int descending)
// Thread c owns comparator c: its lower position is lo = 2 * c - (c & (stride - 1)) (the
// seed's pos), its upper position the mirror lo ^ (size - 1) on the first layer of a size
// (stride == size / 2), else lo + stride. Skip the comparator when the upper position is >= n;
// otherwise exchange the two keys when they are out of order (never when they are equal),
// moving the values along. values may be NULL (keys only).
// Then bitonic_step2: for size = 2, 4, ..., next_pow2(n) and stride = size/2, ..., 1, launch
// the kernel with next_pow2(n) / 2 threads in blocks of `threads`, and check each launch with
// LAB_CHECK_LAUNCH(). The end of a launch is the only barrier between two layers.
// =============================================================================================

gl_status bitonic_step2(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                        int threads) {
  (void)keys, (void)values, (void)n, (void)descending, (void)threads;
  return gl_not_implemented(
      "bitonic_sort step 2 (2-global): write bitonic_global_layer and bitonic_step2's "
      "(size, stride) launch loop in labs/bitonic_sort/bitonic_sort.cu");
}

// =============================================================================================
// Step 3: shared memory (the seed's bitonicSortShared)
//
// Two kernels on tiles of 2 * blockDim.x keys (and values) in dynamic shared memory
// (extern __shared__; the launch gives its size, twice as large with values). A block loads its
// tile two keys per thread, blockDim.x apart so that a warp reads consecutive addresses;
// positions past n get a sentinel that the comparator never moves (UINT32_MAX ascending,
// 0 descending), and only the positions below n are written back.
//   bitonic_shared_sort_tiles: the seed's bitonicSortShared. Every size up to the tile and
//     every stride, one comparator per thread per layer, a __syncthreads() before each layer.
//   bitonic_shared_merge: for a size larger than the tile, the layers whose stride is below the
//     tile (tile/2, ..., 1: none of them is a mirror layer), in shared memory as above.
// Then bitonic_step3: sort the tiles; then for each size from 2 * tile to next_pow2(n): one
// global layer (step 2's kernel) per stride >= tile, then one bitonic_shared_merge.
// =============================================================================================

gl_status bitonic_step3(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                        int threads) {
  (void)keys, (void)values, (void)n, (void)descending, (void)threads;
  return gl_not_implemented(
      "bitonic_sort step 3 (3-shared): write bitonic_shared_sort_tiles, bitonic_shared_merge and "
      "bitonic_step3's launch loop in labs/bitonic_sort/bitonic_sort.cu");
}

// =============================================================================================
// Step 4: registers, shuffles, and several strides per pass
//
// The fast form (the handout's step 4 section). Suggested kernels:
//   - sort tiles of BITONIC_STEP4_THREADS_KEYS x 16 keys: each thread holds 16 keys in a register
//     array (fully unrolled loops, constant indices), strides inside a thread are register
//     compares, strides inside a warp are __shfl_xor_sync, larger strides go through one
//     shared-memory exchange into a layout where they are register compares again;
//   - for sizes beyond the tile: global passes that each do several strides at once (a thread
//     loads 2^K keys spaced by the smallest stride of the pass), then one tile merge like the
//     tile sort's last size.
// Pairs may use BITONIC_STEP4_THREADS_PAIRS threads to keep the shared memory under 48 KB.
// Then bitonic_step4: the launches, with the shapes fixed at compile time.
// =============================================================================================

gl_status bitonic_step4(uint32_t *keys, uint32_t *values, unsigned n, int descending) {
  (void)keys, (void)values, (void)n, (void)descending;
  return gl_not_implemented(
      "bitonic_sort step 4 (4-registers): write the register, shuffle and fused global kernels "
      "and bitonic_step4's launch loop in labs/bitonic_sort/bitonic_sort.cu");
}
