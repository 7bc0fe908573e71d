/* The hashing lab's yardsticks (performance tests and labbench only; CUDA only): the GPU's own
 * limits for random access to a table far larger than L2, and the sort-based lookup a user would
 * reach for instead of a hash table, each measured in the same process as the lab's steps; and
 * the fresh keys every timed call gets. All pointers are device pointers; calls run on the
 * default stream and may return before the GPU is done. */
#ifndef GPULABS_HASHING_YARDSTICK_H
#define GPULABS_HASHING_YARDSTICK_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n distinct keys, none of them the reserved key 0xFFFFFFFF, that depend on the seed alone:
 * d_keys[i] = fmix32(a * i + b) (a odd, a and b from the seed; fmix32 is a bijection, so n keys
 * up to 2^31 never repeat), and d_values[i] = i. d_absent (NULL: not drawn) gets n more keys of
 * the same sequence (indices n .. 2n - 1): distinct from the first n, so absent from a table of
 * them. */
gl_status hashing_yardstick_draw(uint32_t *d_keys, uint32_t *d_values, uint32_t *d_absent,
                                 size_t n, uint64_t seed);

/* Queries for a find: d_queries[j] = d_keys[p(j)] for a permutation p of 0 .. n - 1 drawn from
 * the seed (p(j) = (c * j + d) mod n, c prime to n), and d_expected[j] = p(j), the value
 * hashing_yardstick_draw gave that key. */
gl_status hashing_yardstick_queries(const uint32_t *d_keys, uint32_t *d_queries,
                                    uint32_t *d_expected, size_t n, uint64_t seed);

/* The limits, on a table of `slots` (a power of two) words of the yardstick's own, allocated at
 * the first call of a size (not for timed code) and kept:
 *   gather: d_out[i] = the low half of the 8-byte word at fmix32(d_keys[i]) mod slots: one
 *           random 8-byte load a key (what a find's probe costs at best);
 *   cas:    the table of 4-byte words emptied, then atomicCAS(empty -> d_keys[i]) at
 *           fmix32(d_keys[i]) mod slots: one random 4-byte CAS a key (an insert at best). */
gl_status hashing_yardstick_prepare(size_t slots);
gl_status hashing_yardstick_gather(const uint32_t *d_keys, uint32_t *d_out, size_t n);
gl_status hashing_yardstick_cas(const uint32_t *d_keys, size_t n);

/* The sort-based alternative: sort_build sorts the n pairs by key (CUB's DeviceRadixSort::
 * SortPairs, into buffers of its own), sorted_find looks each query up by binary search in the
 * last sorted keys: d_values_out[i] = its value, or 0xFFFFFFFF when absent. */
gl_status hashing_yardstick_sort_build(const uint32_t *d_keys, const uint32_t *d_values,
                                       size_t n);
gl_status hashing_yardstick_sorted_find(const uint32_t *d_queries, uint32_t *d_values_out,
                                        size_t n);

/* Frees the yardstick's buffers (optional: the process's exit frees them too). */
void hashing_yardstick_release(void);

#ifdef __cplusplus
}
#endif
#endif
