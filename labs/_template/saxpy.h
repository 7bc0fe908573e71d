/* The saxpy lab's API: y = a * x + y on the GPU, in single precision.
 *
 * Implemented by labs/saxpy/saxpy_given.cu (given), which calls the steps of labs/saxpy/saxpy.cu
 * (yours; solutions/saxpy/saxpy.cu is the same file filled in). All pointers are device pointers.
 */
#ifndef GPULABS_LAB_SAXPY_H
#define GPULABS_LAB_SAXPY_H

#include <stddef.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder, numbered as in the handout. */
typedef enum saxpy_step {
  SAXPY_STEP_GRID_STRIDE = 1 /* one kernel, a grid-stride loop over the elements */
} saxpy_step;

#define SAXPY_FIRST_STEP SAXPY_STEP_GRID_STRIDE
#define SAXPY_LAST_STEP SAXPY_STEP_GRID_STRIDE

/* The largest n the lab accepts (GL_ERR_SIZE beyond it). */
#define SAXPY_MAX_N ((size_t)1 << 30)

/* "1-grid-stride"; "unknown" for a value outside the ladder. */
const char *saxpy_step_name(saxpy_step step);

/* Runs one step: d_y[i] = a * d_x[i] + d_y[i] for i < n, nothing written past n. block_size:
 * threads per block, a power of two in [32, 1024], or 0 for the step's default (256). n == 0 is
 * valid and touches nothing; the arrays may then be NULL. */
gl_status saxpy_run(saxpy_step step, float a, const float *d_x, float *d_y, size_t n,
                    int block_size);

#ifdef __cplusplus
}
#endif
#endif
