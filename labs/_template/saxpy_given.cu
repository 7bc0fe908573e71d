// The saxpy lab: the given code. This file is given: the grader always takes it from the
// course, never from a submission.
//
// The API of saxpy.h: the step names, the argument checks and the dispatch to your steps
// (labs/saxpy/saxpy.cu, as labs/saxpy/saxpy_steps.h declares them).
#include "saxpy_steps.h"

const char *saxpy_step_name(saxpy_step step) {
  switch (step) {
    case SAXPY_STEP_GRID_STRIDE: return "1-grid-stride";
  }
  return "unknown";
}

gl_status saxpy_run(saxpy_step step, float a, const float *d_x, float *d_y, size_t n,
                    int block_size) {
  if (step < SAXPY_FIRST_STEP || step > SAXPY_LAST_STEP) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "saxpy_run: step %d is not a step of the lab",
                   (int)step);
  }
  if (block_size == 0) block_size = 256;
  if (block_size < 32 || block_size > 1024 || (block_size & (block_size - 1)) != 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "saxpy_run: block_size %d is not a power of two in [32, 1024]", block_size);
  }
  if (n > SAXPY_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "saxpy_run: n = %zu exceeds the limit %zu", n,
                   (size_t)SAXPY_MAX_N);
  }
  if (n == 0) return GL_OK;
  if (d_x == NULL || d_y == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "saxpy_run: d_x or d_y is NULL with n = %zu", n);
  }
  return saxpy_step1(a, d_x, d_y, n, block_size);
}
