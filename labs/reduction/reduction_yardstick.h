/* The reduction lab's yardstick: CUB's DeviceReduce, measured in the same process as the
 * student's code (performance tests and labbench only). All pointers are device pointers; calls
 * run on the default stream and may return before the GPU is done. */
#ifndef GPULABS_YARDSTICK_REDUCTION_H
#define GPULABS_YARDSTICK_REDUCTION_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceReduce::Sum of int into an int64_t: CUB then accumulates in 64 bits, the lab's own
 * contract, so this is the yardstick the lab's int sum is compared with. */
gl_status gl_yardstick_reduce_sum_int(const int *d_in, size_t n, int64_t *d_sum);
/* cub::DeviceReduce::Sum of int into an int (accumulates in 32 bits and wraps): what the
 * course's CUB anchor measured (../shared/anchors/cub_h100.txt), for comparison only. */
gl_status gl_yardstick_reduce_sum_int32(const int *d_in, size_t n, int *d_sum);
/* cub::DeviceReduce::Min / Max of int (identity INT_MAX / INT_MIN for n = 0). */
gl_status gl_yardstick_reduce_min_int(const int *d_in, size_t n, int *d_min);
gl_status gl_yardstick_reduce_max_int(const int *d_in, size_t n, int *d_max);
/* cub::DeviceReduce::Sum / Min / Max of float (accumulates in float). */
gl_status gl_yardstick_reduce_sum_float(const float *d_in, size_t n, float *d_sum);
gl_status gl_yardstick_reduce_min_float(const float *d_in, size_t n, float *d_min);
gl_status gl_yardstick_reduce_max_float(const float *d_in, size_t n, float *d_max);

/* CUB's temporary storage is cached between calls (it grows when a call needs more), so a timed
 * call does no cudaMalloc; warm-up runs absorb the first call of a new size. This frees it
 * (optional: the process's exit frees it too). */
void gl_yardstick_reduction_release(void);

#ifdef __cplusplus
}
#endif
#endif
