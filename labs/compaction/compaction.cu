// The compaction lab: your kernels. Stream compaction, the stable split and parallel enqueue,
// from map -> scan -> scatter on your own scan to a single pass with decoupled look-back.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/compaction/compaction.h         the API the tests call
//   labs/compaction/compaction_steps.h   what each step below must define, and what it is handed
//   labs/compaction/compaction_given.cu  argument checks, scratch sizes, the dispatch to your steps
// Steps 2 and 3 call scan_exclusive() from your scan lab (labs/scan/scan.cu, also yours): a bug
// in your scan shows up here too.
//
// The handout, labs/compaction/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L compaction -R 'CompactionStep3Split\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (compaction on the CPU) is given: labs/compaction/compaction_reference.c
//   step 2   2-map-scan-scatter       map_kernel, scatter_kernel, compact_step2
//   step 3   3-split, 3-split-pairs   split_scatter_kernel, compact_step3
//   step 4a  4a-atomic                enqueue_atomic_kernel, compact_step4_atomic
//   step 4b  4b-warp-aggregated       enqueue_warp_kernel, compact_step4_warp_aggregated
//   step 4c  4c-complement            enqueue_complement_kernel, compact_step4_complement
//   step 5   5-single-pass            single_pass_kernel, compact_step5
//   step 6   6-prefetch (a bonus)     compact_step6 (step 5's kernel, ramped and prefetching)
#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "scan.h"  // scan_exclusive(), from your scan lab: steps 2 and 3 call it
#include "compaction_steps.h"

// =============================================================================================
// Step 2: map -> scan -> scatter
//
// Write two kernels, one element per thread, and launch them around your scan:
//   map_kernel:     flags[i] = keeps(pred, in[i]) ? 1 : 0;
//   scan_exclusive(flags, offsets, n), your scan lab's fastest step;
//   scatter_kernel: a kept in[i] goes to out[offsets[i]]; the thread of the last element also
//                   writes the count (its offset plus its flag) to *count.
// Suggested signatures:
//   __global__ void map_kernel(compaction_pred pred, const int *in, int *flags, size_t n);
//   __global__ void scatter_kernel(const int *in, const int *flags, const int *offsets,
//                                  int *out, int *count, size_t n);
// Launch (n + block_size - 1) / block_size blocks. The scratch holds the n flags, then the n
// offsets. Check every launch with LAB_CHECK_LAUNCH() and pass on the scan's status with
// GL_TRY(): until your scan is written, its "not implemented" is what this step returns.
// =============================================================================================

gl_status compact_step2(compaction_pred pred, const int *d_in, int *d_out, int *d_count, size_t n,
                        int block_size, void *d_scratch) {
  (void)pred, (void)d_in, (void)d_out, (void)d_count, (void)n, (void)block_size, (void)d_scratch;
  return gl_not_implemented(
      "compaction step 2 (2-map-scan-scatter): write map_kernel and scatter_kernel in "
      "labs/compaction/compaction.cu");
}

// =============================================================================================
// Step 3: the stable split (the thesis's kd-tree triangles)
//
// The same map and scan as step 2, then one kernel, split_scatter_kernel, where every element
// moves:
//   address = flag ? prefix : i - prefix + nf      (nf: the number kept)
// nf is offsets[n - 1] + flags[n - 1], which every thread can read. d_values and d_values_out
// are NULL for a split of keys alone (compaction_split); otherwise each value moves to its
// key's address (compaction_split_pairs). The thread of the last element writes nf to *d_count.
// Suggested signature:
//   __global__ void split_scatter_kernel(const int *keys, const int *values, const int *flags,
//                                        const int *offsets, int *keys_out, int *values_out,
//                                        int *count, size_t n);
// =============================================================================================

gl_status compact_step3(compaction_pred pred, const int *d_keys, const int *d_values,
                        int *d_keys_out, int *d_values_out, int *d_count, size_t n,
                        int block_size, void *d_scratch) {
  (void)pred, (void)d_keys, (void)d_values, (void)d_keys_out, (void)d_values_out, (void)d_count,
      (void)n, (void)block_size, (void)d_scratch;
  return gl_not_implemented(
      "compaction step 3 (3-split): write split_scatter_kernel in labs/compaction/compaction.cu");
}

// =============================================================================================
// Step 4a: parallel enqueue, one atomic per element
//
// enqueue_atomic_kernel, one element per thread: out[atomicAdd(count, 1)] = in[i] for every
// kept element. *d_count is the counter and holds anything on entry: zero it with
// cudaMemsetAsync before the launch.
// Suggested signature:
//   __global__ void enqueue_atomic_kernel(compaction_pred pred, const int *in, int *out,
//                                         int *count, size_t n);
// =============================================================================================

gl_status compact_step4_atomic(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                               size_t n, int block_size) {
  (void)pred, (void)d_in, (void)d_out, (void)d_count, (void)n, (void)block_size;
  return gl_not_implemented(
      "compaction step 4a (4a-atomic): write enqueue_atomic_kernel in "
      "labs/compaction/compaction.cu");
}

// =============================================================================================
// Step 4b: parallel enqueue, one atomic per warp
//
// enqueue_warp_kernel, one atomicAdd per warp for a run of 32 * ENQUEUE_ITEMS consecutive
// elements: item k of a lane is element run_start + 32 k + lane, one warp per run. One
// __ballot_sync per item; __popc counts and ranks (with lanes_below()); lane 0 adds the warp's
// total to the counter and __shfl_sync hands the base to every lane. Every lane takes part in
// every ballot and shuffle: a lane past n votes "no" instead of returning. As in step 4a,
// *d_count must be 0 before the kernel runs (cudaMemsetAsync).
// Suggested signature:
//   __global__ void enqueue_warp_kernel(compaction_pred pred, const int *in, int *out,
//                                       int *count, size_t n);
// =============================================================================================

