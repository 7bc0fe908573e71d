/* The radix sort lab's API: LSD radix sort of 32-bit keys, and of key-value pairs, on the GPU.
 *
 * Implemented by labs/radix_sort/radix_sort_given.cu (given), which calls the steps of
 * labs/radix_sort/radix_sort.cu (yours; solutions/radix_sort/radix_sort.cu is the same file filled
 * in). All array pointers are device pointers.
 *
 * Every sort is stable (keys that compare equal keep their input order, and so do their values),
 * reads d_keys_in (and d_values_in) and writes the sorted result to d_keys_out (and
 * d_values_out). The input is left unchanged unless the output is the same array: in-place sorts
 * (d_keys_out == d_keys_in, d_values_out == d_values_in) are allowed; an output that overlaps its
 * input in any other way is rejected. Keys and values must not overlap each other.
 *
 * Scratch memory (a second buffer for the keys, and the values, and each step's tables) is kept
 * between calls and grows when a larger n needs it, so that timed calls do not pay for
 * cudaMalloc. radix_sort_release() frees it. The functions are not thread-safe.
 */
#ifndef GPULABS_LAB_RADIX_SORT_H
#define GPULABS_LAB_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder, numbered as in the handout (step 1 is the CPU reference in common/). */
typedef enum radix_sort_step {
  RADIX_STEP_SPLIT = 2,   /* one bit per pass: flags, scan_exclusive (your scan lab), scatter */
  RADIX_STEP_DIGITS = 3,  /* 4- or 8-bit digits per pass: tile histograms, one scan of the
                             digit-major table, local sort in shared memory, scatter */
  RADIX_STEP_ONESWEEP = 4, /* 8-bit digits: one histogram kernel for all passes, then one
                              kernel per pass that ranks, looks back over earlier tiles and
                              scatters */
  RADIX_STEP_ONESWEEP_TUNED = 5 /* step 4 tuned: many keys per thread, ballot multi-split
                                   ranking, early digit counts, the tile written out in sorted
                                   order, status words never cleared (epochs): 5 launches, no
                                   memset */
} radix_sort_step;

#define RADIX_FIRST_STEP RADIX_STEP_SPLIT
#define RADIX_LAST_STEP RADIX_STEP_ONESWEEP_TUNED

/* The largest n the lab accepts (GL_ERR_SIZE beyond it). Steps 4 and 5 pack a digit count and
 * its flags into one 32-bit word, so every count must fit in 30 bits. */
#define RADIX_MAX_N (((size_t)1 << 30) - 1)

/* The knobs most calls leave at their defaults (pass NULL for all defaults). */
typedef struct radix_sort_options {
  int digit_bits; /* bits sorted per pass. 0: the step's default. Step 2 takes only 1, step 3
                     takes 4 or 8 (default 8), steps 4 and 5 take only 8. */
  int begin_bit;  /* sort on bits [begin_bit, end_bit) of each key, bit 0 the least
                     significant: 0 <= begin_bit < end_bit <= 32. Bits outside the range do not */
  int end_bit;    /* take part: keys equal on the range keep their input order. */
} radix_sort_options;

/* Sort on all 32 bits with the step's default digit size. */
#define RADIX_SORT_DEFAULT_OPTIONS {0, 0, 32}

/* "2-split", "3-digits", "4-onesweep", "5-onesweep-tuned"; "unknown" for a value outside the
 * ladder. */
const char *radix_sort_step_name(radix_sort_step step);

/* Sorts n keys, n in [0, RADIX_MAX_N]; n == 0 is valid and writes nothing. */
gl_status radix_sort_keys(radix_sort_step step, const uint32_t *d_keys_in, uint32_t *d_keys_out,
                          size_t n, const radix_sort_options *options);

/* Sorts n (key, value) pairs by key; the values travel with their keys. */
gl_status radix_sort_pairs(radix_sort_step step, const uint32_t *d_keys_in, uint32_t *d_keys_out,
                           const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                           const radix_sort_options *options);

/* The extension: signed and float keys, in ascending order, through an order-preserving map to
 * uint32 (the "bit flip"), sorted on all 32 bits with the step's default digit size.
 * Floats are ordered by their bits: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN. */
gl_status radix_sort_keys_i32(radix_sort_step step, const int32_t *d_keys_in, int32_t *d_keys_out,
                              size_t n);
gl_status radix_sort_keys_f32(radix_sort_step step, const float *d_keys_in, float *d_keys_out,
                              size_t n);

/* Frees the scratch memory the sorts keep between calls (a later sort allocates it again). */
gl_status radix_sort_release(void);

#ifdef __cplusplus
}
#endif
#endif
