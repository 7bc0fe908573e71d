// The saxpy lab: what each step of labs/saxpy/saxpy.cu defines, and what the given code
// (labs/saxpy/saxpy_given.cu) hands it. Given.
//
// The given code has checked the arguments before a step runs: n >= 1 and n <= SAXPY_MAX_N,
// d_x and d_y not NULL, block_size a power of two in [32, 1024]. Each step returns GL_OK once
// its kernels are launched (LAB_CHECK_LAUNCH after each launch), or the error of a CUDA call.
#ifndef GPULABS_LAB_SAXPY_STEPS_H
#define GPULABS_LAB_SAXPY_STEPS_H

#include <stddef.h>

#include "saxpy.h"

#ifdef __cplusplus
extern "C" {
#endif

// Step 1: d_y[i] = a * d_x[i] + d_y[i] for every i < n.
gl_status saxpy_step1(float a, const float *d_x, float *d_y, size_t n, int block_size);

#ifdef __cplusplus
}
#endif
#endif
