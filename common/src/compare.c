#include "gpulabs/compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void report(char *msg, size_t msg_size, size_t index, size_t n, const char *expected,
                   const char *got, int poisoned, uint64_t seed) {
  if (msg == NULL || msg_size == 0) return;
  snprintf(msg, msg_size, "first mismatch at index %zu of n = %zu: expected %s, got %s%s; seed 0x%" PRIx64,
           index, n, expected, got, poisoned ? " (never written: still the poison value)" : "",
           seed);
}

/* The integer comparisons differ only in element type and print format. */
#define GL_DEFINE_EXACT_COMPARE(name, type, format, poison)                                  \
  size_t name(const type *expected, const type *got, size_t n, uint64_t seed, char *msg,     \
              size_t msg_size) {                                                             \
    for (size_t i = 0; i < n; ++i) {                                                         \
      if (expected[i] != got[i]) {                                                           \
        char e[32], g[32];                                                                   \
        snprintf(e, sizeof e, format, expected[i]);                                          \
        snprintf(g, sizeof g, format, got[i]);                                               \
        report(msg, msg_size, i, n, e, g, got[i] == (type)(poison), seed);                   \
        return i;                                                                            \
      }                                                                                      \
    }                                                                                        \
    if (msg != NULL && msg_size > 0) msg[0] = '\0';                                          \
    return GL_NO_MISMATCH;                                                                   \
  }

GL_DEFINE_EXACT_COMPARE(gl_compare_i32, int32_t, "%" PRId32, GL_POISON_I32)
GL_DEFINE_EXACT_COMPARE(gl_compare_u32, uint32_t, "%" PRIu32, GL_POISON_U32)
GL_DEFINE_EXACT_COMPARE(gl_compare_i64, int64_t, "%" PRId64, (int64_t)0xCDCDCDCDCDCDCDCDull)

static int close_enough(double expected, double got, double rel_tol, double abs_tol) {
  if (isnan(expected) || isnan(got)) return 0;
  if (expected == got) return 1; /* also equal infinities */
  return fabs(got - expected) <= abs_tol + rel_tol * fabs(expected);
}

size_t gl_compare_f32(const float *expected, const float *got, size_t n, double rel_tol,
                      double abs_tol, uint64_t seed, char *msg, size_t msg_size) {
  const uint32_t poison = GL_POISON_U32;
  for (size_t i = 0; i < n; ++i) {
    if (!close_enough(expected[i], got[i], rel_tol, abs_tol)) {
      char e[48], g[48];
      snprintf(e, sizeof e, "%.9g", (double)expected[i]);
      snprintf(g, sizeof g, "%.9g", (double)got[i]);
      uint32_t bits;
      memcpy(&bits, &got[i], sizeof bits);
      report(msg, msg_size, i, n, e, g, bits == poison, seed);
      return i;
    }
  }
  if (msg != NULL && msg_size > 0) msg[0] = '\0';
  return GL_NO_MISMATCH;
}

size_t gl_compare_f64(const double *expected, const double *got, size_t n, double rel_tol,
                      double abs_tol, uint64_t seed, char *msg, size_t msg_size) {
  const uint64_t poison = 0xCDCDCDCDCDCDCDCDull;
  for (size_t i = 0; i < n; ++i) {
    if (!close_enough(expected[i], got[i], rel_tol, abs_tol)) {
      char e[48], g[48];
      snprintf(e, sizeof e, "%.17g", expected[i]);
      snprintf(g, sizeof g, "%.17g", got[i]);
      uint64_t bits;
      memcpy(&bits, &got[i], sizeof bits);
      report(msg, msg_size, i, n, e, g, bits == poison, seed);
      return i;
    }
  }
  if (msg != NULL && msg_size > 0) msg[0] = '\0';
  return GL_NO_MISMATCH;
}
