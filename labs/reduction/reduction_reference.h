/* CPU reference for the reduction lab: sum, min and max of int and float arrays, the identity
 * each returns for n = 0, and the error bound a float sum computed in float may show.
 *
 * int sums are exact: they accumulate in 64 bits, so any n up to 2^32 elements fits (|sum| <=
 * 2^32 * 2^31 = 2^63). float sums accumulate in double, so the reference is far more precise
 * than a GPU sum computed in float; reduce_ref_float_sum_tolerance says how far apart the two
 * may lie. */
#ifndef GPULABS_REFERENCE_REDUCTION_H
#define GPULABS_REFERENCE_REDUCTION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sum of a[0..n) in 64-bit arithmetic (exact); 0 for n = 0. */
int64_t reduce_ref_sum_int(const int *a, size_t n);
/* Smallest and largest element; INT_MAX and INT_MIN (the identities) for n = 0. */
int reduce_ref_min_int(const int *a, size_t n);
int reduce_ref_max_int(const int *a, size_t n);

/* Sum of a[0..n) accumulated in double; 0 for n = 0. */
double reduce_ref_sum_float(const float *a, size_t n);
/* Sum of |a[i]|, in double: the scale of the rounding error of any float summation order. */
double reduce_ref_sum_abs_float(const float *a, size_t n);
/* Smallest and largest element; +INFINITY and -INFINITY (the identities) for n = 0. NaN
 * elements are not supported (what they give is unspecified, as on the GPU). */
float reduce_ref_min_float(const float *a, size_t n);
float reduce_ref_max_float(const float *a, size_t n);

/* Depth assumed for a parallel float sum of n elements: the most additions any one element
 * passes through on its way to the result, ceil(sqrt(n)) + ceil(log2(n)) + 8. A tree over n
 * leaves is at most log2(n) deep; the sqrt(n) term leaves room for each thread adding a run of
 * elements on its own first (the lab's kernels add far fewer on an H100: about
 * n / (132 SMs * 2048 threads)). 1 for n <= 1. */
double reduce_ref_float_sum_depth(size_t n);

/* How far a float sum computed in float may lie from the exact sum: gamma(depth) * sum_abs,
 * with gamma(d) = d*u / (1 - d*u) and u = 2^-24, the classic bound for a summation tree of
 * depth d (each addition rounds with a relative error of at most u). Rounding errors mostly
 * cancel, so real errors are far smaller; a dropped or doubled element still shows whenever it
 * is larger than the bound. */
double reduce_ref_float_sum_tolerance(size_t n, double sum_abs);

#ifdef __cplusplus
}
#endif
#endif
