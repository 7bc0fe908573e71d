// The radix_sort yardstick: CUB's DeviceRadixSort behind a C API.
#include <cub/device/device_radix_sort.cuh>
#include <stdint.h>
#include <stdlib.h>

#include "gpulabs/check.h"
#include "gpulabs/scratch.h"
#include "radix_sort_yardstick.h"

// CUB's temporary storage, kept between calls so the timed path never allocates.
static gl_scratch temp = GL_SCRATCH_INIT;

static gl_status check_args(const char *name, const void *d_keys_in, const void *d_keys_out,
                            size_t n, int begin_bit, int end_bit) {
  if (n > (size_t)INT32_MAX) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds CUB's int item count", name, n);
  }
  if (begin_bit < 0 || end_bit > 32 || begin_bit >= end_bit) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: bit range [%d, %d) is not within [0, 32] with begin_bit < end_bit", name,
                   begin_bit, end_bit);
  }
  if (n > 0 && (d_keys_in == NULL || d_keys_out == NULL)) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: %s is NULL", name,
                   d_keys_in == NULL ? "d_keys_in" : "d_keys_out");
  }
  return GL_OK;
}

extern "C" gl_status gl_yardstick_radix_sort_keys(const uint32_t *d_keys_in, uint32_t *d_keys_out,
                                                  size_t n, int begin_bit, int end_bit) {
  GL_TRY(check_args("gl_yardstick_radix_sort_keys", d_keys_in, d_keys_out, n, begin_bit, end_bit));
  if (n == 0) return GL_OK;
  size_t bytes = 0;
  LAB_CHECK(cub::DeviceRadixSort::SortKeys(NULL, bytes, d_keys_in, d_keys_out, (int)n, begin_bit,
                                           end_bit));
  GL_TRY(gl_scratch_reserve(&temp, bytes));
  LAB_CHECK(cub::DeviceRadixSort::SortKeys(temp.ptr, bytes, d_keys_in, d_keys_out, (int)n,
                                           begin_bit, end_bit));
  return GL_OK;
}

extern "C" gl_status gl_yardstick_radix_sort_pairs(const uint32_t *d_keys_in,
                                                   uint32_t *d_keys_out,
                                                   const uint32_t *d_values_in,
                                                   uint32_t *d_values_out, size_t n,
                                                   int begin_bit, int end_bit) {
  GL_TRY(check_args("gl_yardstick_radix_sort_pairs", d_keys_in, d_keys_out, n, begin_bit,
                    end_bit));
  if (n > 0 && (d_values_in == NULL || d_values_out == NULL)) {
    return gl_fail(GL_ERR_NULL_POINTER, "gl_yardstick_radix_sort_pairs: %s is NULL",
                   d_values_in == NULL ? "d_values_in" : "d_values_out");
  }
  if (n == 0) return GL_OK;
  size_t bytes = 0;
  LAB_CHECK(cub::DeviceRadixSort::SortPairs(NULL, bytes, d_keys_in, d_keys_out, d_values_in,
                                            d_values_out, (int)n, begin_bit, end_bit));
  GL_TRY(gl_scratch_reserve(&temp, bytes));
  LAB_CHECK(cub::DeviceRadixSort::SortPairs(temp.ptr, bytes, d_keys_in, d_keys_out,
                                            d_values_in, d_values_out, (int)n, begin_bit,
                                            end_bit));
  return GL_OK;
}

extern "C" void gl_yardstick_radix_sort_release(void) {
  gl_scratch_release(&temp);
}
