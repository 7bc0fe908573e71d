// A hostile submission (grader/selftest/hostile/README.md): the bonus step 5 is CUB's merge
// sort, with CUB moved into a namespace of its own (CUB_WRAPPED_NAMESPACE) so that no symbol
// starts with cub::. Its answers are right, so its tests pass; a library in place of the
// exercise earns nothing, and the report names it. Steps 2-4 are not written.
#define CUB_WRAPPED_NAMESPACE course_helpers
#include <cub/device/device_merge_sort.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "bitonic_sort_steps.h"

gl_status bitonic_step2(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                        int threads) {
  (void)keys, (void)values, (void)n, (void)descending, (void)threads;
  return gl_not_implemented("bitonic_sort step 2");
}

gl_status bitonic_step3(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                        int threads) {
  (void)keys, (void)values, (void)n, (void)descending, (void)threads;
  return gl_not_implemented("bitonic_sort step 3");
}

gl_status bitonic_step4(uint32_t *keys, uint32_t *values, unsigned n, int descending) {
  (void)keys, (void)values, (void)n, (void)descending;
  return gl_not_implemented("bitonic_sort step 4");
}

// =============================================================================================
// Step 5 (bonus): windows of the network, fewer passes
// =============================================================================================

struct Ascending {
  __device__ bool operator()(uint32_t a, uint32_t b) const { return a < b; }
};
struct Descending {
  __device__ bool operator()(uint32_t a, uint32_t b) const { return a > b; }
};

template <typename Less>
static gl_status merge_sort(uint32_t *keys, uint32_t *values, unsigned n) {
  size_t bytes = 0;
  void *temp = NULL;
  if (values != NULL) {
    LAB_CHECK(course_helpers::cub::DeviceMergeSort::SortPairs(temp, bytes, keys, values, n, Less()));
    LAB_CHECK(cudaMalloc(&temp, bytes));
    cudaError_t err = course_helpers::cub::DeviceMergeSort::SortPairs(temp, bytes, keys, values, n, Less());
    cudaFree(temp);
    LAB_CHECK(err);
  } else {
    LAB_CHECK(course_helpers::cub::DeviceMergeSort::SortKeys(temp, bytes, keys, n, Less()));
    LAB_CHECK(cudaMalloc(&temp, bytes));
    cudaError_t err = course_helpers::cub::DeviceMergeSort::SortKeys(temp, bytes, keys, n, Less());
    cudaFree(temp);
    LAB_CHECK(err);
  }
  return GL_OK;
}

gl_status bitonic_step5(uint32_t *keys, uint32_t *values, unsigned n, int descending) {
  if (n < 2) return GL_OK;
  return descending ? merge_sort<Descending>(keys, values, n) : merge_sort<Ascending>(keys, values, n);
}
