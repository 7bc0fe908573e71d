#define _POSIX_C_SOURCE 200809L
#include "gpulabs/data.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void gl_rng_seed(gl_rng *rng, uint64_t seed) {
  uint64_t state = seed;
  for (int i = 0; i < 4; ++i) rng->s[i] = splitmix64(&state);
}

uint64_t gl_rng_next(gl_rng *rng) {
  uint64_t *s = rng->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t gl_rng_below(gl_rng *rng, uint64_t bound) {
  if (bound == 0) return gl_rng_next(rng);
  /* Rejection: drop the top sliver of the range that would bias the modulo. */
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t x;
  do {
    x = gl_rng_next(rng);
  } while (x >= limit);
  return x % bound;
}

double gl_rng_unit(gl_rng *rng) { return (double)(gl_rng_next(rng) >> 11) * 0x1.0p-53; }

uint64_t gl_seed_from_env(void) {
  const char *text = getenv("GPULABS_SEED");
  if (text != NULL && text[0] != '\0') {
    return strtoull(text, NULL, 0);
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t state = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                   ((uint64_t)getpid() << 32);
  /* Keep seeds short enough to type back in. */
  return splitmix64(&state) & 0xFFFFFFFFFFull;
}

uint64_t gl_seed_derive(uint64_t seed, uint64_t label) {
  uint64_t state = seed ^ (label * 0xD1B54A32D192ED03ull);
  return splitmix64(&state);
}

const char *gl_dist_name(gl_dist dist) {
  switch (dist) {
    case GL_DIST_UNIFORM: return "uniform";
    case GL_DIST_SORTED: return "sorted";
    case GL_DIST_REVERSED: return "reversed";
    case GL_DIST_ALL_EQUAL: return "all-equal";
    case GL_DIST_FEW_UNIQUE: return "few-unique";
    case GL_DIST_COUNT: break;
  }
  return "unknown";
}

enum { FEW_UNIQUE_VALUES = 8 };

/* Offsets in [0, span) for element i of n, shaped by dist. span 0 means 2^64. Sorted data is
 * drawn directly in order (O(n), no sort): offset = floor(span * (i + u) / n) never decreases. */
typedef struct offset_source {
  gl_dist dist;
  uint64_t span;
  size_t n;
  gl_rng rng;
  uint64_t constant;
  uint64_t few[FEW_UNIQUE_VALUES];
} offset_source;

static void offset_source_init(offset_source *src, gl_dist dist, uint64_t span, size_t n,
                               uint64_t seed) {
  src->dist = dist;
  src->span = span;
  src->n = n;
  gl_rng_seed(&src->rng, seed);
  src->constant = gl_rng_below(&src->rng, span);
  for (int k = 0; k < FEW_UNIQUE_VALUES; ++k) src->few[k] = gl_rng_below(&src->rng, span);
}

static uint64_t offset_at(offset_source *src, size_t i) {
  switch (src->dist) {
    case GL_DIST_SORTED:
    case GL_DIST_REVERSED: {
      size_t rank = src->dist == GL_DIST_SORTED ? i : src->n - 1 - i;
      double span = src->span == 0 ? 0x1.0p64 : (double)src->span;
      double position = ((double)rank + gl_rng_unit(&src->rng)) / (double)src->n;
      double value = span * position;
      /* Rounding can reach span itself at the very top; clamp to the last value. */
      return value >= span ? (uint64_t)(span - 1.0) : (uint64_t)value;
    }
    case GL_DIST_ALL_EQUAL: return src->constant;
    case GL_DIST_FEW_UNIQUE: return src->few[gl_rng_below(&src->rng, FEW_UNIQUE_VALUES)];
    case GL_DIST_UNIFORM:
    case GL_DIST_COUNT: break;
  }
  return gl_rng_below(&src->rng, src->span);
}

void gl_fill_int(int *a, size_t n, int lo, int hi, gl_dist dist, uint64_t seed) {
  if (hi < lo) {
    int t = lo;
    lo = hi;
    hi = t;
  }
  uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
  offset_source src;
  offset_source_init(&src, dist, span, n, seed);
  for (size_t i = 0; i < n; ++i) a[i] = (int)((int64_t)lo + (int64_t)offset_at(&src, i));
}

void gl_fill_u32(uint32_t *a, size_t n, gl_dist dist, uint64_t seed) {
  offset_source src;
  offset_source_init(&src, dist, (uint64_t)1 << 32, n, seed);
  for (size_t i = 0; i < n; ++i) a[i] = (uint32_t)offset_at(&src, i);
}

void gl_fill_float(float *a, size_t n, float lo, float hi, gl_dist dist, uint64_t seed) {
  /* 2^24 evenly spaced levels: every level is exactly representable relative to the range. */
  const uint64_t levels = (uint64_t)1 << 24;
  offset_source src;
  offset_source_init(&src, dist, levels, n, seed);
  double width = (double)hi - (double)lo;
  for (size_t i = 0; i < n; ++i) {
    a[i] = (float)((double)lo + width * ((double)offset_at(&src, i) / (double)levels));
  }
}

void gl_fill_flags(int *a, size_t n, double keep_ratio, uint64_t seed) {
  gl_rng rng;
  gl_rng_seed(&rng, seed);
  for (size_t i = 0; i < n; ++i) a[i] = gl_rng_unit(&rng) < keep_ratio ? 1 : 0;
}
