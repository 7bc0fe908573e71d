/* CPU reference for the radix_sort lab: a stable LSD radix sort (8-bit digits, counting sort per
 * pass), the C library's qsort to check it against, and the order-preserving bit flips that map
 * int32 and float keys to uint32. */
#ifndef GPULABS_REFERENCE_RADIX_SORT_H
#define GPULABS_REFERENCE_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts keys_in[0..n) into keys_out on bits [begin_bit, end_bit) (0 <= begin_bit < end_bit <=
 * 32), stably: keys equal on those bits keep their input order. keys_out == keys_in is allowed.
 * Returns GL_ERR_NULL_POINTER, GL_ERR_INVALID_ARGUMENT (bit range) or GL_ERR_NO_MEMORY (the
 * scratch buffer), with a message. */
gl_status gl_ref_radix_sort_keys(const uint32_t *keys_in, uint32_t *keys_out, size_t n,
                                 int begin_bit, int end_bit);

/* The same, moving values_in[i] along with keys_in[i] (in place allowed for both arrays). */
gl_status gl_ref_radix_sort_pairs(const uint32_t *keys_in, uint32_t *keys_out,
                                  const uint32_t *values_in, uint32_t *values_out, size_t n,
                                  int begin_bit, int end_bit);

/* qsort with a plain comparison, in place: an independent check of the LSD sort on full keys. */
void gl_ref_qsort_u32(uint32_t *keys, size_t n);

/* Order-preserving maps: a < b exactly when flip(a) < flip(b) as unsigned integers.
 * int32: flip the sign bit. float: negative numbers get every bit flipped, others the sign bit,
 * so the order is -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN. */
uint32_t gl_ref_flip_i32(int32_t key);
int32_t gl_ref_unflip_i32(uint32_t bits);
uint32_t gl_ref_flip_f32(float key);
float gl_ref_unflip_f32(uint32_t bits);

/* Sorts int32 or float keys ascending through the flips above (in place allowed). */
gl_status gl_ref_radix_sort_i32(const int32_t *keys_in, int32_t *keys_out, size_t n);
gl_status gl_ref_radix_sort_f32(const float *keys_in, float *keys_out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
