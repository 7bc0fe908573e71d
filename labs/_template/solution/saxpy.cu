// The saxpy lab: your kernel. y = a * x + y, one step.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/saxpy/saxpy.h          the API the tests call
//   labs/saxpy/saxpy_steps.h    what each step below must define, and what it is handed
//   labs/saxpy/saxpy_given.cu   argument checks, the dispatch to your steps
//
// The handout, labs/saxpy/README.md, explains the step. Run its tests as soon as it is written:
//   ctest --test-dir build/student -L saxpy -R 'SaxpyStep1\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1  1-grid-stride  saxpy_step1  (saxpy_kernel)
#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "saxpy_steps.h"

// =============================================================================================
// Step 1: a grid-stride loop
//
// Write saxpy_kernel: each thread starts at its global index and steps by the grid's size in
// threads, y[i] = a * x[i] + y[i] while i < n. Launch it with block_size threads per block and
// enough blocks to cover n (at most 65535 x 8 of them: the loop does the rest).
// - Index in size_t: n may exceed 2^31.
// - Write nothing at or past n: the tests poison what lies beyond and check it.
// =============================================================================================

__global__ void saxpy_kernel(float a, const float *x, float *y, size_t n) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = fmaf(a, x[i], y[i]);
  }
}

gl_status saxpy_step1(float a, const float *d_x, float *d_y, size_t n, int block_size) {
  size_t blocks = (n + (size_t)block_size - 1) / (size_t)block_size;
  if (blocks > 65535 * 8) blocks = 65535 * 8;
  saxpy_kernel<<<(unsigned int)blocks, block_size>>>(a, d_x, d_y, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}
