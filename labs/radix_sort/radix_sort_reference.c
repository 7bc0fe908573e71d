/* CPU reference for the radix_sort lab: LSD radix sort with 8-bit digits, one stable counting
 * sort per digit, from the least significant digit of the bit range to the most significant. */
#include "radix_sort_reference.h"

#include <stdlib.h>
#include <string.h>

enum { REF_DIGIT_BITS = 8, REF_RADIX = 1 << REF_DIGIT_BITS };

static gl_status check_bit_range(const char *fn, int begin_bit, int end_bit) {
  if (begin_bit < 0 || end_bit > 32 || begin_bit >= end_bit) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: bit range [%d, %d) is not within [0, 32] with begin_bit < end_bit", fn,
                   begin_bit, end_bit);
  }
  return GL_OK;
}

/* The digit of `key` that starts at bit `shift` and is `bits` wide (bits <= 8). */
static unsigned digit_of(uint32_t key, int shift, int bits) {
  return (unsigned)(key >> shift) & ((1u << bits) - 1u);
}

/* One stable counting-sort pass: counts each digit, turns the counts into starting positions
 * (an exclusive scan over the digits), then moves every element to the next free slot of its
 * digit, in input order. values may be NULL. */
static void counting_pass(const uint32_t *keys, uint32_t *keys_to, const uint32_t *values,
                          uint32_t *values_to, size_t n, int shift, int bits) {
  size_t start[REF_RADIX];
  memset(start, 0, sizeof start);
  for (size_t i = 0; i < n; ++i) start[digit_of(keys[i], shift, bits)]++;
  size_t running = 0;
  for (int d = 0; d < REF_RADIX; ++d) {
    size_t count = start[d];
    start[d] = running;
    running += count;
  }
  for (size_t i = 0; i < n; ++i) {
    size_t to = start[digit_of(keys[i], shift, bits)]++;
    keys_to[to] = keys[i];
    if (values != NULL) values_to[to] = values[i];
  }
}

/* The shared body of the key and the pair sort (values_in == NULL: keys only). */
static gl_status lsd_sort(const char *fn, const uint32_t *keys_in, uint32_t *keys_out,
                          const uint32_t *values_in, uint32_t *values_out, int with_values,
                          size_t n, int begin_bit, int end_bit) {
  gl_status status = check_bit_range(fn, begin_bit, end_bit);
  if (status != GL_OK) return status;
  if (n == 0) return GL_OK;
  if (keys_in == NULL || keys_out == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: keys_in or keys_out is NULL (n = %zu)", fn, n);
  }
  if (with_values && (values_in == NULL || values_out == NULL)) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: values_in or values_out is NULL (n = %zu)", fn, n);
  }
  /* Ping-pong between the output and a scratch copy; the first pass reads the input. */
  uint32_t *scratch_keys = (uint32_t *)malloc(n * sizeof *scratch_keys);
  uint32_t *scratch_values = with_values ? (uint32_t *)malloc(n * sizeof *scratch_values) : NULL;
  if (scratch_keys == NULL || (with_values && scratch_values == NULL)) {
    free(scratch_keys);
    free(scratch_values);
    return gl_fail(GL_ERR_NO_MEMORY, "%s: no host memory for %zu scratch elements", fn, n);
  }
  /* Copy the input into the scratch buffers so that in-place calls work, then sort back and
   * forth between scratch and output. */
  memcpy(scratch_keys, keys_in, n * sizeof *keys_in);
  if (with_values) memcpy(scratch_values, values_in, n * sizeof *values_in);
  const uint32_t *from_keys = scratch_keys, *from_values = scratch_values;
  uint32_t *to_keys = keys_out, *to_values = values_out;
  for (int shift = begin_bit; shift < end_bit; shift += REF_DIGIT_BITS) {
    int bits = end_bit - shift < REF_DIGIT_BITS ? end_bit - shift : REF_DIGIT_BITS;
    counting_pass(from_keys, to_keys, with_values ? from_values : NULL, to_values, n, shift, bits);
    /* The next pass reads what this one wrote. */
    uint32_t *written_keys = to_keys, *written_values = to_values;
    to_keys = (to_keys == keys_out) ? scratch_keys : keys_out;
    to_values = (to_values == values_out) ? scratch_values : values_out;
    from_keys = written_keys;
    from_values = written_values;
  }
  if (from_keys != keys_out) {
    memcpy(keys_out, from_keys, n * sizeof *keys_out);
    if (with_values) memcpy(values_out, from_values, n * sizeof *values_out);
  }
  free(scratch_keys);
  free(scratch_values);
  return GL_OK;
}

