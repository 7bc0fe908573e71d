/* CPU reference for the scan lab: prefix sums of int, the answer every GPU scan is checked
 * against. The compaction and radix-sort references may use it too.
 *
 * Sums wrap around like unsigned 32-bit arithmetic (two's complement), as the GPU code does:
 * the scan of {INT_MAX, 1, 0} is {0, INT_MAX, INT_MIN} (exclusive). Both functions accept
 * out == in (in place); other overlaps are not supported. n == 0 writes nothing, and in and
 * out may then be NULL. */
#ifndef GPULABS_REFERENCE_SCAN_H
#define GPULABS_REFERENCE_SCAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[0] = 0, out[i] = in[0] + ... + in[i-1] */
void gl_ref_scan_exclusive(const int *in, int *out, size_t n);

/* out[i] = in[0] + ... + in[i] */
void gl_ref_scan_inclusive(const int *in, int *out, size_t n);

#ifdef __cplusplus
}
#endif
#endif
