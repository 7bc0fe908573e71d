/* CPU reference for the bitonic_sort lab: the seed's recursive program and the iterative
 * (size, stride) loop that the GPU steps parallelise. */
#include "bitonic_sort_reference.h"

#include <stdlib.h>
#include <string.h>

size_t bitonic_ref_next_pow2(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

unsigned bitonic_ref_layer_count(size_t n) {
  unsigned k = 0;
  for (size_t p = bitonic_ref_next_pow2(n); p > 1; p >>= 1) ++k;
  return k * (k + 1) / 2;
}

/* ---- The recursive form (the seed's program, with the array passed explicitly) ---- */

enum { DESCENDING = 0, ASCENDING = 1 };

/* One comparator: after it, keys[i] and keys[j] are in the order `dir` asks for. */
static void compare(uint32_t *keys, size_t i, size_t j, int dir) {
  int out_of_order = dir == ASCENDING ? keys[i] > keys[j] : keys[i] < keys[j];
  if (out_of_order) {
    uint32_t t = keys[i];
    keys[i] = keys[j];
    keys[j] = t;
  }
}

/* Step II: a bitonic sequence of n keys (n a power of two) at lo becomes sorted in `dir`.
 * Comparing each key of the lower half with its partner n/2 further on leaves two bitonic
 * halves, every key of the first no greater (ascending) than every key of the second. */
static void bitonic_merge(uint32_t *keys, size_t lo, size_t n, int dir) {
  if (n > 1) {
    size_t m = n / 2;
    for (size_t i = lo; i < lo + m; ++i) compare(keys, i, i + m, dir);
    bitonic_merge(keys, lo, m, dir);
    bitonic_merge(keys, lo + m, m, dir);
  }
}

/* Step I: sort the halves in opposite directions, which makes the whole run bitonic, then
 * merge it in the direction asked for. */
static void bitonic_sort(uint32_t *keys, size_t lo, size_t n, int dir) {
  if (n > 1) {
    size_t m = n / 2;
    bitonic_sort(keys, lo, m, ASCENDING);
    bitonic_sort(keys, lo + m, m, DESCENDING);
    bitonic_merge(keys, lo, n, dir);
  }
}

gl_status bitonic_ref_sort_recursive(uint32_t *keys, size_t n, int descending) {
  if (n == 0) return GL_OK;
  if (keys == NULL) return gl_fail(GL_ERR_NULL_POINTER, "bitonic_ref_sort_recursive: keys is NULL");
  int dir = descending ? DESCENDING : ASCENDING;
  size_t padded = bitonic_ref_next_pow2(n);
  if (padded == n) {
    bitonic_sort(keys, 0, n, dir);
    return GL_OK;
  }
  uint32_t *scratch = (uint32_t *)malloc(padded * sizeof *scratch);
  if (scratch == NULL) {
    return gl_fail(GL_ERR_NO_MEMORY, "bitonic_ref_sort_recursive: no memory for %zu padded keys",
                   padded);
  }
  /* Padding keys sort to the end of the direction asked for, behind every real key. */
  uint32_t sentinel = descending ? 0u : UINT32_MAX;
  memcpy(scratch, keys, n * sizeof *keys);
  for (size_t i = n; i < padded; ++i) scratch[i] = sentinel;
  bitonic_sort(scratch, 0, padded, dir);
  memcpy(keys, scratch, n * sizeof *keys);
  free(scratch);
  return GL_OK;
}

/* ---- The iterative flip form: the loop the GPU runs ---- */

/* The comparator of the flip form: the lower index receives the smaller key (larger when
 * descending). Strict: equal keys stay where they are. */
static void compare_exchange(uint32_t *keys, uint32_t *values, size_t lo, size_t hi,
                             int descending) {
  int out_of_order = descending ? keys[lo] < keys[hi] : keys[lo] > keys[hi];
  if (out_of_order) {
    uint32_t t = keys[lo];
    keys[lo] = keys[hi];
    keys[hi] = t;
    if (values != NULL) {
      t = values[lo];
      values[lo] = values[hi];
      values[hi] = t;
    }
  }
}

void bitonic_ref_sort_iterative(uint32_t *keys, uint32_t *values, size_t n, int descending) {
  size_t padded = bitonic_ref_next_pow2(n);
  for (size_t size = 2; size <= padded; size <<= 1) {
    for (size_t stride = size / 2; stride > 0; stride >>= 1) {
      /* Comparator c of the layer owns the pair whose lower index is c with a 0 inserted at
       * the stride's bit: the seed's pos = 2 * c - (c & (stride - 1)). */
      for (size_t c = 0; c < padded / 2; ++c) {
        size_t lo = 2 * c - (c & (stride - 1));
        size_t hi = stride == size / 2 ? lo ^ (size - 1) : lo + stride;
        if (hi < n) compare_exchange(keys, values, lo, hi, descending);
      }
    }
  }
}

uint64_t bitonic_ref_comparator_count(size_t n) {
  size_t padded = bitonic_ref_next_pow2(n);
  uint64_t count = 0;
  for (size_t size = 2; size <= padded; size <<= 1) {
    for (size_t stride = size / 2; stride > 0; stride >>= 1) {
      for (size_t c = 0; c < padded / 2; ++c) {
        size_t lo = 2 * c - (c & (stride - 1));
        size_t hi = stride == size / 2 ? lo ^ (size - 1) : lo + stride;
        if (hi < n) ++count;
      }
    }
  }
  return count;
}