gl_status gl_ref_radix_sort_keys(const uint32_t *keys_in, uint32_t *keys_out, size_t n,
                                 int begin_bit, int end_bit) {
  return lsd_sort("gl_ref_radix_sort_keys", keys_in, keys_out, NULL, NULL, 0, n, begin_bit,
                  end_bit);
}

gl_status gl_ref_radix_sort_pairs(const uint32_t *keys_in, uint32_t *keys_out,
                                  const uint32_t *values_in, uint32_t *values_out, size_t n,
                                  int begin_bit, int end_bit) {
  return lsd_sort("gl_ref_radix_sort_pairs", keys_in, keys_out, values_in, values_out, 1, n,
                  begin_bit, end_bit);
}

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

void gl_ref_qsort_u32(uint32_t *keys, size_t n) {
  if (n > 1) qsort(keys, n, sizeof *keys, compare_u32);
}

uint32_t gl_ref_flip_i32(int32_t key) { return (uint32_t)key ^ 0x80000000u; }

int32_t gl_ref_unflip_i32(uint32_t bits) {
  /* Converting a uint32 above INT32_MAX to int32 is implementation-defined in C: go via memcpy. */
  uint32_t raw = bits ^ 0x80000000u;
  int32_t key;
  memcpy(&key, &raw, sizeof key);
  return key;
}

uint32_t gl_ref_flip_f32(float key) {
  uint32_t bits;
  memcpy(&bits, &key, sizeof bits);
  /* Negative: larger magnitude must come first, so flip every bit. Positive: set the sign bit
   * so positives come after every negative. */
  uint32_t mask = (bits & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u;
  return bits ^ mask;
}

float gl_ref_unflip_f32(uint32_t bits) {
  uint32_t mask = (bits & 0x80000000u) ? 0x80000000u : 0xFFFFFFFFu;
  uint32_t raw = bits ^ mask;
  float key;
  memcpy(&key, &raw, sizeof key);
  return key;
}

gl_status gl_ref_radix_sort_i32(const int32_t *keys_in, int32_t *keys_out, size_t n) {
  if (n == 0) return GL_OK;
  if (keys_in == NULL || keys_out == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "gl_ref_radix_sort_i32: keys_in or keys_out is NULL");
  }
  uint32_t *bits = (uint32_t *)malloc(n * sizeof *bits);
  if (bits == NULL) return gl_fail(GL_ERR_NO_MEMORY, "gl_ref_radix_sort_i32: no host memory");
  for (size_t i = 0; i < n; ++i) bits[i] = gl_ref_flip_i32(keys_in[i]);
  gl_status status = gl_ref_radix_sort_keys(bits, bits, n, 0, 32);
  if (status == GL_OK) {
    for (size_t i = 0; i < n; ++i) keys_out[i] = gl_ref_unflip_i32(bits[i]);
  }
  free(bits);
  return status;
}

gl_status gl_ref_radix_sort_f32(const float *keys_in, float *keys_out, size_t n) {
  if (n == 0) return GL_OK;
  if (keys_in == NULL || keys_out == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "gl_ref_radix_sort_f32: keys_in or keys_out is NULL");
  }
  uint32_t *bits = (uint32_t *)malloc(n * sizeof *bits);
  if (bits == NULL) return gl_fail(GL_ERR_NO_MEMORY, "gl_ref_radix_sort_f32: no host memory");
  for (size_t i = 0; i < n; ++i) bits[i] = gl_ref_flip_f32(keys_in[i]);
  gl_status status = gl_ref_radix_sort_keys(bits, bits, n, 0, 32);
  if (status == GL_OK) {
    for (size_t i = 0; i < n; ++i) keys_out[i] = gl_ref_unflip_f32(bits[i]);
  }
  free(bits);
  return status;
}
