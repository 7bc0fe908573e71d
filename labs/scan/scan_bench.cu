// The scan lab's benchmark: every step over a sweep of sizes and block sizes, beside CUB's
// DeviceScan::ExclusiveSum and a device-to-device copy of the same array, all in one run.
//
// Rows count 8 bytes per element (one int read, one written): the least any scan must move,
// so GB/s compares directly with the copy. By default two sweeps are measured, the ones the
// handout plots (bench/plot.py draws the block sweep at the largest n, so both end at 2^26):
//   array sizes 2^10, 2^12, ..., 2^26 at each step's default block size;
//   block sizes 32 .. 1024 at n = 2^26 (the size of the performance target).
// --n and --block replace them: both given, every pair is measured; one given, the other
// stays at its default (block: the step's default; n: 2^26).
// The CPU reference (step 1) is timed with the wall clock, 1 warm-up and at most 5 runs.
// Every step's answer is checked against the CPU reference once per point.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpulabs/check.h"
#include "gpulabs/compare.h"
#include "gpulabs/data.h"
#include "scan_reference.h"
#include "gpulabs/status.h"
#include "gpulabs/timer.h"
#include "scan_yardstick.h"
#include "labbench.h"
#include "scan.h"

#define BENCH_TARGET_N ((size_t)1 << 26)
#define MAX_POINTS (LB_MAX_SIZES * (LB_MAX_BLOCKS + 1))

static const int default_blocks[] = {32, 64, 128, 256, 512, 1024};

typedef enum bench_what { RUN_STEP, RUN_CUB, RUN_COPY, RUN_CPU } bench_what;

/* What one timed call does. Inputs and outputs rotate through `copies` buffers so that
 * small sizes are not timed out of L2. */
typedef struct bench_job {
  bench_what what;
  scan_step step;
  int block_size;
  size_t n;
  int copies;
  int next;
  int **d_in;
  int **d_out;
  const int *h_in;
  int *h_out;
} bench_job;

static gl_status run_once(void *context) {
  bench_job *job = (bench_job *)context;
  int i = job->next;
  job->next = (job->next + 1) % job->copies;
  switch (job->what) {
    case RUN_STEP:
      return scan_run(job->step, SCAN_EXCLUSIVE, job->d_in[i], job->d_out[i], job->n,
                      job->block_size);
    case RUN_CUB: return gl_yardstick_scan_exclusive(job->d_in[i], job->d_out[i], job->n);
    case RUN_COPY:
      LAB_CHECK(cudaMemcpyAsync(job->d_out[i], job->d_in[i], job->n * sizeof(int),
                                cudaMemcpyDeviceToDevice, 0));
      return GL_OK;
    case RUN_CPU: gl_ref_scan_exclusive(job->h_in, job->h_out, job->n); return GL_OK;
  }
  return GL_OK;
}

typedef struct bench_point {
  size_t n;
  int block_size; /* 0: the step's default */
} bench_point;

static int point_cmp(const void *a, const void *b) {
  const bench_point *p = (const bench_point *)a, *q = (const bench_point *)b;
  if (p->n != q->n) return p->n < q->n ? -1 : 1;
  return p->block_size - q->block_size;
}

/* The (n, block size) pairs to measure, sorted by n (each n's inputs are made once). */
static int make_points(const lb_options *opt, bench_point *points) {
  int count = 0;
  if (opt->n_sizes > 0 && opt->n_blocks > 0) {
    for (int s = 0; s < opt->n_sizes; ++s)
      for (int b = 0; b < opt->n_blocks; ++b) points[count++] = (bench_point){opt->sizes[s], opt->blocks[b]};
  } else if (opt->n_sizes > 0) {
    for (int s = 0; s < opt->n_sizes; ++s) points[count++] = (bench_point){opt->sizes[s], 0};
  } else if (opt->n_blocks > 0) {
    for (int b = 0; b < opt->n_blocks; ++b) points[count++] = (bench_point){BENCH_TARGET_N, opt->blocks[b]};
  } else {
    for (int k = 10; k <= 26; k += 2) points[count++] = (bench_point){(size_t)1 << k, 0};
    for (size_t b = 0; b < sizeof default_blocks / sizeof default_blocks[0]; ++b) {
      points[count++] = (bench_point){BENCH_TARGET_N, default_blocks[b]};
    }
  }
  qsort(points, count, sizeof points[0], point_cmp);
  return count;
}

static void free_buffers(int **buffers, int count) {
  for (int i = 0; i < count; ++i) {
    if (buffers[i] != NULL) cudaFree(buffers[i]);
    buffers[i] = NULL;
  }
}

/* Times job and emits a row; returns the median or a negative value when the call failed. */
static double measure(const lb_options *opt, bench_job *job, const char *step_name, int block_size,
                      double yardstick_ms) {
  int warmup = opt->warmup, reps = opt->reps;
  gl_clock clock = GL_CLOCK_GPU;
  if (job->what == RUN_CPU) {
    clock = GL_CLOCK_HOST;
    warmup = 1;
    reps = reps < 5 ? reps : 5;
  }
  double ms = 0.0;
  job->next = 0;
  if (gl_time_median_ms(clock, run_once, job, warmup, reps, &ms) != GL_OK) return -1.0;
  gl_bench_row row = {"scan", step_name, job->n, block_size, ms, 8.0 * (double)job->n,
                      opt->copy_gbps, yardstick_ms};
  lb_emit(opt, &row);
  return ms;
}

