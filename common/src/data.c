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
  /* Lemire's multiply-shift: the high word of x * bound, redrawn in the rare case the low word
   * falls in the sliver that would bias it. No division on the common path (a 64-bit modulo
   * per element made filling 2^26 elements take a third of a second). */
  unsigned __int128 m = (unsigned __int128)gl_rng_next(rng) * bound;
  uint64_t low = (uint64_t)m;
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      m = (unsigned __int128)gl_rng_next(rng) * bound;
      low = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
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
 * drawn directly in order (O(n), no sort): offset = floor(span * (i + u) / n) never decreases.
 * Each chunk of FILL_CHUNK elements draws from a stream of its own (seeded from the fill's seed
 * and the chunk's number), so large fills run on several threads and give the same data on any
 * number of them. */
enum { FILL_CHUNK = 1 << 16 };
#define FILL_THREADS_FROM ((size_t)1 << 22) /* smaller fills stay on the calling thread */
#ifdef _OPENMP
#define FILL_PARALLEL _Pragma("omp parallel for schedule(static) if (n_ >= FILL_THREADS_FROM)")
#else
#define FILL_PARALLEL
#endif

typedef struct offset_source {
  gl_dist dist;
  uint64_t span;
  size_t n;
  uint64_t seed;
  uint64_t constant;
  uint64_t few[FEW_UNIQUE_VALUES];
} offset_source;

static void offset_source_init(offset_source *src, gl_dist dist, uint64_t span, size_t n,
                               uint64_t seed) {
  gl_rng rng;
  src->dist = dist;
  src->span = span;
  src->n = n;
  src->seed = seed;
  gl_rng_seed(&rng, seed);
  src->constant = gl_rng_below(&rng, span);
  for (int k = 0; k < FEW_UNIQUE_VALUES; ++k) src->few[k] = gl_rng_below(&rng, span);
}

static uint64_t offset_at(const offset_source *src, gl_rng *rng, size_t i) {
  switch (src->dist) {
    case GL_DIST_SORTED:
    case GL_DIST_REVERSED: {
      size_t rank = src->dist == GL_DIST_SORTED ? i : src->n - 1 - i;
      double span = src->span == 0 ? 0x1.0p64 : (double)src->span;
      double position = ((double)rank + gl_rng_unit(rng)) / (double)src->n;
      double value = span * position;
      /* Rounding can reach span itself at the very top; clamp to the last value. */
      return value >= span ? (uint64_t)(span - 1.0) : (uint64_t)value;
    }
    case GL_DIST_ALL_EQUAL: return src->constant;
    case GL_DIST_FEW_UNIQUE: return src->few[gl_rng_below(rng, FEW_UNIQUE_VALUES)];
    case GL_DIST_UNIFORM:
    case GL_DIST_COUNT: break;
  }
  return gl_rng_below(rng, src->span);
}

/* Runs STORE (which may use `rng` and `i`) for every i < src->n, chunk by chunk, each chunk
 * with its own stream; a macro so that each fill's loop is compiled with its store inlined. */
#define FILL_CHUNKS(src, STORE)                                                            \
  do {                                                                                     \
    const size_t n_ = (src)->n;                                                            \
    const long chunks_ = (long)((n_ + FILL_CHUNK - 1) / FILL_CHUNK);                       \
    FILL_PARALLEL                                                                          \
    for (long c_ = 0; c_ < chunks_; ++c_) {                                                \
      gl_rng rng;                                                                          \
      gl_rng_seed(&rng, gl_seed_derive((src)->seed, (uint64_t)c_ + 1));                     \
      const size_t begin_ = (size_t)c_ * FILL_CHUNK;                                       \
      const size_t end_ = n_ - begin_ < FILL_CHUNK ? n_ : begin_ + FILL_CHUNK;              \
      for (size_t i = begin_; i < end_; ++i) STORE;                                        \
    }                                                                                      \
  } while (0)

void gl_fill_int(int *a, size_t n, int lo, int hi, gl_dist dist, uint64_t seed) {
  if (hi < lo) {
    int t = lo;
    lo = hi;
    hi = t;
  }
  uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
  offset_source src;
  offset_source_init(&src, dist, span, n, seed);
  FILL_CHUNKS(&src, a[i] = (int)((int64_t)lo + (int64_t)offset_at(&src, &rng, i)));
}

void gl_fill_u32(uint32_t *a, size_t n, gl_dist dist, uint64_t seed) {
  offset_source src;
  offset_source_init(&src, dist, (uint64_t)1 << 32, n, seed);
  FILL_CHUNKS(&src, a[i] = (uint32_t)offset_at(&src, &rng, i));
}

void gl_fill_float(float *a, size_t n, float lo, float hi, gl_dist dist, uint64_t seed) {
  /* 2^24 evenly spaced levels: every level is exactly representable relative to the range. */
  const uint64_t levels = (uint64_t)1 << 24;
  offset_source src;
  offset_source_init(&src, dist, levels, n, seed);
  const double width = (double)hi - (double)lo;
  FILL_CHUNKS(&src, a[i] = (float)((double)lo + width * ((double)offset_at(&src, &rng, i) /
                                                         (double)levels)));
}

void gl_fill_flags(int *a, size_t n, double keep_ratio, uint64_t seed) {
  offset_source src;
  offset_source_init(&src, GL_DIST_UNIFORM, 2, n, seed);
  FILL_CHUNKS(&src, a[i] = gl_rng_unit(&rng) < keep_ratio ? 1 : 0);
}
