/* The scan lab's yardstick: CUB's DeviceScan, measured in the same process as the student's
 * code (performance tests and labbench only). All pointers are device pointers. */
#ifndef GPULABS_YARDSTICK_SCAN_H
#define GPULABS_YARDSTICK_SCAN_H

#include <stddef.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceScan::ExclusiveSum / InclusiveSum of int on the default stream. n up to
 * INT32_MAX; n == 0 writes nothing. CUB's temporary storage is cached between calls (it grows
 * when a larger n needs more), so a timed call does no cudaMalloc; the first call of a new
 * size is the slow one, which warm-up runs absorb. */
gl_status gl_yardstick_scan_exclusive(const int *d_in, int *d_out, size_t n);
gl_status gl_yardstick_scan_inclusive(const int *d_in, int *d_out, size_t n);

/* Frees the cached temporary storage (optional: the process's exit frees it too). */
void gl_yardstick_scan_release(void);

#ifdef __cplusplus
}
#endif
#endif
