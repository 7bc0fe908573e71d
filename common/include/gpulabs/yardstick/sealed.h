/* The sealed timing's trusted device code: a compare kernel that checks a timed call's output on
 * the GPU, and an L2 flush. grader/shim/sealed_timing.h times every performance test with them.
 * Built into gpulabs_yardstick only (CUDA backend), like CUB: no lab library contains it.
 *
 * Every call works on the legacy default stream (cudaStreamLegacy).
 */
#ifndef GPULABS_YARDSTICK_SEALED_H
#define GPULABS_YARDSTICK_SEALED_H

#include <stddef.h>

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
 * with one kernel, and waits for the answer: 16 bytes come back (and the two differing elements
 * when there are any), never the arrays. n == 0 compares nothing. */
gl_status gl_sealed_compare(const void *d_want, const void *d_got, size_t n, size_t elem_bytes,
                            gl_sealed_mismatch *result);

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
