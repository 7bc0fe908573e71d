// The scan lab: your kernels. Six GPU prefix sums, from Hillis-Steele to a single pass with
// decoupled look-back at CUB's speed.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/scan/scan.h          the API the tests call
//   labs/scan/scan_steps.h    what each step below must define, and what it is handed
//   labs/scan/scan_given.cu   argument checks, scratch memory, the dispatch to your steps
//
// The handout, labs/scan/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L scan -R 'ScanStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (the CPU reference) is given: labs/scan/scan_reference.c
//   step 2  2-naive             scan_step2             (naive_level_kernel)
//   step 3  3-blelloch-global   scan_step3             (the up-sweep and down-sweep kernels)
//   step 4  4-blelloch-shared   scan_step4_block_scan  (blelloch_shared_kernel)
//                               scan_step4_levels      (the levels of steps 4, 5 and 6)
//   step 5  5-blelloch-padded   scan_step5_block_scan  (blelloch_padded_kernel)
//   step 6  6-warp-shuffle      scan_step6_block_scan  (warp_shuffle_kernel)
//   step 7  7-single-pass       scan_step7             (single_pass_kernel)
//   step 8  8-prefetch (bonus)  scan_step8             (step 7's kernel, staggered and prefetching)
//   then    scan_exclusive      scan_exclusive_step    (the step compaction and radix sort use)
//
// Compute sums in unsigned int: they then wrap around like the CPU reference, while signed
// overflow would be undefined behaviour.
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "scan_steps.h"

// =============================================================================================
// Step 2: Hillis-Steele in global memory, one launch per level, double-buffered
//
// Write naive_level_kernel: one thread per element, out[i] = in[i] + in[i - offset] where
// i >= offset, else in[i]. Launch it once per level, offset = 1, 2, 4, ... < n, alternating
// between d_out and the second buffer d_tmp so that the last level writes d_out.
// - Exclusive: the exclusive scan is the inclusive scan of the input shifted right by one with
//   a 0 in front; let the first level read it shifted.
// - n == 1 still needs one launch.
// - In place (d_in == d_out): no level may read and write the same buffer.
// =============================================================================================

gl_status scan_step2(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     int *d_tmp) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_tmp;
  return gl_not_implemented(
      "scan step 2 (2-naive): write naive_level_kernel and its launch loop in scan_step2, "
      "labs/scan/scan.cu");
}

// =============================================================================================
// Step 3: Blelloch up-sweep/down-sweep in global memory, one launch per level
//
// In the work buffer d_buf of m elements (m the power of two >= n): copy d_in into d_buf
// followed by zeros; one launch per up-sweep level (stride 2, 4, ..., m:
// buf[k*stride + stride-1] += buf[k*stride + stride/2-1]); set the root d_buf[m-1] to 0; one
// launch per down-sweep level (stride m, ..., 2); copy the first n results to d_out (inclusive:
// add the input element). Give thread k the k-th node of a level, not the element k with a
// `k % stride == 0` test. Only nodes whose subtree starts below n need a thread.
// =============================================================================================

gl_status scan_step3(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_buf, size_t m) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_buf, (void)m;
  return gl_not_implemented(
      "scan step 3 (3-blelloch-global): write the up-sweep and down-sweep kernels and their "
      "launch loops in scan_step3, labs/scan/scan.cu");
}

// =============================================================================================
// Step 4: Blelloch per block in shared memory, the tile totals scanned recursively
//
// Steps 4-6 scan each tile in one block, scan the tile totals, and add them back. Two
// functions, the first for step 4 alone, the second for steps 4, 5 and 6:
// - scan_step4_block_scan: write blelloch_shared_kernel: each thread loads 2 elements into
//   shared memory (thread t: t and t + blockDim.x, so loads are coalesced), up-sweep, save the
//   total, clear the root, down-sweep, write back. Launch it with one block per tile and
//   2 * block_size * sizeof(unsigned int) bytes of dynamic shared memory.
// - scan_step4_levels (called only when n needs more than one tile): scan the tiles with
//   scan_block_scan(step, ...), writing their totals to d_sums; scan the `tiles` totals
//   (exclusive, in place, with the given scan_levels: the space after them in d_sums is
//   theirs; it calls you back when they need more than one tile themselves); then add total b's
//   scan to every element of tile b with a kernel of your own.
// =============================================================================================

gl_status scan_step4_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_block_sums;
  return gl_not_implemented(
      "scan step 4 (4-blelloch-shared): write blelloch_shared_kernel and launch it in "
      "scan_step4_block_scan, labs/scan/scan.cu");
}

gl_status scan_step4_levels(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                            size_t n, int block_size, int *d_sums) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_sums;
  return gl_fail(GL_ERR_NOT_IMPLEMENTED,
                 "not implemented: scan step %d (%s) with more than one tile: write the "
                 "recursion in scan_step4_levels and the kernel that adds the tile offsets, "
                 "labs/scan/scan.cu",
                 (int)step, scan_step_name(step));
}

