/* CPU reference for the bitonic_sort lab (step 1 of its ladder).
 *
 * Two forms of the same idea, both in C11:
 *   - bitonic_ref_sort_recursive: the seed's recursive program (bitonicSort builds bitonic
 *     sequences by sorting the two halves in opposite directions, bitonicMerge turns a bitonic
 *     sequence into a sorted one). That network exists for powers of two only.
 *   - bitonic_ref_sort_iterative: the (size, stride) double loop the GPU steps run, in the "flip"
 *     form where every comparator sends the smaller key to the lower index. It sorts any n in
 *     place: indices >= n act as +infinity, so every comparator that touches one is skipped.
 * The handout (labs/bitonic_sort/README.md) explains why the two networks sort the same way.
 */
#ifndef GPULABS_REFERENCE_BITONIC_SORT_H
#define GPULABS_REFERENCE_BITONIC_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The seed's recursive bitonic sort of keys, ascending (descending == 0) or descending.
 * A power-of-two n is sorted in place. Any other n is copied into a scratch buffer of the next
 * power of two, padded with the direction's sentinel (UINT32_MAX ascending, 0 descending),
 * sorted there and copied back; the function allocates and frees that buffer itself.
 * Padding is safe here because keys alone carry no identity: a padding key that ties with a
 * real key is indistinguishable from it. Returns GL_ERR_NULL_POINTER for keys == NULL with
 * n > 0, GL_ERR_NO_MEMORY if the scratch buffer cannot be allocated, else GL_OK. */
gl_status bitonic_ref_sort_recursive(uint32_t *keys, size_t n, int descending);

/* The iterative bitonic network in the flip form, for any n, in place, no scratch:
 *   for size = 2, 4, ..., next_pow2(n):
 *     for stride = size/2, size/4, ..., 1:
 *       for every comparator (lo, hi) of the layer:
 *         hi = lo ^ (size - 1) on the first layer of a size (compare with the mirror),
 *         hi = lo + stride on the others;
 *         skipped when hi >= n; else the keys are exchanged when out of order.
 * values may be NULL (keys only); otherwise values[i] travels with keys[i]. Comparisons are
 * strict, so equal keys are never exchanged (the sort is still not stable). */
void bitonic_ref_sort_iterative(uint32_t *keys, uint32_t *values, size_t n, int descending);

/* How many comparators bitonic_ref_sort_iterative applies to n keys (skipped ones not
 * counted). For a power of two n = 2^k it is (n / 2) * k * (k + 1) / 2. */
uint64_t bitonic_ref_comparator_count(size_t n);

/* How many layers (size, stride) the network has for n keys: k * (k + 1) / 2 with
 * k = log2(next_pow2(n)); 0 for n <= 1. Each is one kernel launch in step 2. */
unsigned bitonic_ref_layer_count(size_t n);

/* The smallest power of two >= n (1 for n <= 1). */
size_t bitonic_ref_next_pow2(size_t n);

#ifdef __cplusplus
}
#endif
#endif
