/* CPU reference for the reduction lab (see reduction_reference.h). */
#include "reduction_reference.h"

#include <limits.h>
#include <math.h>

int64_t reduce_ref_sum_int(const int *a, size_t n) {
  int64_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += a[i];
  return sum;
}

int reduce_ref_min_int(const int *a, size_t n) {
  int smallest = INT_MAX;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] < smallest) smallest = a[i];
  }
  return smallest;
}

int reduce_ref_max_int(const int *a, size_t n) {
  int largest = INT_MIN;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] > largest) largest = a[i];
  }
  return largest;
}

double reduce_ref_sum_float(const float *a, size_t n) {
  /* Neumaier's compensated sum: the double result is then exact to about 2^-53 of sum |a[i]|
   * even for billions of elements, far below any float error the tests look for. */
  double sum = 0.0, compensation = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double x = a[i];
    double t = sum + x;
    if (fabs(sum) >= fabs(x)) {
      compensation += (sum - t) + x;
    } else {
      compensation += (x - t) + sum;
    }
    sum = t;
  }
  return sum + compensation;
}

double reduce_ref_sum_abs_float(const float *a, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += fabs((double)a[i]);
  return sum;
}

float reduce_ref_min_float(const float *a, size_t n) {
  float smallest = INFINITY;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] < smallest) smallest = a[i];
  }
  return smallest;
}

float reduce_ref_max_float(const float *a, size_t n) {
  float largest = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] > largest) largest = a[i];
  }
  return largest;
}

double reduce_ref_float_sum_depth(size_t n) {
  if (n <= 1) return 1.0;
  return ceil(sqrt((double)n)) + ceil(log2((double)n)) + 8.0;
}

double reduce_ref_float_sum_tolerance(size_t n, double sum_abs) {
  const double unit_roundoff = ldexp(1.0, -24);
  double du = reduce_ref_float_sum_depth(n) * unit_roundoff;
  if (du >= 1.0) return INFINITY; /* beyond any useful bound */
  return du / (1.0 - du) * fabs(sum_abs);
}
