// The bitonic_sort lab: your kernels. The bitonic sorting network on the GPU, three times over,
// each faster: one launch per layer, tiles in shared memory, keys in registers; and a bonus
// fourth that cuts the passes over memory.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/bitonic_sort/bitonic_sort.h         the API the tests call
//   labs/bitonic_sort/bitonic_sort_steps.h   what each step below must define, and what it is handed
//   labs/bitonic_sort/bitonic_sort_given.cu  argument checks, step names, the dispatch to your steps
//
// The handout, labs/bitonic_sort/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L bitonic_sort -R 'BitonicSortStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (the CPU reference) is given: labs/bitonic_sort/bitonic_sort_reference.c
//   step 2  2-global      bitonic_step2, and the kernel of one layer
//   step 3  3-shared      bitonic_step3, and kernels that sort and merge tiles in shared memory
//   step 4  4-registers   bitonic_step4, and kernels that sort and merge in registers
//   step 5  5-windows     bitonic_step5, a window kernel and the host's plan (bonus)
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

// =============================================================================================
// Step 5 (bonus): windows of the network, fewer passes
//
// Step 4 reads and writes the whole array 30 times for n = 2^24. Step 5 cuts that to 17 by
// making every pass do as many layers as a block can hold (the handout's step 5 section):
//   - a block holds 2^14 keys whose positions differ in 14 chosen bits: the low bits 0 .. a-1
//     and a band of bits h .. h+13-a; the block index supplies the other bits. Any layer on
//     those bits is then inside the block;
//   - one pass runs a *window*: a run of consecutive layers of the network whose bits fit,
//     straddling two sizes where it can (the last layers of size s, bits x .. 0, and
//     the first of size s+1, bits s .. y). A mirror layer also flips the bits between the low
//     part and the band: the upper half of the block takes those positions complemented;
//   - every block also holds position bits 0 .. 3, so it reads 64-byte pieces, never scattered
//     32-byte ones (a pass more, but faster passes);
//   - inside the block the keys live in shared memory, and the layers run in *groups*: a thread
//     reads 32 keys whose positions differ in 5 chosen bits, runs the group's layers on them in
//     registers, and writes them back; one barrier per group. No shuffles;
//   - let the compiler know as much as it can: number a block's local bits in the order of the
//     window's layers, and each group's layout and layers are compile-time constants (a word
//     per key of v + (v >> 5) + (v >> 10) makes every register's word a base plus a constant).
// The host plans the windows (the longest that fit, one after another) and hands each launch
// the one thing that is data: where the block's keys are. The tile sort (sizes 1 .. 14 in each
// block of 2^14 consecutive keys) is the same groups, its whole plan a compile-time constant.
// Then bitonic_step5: the tile sort and the plan's launches, shapes fixed at compile time.
// =============================================================================================

gl_status bitonic_step5(uint32_t *keys, uint32_t *values, unsigned n, int descending) {
  (void)keys, (void)values, (void)n, (void)descending;
  return gl_not_implemented(
      "bitonic_sort step 5 (5-windows): write the window kernel, the host's plan of windows and "
      "groups, and bitonic_step5's launch loop in labs/bitonic_sort/bitonic_sort.cu");
}
