/* The saxpy lab's CPU reference: what the tests compare the GPU's answers with. */
#ifndef GPULABS_SAXPY_REFERENCE_H
#define GPULABS_SAXPY_REFERENCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[i] = a * x[i] + y[i] for i < n, each with one rounding (fmaf), as a GPU's fused
 * multiply-add computes it. */
void saxpy_ref(float a, const float *x, float *y, size_t n);

#ifdef __cplusplus
}
#endif
#endif
