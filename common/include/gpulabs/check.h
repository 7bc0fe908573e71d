/* CUDA error checking that names the file, the line and the call that failed. */
#ifndef GPULABS_CHECK_H
#define GPULABS_CHECK_H

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpulabs/status.h"

/* Inside a function that returns gl_status: on failure record
 *   "reduction.cu:42: cudaMalloc(&d_tmp, bytes) failed: out of memory (cudaErrorMemoryAllocation)"
 * and return GL_ERR_CUDA. */
#define LAB_CHECK(call)                                                                      \
  do {                                                                                       \
    cudaError_t lab_check_err_ = (call);                                                     \
    if (lab_check_err_ != cudaSuccess) {                                                     \
      return gl_fail(GL_ERR_CUDA, "%s:%d: %s failed: %s (%s)", __FILE__, __LINE__, #call,   \
                     cudaGetErrorString(lab_check_err_), cudaGetErrorName(lab_check_err_)); \
    }                                                                                        \
  } while (0)

/* After a kernel launch: catches a bad configuration at once (the launch itself is async). */
#define LAB_CHECK_LAUNCH() LAB_CHECK(cudaGetLastError())

/* For tools and main(): print the same message and exit(EXIT_FAILURE). */
#define LAB_CHECK_FATAL(call)                                                                \
  do {                                                                                       \
    cudaError_t lab_check_err_ = (call);                                                     \
    if (lab_check_err_ != cudaSuccess) {                                                     \
      fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,             \
              cudaGetErrorString(lab_check_err_), cudaGetErrorName(lab_check_err_));         \
      exit(EXIT_FAILURE);                                                                    \
    }                                                                                        \
  } while (0)

/* Propagates a failed gl_status from a helper, keeping its message. */
#define GL_TRY(expr)                         \
  do {                                       \
    gl_status gl_try_status_ = (expr);       \
    if (gl_try_status_ != GL_OK) {           \
      return gl_try_status_;                 \
    }                                        \
  } while (0)

#endif
