// The radix_sort lab: the contract between the given code (labs/radix_sort/radix_sort_given.cu)
// and your steps (labs/radix_sort/radix_sort.cu). Given: read it, do not edit it; the grader
// always takes it from the course.
//
// A public call of radix_sort.h is checked and planned by the given code (the arguments, the
// scratch copies of the keys and values, which buffer each pass reads and writes), which then
// hands the sort to the function of its step below. Each step launches its kernels on the
// default stream and returns GL_OK, or the first error (GL_TRY, LAB_CHECK, LAB_CHECK_LAUNCH).
#ifndef GPULABS_LAB_RADIX_SORT_STEPS_H
#define GPULABS_LAB_RADIX_SORT_STEPS_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"
#include "radix_sort.h"

// ---------------------------------------------------------------------------------------------
// One sort call, checked and planned
// ---------------------------------------------------------------------------------------------

#define RADIX_MAX_PASSES 32

// What each step is handed: the call's arguments and what each pass reads and writes.
typedef struct sort_job {
  const char *fn;  // the public function, for messages
  radix_sort_step step;
  size_t n;
  int begin_bit, end_bit, digit_bits;
  int pass_count;  // ceil((end_bit - begin_bit) / digit_bits)
  int with_values;
  // Pass p reads keys_from[p] (values_from[p]) and writes keys_to[p] (values_to[p]). The passes
  // alternate between the caller's output and a scratch buffer, arranged so that the last pass
  // writes the output.
  const uint32_t *keys_from[RADIX_MAX_PASSES];
  uint32_t *keys_to[RADIX_MAX_PASSES];
  const uint32_t *values_from[RADIX_MAX_PASSES];
  uint32_t *values_to[RADIX_MAX_PASSES];
} sort_job;

// ---------------------------------------------------------------------------------------------
// Your steps (labs/radix_sort/radix_sort.cu)
// ---------------------------------------------------------------------------------------------

// Each step is handed a checked job with n > 0 and its pass plan filled in: keys_from[p] and
// keys_to[p] for p < job->pass_count (values_from[p] and values_to[p] too when job->with_values,
// NULL otherwise). Pass p sorts stably on the next digit of [job->begin_bit, job->end_bit), from
// the least significant; the last pass may have fewer bits than job->digit_bits. After the
// last pass, keys_to[pass_count - 1] (the caller's output) holds the sorted keys.

// Step 2 (2-split): one bit per pass (job->digit_bits is 1), bit job->begin_bit + p in pass p:
// flags, scan_exclusive from your scan lab, scatter.
gl_status radix_step2(const sort_job *job);

// Step 3 (3-digits): job->digit_bits is 4 or 8. Per pass: tile histograms, one scan_exclusive of
// the digit-major table, a local sort of each tile in shared memory and a scatter.
gl_status radix_step3(const sort_job *job);

// Step 4 (4-onesweep): job->digit_bits is 8, at most 4 passes. One histogram of every pass's
// digits up front, then one kernel per pass that ranks a tile, looks back and scatters.
gl_status radix_step4(const sort_job *job);

// Step 5 (5-onesweep-tuned): step 4 tuned. job->digit_bits is 8, at most 4 passes. Many keys per
// thread, per-warp digit counts published before the ranking, ballot ranking straight into the
// sorted tile in shared memory, a look-back several tiles at a time; the tile status words are
// never cleared (each launch stamps its words with an epoch), so a sort is 5 launches and no
// memset. Its tables live in radix_kept_scratch, which keeps them from one call to the next.
gl_status radix_step5(const sort_job *job);

// The extension: signed and float keys. Handed a job checked for a sort of all 32 bits with the
// step's default digit size (n > 0, pass plan not filled in yet), the caller's input and its
// output (the same array for an in-place call). Must write the keys of keys_in, sorted in
// ascending order (radix_sort.h says which order for floats), to keys_out, through an
// order-preserving map to uint32 and radix_run_job below.
gl_status radix_extension_i32(sort_job *job, const int32_t *keys_in, int32_t *keys_out);
gl_status radix_extension_f32(sort_job *job, const float *keys_in, float *keys_out);

