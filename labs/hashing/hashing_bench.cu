// The hashing lab's benchmark: every step's inserts (hashing_build), finds of present keys and
// finds of absent keys, at load factors 0.5, 0.8, 0.9 and 0.95 of one table size, beside the
// GPU's own limits for random access (n random 4-byte atomicCAS, n random 8-byte gathers, on a
// table of 2n words) and the sort-based alternative (CUB's DeviceRadixSort::SortPairs, a binary
// search a key), all in one run. The table has 2^27 slots by default (1 GiB of 8-byte slots;
// --n gives another power of two), so a load factor a means n = a x 2^27 distinct keys: 2^26 at
// 0.5. The limits are measured at n = half the slots. Step 3's probe counts (hashing_stats) are
// printed after the table, one line a load factor.
//
// Rows: step "<step> insert@<load>", "<step> hit@<load>", "<step> miss@<load>" and the
// yardsticks "cas", "gather", "cub-sort-pairs" and "sorted-find", each with n and its median
// time; bytes count 8 a key (a key and a value read, or a key read and a value written), so the
// GB/s column compares with the copy; yardstick_ms is the limit the row is measured against
// (cas for an insert, gather for a find), scaled from the keys it was timed on to the row's n.
// Keys per second: n / ms. Each find's answers are checked once per point (every value right,
// every absent key "not found").
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpulabs/check.h"
#include "gpulabs/status.h"
#include "gpulabs/timer.h"
#include "hashing.h"
#include "hashing_yardstick.h"
#include "labbench.h"

#define BENCH_SLOTS ((size_t)1 << 27)
#define N_LOADS 4

static const double loads[N_LOADS] = {0.5, 0.8, 0.9, 0.95};

// Step 3's probes a key at each load factor: insert, hit, miss (averages), and the longest miss.
typedef struct probe_line {
  int measured;
  double insert, hit, miss;
  unsigned int longest_miss;
} probe_line;

typedef enum bench_what {
  RUN_BUILD, RUN_FIND, RUN_CAS, RUN_GATHER, RUN_SORT, RUN_SORTED_FIND
} bench_what;

typedef struct bench_job {
  bench_what what;
  hashing_step step;
  size_t n, capacity;
  const uint32_t *keys, *values, *queries;
  uint32_t *out;
} bench_job;

static gl_status run_once(void *context) {
  const bench_job *j = (const bench_job *)context;
  switch (j->what) {
    case RUN_BUILD: return hashing_build(j->step, j->keys, j->values, j->n, j->capacity, NULL);
    case RUN_FIND: return hashing_find(j->step, j->queries, j->out, j->n, NULL);
    case RUN_CAS: return hashing_yardstick_cas(j->keys, j->n);
    case RUN_GATHER: return hashing_yardstick_gather(j->queries, j->out, j->n);
    case RUN_SORT: return hashing_yardstick_sort_build(j->keys, j->values, j->n);
    case RUN_SORTED_FIND: return hashing_yardstick_sorted_find(j->queries, j->out, j->n);
  }
  return GL_OK;
}

// Times one job and prints its row; -1 when it failed (the reason printed).
static double measure(const lb_options *opt, bench_job *job, const char *name, double yard_ms) {
  double ms = 0;
  if (gl_time_median_ms(GL_CLOCK_GPU, run_once, job, opt->warmup, opt->reps, &ms) != GL_OK) {
    fprintf(stderr, "labbench hashing: %s, n = %zu: %s\n", name, job->n, gl_last_error());
    return -1.0;
  }
  gl_bench_row row = {"hashing", name, job->n, 0, ms, 8.0 * (double)job->n, opt->copy_gbps,
                      yard_ms, 0.0};
  lb_emit(opt, &row);
  return ms;
}

