// The compaction yardstick: CUB's DeviceSelect::If and DevicePartition::If behind a C API.
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>
#include <stdint.h>

#include "gpulabs/check.h"
#include "gpulabs/scratch.h"
#include "compaction_yardstick.h"

// The lab's predicate as a CUB select functor.
struct KeepRule {
  gl_keep_rule rule;
  int threshold;
  __host__ __device__ bool operator()(const int &x) const {
    return rule == GL_KEEP_BELOW ? x < threshold : x != 0;
  }
};

// CUB's temporary storage, kept between calls so the timed path never allocates.
static gl_scratch temp = GL_SCRATCH_INIT;

static gl_status check_args(const char *name, const int *d_in, int *d_out, int *d_count,
                            size_t n, gl_keep_rule rule) {
  if (n > (size_t)INT32_MAX) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds CUB's int item count", name, n);
  }
  if (d_count == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_count is NULL", name);
  if (n > 0 && (d_in == NULL || d_out == NULL)) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: %s is NULL", name, d_in == NULL ? "d_in" : "d_out");
  }
  if (rule != GL_KEEP_NONZERO && rule != GL_KEEP_BELOW) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: rule %d is not a gl_keep_rule", name, (int)rule);
  }
  return GL_OK;
}

extern "C" gl_status gl_yardstick_select_if(const int *d_in, int *d_out, int *d_count, size_t n,
                                            gl_keep_rule rule, int threshold) {
  GL_TRY(check_args("gl_yardstick_select_if", d_in, d_out, d_count, n, rule));
  if (n == 0) {
    LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
    return GL_OK;
  }
  KeepRule keep = {rule, threshold};
  size_t bytes = 0;
  LAB_CHECK(cub::DeviceSelect::If(NULL, bytes, d_in, d_out, d_count, (int)n, keep));
  GL_TRY(gl_scratch_reserve(&temp, bytes));
  LAB_CHECK(cub::DeviceSelect::If(temp.ptr, bytes, d_in, d_out, d_count, (int)n, keep));
  return GL_OK;
}

extern "C" gl_status gl_yardstick_partition_if(const int *d_in, int *d_out, int *d_count,
                                               size_t n, gl_keep_rule rule, int threshold) {
  GL_TRY(check_args("gl_yardstick_partition_if", d_in, d_out, d_count, n, rule));
  if (n == 0) {
    LAB_CHECK(cudaMemsetAsync(d_count, 0, sizeof(int)));
    return GL_OK;
  }
  KeepRule keep = {rule, threshold};
  size_t bytes = 0;
  LAB_CHECK(cub::DevicePartition::If(NULL, bytes, d_in, d_out, d_count, (int)n, keep));
  GL_TRY(gl_scratch_reserve(&temp, bytes));
  LAB_CHECK(cub::DevicePartition::If(temp.ptr, bytes, d_in, d_out, d_count, (int)n, keep));
  return GL_OK;
}

extern "C" void gl_yardstick_compaction_release(void) {
  gl_scratch_release(&temp);
}
