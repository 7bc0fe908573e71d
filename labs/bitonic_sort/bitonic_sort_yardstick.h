/* The bitonic_sort lab's yardsticks: CUB's merge sort and radix sort of uint32 keys, measured
 * in the same process as the student's bitonic sort (built into gpulabs_yardstick only).
 *
 * Both keep their CUB temporary storage in a buffer cached between calls (grown when a larger
 * n needs more), so no cudaMalloc lands inside a timed call; bitonic_yardstick_release frees it.
 * Calls are asynchronous on the default stream, like the lab's own functions.
 */
#ifndef GPULABS_YARDSTICK_BITONIC_SORT_H
#define GPULABS_YARDSTICK_BITONIC_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceMergeSort::SortKeys: sorts d_keys[0 .. n-1] in place, ascending or (descending
 * != 0) descending. A comparison sort, like bitonic sort. n up to INT32_MAX. */
gl_status bitonic_yardstick_cub_merge_sort_keys(uint32_t *d_keys, size_t n, int descending);

/* cub::DeviceRadixSort::SortKeys (or SortKeysDescending): d_in is left untouched, the sorted
 * keys go to d_out. n up to INT32_MAX. */
gl_status bitonic_yardstick_cub_radix_sort_keys(const uint32_t *d_in, uint32_t *d_out, size_t n,
                                                int descending);

/* Frees the cached temporary storage (safe to call at any time). */
void bitonic_yardstick_release(void);

#ifdef __cplusplus
}
#endif
#endif