// How many answers differ from the expected ones (`expected` NULL: every answer "not found").
static long long wrong_answers(const uint32_t *d_out, const uint32_t *d_expected, size_t n) {
  uint32_t *got = (uint32_t *)malloc(n * sizeof(uint32_t));
  uint32_t *want = d_expected ? (uint32_t *)malloc(n * sizeof(uint32_t)) : NULL;
  long long wrong = -1;
  if (got != NULL && (d_expected == NULL || want != NULL) &&
      cudaMemcpy(got, d_out, n * sizeof(uint32_t), cudaMemcpyDeviceToHost) == cudaSuccess &&
      (want == NULL ||
       cudaMemcpy(want, d_expected, n * sizeof(uint32_t), cudaMemcpyDeviceToHost) ==
           cudaSuccess)) {
    wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += got[i] != (want ? want[i] : HASHING_NOT_FOUND);
  }
  free(got);
  free(want);
  return wrong;
}

typedef struct bench_buffers {
  uint32_t *keys, *values, *absent, *queries, *expected, *out;
} bench_buffers;

static int alloc_buffers(bench_buffers *b, size_t n) {
  uint32_t **all[] = {&b->keys, &b->values, &b->absent, &b->queries, &b->expected, &b->out};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    if (cudaMalloc((void **)all[i], n * sizeof(uint32_t)) != cudaSuccess) {
      fprintf(stderr, "labbench hashing: cannot allocate %zu keys\n", n);
      return -1;
    }
  }
  return 0;
}

static void free_buffers(bench_buffers *b) {
  uint32_t *all[] = {b->keys, b->values, b->absent, b->queries, b->expected, b->out};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) cudaFree(all[i]);
}

// Step 3's probes of one build and its finds (untimed calls that wait for the counts).
static void count_probes(const bench_buffers *b, size_t n, size_t capacity, probe_line *line) {
  hashing_stats in, hit, miss;
  if (hashing_build(HASHING_STEP_COUNTED, b->keys, b->values, n, capacity, &in) != GL_OK ||
      hashing_find(HASHING_STEP_COUNTED, b->queries, b->out, n, &hit) != GL_OK ||
      hashing_find(HASHING_STEP_COUNTED, b->absent, b->out, n, &miss) != GL_OK) {
    return;
  }
  line->measured = 1;
  line->insert = (double)in.probes / (double)n;
  line->hit = (double)hit.probes / (double)n;
  line->miss = (double)miss.probes / (double)n;
  line->longest_miss = miss.max_probes;
}

// One step at one load factor, on a table of `slots` slots: its build, then finds of present
// and of absent keys.
static int bench_step(const lb_options *opt, const bench_buffers *b, hashing_step step,
                      double load, size_t slots, double cas_ms, double gather_ms,
                      probe_line *probes) {
  char name[64];
  const size_t n = (size_t)(load * (double)slots);
  bench_job job = {RUN_BUILD, step, n, slots, b->keys, b->values, b->queries, b->out};
  if (hashing_yardstick_draw(b->keys, b->values, b->absent, n, 0x5eed0001ull) != GL_OK ||
      hashing_yardstick_queries(b->keys, b->queries, b->expected, n, 0x5eed0002ull) != GL_OK) {
    fprintf(stderr, "labbench hashing: drawing the keys: %s\n", gl_last_error());
    return -1;
  }
  // The limits were timed on `slots / 2` keys: scaled to this row's n, the time they would take.
  const double scale = (double)n / (double)(slots / 2);
  cas_ms *= scale;
  gather_ms *= scale;
  snprintf(name, sizeof name, "%s insert@%.2f", hashing_step_name(step), load);
  if (measure(opt, &job, name, cas_ms) < 0) return -1;
  job.what = RUN_FIND;
  snprintf(name, sizeof name, "%s hit@%.2f", hashing_step_name(step), load);
  if (measure(opt, &job, name, gather_ms) < 0) return -1;
  long long wrong = wrong_answers(b->out, b->expected, n);
  job.queries = b->absent;
  snprintf(name, sizeof name, "%s miss@%.2f", hashing_step_name(step), load);
  if (measure(opt, &job, name, gather_ms) < 0) return -1;
  long long missed = wrong_answers(b->out, NULL, n);
  if (wrong != 0 || missed != 0) {
    fprintf(stderr, "labbench hashing: %s at load %.2f: %lld wrong answers of present keys, "
                    "%lld of absent keys\n", hashing_step_name(step), load, wrong, missed);
    return -1;
  }
  if (step == HASHING_STEP_COUNTED) count_probes(b, n, slots, probes);
  return 0;
}

