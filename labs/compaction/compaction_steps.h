// The compaction lab: the contract between the given code (labs/compaction/compaction_given.cu)
// and your exercises (labs/compaction/compaction.cu).
//
// This file is given: the grader always takes it from the course. It declares the function each
// step of compaction.cu defines, and says what the given code hands it: the public calls of
// compaction.h have already checked every argument (pointers not NULL, pred.rule known, n at
// most COMPACTION_MAX_N, block_size a power of two in [32, 1024] with 0 replaced by 256 (by 512
// in step 6), the scratch large enough and 8-byte aligned, outputs disjoint from inputs) and
// have handled n == 0, so every step below runs with 0 < n <= COMPACTION_MAX_N = 2^30. It also
// holds what both sides need: the constants, a host helper, and two device helpers your kernels
// call.
#ifndef GPULABS_LAB_COMPACTION_STEPS_H
#define GPULABS_LAB_COMPACTION_STEPS_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "compaction.h"
#include "gpulabs/status.h"

// Every lane of a warp, for the *_sync warp functions.
#define FULL_WARP 0xffffffffu

// Steps 4b and 4c: elements per lane, so that one atomic serves 32 * ENQUEUE_ITEMS elements.
#define ENQUEUE_ITEMS 16

// Step 5 works on tiles of blockDim.x * SINGLE_PASS_ITEMS elements, each thread holding its
// items in registers. The given compaction_scratch_bytes() sizes step 5's scratch for the
// smallest tile, SINGLE_PASS_SMALLEST_TILE (32 threads), so it is enough at any block size.
#define SINGLE_PASS_ITEMS 16
#define SINGLE_PASS_SMALLEST_TILE (32 * SINGLE_PASS_ITEMS)

// Tiles of tile_size elements that cover n elements.
static inline size_t single_pass_tiles(size_t n, size_t tile_size) {
  return (n + tile_size - 1) / tile_size;
}

// The predicate, for every kernel you write.
__device__ __forceinline__ bool keeps(compaction_pred pred, int x) {
  return pred.rule == COMPACTION_KEEP_BELOW ? x < pred.threshold : x != 0;
}

// Bits of the lanes below this one: popc(mask & lanes_below()) ranks a lane among the set
// lanes of a ballot.
__device__ __forceinline__ unsigned lanes_below(void) {
  return (1u << (threadIdx.x & 31)) - 1u;
}

// Step 2 (compaction_compact with COMPACTION_STEP_MAP_SCAN_SCATTER): d_out[0, count) = the
// elements of d_in[0, n) that pred keeps, in input order; *d_count = count. d_scratch holds at
// least compaction_scratch_bytes(COMPACTION_STEP_MAP_SCAN_SCATTER, n) = 2 n ints (the flags,
// then their exclusive scan), with anything in them.
gl_status compact_step2(compaction_pred pred, const int *d_in, int *d_out, int *d_count, size_t n,
                        int block_size, void *d_scratch);

// Step 3 (compaction_split and compaction_split_pairs): d_keys_out[0, count) = the kept keys,
// then d_keys_out[count, n) = the others, each group in input order; *d_count = count. For
// compaction_split, d_values and d_values_out are NULL; for compaction_split_pairs each value
// of d_values moves to its key's place in d_values_out. d_scratch: 2 n ints, as in step 2.
gl_status compact_step3(compaction_pred pred, const int *d_keys, const int *d_values,
                        int *d_keys_out, int *d_values_out, int *d_count, size_t n,
                        int block_size, void *d_scratch);

// Step 4a (compaction_compact with COMPACTION_STEP_ATOMIC): d_out[0, count) = the kept
// elements, in any order; *d_count = count. *d_count holds anything on entry. No scratch.
gl_status compact_step4_atomic(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                               size_t n, int block_size);

// Step 4b (compaction_compact with COMPACTION_STEP_WARP_AGGREGATED): the same as step 4a, with
// one atomic per warp. *d_count holds anything on entry. No scratch.
gl_status compact_step4_warp_aggregated(compaction_pred pred, const int *d_in, int *d_out,
                                        int *d_count, size_t n, int block_size);

// Step 4c (compaction_enqueue_complement): the kept elements to d_kept[0, d_counts[0]), the
// others to d_rest[0, d_counts[1]), each in any order. The given code has already zeroed the
// two counters d_counts[0] and d_counts[1]. No scratch.
gl_status compact_step4_complement(compaction_pred pred, const int *d_in, int *d_kept,
                                   int *d_rest, int *d_counts, size_t n, int block_size);

// Step 5 (compaction_compact with COMPACTION_STEP_SINGLE_PASS): the same result as step 2, in
// one pass. d_scratch holds at least compaction_scratch_bytes(COMPACTION_STEP_SINGLE_PASS, n)
// bytes: room for a tile counter and one 64-bit status word per tile of the smallest size,
// SINGLE_PASS_SMALLEST_TILE, with anything in them.
gl_status compact_step5(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                        size_t n, int block_size, void *d_scratch);

// Step 6, a bonus (compaction_compact with COMPACTION_STEP_PREFETCH): the same result as step 5,
// from step 5's kernel with two changes that matter on large arrays. Start from your step 5:
// - a ramp: the first tiles are smaller and grow (tile t of the ramp holds 4 (1 + t / q) items a
//   thread, up to the full tile), so that the first wave of blocks, which all start at once,
//   does not load, wait and store in lock-step;
// - an L2 prefetch a part of a wave ahead: once a warp has issued its loads, one lane asks the L2
//   to fetch the same warp's share of the tile `ahead` tiles later (cp.async.bulk.prefetch.L2,
//   inline PTX, sm_90 and newer; nothing elsewhere), so that tile's bytes come from memory while
//   this block waits for its offset. Keep the prefetched bytes well inside the L2 (lines evicted
//   before their block reads them are read twice), and prefetch only 16-byte aligned addresses
//   and multiples of 16 bytes.
// q and ahead follow from the GPU (its SMs, the blocks an SM holds, its L2): work them out once
// per device and block size, not on every call. Without a GPU (the CPU backend) the prefetch is
// a no-op and the ramp still runs. d_scratch is step 5's: compaction_scratch_bytes(
// COMPACTION_STEP_PREFETCH, n) = compaction_scratch_bytes(COMPACTION_STEP_SINGLE_PASS, n), a tile
// counter and one status word per SINGLE_PASS_SMALLEST_TILE elements, with anything in them; a
// launch may use at most single_pass_tiles(n, SINGLE_PASS_SMALLEST_TILE) tiles, ramp included.
gl_status compact_step6(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                        size_t n, int block_size, void *d_scratch);

#endif
