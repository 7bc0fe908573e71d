// The scan yardstick: CUB's DeviceScan behind a C API.
#include <cub/device/device_scan.cuh>
#include <stdint.h>

#include "gpulabs/check.h"
#include "gpulabs/scratch.h"
#include "scan_yardstick.h"

// CUB's temporary storage, kept between calls so the timed path never allocates.
static gl_scratch temp = GL_SCRATCH_INIT;

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
  GL_TRY(gl_scratch_reserve(&temp, bytes));
  LAB_CHECK(cub::DeviceScan::ExclusiveSum(temp.ptr, bytes, d_in, d_out, (int)n));
  return GL_OK;
}

extern "C" gl_status gl_yardstick_scan_inclusive(const int *d_in, int *d_out, size_t n) {
  GL_TRY(check_args("gl_yardstick_scan_inclusive", d_in, d_out, n));
  if (n == 0) return GL_OK;
  size_t bytes = 0;
  LAB_CHECK(cub::DeviceScan::InclusiveSum(NULL, bytes, d_in, d_out, (int)n));
  GL_TRY(gl_scratch_reserve(&temp, bytes));
  LAB_CHECK(cub::DeviceScan::InclusiveSum(temp.ptr, bytes, d_in, d_out, (int)n));
  return GL_OK;
}

extern "C" void gl_yardstick_scan_release(void) {
  gl_scratch_release(&temp);
}
