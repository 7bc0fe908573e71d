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

/* Checks on the GPU that d_keys (and d_values) is a right sort of all 32 bits of d_in[0 .. n),
 * so that the yardstick's own output can serve as the expected one without a download: keys
 * ascending and the same keys as d_in (for keys alone: equal sums, sums of squares and xors);
 * for pairs sorted with the values 0, 1, ..., n - 1 (d_values not NULL), each value the index in
 * d_in of its key, each index once, equal keys in input order. GL_OK when the check ran, with
 * *first_wrong = SIZE_MAX for a right sort, else the first wrong index (n when only the sums
 * disagree). Allocates and frees its own scratch (n / 8 bytes): not for timed code. */
gl_status gl_yardstick_check_radix_sort(const uint32_t *d_in, const uint32_t *d_keys,
                                        const uint32_t *d_values, size_t n, size_t *first_wrong);

/* Frees the cached temporary storage (optional: the process's exit frees it too). */
void gl_yardstick_radix_sort_release(void);

#ifdef __cplusplus
}
#endif
#endif
