// The radix_sort lab: your kernels. LSD radix sort of uint32 keys and key-value pairs, from
// one-bit split passes to Onesweep's 8-bit digits with decoupled look-back.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/radix_sort/radix_sort.h         the API the tests call
//   labs/radix_sort/radix_sort_steps.h   what each step below must define, and what it is handed
//   labs/radix_sort/radix_sort_given.cu  argument checks, scratch memory, the dispatch to your steps
// Steps 2 and 3 call scan_exclusive() from your scan lab (labs/scan/scan.cu, also yours): a bug
// in your scan shows up here too.
//
// The handout, labs/radix_sort/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L radix_sort -R 'RadixSortStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (the CPU reference) is given: labs/radix_sort/radix_sort_reference.c
//   step 2  2-split      radix_step2
//   step 3  3-digits     radix_step3
//   step 4  4-onesweep   radix_step4
//   step 5  5-onesweep-tuned  radix_step5 (a bonus: step 4 as fast as CUB)
//   then    extension    radix_extension_i32, radix_extension_f32: int32 and float keys
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "radix_sort_steps.h"
#include "scan.h"  // scan_exclusive, from your scan lab

// =============================================================================================
// Step 2: one bit per pass, with your scan
//
// For each pass p (bit job->begin_bit + p), from job->keys_from[p] to job->keys_to[p] (and the
// values, when job->with_values):
//   1. a kernel writes e[i] = 1 where the bit of key i is 0 (a "false" key), else 0;
//   2. scan_exclusive(e, f, n) from your scan lab gives f[i] = the falses before i (it may scan
//      in place);
//   3. a kernel moves key i to f[i] if it is false, else to i - f[i] + total_false, where
//      total_false = f[n - 1] + e[n - 1].
// The flags need n ints of scratch: radix_scratch(n * sizeof(int), ...).
// =============================================================================================

gl_status radix_step2(const sort_job *job) {
  (void)job;
  return gl_not_implemented(
      "radix_sort step 2 (2-split): write the flag and scatter kernels and the pass loop of "
      "radix_step2 in labs/radix_sort/radix_sort.cu");
}

// =============================================================================================
// Step 3: k-bit digits, tiles, and a local sort in shared memory
//
// job->digit_bits is 4 or 8. For each pass, with the keys cut into tiles of a few thousand (one
// block each):
//   1. a kernel counts each tile's digits into table[digit * tile_count + tile];
//   2. scan_exclusive over the whole table: each entry becomes the output position of that
//      tile's first key with that digit (digit-major order puts all smaller digits first);
//   3. a kernel sorts its tile by the digit in shared memory (digit_bits 1-bit splits, each
//      with block_exclusive_sum), finds where each digit's run starts in the sorted tile, and
//      writes key i of the sorted tile to table[digit][tile] + (i - run start).
// The table is the step's scratch (radix_scratch). The last pass may have fewer bits than
// digit_bits (bit ranges such as [0, 12)).
// =============================================================================================

gl_status radix_step3(const sort_job *job) {
  (void)job;
  return gl_not_implemented(
      "radix_sort step 3 (3-digits): write the tile histogram and tile sort-and-scatter "
      "kernels and the pass loop of radix_step3 in labs/radix_sort/radix_sort.cu");
}

// =============================================================================================
// Step 4: Onesweep - one histogram, one kernel per pass
//
// Up front: one kernel counts the 8-bit digits of all passes (the set of keys never changes,
// only its order), and an exclusive scan of each pass's 256 counts gives each digit's start.
// Then per pass, one kernel; each block:
//   1. takes the next tile number from a global counter (atomicAdd), so that every earlier
//      tile belongs to a block that has already started;
//   2. ranks its keys: for each key, how many keys of the tile with the same digit come
//      before it (warp ballots find the lanes with the same digit);
//   3. publishes its per-digit counts in a status word per (tile, digit) with a flag, then
//      walks back over earlier tiles' words, adding counts until one carries a prefix, and
//      publishes its own inclusive prefix;
//   4. orders the tile by digit in shared memory and writes each digit's run to
//      digit start + earlier tiles' count + position in the run.
// Status words and tile counters live in the step's scratch (radix_scratch) and must start at
// zero in every call (cudaMemsetAsync).
// =============================================================================================

