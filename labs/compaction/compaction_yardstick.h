/* The compaction lab's yardstick: CUB's DeviceSelect::If and DevicePartition::If, measured in
 * the same process as the student's code (performance tests and labbench only). All pointers
 * are device pointers; calls run on the default stream and may return before the GPU is done. */
#ifndef GPULABS_YARDSTICK_COMPACTION_H
#define GPULABS_YARDSTICK_COMPACTION_H

#include <stddef.h>

#include "compaction_reference.h"
#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceSelect::If: d_out[0, count) = the kept elements of d_in in order, *d_count = count.
 * The rule is the lab's (gl_keep_rule). n up to INT32_MAX; n == 0 still writes *d_count = 0.
 * CUB's temporary storage is cached between calls (it grows when a larger n needs more), so a
 * timed call does no cudaMalloc; warm-up runs absorb the first call of a new size. */
gl_status gl_yardstick_select_if(const int *d_in, int *d_out, int *d_count, size_t n,
                                 gl_keep_rule rule, int threshold);

/* cub::DevicePartition::If: the kept elements first, in order, then the others. Note: CUB
 * writes the others in REVERSE order, so this is not the lab's stable split, but it moves the
 * same bytes; it is a yardstick for speed only. */
gl_status gl_yardstick_partition_if(const int *d_in, int *d_out, int *d_count, size_t n,
                                    gl_keep_rule rule, int threshold);

/* Frees the cached temporary storage (optional: the process's exit frees it too). */
void gl_yardstick_compaction_release(void);

#ifdef __cplusplus
}
#endif
#endif
