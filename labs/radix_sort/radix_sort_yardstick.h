/* The radix_sort lab's yardstick: CUB's DeviceRadixSort, measured in the same process as the
 * student's code (performance tests and labbench only). All pointers are device pointers; calls
 * run on the default stream and may return before the GPU is done. */
#ifndef GPULABS_YARDSTICK_RADIX_SORT_H
#define GPULABS_YARDSTICK_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceRadixSort::SortKeys on bits [begin_bit, end_bit) (0 <= begin_bit < end_bit <= 32):
 * d_keys_out = d_keys_in sorted, stably; the input is left unchanged and must not overlap the
 * output. n up to INT32_MAX; n == 0 writes nothing. CUB's temporary storage is cached between
 * calls (it grows when a larger n needs more), so a timed call does no cudaMalloc; warm-up runs
 * absorb the first call of a new size. */
gl_status gl_yardstick_radix_sort_keys(const uint32_t *d_keys_in, uint32_t *d_keys_out, size_t n,
                                       int begin_bit, int end_bit);

/* cub::DeviceRadixSort::SortPairs: the same, moving each value with its key. */
gl_status gl_yardstick_radix_sort_pairs(const uint32_t *d_keys_in, uint32_t *d_keys_out,
                                        const uint32_t *d_values_in, uint32_t *d_values_out,
                                        size_t n, int begin_bit, int end_bit);

/* Frees the cached temporary storage (optional: the process's exit frees it too). */
void gl_yardstick_radix_sort_release(void);

#ifdef __cplusplus
}
#endif
#endif
