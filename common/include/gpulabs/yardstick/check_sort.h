/* A check on the GPU that a sort of 32-bit keys is right (radix sort's and bitonic sort's
 * performance tests: their yardstick's output serves as the expected one). */
#ifndef GPULABS_YARDSTICK_CHECK_SORT_H
#define GPULABS_YARDSTICK_CHECK_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks on the GPU that d_keys (and d_values) is a right sort of all 32 bits of d_in[0 .. n),
 * so that the yardstick's own output can serve as the expected one without a download: keys
 * ascending and the same keys as d_in (for keys alone: equal sums, sums of squares and xors);
 * for pairs sorted with the values 0, 1, ..., n - 1 (d_values not NULL), each value the index in
 * d_in of its key, each index once, equal keys in input order. GL_OK when the check ran, with
 * *first_wrong = SIZE_MAX for a right sort, else the first wrong index (n when only the sums
 * disagree). Allocates and frees its own scratch (n / 8 bytes): not for timed code. */
gl_status gl_yardstick_check_sort(const uint32_t *d_in, const uint32_t *d_keys,
                                  const uint32_t *d_values, size_t n, size_t *first_wrong);

#ifdef __cplusplus
}
#endif
#endif