// ---------------------------------------------------------------------------------------------
// Given, for your steps (defined in labs/radix_sort/radix_sort_given.cu)
// ---------------------------------------------------------------------------------------------

// The step's own scratch (flags, digit tables, tile status): *scratch gets `bytes` bytes (at
// least) of device memory, kept between calls and grown when a call needs more. Call it once per
// sort: a second call may move the memory. It holds whatever the last call left, so set what
// must start at zero. `what` names it in the message when cudaMalloc fails.
gl_status radix_scratch(size_t bytes, const char *what, void **scratch);

// Step 5's own scratch, which keeps its contents from one call of step 5 to the next (no other
// step uses it): *scratch gets `bytes` bytes (at least) of device memory. *fresh is 1 when that
// memory is new (the first call, a call that needs more than the last, the first call after
// radix_sort_release()): it then holds garbage, so set up what must start at zero and forget
// what you remembered about the old memory; 0 when it is the memory of the last call, as that
// call left it.
gl_status radix_kept_scratch(size_t bytes, const char *what, void **scratch, int *fresh);

// The number of SMs of the current device (asked once, then remembered).
gl_status radix_sm_count(int *count);

// Plans the passes of a checked job (into job's pass plan) and runs its step: the sort of n keys
// (and values, when job->with_values) from keys_in to keys_out, in place when they are the same
// array. What radix_sort_keys and radix_sort_pairs do once their arguments are checked.
gl_status radix_run_job(sort_job *job, const uint32_t *keys_in, uint32_t *keys_out,
                        const uint32_t *values_in, uint32_t *values_out);

// Grid sizes: the kernels of steps 2-4 run blocks of 256 threads (8 warps); step 5 picks its
// own block sizes (BLOCK, WARPS and block_exclusive_sum below are for blocks of 256).
#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xFFFFFFFFu

// Blocks (or tiles) needed to cover `items` at `per_block` each.
#define BLOCKS_FOR(items, per_block) \
  ((unsigned int)(((size_t)(items) + (size_t)(per_block) - 1) / (size_t)(per_block)))

// ---------------------------------------------------------------------------------------------
// Block-wide building blocks (the scan lab's warp-shuffle scan), for your kernels
// ---------------------------------------------------------------------------------------------

// Inclusive prefix sum of one int per lane over a warp; every lane of the warp must call it.
static __device__ inline int warp_inclusive_sum(int x) {
  int lane = threadIdx.x & 31;
  for (int offset = 1; offset < 32; offset <<= 1) {
    int y = __shfl_up_sync(FULL_MASK, x, offset);
    if (lane >= offset) x += y;
  }
  return x;
}

// Exclusive prefix sum of one int per thread over a block of BLOCK threads; *total gets the sum
// of all. Every thread of the block must call it (it has barriers). s_warp_sums: WARPS ints of
// shared memory, free again when the function returns.
static __device__ inline int block_exclusive_sum(int x, int *total, int *s_warp_sums) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int inclusive = warp_inclusive_sum(x);
  if (lane == 31) s_warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    int sum = lane < WARPS ? s_warp_sums[lane] : 0;
    sum = warp_inclusive_sum(sum);
    if (lane < WARPS) s_warp_sums[lane] = sum;
  }
  __syncthreads();
  int warps_before = warp > 0 ? s_warp_sums[warp - 1] : 0;
  *total = s_warp_sums[WARPS - 1];
  __syncthreads();  // the next call may overwrite s_warp_sums
  return warps_before + inclusive - x;
}

// The digit of `key` in a pass: its bits [shift, shift + bits), with mask = 2^bits - 1.
static __device__ inline unsigned digit_of(uint32_t key, int shift, unsigned mask) {
  return (key >> shift) & mask;
}

#endif