/* Compares the output of the last timed call with the CPU reference. */
static int output_is_right(const bench_job *job, const int *expected, int *host, const char *name) {
  int last = (job->next + job->copies - 1) % job->copies;
  if (cudaMemcpy(host, job->d_out[last], job->n * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "labbench scan: reading back the output of %s failed\n", name);
    return 0;
  }
  char msg[256];
  if (gl_compare_i32(expected, host, job->n, 0, msg, sizeof msg) != GL_NO_MISMATCH) {
    fprintf(stderr, "labbench scan: %s gave a wrong answer: %s\n", name, msg);
    return 0;
  }
  return 1;
}

/* Steps whose "not implemented" message was already printed. */
static int reported_missing[SCAN_LAST_STEP + 1];

static int bench_one_size(const lb_options *opt, size_t n, const bench_point *points, int count,
                          int *done, int total) {
  int failures = 0;
  int copies = lb_rotation(opt, n * sizeof(int));
  int *d_in[64] = {NULL}, *d_out[64] = {NULL};
  int *h_in = (int *)malloc(n * sizeof(int));
  int *h_expected = (int *)malloc(n * sizeof(int));
  int *h_out = (int *)malloc(n * sizeof(int));
  if (h_in == NULL || h_expected == NULL || h_out == NULL) {
    fprintf(stderr, "labbench scan: out of host memory for n = %zu\n", n);
    free(h_in), free(h_expected), free(h_out);
    return 1;
  }
  gl_fill_int(h_in, n, -1000, 1000, GL_DIST_UNIFORM, gl_seed_derive(0x5ca9, n));
  gl_ref_scan_exclusive(h_in, h_expected, n);
  for (int i = 0; i < copies; ++i) {
    if (cudaMalloc(&d_in[i], n * sizeof(int)) != cudaSuccess ||
        cudaMalloc(&d_out[i], n * sizeof(int)) != cudaSuccess ||
        cudaMemcpy(d_in[i], h_in, n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) {
      fprintf(stderr, "labbench scan: cannot set up %d copies of n = %zu on the device\n", copies, n);
      cudaGetLastError();
      free_buffers(d_in, copies), free_buffers(d_out, copies);
      free(h_in), free(h_expected), free(h_out);
      return 1;
    }
  }
  bench_job job = {RUN_COPY, SCAN_STEP_NAIVE, 0, n, copies, 0, d_in, d_out, h_in, h_out};
  char what[96];

  snprintf(what, sizeof what, "scan copy and cub n=%zu", n);
  lb_progress(*done, total, what);
  if (measure(opt, &job, "copy", 0, 0.0) < 0) {
    fprintf(stderr, "labbench scan: the copy failed: %s\n", gl_last_error());
    ++failures;
  }
  job.what = RUN_CUB;
  double cub_ms = measure(opt, &job, "cub", 0, 0.0);
  if (cub_ms < 0) {
    fprintf(stderr, "labbench scan: CUB failed: %s\n", gl_last_error());
    ++failures;
    cub_ms = 0.0;
  } else if (!output_is_right(&job, h_expected, h_out, "cub")) {
    ++failures;
  }
  if (lb_step_selected(opt, 1, "1-cpu")) {
    job.what = RUN_CPU;
    snprintf(what, sizeof what, "scan 1-cpu n=%zu", n);
    lb_progress(*done, total, what);
    measure(opt, &job, "1-cpu", 0, cub_ms);
  }

  job.what = RUN_STEP;
  for (int s = SCAN_FIRST_STEP; s <= SCAN_LAST_STEP; ++s) {
    const char *name = scan_step_name((scan_step)s);
    if (!lb_step_selected(opt, s, name)) continue;
    for (int p = 0; p < count; ++p) {
      int block = points[p].block_size != 0 ? points[p].block_size
                                            : scan_default_block_size((scan_step)s);
      /* The default block size may also be in the list: measure it once. */
      int seen = 0;
      for (int q = 0; q < p; ++q) {
        int other = points[q].block_size != 0 ? points[q].block_size
                                              : scan_default_block_size((scan_step)s);
        seen |= other == block;
      }
      if (seen) continue;
      snprintf(what, sizeof what, "scan %s n=%zu block=%d", name, n, block);
      lb_progress(*done, total, what);
      ++*done;
      job.step = (scan_step)s;
      job.block_size = block;
      gl_clear_error();
      if (measure(opt, &job, name, block, cub_ms) < 0) {
        /* A step not written yet is reported once and skipped; any other failure counts. */
        int not_written = strstr(gl_last_error(), "not implemented") != NULL;
        if (!not_written || !reported_missing[s]) {
          lb_progress(0, 0, NULL);
          fprintf(stderr, "labbench scan: %s (block %d, n = %zu): %s\n", name, block, n,
                  gl_last_error());
        }
        if (not_written) {
          reported_missing[s] = 1;
        } else {
          ++failures;
        }
        continue;
      }
      if (!output_is_right(&job, h_expected, h_out, name)) ++failures;
    }
  }
  lb_progress(0, 0, NULL);
  free_buffers(d_in, copies), free_buffers(d_out, copies);
  free(h_in), free(h_expected), free(h_out);
  return failures;
}

extern "C" int labbench_scan(const lb_options *opt) {
  bench_point points[MAX_POINTS];
  int count = make_points(opt, points);
  int total = 0;
  for (int s = SCAN_FIRST_STEP; s <= SCAN_LAST_STEP; ++s) {
    if (lb_step_selected(opt, s, scan_step_name((scan_step)s))) total += count;
  }
  int failures = 0, done = 0;
  for (int first = 0; first < count;) {
    int last = first;
    while (last < count && points[last].n == points[first].n) ++last;
    failures += bench_one_size(opt, points[first].n, points + first, last - first, &done, total);
    first = last;
  }
  scan_release_scratch();
  gl_yardstick_scan_release();
  return failures == 0 ? 0 : 1;
}