gl_status radix_step4(const sort_job *job) {
  (void)job;
  return gl_not_implemented(
      "radix_sort step 4 (4-onesweep): write the histogram, offsets and pass kernels and "
      "radix_step4 in labs/radix_sort/radix_sort.cu");
}

// =============================================================================================
// Step 5: Onesweep tuned - step 4 at the speed of memory
//
// Step 4's algorithm, arranged the way CUB's own sort arranges it (Adinets and Merrill 2022).
// Up front, one kernel counts every pass's digits with 16-byte loads; the last of its blocks to
// finish (it draws the last ticket from a counter) scans the counts into digit starts and clears
// them for the next call. Then one kernel per pass, each block a tile of threads * items keys
// (about 7,000), which:
//   1. takes its tile number from a counter and loads its keys warp-striped (round j, lane l of
//      warp w holds key w * 32 * items + 32 * j + l of the tile), the values too, at once, so
//      that their loads overlap the ranking. The last tile pads with all-ones keys: the largest
//      digit, and later than every real key, so they sort to the end of the tile, unwritten;
//   2. counts its digits per warp (shared atomicAdd) before ranking anything, turns the counts
//      into each warp's first slot per digit in the sorted tile, and publishes the tile's counts
//      at once, so that later tiles never wait for this one's ranking (early counts);
//   3. ranks each key: one ballot per digit bit finds the lanes with its digit, and the highest
//      of them adds the group to the warp's slot counter. A rank is now the key's slot in the
//      sorted tile: key and value go straight to shared memory, and no rank is kept;
//   4. looks back over earlier tiles, several status words per read, and publishes its prefix;
//   5. writes the sorted tile out: slot i, digit d, goes to d's start in the output + earlier
//      tiles' keys of d + (i - d's first slot), so consecutive threads write consecutive
//      addresses of one digit's run.
// Status words are 64 bits: the launch's number (its epoch) over the flags and the count. A word
// stamped by another launch reads as empty, so no call clears them; nor the counters, whose
// values the host keeps count of. All of it lives in radix_kept_scratch, zeroed once when new:
// a sort is 5 launches and no memset.
//
// Pitfalls: ranking in any order but the input's (the pass kernel loads 4 bytes per lane: with
// 16-byte loads a lane would hold four neighbours and rank them after other lanes' keys);
// writing the padding slots out (past the end of the output); a ballot in a branch some lanes
// skip; the epoch checked in one read and the count taken from another; an epoch incremented in
// the launch's arguments (the CPU backend evaluates them once per thread); 16-byte loads from
// an array that does not start on a 16-byte boundary.
// =============================================================================================

gl_status radix_step5(const sort_job *job) {
  (void)job;
  return gl_not_implemented(
      "radix_sort step 5 (5-onesweep-tuned): write the histogram and pass kernels and "
      "radix_step5 in labs/radix_sort/radix_sort.cu");
}

// =============================================================================================
// Extension: signed and float keys
//
// Map each key to a uint32 whose unsigned order is the key's order, write the mapped keys to
// the output, sort the output in place with radix_run_job(job, bits, bits, NULL, NULL), and map
// them back. int32: think of where the sign bit puts negative numbers. float: the same, but a
// negative float's bits grow as the number falls.
// =============================================================================================

gl_status radix_extension_i32(sort_job *job, const int32_t *keys_in, int32_t *keys_out) {
  (void)job, (void)keys_in, (void)keys_out;
  return gl_not_implemented(
      "radix_sort extension (int32 keys): write the flip kernels and radix_extension_i32 in "
      "labs/radix_sort/radix_sort.cu");
}

gl_status radix_extension_f32(sort_job *job, const float *keys_in, float *keys_out) {
  (void)job, (void)keys_in, (void)keys_out;
  return gl_not_implemented(
      "radix_sort extension (float keys): write the flip kernels and radix_extension_f32 in "
      "labs/radix_sort/radix_sort.cu");
}
