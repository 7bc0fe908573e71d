// The scan lab: the contract between the given code (labs/scan/scan_given.cu) and your
// exercises (labs/scan/scan.cu).
//
// This file is given: the grader always takes it from the course. It declares the function each
// step of scan.cu defines, and what both sides need (constants, two host helpers, the two given
// functions step 4 calls).
//
// scan_given.cu checks the arguments of scan_run and scan_exclusive, picks the default block
// size, reserves the scratch memory a step needs and calls the step's function below. So every
// function here is handed checked arguments: kind SCAN_EXCLUSIVE or SCAN_INCLUSIVE, n in
// [1, SCAN_MAX_N], d_in and d_out not NULL (they may be equal: the scan is then in place, and
// that must work), block_size a power of two in [32, MAX_BLOCK_SIZE]. Each returns GL_OK after
// launching its kernels on the default stream (no need to wait for them), or the failure of a
// launch (LAB_CHECK_LAUNCH). All pointers are device pointers. Compute every sum in unsigned
// int: it then wraps around like the CPU reference, while signed overflow is undefined.
#ifndef GPULABS_LAB_SCAN_STEPS_H
#define GPULABS_LAB_SCAN_STEPS_H

#include <stddef.h>

#include "gpulabs/status.h"
#include "scan.h"

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu // every lane of a warp, for the *_sync warp functions
#define MAX_BLOCK_SIZE 1024

// Step 7: each thread scans SINGLE_PASS_ITEMS elements, loaded as SINGLE_PASS_VECTORS int4.
#define SINGLE_PASS_VECTORS 4 // int4 loads per thread in step 7
#define SINGLE_PASS_ITEMS (4 * SINGLE_PASS_VECTORS)

// Elements one block scans in steps 4-8 (its "tile"); 0 for steps 2 and 3. Step 8's scratch is
// step 7's: tiles of at least SINGLE_PASS_ITEMS elements a thread.
static inline size_t tile_elements(scan_step step, int block_size) {
  switch (step) {
    case SCAN_STEP_BLELLOCH_SHARED:
    case SCAN_STEP_BLELLOCH_PADDED: return 2 * (size_t)block_size; // two elements a thread
    case SCAN_STEP_WARP_SHUFFLE: return (size_t)block_size;        // one element a thread
    case SCAN_STEP_SINGLE_PASS:
    case SCAN_STEP_PREFETCH: return SINGLE_PASS_ITEMS * (size_t)block_size;
    default: return 0;
  }
}

// a / b rounded up (b > 0).
static inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// Step 2: Hillis-Steele in global memory. Handed d_tmp, a second buffer of n ints (scratch:
// its contents are undefined). Scans d_in into d_out, as `kind` says, one launch per level.
gl_status scan_step2(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     int *d_tmp);

// Step 3: Blelloch up-sweep and down-sweep in global memory. Handed d_buf, a work buffer of m
// unsigned ints, m the power of two >= n (scratch: its contents are undefined). Scans d_in into
// d_out, as `kind` says, one launch per level.
gl_status scan_step3(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_buf, size_t m);

// Steps 4, 5 and 6: the block scan of each. Launches one block per tile of d_in
// (tile_elements(step, block_size) elements; the last tile may be cut short by n): block b
// scans tile b into d_out, as `kind` says, and writes the tile's total to d_block_sums[b]
// unless d_block_sums is NULL. The given scan_block_scan calls the one of the step it is given.
gl_status scan_step4_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums);
gl_status scan_step5_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums);
gl_status scan_step6_block_scan(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                int block_size, int *d_block_sums);

// Step 4 (and 5 and 6 through it): the levels. Called by the given scan_levels when n needs
// more than one tile of `step` (4, 5 or 6). d_sums has room for the tile totals of this level
// (ceil_div(n, tile_elements(step, block_size)) of them) followed by those of every level
// below it. Scans d_in into d_out, as `kind` says: the tiles, their totals, the totals added.
gl_status scan_step4_levels(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                            size_t n, int block_size, int *d_sums);

// Given (scan_given.cu), for scan_step4_levels: scan_block_scan launches the block scan of
// `step` (4, 5 or 6: scan_step<step>_block_scan); scan_levels scans n elements of any size
// with it, tile by tile: one block scan when one tile holds them, else scan_step4_levels. Same
// arguments as scan_step4_levels; n == 0 is not allowed.
gl_status scan_block_scan(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                          int block_size, int *d_block_sums);
gl_status scan_levels(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                      int block_size, int *d_sums);

// Step 7: single pass with decoupled look-back. Handed the tile counter (d_tile_counter) and one
// 64-bit status word per tile (d_status[0 .. tiles)), all zero: tiles = ceil_div(n,
// tile_elements(SCAN_STEP_SINGLE_PASS, block_size)). Scans d_in into d_out, as `kind` says,
// in one launch of `tiles` blocks.
gl_status scan_step7(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_tile_counter, unsigned long long *d_status, size_t tiles);

// Step 8 (bonus): step 7 with a staggered first wave and an L2 prefetch part of a wave ahead.
// Handed what step 7 is handed (tiles counts tiles of SINGLE_PASS_ITEMS a thread: a tile may be
// smaller than that only if the step then uses no more than `tiles` status words). Scans d_in
// into d_out, as `kind` says, in one launch.
gl_status scan_step8(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size,
                     unsigned int *d_tile_counter, unsigned long long *d_status, size_t tiles);

// scan_exclusive: the step it runs (2..8). What the later labs (compaction, radix sort) build
// on, and what ScanPerf.BestVsCub times.
scan_step scan_exclusive_step(void);

#endif