static int bench_size(const lb_options *opt, size_t slots) {
  if (slots < 4 || (slots & (slots - 1)) != 0 || slots > HASHING_MAX_CAPACITY) {
    fprintf(stderr, "labbench hashing: --n %zu: the table's slots, a power of two in [4, 2^31]\n",
            slots);
    return -1;
  }
  const size_t most = (size_t)(loads[N_LOADS - 1] * (double)slots), half = slots / 2;
  bench_buffers b;
  memset(&b, 0, sizeof b);
  int rc = alloc_buffers(&b, most);
  if (rc == 0 &&
      (hashing_yardstick_draw(b.keys, b.values, b.absent, half, 0x5eed0001ull) != GL_OK ||
       hashing_yardstick_queries(b.keys, b.queries, b.expected, half, 0x5eed0002ull) != GL_OK ||
       hashing_yardstick_prepare(slots) != GL_OK)) {
    fprintf(stderr, "labbench hashing: drawing the keys: %s\n", gl_last_error());
    rc = -1;
  }
  double cas_ms = -1, gather_ms = -1;
  if (rc == 0) {
    bench_job job = {RUN_CAS, HASHING_STEP_LINEAR, half, 0, b.keys, b.values, b.queries, b.out};
    cas_ms = measure(opt, &job, "cas", 0.0);
    job.what = RUN_GATHER;
    gather_ms = measure(opt, &job, "gather", 0.0);
    job.what = RUN_SORT;
    double sort_ms = measure(opt, &job, "cub-sort-pairs", cas_ms);
    job.what = RUN_SORTED_FIND;
    double sorted_ms = measure(opt, &job, "sorted-find", gather_ms);
    if (cas_ms < 0 || gather_ms < 0 || sort_ms < 0 || sorted_ms < 0 ||
        wrong_answers(b.out, b.expected, half) != 0) {
      fprintf(stderr, "labbench hashing: a yardstick failed or answered wrong\n");
      rc = -1;
    }
  }
  probe_line probes[N_LOADS];
  memset(probes, 0, sizeof probes);
  for (int s = HASHING_FIRST_STEP; rc == 0 && s <= HASHING_LAST_STEP; ++s) {
    if (!lb_step_selected(opt, s, hashing_step_name((hashing_step)s))) continue;
    for (int l = 0; l < N_LOADS; ++l) {
      if (bench_step(opt, &b, (hashing_step)s, loads[l], slots, cas_ms, gather_ms,
                     &probes[l]) != 0) {
        break;  // a step not written yet, or a failure (said above): on with the next step
      }
    }
  }
  for (int l = 0; l < N_LOADS; ++l) {
    if (!probes[l].measured) continue;
    printf("probes 3-counted load %.2f (n = %zu, %zu slots): insert %.3f, hit %.3f, miss %.3f a "
           "key; longest miss %u\n", loads[l], (size_t)(loads[l] * (double)slots), slots,
           probes[l].insert, probes[l].hit, probes[l].miss, probes[l].longest_miss);
  }
  hashing_release();
  hashing_yardstick_release();
  free_buffers(&b);
  return rc;
}

int labbench_hashing(const lb_options *opt) {
  if (opt->n_sizes == 0) return bench_size(opt, BENCH_SLOTS);
  for (int i = 0; i < opt->n_sizes; ++i) {
    if (bench_size(opt, opt->sizes[i]) != 0) return 1;
  }
  return 0;
}
