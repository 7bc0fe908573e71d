/* The sealed timing's trusted device code: the random fills that draw each timed call's fresh
 * input on the GPU, a compare kernel that checks a timed call's output (and the guard region past
 * it) on the GPU, and an L2 flush. grader/shim/sealed_timing.h times every performance test with
 * them. Built into gpulabs_yardstick only (CUDA backend), like CUB: no lab library contains it.
 *
 * Every call works on the legacy default stream (cudaStreamLegacy).
 */
#ifndef GPULABS_YARDSTICK_SEALED_H
#define GPULABS_YARDSTICK_SEALED_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What gl_sealed_compare found. */
typedef struct gl_sealed_mismatch {
  unsigned long long count; /* elements of got that differ from want (0: the arrays agree) */
  unsigned long long first; /* the lowest index where they differ (when count > 0) */
  unsigned long long want;  /* want[first] and got[first], as raw bits of elem_bytes bytes */
  unsigned long long got;
} gl_sealed_mismatch;

/* Compares got[0 .. n) with want[0 .. n) bit for bit, elements of elem_bytes bytes (4 or 8),
 * and checks that the guard region past them, got[n .. n + guard), still holds the poison (every
 * byte GL_POISON_BYTE): a mismatch there has first >= n and want the poison's bits. One kernel;
 * waits for the answer: 16 bytes come back (and the two differing elements when there are any),
 * never the arrays. n + guard == 0 checks nothing; d_want may be NULL when n == 0. */
gl_status gl_sealed_compare(const void *d_want, const void *d_got, size_t n, size_t guard,
                            size_t elem_bytes, gl_sealed_mismatch *result);

/* ---- Fresh inputs -----------------------------------------------------------------------------
 *
 * Each timed call gets an input nobody has seen, drawn on the GPU just before the call (outside
 * its timed interval) from a seed of its own. Element i is a function of (seed, i) alone (a
 * counter-based generator: splitmix64's finaliser of seed + (i + 1) * 2^64 / phi), so the same
 * seed gives the same array on any GPU and any grid, and a run replays. Enqueued on the legacy
 * default stream; does not wait. A fill of 2^26 ints writes 256 MiB: about 0.1 ms on an H100. */

/* d[0 .. n): ints uniform in [lo, hi] (both included; lo > hi are swapped), e.g. INT_MIN,
 * INT_MAX for every int. */
gl_status gl_sealed_fill_int(int *d, size_t n, int lo, int hi, uint64_t seed);

/* d[0 .. n): uint32 keys uniform over all 32 bits. */
gl_status gl_sealed_fill_u32(uint32_t *d, size_t n, uint64_t seed);

/* The value gl_sealed_fill_u32 writes at index i, computed on the host (for tests of the fills,
 * and to replay one element of a failing call's input). gl_sealed_fill_int maps it to [lo, hi]
 * as lo + (value * (hi - lo + 1)) / 2^32. */
uint32_t gl_sealed_random_u32(uint64_t seed, size_t i);

/* Evicts what earlier work left in the L2 cache: writes a device buffer of twice the L2 size
 * (allocated at the first call), then reads it back. The read pass matters: after the write
 * alone, the L2 would hold dirty lines, written back to memory inside the next timed call and
 * charged to it; after the read pass the lines left are clean. Enqueued on the legacy default
 * stream; does not wait. */
gl_status gl_sealed_flush_l2(void);

/* The flush buffer's size in bytes (0 before the first flush). */
size_t gl_sealed_flush_bytes(void);

/* Frees the compare's and the flush's buffers (optional: the process's exit frees them too). */
void gl_sealed_release(void);

#ifdef __cplusplus
}
#endif
#endif