// =============================================================================================
// Step 5: padding against shared-memory bank conflicts
//
// Write blelloch_padded_kernel: step 4's kernel with shared index i stored at i + (i >> 5)
// (write the tile scan once as a __device__ function with a `padded` flag and call it from
// both kernels). Launch it like step 4's, with room for the padding words:
// (2 * block_size + 2 * block_size / 32) * sizeof(unsigned int) bytes. scan_step4_levels does
// the rest.
// =============================================================================================

gl_status scan_step5_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_block_sums;
  return gl_not_implemented(
      "scan step 5 (5-blelloch-padded): write blelloch_padded_kernel and launch it in "
      "scan_step5_block_scan, labs/scan/scan.cu");
}

// =============================================================================================
// Step 6: warp-shuffle scan in a block
//
// Write warp_shuffle_kernel: one element a thread (a tile of block_size elements), an inclusive
// scan in each warp with __shfl_up_sync, the warp totals scanned by warp 0, each warp's offset
// added. Every lane must execute every __shfl_up_sync: load 0 past n rather than returning
// early. scan_step4_levels does the rest.
// =============================================================================================

gl_status scan_step6_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_block_sums;
  return gl_not_implemented(
      "scan step 6 (6-warp-shuffle): write warp_shuffle_kernel and launch it in "
      "scan_step6_block_scan, labs/scan/scan.cu");
}

// =============================================================================================
// Step 7: single pass with decoupled look-back (Merrill & Garland)
//
// Write single_pass_kernel, one block per tile of SINGLE_PASS_ITEMS * block_size elements, and
// launch it with `tiles` blocks; the tile counter and the status words are handed to you, zeroed.
// Each block: takes its tile number from atomicAdd on the counter (not blockIdx.x); scans its
// tile in registers (16-byte loads need d_in and d_out 16-byte aligned, which cudaMalloc gives
// but d_in + 1 does not, and a whole tile); publishes its total as an "aggregate" status word;
// lets one warp look back over the status words of the tiles before it until it meets an
// "inclusive prefix"; publishes its own inclusive prefix; adds its exclusive prefix and writes
// out. Flag and sum share one 64-bit word, read and written with volatile accesses.
// =============================================================================================

gl_status scan_step7(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_tile_counter, unsigned long long *d_status, size_t tiles) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_tile_counter,
      (void)d_status, (void)tiles;
  return gl_not_implemented(
      "scan step 7 (7-single-pass): write single_pass_kernel and launch it in scan_step7, "
      "labs/scan/scan.cu");
}

// =============================================================================================
// Step 8: a staggered first wave and an L2 prefetch part of a wave ahead (bonus)
//
// Start from step 7 (its kernel can take the new parameters, 0 meaning off, so that it exists
// once). Two changes, each measured in the handout:
// - The first wave of blocks starts together, loads together and stores together, and the
//   memory sits idle in between. Make the first tiles smaller and growing (the first few with one
//   load a thread, the next few with two, ... up to the full tile), so that the first wave's
//   blocks finish one after another. Tile t's start is then a closed form, not t * tile size.
// - A block that waits for its prefix moves no bytes. Right after a warp has issued its loads,
//   let its lane 0 ask L2 for the same warp's part of the tile `ahead` tiles later
//   (cp.async.bulk.prefetch.L2.global, sm_90 and later), so that tile's reads from memory happen
//   now; `ahead` a fraction of the blocks the GPU holds at once (cudaDeviceGetAttribute,
//   cudaOccupancyMaxActiveBlocksPerMultiprocessor) and small enough that its bytes stay well
//   inside L2 (cudaDevAttrL2CacheSize), or the prefetched lines are evicted before use.
// Use no more status words than `tiles`: a ramp of small tiles adds tiles. The prefetch is one
// line of inline PTX, allowed only in this part of the file (the rubric's `audit allow asm
// step=8`): define it below this banner and declare it above your kernel; guard it with
// `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900` (older GPUs and the CPU backend compile
// nothing for it); give it a 16-byte aligned address and a multiple of 16 bytes.
// =============================================================================================

gl_status scan_step8(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_tile_counter, unsigned long long *d_status, size_t tiles) {
  (void)kind, (void)d_in, (void)d_out, (void)n, (void)block_size, (void)d_tile_counter,
      (void)d_status, (void)tiles;
  return gl_not_implemented(
      "scan step 8 (8-prefetch, bonus): stagger step 7's first wave and prefetch a part of a "
      "wave ahead in scan_step8, labs/scan/scan.cu");
}

// =============================================================================================
// scan_exclusive: the step the later labs build on
//
// scan_exclusive (what compaction and radix sort call) runs the step this returns. Step 4 is
// the first that scans any n efficiently; once step 7 passes its tests, return it (or whichever
// of your steps is fastest): ScanPerf.BestVsCub times scan_exclusive.
// =============================================================================================

scan_step scan_exclusive_step(void) { return SCAN_STEP_BLELLOCH_SHARED; }
