// The reduction lab's yardstick: CUB's DeviceReduce behind a C API.
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <stdint.h>

#include "gpulabs/check.h"
#include "gpulabs/scratch.h"
#include "reduction_yardstick.h"

namespace {

// CUB's temporary storage, kept between calls so the timed path never allocates.
gl_scratch g_temp = GL_SCRATCH_INIT;

// CUB's 32-bit offsets are its fastest path, and the course's anchor used them; larger inputs
// take 64-bit offsets.
template <class Call>
gl_status run_cub(const char *what, const void *d_in, size_t n, const void *d_out, Call call) {
  if (d_out == nullptr || (n > 0 && d_in == nullptr)) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: NULL pointer (d_in %p, d_out %p, n = %zu)", what,
                   d_in, d_out, n);
  }
  size_t bytes = 0;
  if (n <= (size_t)INT32_MAX) {
    LAB_CHECK(call(nullptr, bytes, (int)n));
    GL_TRY(gl_scratch_reserve(&g_temp, bytes));
    bytes = g_temp.bytes;
    LAB_CHECK(call(g_temp.ptr, bytes, (int)n));
  } else {
    LAB_CHECK(call(nullptr, bytes, (int64_t)n));
    GL_TRY(gl_scratch_reserve(&g_temp, bytes));
    bytes = g_temp.bytes;
    LAB_CHECK(call(g_temp.ptr, bytes, (int64_t)n));
  }
  return GL_OK;
}

}  // namespace

extern "C" gl_status gl_yardstick_reduce_sum_int(const int *d_in, size_t n, int64_t *d_sum) {
  return run_cub("gl_yardstick_reduce_sum_int", d_in, n, d_sum,
                 [&](void *temp, size_t &bytes, auto count) {
                   return cub::DeviceReduce::Sum(temp, bytes, d_in, d_sum, count);
                 });
}

extern "C" gl_status gl_yardstick_reduce_sum_int32(const int *d_in, size_t n, int *d_sum) {
  return run_cub("gl_yardstick_reduce_sum_int32", d_in, n, d_sum,
                 [&](void *temp, size_t &bytes, auto count) {
                   return cub::DeviceReduce::Sum(temp, bytes, d_in, d_sum, count);
                 });
}

extern "C" gl_status gl_yardstick_reduce_min_int(const int *d_in, size_t n, int *d_min) {
  return run_cub("gl_yardstick_reduce_min_int", d_in, n, d_min,
                 [&](void *temp, size_t &bytes, auto count) {
                   return cub::DeviceReduce::Min(temp, bytes, d_in, d_min, count);
                 });
}

extern "C" gl_status gl_yardstick_reduce_max_int(const int *d_in, size_t n, int *d_max) {
  return run_cub("gl_yardstick_reduce_max_int", d_in, n, d_max,
                 [&](void *temp, size_t &bytes, auto count) {
                   return cub::DeviceReduce::Max(temp, bytes, d_in, d_max, count);
                 });
}

extern "C" gl_status gl_yardstick_reduce_sum_float(const float *d_in, size_t n, float *d_sum) {
  return run_cub("gl_yardstick_reduce_sum_float", d_in, n, d_sum,
                 [&](void *temp, size_t &bytes, auto count) {
                   return cub::DeviceReduce::Sum(temp, bytes, d_in, d_sum, count);
                 });
}

extern "C" gl_status gl_yardstick_reduce_min_float(const float *d_in, size_t n, float *d_min) {
  return run_cub("gl_yardstick_reduce_min_float", d_in, n, d_min,
                 [&](void *temp, size_t &bytes, auto count) {
                   return cub::DeviceReduce::Min(temp, bytes, d_in, d_min, count);
                 });
}

extern "C" gl_status gl_yardstick_reduce_max_float(const float *d_in, size_t n, float *d_max) {
  return run_cub("gl_yardstick_reduce_max_float", d_in, n, d_max,
                 [&](void *temp, size_t &bytes, auto count) {
                   return cub::DeviceReduce::Max(temp, bytes, d_in, d_max, count);
                 });
}

extern "C" void gl_yardstick_reduction_release(void) {
  gl_scratch_release(&g_temp);
}
