// The scan yardstick: CUB's DeviceScan behind a C API.
#include <cub/device/device_scan.cuh>
#include <stdint.h>

#include "gpulabs/check.h"
#include "gpulabs/yardstick/scan.h"

// CUB's temporary storage, kept between calls so the timed path never allocates.
static void *cached_temp = NULL;
static size_t cached_temp_bytes = 0;

static gl_status reserve_temp(size_t bytes) {
  if (bytes <= cached_temp_bytes) return GL_OK;
  if (cached_temp != NULL) LAB_CHECK(cudaFree(cached_temp));
  cached_temp = NULL;
  cached_temp_bytes = 0;
  LAB_CHECK(cudaMalloc(&cached_temp, bytes));
  cached_temp_bytes = bytes;
  return GL_OK;
}

static gl_status check_args(const char *name, const int *d_in, int *d_out, size_t n) {
  if (n > (size_t)INT32_MAX) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds CUB's int item count", name, n);
  }
  if (n > 0 && (d_in == NULL || d_out == NULL)) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: %s is NULL", name, d_in == NULL ? "d_in" : "d_out");
  }
  return GL_OK;
}

extern "C" gl_status gl_yardstick_scan_exclusive(const int *d_in, int *d_out, size_t n) {
  GL_TRY(check_args("gl_yardstick_scan_exclusive", d_in, d_out, n));
  if (n == 0) return GL_OK;
  size_t bytes = 0;
  LAB_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, d_in, d_out, (int)n));
  GL_TRY(reserve_temp(bytes));
  LAB_CHECK(cub::DeviceScan::ExclusiveSum(cached_temp, bytes, d_in, d_out, (int)n));
  return GL_OK;
}

extern "C" gl_status gl_yardstick_scan_inclusive(const int *d_in, int *d_out, size_t n) {
  GL_TRY(check_args("gl_yardstick_scan_inclusive", d_in, d_out, n));
  if (n == 0) return GL_OK;
  size_t bytes = 0;
  LAB_CHECK(cub::DeviceScan::InclusiveSum(NULL, bytes, d_in, d_out, (int)n));
  GL_TRY(reserve_temp(bytes));
  LAB_CHECK(cub::DeviceScan::InclusiveSum(cached_temp, bytes, d_in, d_out, (int)n));
  return GL_OK;
}

extern "C" void gl_yardstick_scan_release(void) {
  if (cached_temp != NULL) cudaFree(cached_temp);
  cached_temp = NULL;
  cached_temp_bytes = 0;
}
