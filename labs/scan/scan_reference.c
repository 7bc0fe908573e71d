/* CPU reference for the scan lab. The running sum is kept in uint32_t: signed overflow is
 * undefined in C, unsigned arithmetic wraps, and the conversion back to int gives the
 * two's-complement value on every compiler the course supports. */
#include "scan_reference.h"

#include <stdint.h>

static int wrap_to_int(uint32_t value) {
  /* Avoids the implementation-defined unsigned-to-signed conversion of values above INT_MAX. */
  return value <= (uint32_t)INT32_MAX ? (int)value : (int)(value - 0x80000000u) + INT32_MIN;
}

void gl_ref_scan_exclusive(const int *in, int *out, size_t n) {
  uint32_t running = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t value = (uint32_t)in[i]; /* read before writing: out may be in */
    out[i] = wrap_to_int(running);
    running += value;
  }
}

void gl_ref_scan_inclusive(const int *in, int *out, size_t n) {
  uint32_t running = 0;
  for (size_t i = 0; i < n; ++i) {
    running += (uint32_t)in[i];
    out[i] = wrap_to_int(running);
  }
}
