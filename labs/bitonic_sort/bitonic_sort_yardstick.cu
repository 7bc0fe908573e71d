// The bitonic_sort lab's yardsticks: CUB merge sort and radix sort of uint32 keys.
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <climits>

#include "gpulabs/check.h"
#include "gpulabs/scratch.h"
#include "bitonic_sort_yardstick.h"

namespace {

struct Ascending {
  __host__ __device__ bool operator()(const uint32_t &a, const uint32_t &b) const { return a < b; }
};
struct Descending {
  __host__ __device__ bool operator()(const uint32_t &a, const uint32_t &b) const { return a > b; }
};

// CUB's temporary storage, kept between calls so a timed call never allocates.
gl_scratch g_temp = GL_SCRATCH_INIT;

gl_status check_n(const char *function, size_t n) {
  if (n > (size_t)INT_MAX) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds CUB's int limit %d", function, n, INT_MAX);
  }
  return GL_OK;
}

template <class Compare>
gl_status merge_sort(uint32_t *d_keys, int n, Compare compare) {
  size_t bytes = 0;
  LAB_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, bytes, d_keys, n, compare));
  GL_TRY(gl_scratch_reserve(&g_temp, bytes));
  bytes = g_temp.bytes;
  LAB_CHECK(cub::DeviceMergeSort::SortKeys(g_temp.ptr, bytes, d_keys, n, compare));
  return GL_OK;
}

}  // namespace

extern "C" gl_status bitonic_yardstick_cub_merge_sort_keys(uint32_t *d_keys, size_t n,
                                                           int descending) {
  const char *function = "bitonic_yardstick_cub_merge_sort_keys";
  if (d_keys == nullptr) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_keys is NULL", function);
  GL_TRY(check_n(function, n));
  if (n <= 1) return GL_OK;
  return descending ? merge_sort(d_keys, (int)n, Descending()) : merge_sort(d_keys, (int)n, Ascending());
}

extern "C" gl_status bitonic_yardstick_cub_radix_sort_keys(const uint32_t *d_in, uint32_t *d_out,
                                                           size_t n, int descending) {
  const char *function = "bitonic_yardstick_cub_radix_sort_keys";
  if (d_in == nullptr || d_out == nullptr) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: d_in and d_out must not be NULL", function);
  }
  GL_TRY(check_n(function, n));
  if (n == 0) return GL_OK;
  const int count = (int)n;
  size_t bytes = 0;
  if (descending) {
    LAB_CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, bytes, d_in, d_out, count));
  } else {
    LAB_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, d_in, d_out, count));
  }
  GL_TRY(gl_scratch_reserve(&g_temp, bytes));
  bytes = g_temp.bytes;
  if (descending) {
    LAB_CHECK(cub::DeviceRadixSort::SortKeysDescending(g_temp.ptr, bytes, d_in, d_out, count));
  } else {
    LAB_CHECK(cub::DeviceRadixSort::SortKeys(g_temp.ptr, bytes, d_in, d_out, count));
  }
  return GL_OK;
}

extern "C" void bitonic_yardstick_release(void) {
  gl_scratch_release(&g_temp);
}
