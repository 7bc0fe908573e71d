/* The saxpy lab's CPU reference (saxpy_reference.h). */
#include "saxpy_reference.h"

#include <math.h>

void saxpy_ref(float a, const float *x, float *y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = fmaf(a, x[i], y[i]);
}