gl_status compact_step4_warp_aggregated(compaction_pred pred, const int *d_in, int *d_out,
                                        int *d_count, size_t n, int block_size) {
  (void)pred, (void)d_in, (void)d_out, (void)d_count, (void)n, (void)block_size;
  return gl_not_implemented(
      "compaction step 4b (4b-warp-aggregated): write enqueue_warp_kernel in "
      "labs/compaction/compaction.cu");
}

// =============================================================================================
// Step 4c: two buffers with one ballot
//
// enqueue_complement_kernel, the runs of step 4b with one ballot per item: a rejected lane's
// rank is its lane number minus its rank among the kept lanes (the lanes of an item that exist
// are always the lowest ones). Kept elements go to d_kept, the rest to d_rest; d_counts[0] and
// d_counts[1] are the two atomic counters, one atomicAdd each per warp. The given code has
// already zeroed them when this is called.
// Suggested signature:
//   __global__ void enqueue_complement_kernel(compaction_pred pred, const int *in,
//                                             int *kept_out, int *rest_out, int *counts,
//                                             size_t n);
// =============================================================================================

gl_status compact_step4_complement(compaction_pred pred, const int *d_in, int *d_kept,
                                   int *d_rest, int *d_counts, size_t n, int block_size) {
  (void)pred, (void)d_in, (void)d_kept, (void)d_rest, (void)d_counts, (void)n, (void)block_size;
  return gl_not_implemented(
      "compaction step 4c (4c-complement): write enqueue_complement_kernel in "
      "labs/compaction/compaction.cu");
}

// =============================================================================================
// Step 5: single-pass stable compaction
//
// One kernel, single_pass_kernel, one block per tile of block_size * SINGLE_PASS_ITEMS
// elements. The scratch starts with a tile counter (hand tiles out in launch order with
// atomicAdd, never by blockIdx.x), then one 64-bit status word per tile (flag and count in one
// word). It holds anything on entry: zero what you use with cudaMemsetAsync before the launch.
// Each block: load its tile, count and rank its kept elements (ballots), publish its count,
// stage the kept elements in shared memory, look back for the count of all earlier tiles,
// publish the inclusive count, copy the staged elements out; the last tile writes *d_count.
// The staging array holds a tile: at 1024 threads that is 64 KiB of dynamic shared memory,
// which needs cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...)
// before the launch.
// Suggested signature:
//   __global__ void single_pass_kernel(compaction_pred pred, const int *in, int *out, int *count,
//                                      size_t n, unsigned long long *status,
//                                      unsigned *tile_counter, unsigned num_tiles);
// =============================================================================================

gl_status compact_step5(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                        size_t n, int block_size, void *d_scratch) {
  (void)pred, (void)d_in, (void)d_out, (void)d_count, (void)n, (void)block_size, (void)d_scratch;
  return gl_not_implemented(
      "compaction step 5 (5-single-pass): write single_pass_kernel in "
      "labs/compaction/compaction.cu");
}

// =============================================================================================
// Step 6: prefetch a part of a wave ahead (a bonus)
//
// Step 5 made faster on large arrays, with two changes (the handout says why each helps):
// - A ramp. The first wave of blocks starts together, so with equal tiles they load together,
//   wait for their offsets together and store together, and the memory is idle in between.
//   Make the first tiles smaller and growing instead: with q tiles of each size, tile
//   t < (items / 4 - 1) q holds 4 (1 + t / q) items a thread (4, 8, ..., 44 for tiles of 48;
//   4, 8, 12 for the exercise's 16), so the first wave's blocks finish at different times. A
//   tile's start then depends on the sizes of the tiles before it: work it out in closed form,
//   not with a loop.
//   q: about 75% of a wave of blocks (the GPU's SMs times the blocks an SM holds,
//   cudaOccupancyMaxActiveBlocksPerMultiprocessor) divided by the number of ramp sizes. Use the
//   ramp only when n is more than twice the elements it covers.
// - An L2 prefetch. Right after a warp has issued its loads, one lane asks the L2 for the same
//   warp's share of the tile `ahead` tiles later:
//     asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(ptr), "r"(bytes) : "memory");
//   (sm_90 and newer only: put it under #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900; the
//   CPU backend defines no __CUDA_ARCH__ and skips it). ptr must be 16-byte aligned and bytes a
//   multiple of 16: skip the prefetch when the input is not aligned, and round the last tile's
//   share down to whole 16 bytes. ahead: about 25% of a wave, and no more tiles than a quarter of
//   the L2 holds (cudaDevAttrL2CacheSize): prefetched lines evicted before use are read twice.
// Compute q and ahead once per device and block size (keep them in statics), not on every call.
// The rubric allows inline assembly in this step only ("audit allow asm step=6"): write the
// prefetch as a __device__ function below this banner, and declare it above your kernel if the
// kernel lives in step 5. Keep the number of tiles within the scratch (compaction_steps.h).
// Suggested: give your step 5 kernel the ramp's q, its tiles and elements, and ahead, all 0 (off)
// in step 5, so that compact_step5 and compact_step6 launch the same kernel.
// =============================================================================================

gl_status compact_step6(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                        size_t n, int block_size, void *d_scratch) {
  (void)pred, (void)d_in, (void)d_out, (void)d_count, (void)n, (void)block_size, (void)d_scratch;
  return gl_not_implemented(
      "compaction step 6 (6-prefetch, a bonus): add the ramp and the L2 prefetch to your step 5 "
      "in labs/compaction/compaction.cu");
}
