/* Seeded, reproducible data generators. The same seed gives the same data on every machine. */
#ifndef GPULABS_DATA_H
#define GPULABS_DATA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A small, fast generator (xoshiro256**, seeded through splitmix64). */
typedef struct gl_rng {
  uint64_t s[4];
} gl_rng;

void gl_rng_seed(gl_rng *rng, uint64_t seed);
uint64_t gl_rng_next(gl_rng *rng);
/* Uniform in [0, bound) without modulo bias; bound 0 means the full 64-bit range. */
uint64_t gl_rng_below(gl_rng *rng, uint64_t bound);
/* Uniform double in [0, 1). */
double gl_rng_unit(gl_rng *rng);

/* The seed for this run: $GPULABS_SEED when set (decimal or 0x-hex), else a fresh one drawn
 * from the clock and the process id. Printed by every failing test so the run can be repeated. */
uint64_t gl_seed_from_env(void);
/* A seed derived from `seed` and a label, so each input of a test gets its own stream. */
uint64_t gl_seed_derive(uint64_t seed, uint64_t label);

/* Shapes of data the labs are tested on. */
typedef enum gl_dist {
  GL_DIST_UNIFORM,     /* uniform in the requested range */
  GL_DIST_SORTED,      /* non-decreasing */
  GL_DIST_REVERSED,    /* non-increasing */
  GL_DIST_ALL_EQUAL,   /* one value repeated */
  GL_DIST_FEW_UNIQUE,  /* drawn from 8 distinct values */
  GL_DIST_COUNT
} gl_dist;

const char *gl_dist_name(gl_dist dist);

/* Integers in [lo, hi] (inclusive), shaped by dist. */
void gl_fill_int(int *a, size_t n, int lo, int hi, gl_dist dist, uint64_t seed);
/* 32-bit keys over the full range [0, 2^32 - 1], shaped by dist. */
void gl_fill_u32(uint32_t *a, size_t n, gl_dist dist, uint64_t seed);
/* Floats in [lo, hi), shaped by dist. */
void gl_fill_float(float *a, size_t n, float lo, float hi, gl_dist dist, uint64_t seed);
/* 0/1 flags, each 1 with probability keep_ratio (for compaction inputs). */
void gl_fill_flags(int *a, size_t n, double keep_ratio, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
