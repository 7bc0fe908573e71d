/* Array comparison that reports the first mismatch: index, expected, got, n and the seed. */
#ifndef GPULABS_COMPARE_H
#define GPULABS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Byte written into every output buffer before a run (see GL_POISON_*), so an element the
 * code under test never wrote is told apart from one it wrote wrong. */
#define GL_POISON_BYTE 0xCD
#define GL_POISON_I32 ((int32_t)0xCDCDCDCD)
#define GL_POISON_U32 ((uint32_t)0xCDCDCDCDu)

/* Each returns the index of the first mismatch, or (size_t)-1 when the arrays agree. On a
 * mismatch it writes a one-line report into msg (if msg is not NULL), e.g.
 *   "first mismatch at index 1037 of n = 4099: expected 12, got -842150451 (never written:
 *    still the poison value); seed 0x5eed"
 * Float comparison accepts |got - expected| <= abs_tol + rel_tol * |expected|; NaN never
 * matches anything. */
size_t gl_compare_i32(const int32_t *expected, const int32_t *got, size_t n, uint64_t seed,
                      char *msg, size_t msg_size);
size_t gl_compare_u32(const uint32_t *expected, const uint32_t *got, size_t n, uint64_t seed,
                      char *msg, size_t msg_size);
size_t gl_compare_i64(const int64_t *expected, const int64_t *got, size_t n, uint64_t seed,
                      char *msg, size_t msg_size);
size_t gl_compare_f32(const float *expected, const float *got, size_t n, double rel_tol,
                      double abs_tol, uint64_t seed, char *msg, size_t msg_size);
size_t gl_compare_f64(const double *expected, const double *got, size_t n, double rel_tol,
                      double abs_tol, uint64_t seed, char *msg, size_t msg_size);

#define GL_NO_MISMATCH ((size_t)-1)

#ifdef __cplusplus
}
#endif
#endif
