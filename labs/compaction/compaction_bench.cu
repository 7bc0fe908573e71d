// The compaction lab's benchmark: every step over sizes, keep ratios and block sizes, beside
// CUB's DeviceSelect::If and DevicePartition::If and a device-to-device copy, all in one run.
//
// Inputs are ints kept when non-zero: zero with probability 1 - ratio, else uniform in [1, 3]
// (at 75% this is the performance test's input, uniform in [0, 3]). The keep ratio is part of
// the step column, "5-single-pass@75" (the row format has no column of its own for it).
// Bytes per row are the least the operation must move: a compaction reads n ints and writes the
// kept ones (4n + 4 kept); a split or the two-buffer enqueue reads and writes n ints (8n); the
// split of pairs moves keys and values (16n); the copy reads and writes n ints (8n).
// By default two sweeps are measured, the ones the handout plots:
//   n = 2^16, 2^18, ..., 2^26 at the default block size, keep ratios 1, 25, 50, 75 and 99%;
//   block sizes 32 .. 1024 at n = 2^26 and 75% kept.
// --n and --block replace them: both given, every pair is measured (at every keep ratio); one
// given, the other stays at its default (block: the lab's default; n: 2^26).
// Step 1 (the CPU reference, with and without a scan) is timed with the wall clock, 1 warm-up
// and at most 5 runs. Every count is checked once per point, and so is the output of the
// stable steps.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compaction.h"
#include "gpulabs/check.h"
#include "gpulabs/compare.h"
#include "gpulabs/data.h"
#include "compaction_reference.h"
#include "gpulabs/status.h"
#include "gpulabs/timer.h"
#include "compaction_yardstick.h"
#include "labbench.h"

#define BENCH_TARGET_N ((size_t)1 << 26)
#define BENCH_TARGET_PERCENT 75
#define MAX_POINTS (LB_MAX_SIZES * (LB_MAX_BLOCKS + 1))

static const int default_blocks[] = {32, 64, 128, 256, 512, 1024};
static const int keep_percents[] = {1, 25, 50, 75, 99};
enum { KEEP_RATIO_COUNT = sizeof keep_percents / sizeof keep_percents[0] };

typedef enum bench_what {
  RUN_STEP,
  RUN_CUB_SELECT,
  RUN_CUB_PARTITION,
  RUN_COPY,
  RUN_CPU_LOOP,
  RUN_CPU_SCAN
} bench_what;

/* What one timed call does. Inputs rotate through `copies` buffers so that small sizes are not
 * timed out of L2. */
typedef struct bench_job {
  bench_what what;
  compaction_step step;
  int block_size;
  size_t n;
  int copies;
  int next;
  int **d_in;      /* copies of the input (also the values of the pairs) */
  int *d_out;      /* the output, the kept buffer of 4c, the keys of the pairs */
  int *d_out2;     /* the other buffer of 4c, the values of the pairs */
  int *d_counts;   /* two ints */
  void *d_scratch;
  size_t scratch_bytes;
  const int *h_in; /* for the CPU steps */
  int *h_out, *h_flags, *h_offsets;
} bench_job;

static const compaction_pred keep_nonzero = {COMPACTION_KEEP_NONZERO, 0};

static gl_status run_once(void *context) {
  bench_job *job = (bench_job *)context;
  int i = job->next;
  job->next = (job->next + 1) % job->copies;
  const int *in = job->d_in[i];
  switch (job->what) {
    case RUN_STEP:
      switch (job->step) {
        case COMPACTION_STEP_SPLIT:
          return compaction_split(keep_nonzero, in, job->d_out, job->d_counts, job->n,
                                  job->block_size, job->d_scratch, job->scratch_bytes);
        case COMPACTION_STEP_SPLIT_PAIRS:
          return compaction_split_pairs(keep_nonzero, in, in, job->d_out, job->d_out2,
                                        job->d_counts, job->n, job->block_size, job->d_scratch,
                                        job->scratch_bytes);
        case COMPACTION_STEP_COMPLEMENT:
          return compaction_enqueue_complement(keep_nonzero, in, job->d_out, job->d_out2,
                                               job->d_counts, job->n, job->block_size);
        default:
          return compaction_compact(job->step, keep_nonzero, in, job->d_out, job->d_counts,
                                    job->n, job->block_size, job->d_scratch, job->scratch_bytes);
      }
    case RUN_CUB_SELECT:
      return gl_yardstick_select_if(in, job->d_out, job->d_counts, job->n, GL_KEEP_NONZERO, 0);
    case RUN_CUB_PARTITION:
      return gl_yardstick_partition_if(in, job->d_out, job->d_counts, job->n, GL_KEEP_NONZERO, 0);
    case RUN_COPY:
      LAB_CHECK(cudaMemcpyAsync(job->d_out, in, job->n * sizeof(int), cudaMemcpyDeviceToDevice, 0));
      return GL_OK;
    case RUN_CPU_LOOP:
      gl_ref_compact_loop(job->h_in, job->n, GL_KEEP_NONZERO, 0, job->h_out);
      return GL_OK;
    case RUN_CPU_SCAN:
      gl_ref_compact_scan(job->h_in, job->n, GL_KEEP_NONZERO, 0, job->h_out, job->h_flags,
                          job->h_offsets);
      return GL_OK;
  }
  return GL_OK;
}

typedef struct bench_point {
  size_t n;
  int block_size; /* 0: the lab's default */
  int percent;    /* 0: every keep ratio */
} bench_point;

static int point_cmp(const void *a, const void *b) {
  const bench_point *p = (const bench_point *)a, *q = (const bench_point *)b;
  if (p->n != q->n) return p->n < q->n ? -1 : 1;
  return p->block_size - q->block_size;
}

/* The (n, block size, keep ratio) points to measure, sorted by n (inputs are made per n). */
static int make_points(const lb_options *opt, bench_point *points) {
  int count = 0;
  if (opt->n_sizes > 0 && opt->n_blocks > 0) {
    for (int s = 0; s < opt->n_sizes; ++s)
      for (int b = 0; b < opt->n_blocks; ++b)
        points[count++] = (bench_point){opt->sizes[s], opt->blocks[b], 0};
  } else if (opt->n_sizes > 0) {
    for (int s = 0; s < opt->n_sizes; ++s) points[count++] = (bench_point){opt->sizes[s], 0, 0};
  } else if (opt->n_blocks > 0) {
    for (int b = 0; b < opt->n_blocks; ++b)
      points[count++] = (bench_point){BENCH_TARGET_N, opt->blocks[b], 0};
  } else {
    for (int k = 16; k <= 26; k += 2) points[count++] = (bench_point){(size_t)1 << k, 0, 0};
    for (size_t b = 0; b < sizeof default_blocks / sizeof default_blocks[0]; ++b) {
      points[count++] = (bench_point){BENCH_TARGET_N, default_blocks[b], BENCH_TARGET_PERCENT};
    }
  }
  qsort(points, count, sizeof points[0], point_cmp);
  return count;
}

/* Bytes a row counts (see the top of the file). */
static double row_bytes(bench_what what, compaction_step step, size_t n, size_t kept) {
  double all = 4.0 * (double)n;
  switch (what) {
    case RUN_COPY:
    case RUN_CUB_PARTITION: return 2.0 * all;
    case RUN_STEP:
      if (step == COMPACTION_STEP_SPLIT || step == COMPACTION_STEP_COMPLEMENT) return 2.0 * all;
      if (step == COMPACTION_STEP_SPLIT_PAIRS) return 4.0 * all;
      return all + 4.0 * (double)kept;
    default: return all + 4.0 * (double)kept;
  }
}

/* Times job and emits a row; returns the median or a negative value when the call failed. */
static double measure(const lb_options *opt, bench_job *job, const char *row_name, size_t kept,
                      double yardstick_ms) {
  int warmup = opt->warmup, reps = opt->reps;
  gl_clock clock = GL_CLOCK_GPU;
  if (job->what == RUN_CPU_LOOP || job->what == RUN_CPU_SCAN) {
    clock = GL_CLOCK_HOST;
    warmup = 1;
    reps = reps < 5 ? reps : 5;
  }
  double ms = 0.0;
  job->next = 0;
  gl_clear_error();
  if (gl_time_median_ms(clock, run_once, job, warmup, reps, &ms) != GL_OK) return -1.0;
  if (clock == GL_CLOCK_GPU && cudaDeviceSynchronize() != cudaSuccess) {
    gl_fail(GL_ERR_CUDA, "the GPU reported %s", cudaGetErrorString(cudaGetLastError()));
    return -1.0;
  }
  gl_bench_row row = {"compaction", row_name, job->n, job->what == RUN_STEP ? job->block_size : 0,
                      ms, row_bytes(job->what, job->step, job->n, kept), opt->copy_gbps,
                      yardstick_ms};
  lb_emit(opt, &row);
  return ms;
}

/* Checks the last call's counts, and its output where the step keeps the input order. */
static int output_is_right(const bench_job *job, size_t kept, const int *h_compacted,
                           const int *h_split, int *host, const char *name) {
  int counts[2] = {0, 0};
  if (cudaMemcpy(counts, job->d_counts, sizeof counts, cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "labbench compaction: reading back the count of %s failed\n", name);
    cudaGetLastError();
    return 0;
  }
  if (counts[0] != (int)kept ||
      (job->what == RUN_STEP && job->step == COMPACTION_STEP_COMPLEMENT &&
       counts[1] != (int)(job->n - kept))) {
    fprintf(stderr, "labbench compaction: %s counted %d (and %d), expected %zu (and %zu)\n", name,
            counts[0], counts[1], kept, job->n - kept);
    return 0;
  }
  const int *expected = NULL;
  size_t check_n = 0;
  if (job->what == RUN_CUB_SELECT ||
      (job->what == RUN_STEP && (job->step == COMPACTION_STEP_MAP_SCAN_SCATTER ||
                                 job->step == COMPACTION_STEP_SINGLE_PASS ||
                                 job->step == COMPACTION_STEP_PREFETCH))) {
    expected = h_compacted, check_n = kept;
  } else if (job->what == RUN_STEP && (job->step == COMPACTION_STEP_SPLIT ||
                                       job->step == COMPACTION_STEP_SPLIT_PAIRS)) {
    expected = h_split, check_n = job->n;
  }
  if (expected == NULL || check_n == 0) return 1;
  if (cudaMemcpy(host, job->d_out, check_n * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "labbench compaction: reading back the output of %s failed\n", name);
    cudaGetLastError();
    return 0;
  }
  char msg[256];
  if (gl_compare_i32(expected, host, check_n, 0, msg, sizeof msg) != GL_NO_MISMATCH) {
    fprintf(stderr, "labbench compaction: %s gave a wrong answer: %s\n", name, msg);
    return 0;
  }
  return 1;
}

/* Steps whose "not implemented" message was already printed. */
static int reported_missing[COMPACTION_STEP_COUNT];

typedef struct size_buffers {
  int *d_in[64];
  int *d_out, *d_out2, *d_counts;
  void *d_scratch;
  int *h_in, *h_compacted, *h_split, *h_out, *h_flags, *h_offsets;
} size_buffers;

static void free_size_buffers(size_buffers *b) {
  for (int i = 0; i < 64; ++i) {
    if (b->d_in[i] != NULL) cudaFree(b->d_in[i]);
  }
  if (b->d_out != NULL) cudaFree(b->d_out);
  if (b->d_out2 != NULL) cudaFree(b->d_out2);
  if (b->d_counts != NULL) cudaFree(b->d_counts);
  if (b->d_scratch != NULL) cudaFree(b->d_scratch);
  free(b->h_in), free(b->h_compacted), free(b->h_split), free(b->h_out), free(b->h_flags),
      free(b->h_offsets);
  memset(b, 0, sizeof *b);
}

static size_t largest_scratch(size_t n) {
  size_t bytes = 1;
  for (int s = 0; s < COMPACTION_STEP_COUNT; ++s) {
    size_t step_bytes = compaction_scratch_bytes((compaction_step)s, n);
    if (step_bytes > bytes) bytes = step_bytes;
  }
  return bytes;
}

static int set_up(size_t n, int copies, size_t scratch_bytes, size_buffers *b) {
  size_t bytes = (n == 0 ? 1 : n) * sizeof(int);
  memset(b, 0, sizeof *b);
  b->h_in = (int *)malloc(bytes);
  b->h_compacted = (int *)malloc(bytes);
  b->h_split = (int *)malloc(bytes);
  b->h_out = (int *)malloc(bytes);
  b->h_flags = (int *)malloc(bytes);
  b->h_offsets = (int *)malloc(bytes);
  if (!b->h_in || !b->h_compacted || !b->h_split || !b->h_out || !b->h_flags || !b->h_offsets) {
    fprintf(stderr, "labbench compaction: out of host memory for n = %zu\n", n);
    return 0;
  }
  int ok = cudaMalloc(&b->d_out, bytes) == cudaSuccess &&
           cudaMalloc(&b->d_out2, bytes) == cudaSuccess &&
           cudaMalloc(&b->d_counts, 2 * sizeof(int)) == cudaSuccess &&
           cudaMalloc(&b->d_scratch, scratch_bytes) == cudaSuccess;
  for (int i = 0; ok && i < copies; ++i) ok = cudaMalloc(&b->d_in[i], bytes) == cudaSuccess;
  if (!ok) {
    fprintf(stderr, "labbench compaction: cannot set up %d copies of n = %zu on the device\n",
            copies, n);
    cudaGetLastError();
    return 0;
  }
  return 1;
}

/* Zero with probability 1 - ratio, else uniform in [1, 3]. */
static void make_input(int *values, int *flags, size_t n, int percent) {
  gl_fill_int(values, n, 1, 3, GL_DIST_UNIFORM, gl_seed_derive(0xc0a7, n));
  gl_fill_flags(flags, n, percent / 100.0, gl_seed_derive(0xf1a9 + (uint64_t)percent, n));
  for (size_t i = 0; i < n; ++i) values[i] = flags[i] ? values[i] : 0;
}

static int bench_one_size(const lb_options *opt, size_t n, const bench_point *points, int count,
                          int *done, int total) {
  int failures = 0;
  int copies = lb_rotation(opt, n * sizeof(int));
  size_t scratch_bytes = largest_scratch(n);
  size_buffers b;
  if (!set_up(n, copies, scratch_bytes, &b)) {
    free_size_buffers(&b);
    return 1;
  }
  bench_job job = {RUN_COPY, COMPACTION_STEP_MAP_SCAN_SCATTER, 0, n, copies, 0, b.d_in,
                   b.d_out, b.d_out2, b.d_counts, b.d_scratch, scratch_bytes, b.h_in,
                   b.h_out, b.h_flags, b.h_offsets};
  char what[96], row_name[48];

  snprintf(what, sizeof what, "compaction copy n=%zu", n);
  lb_progress(*done, total, what);
  make_input(b.h_in, b.h_flags, n, 50);
  for (int i = 0; i < copies; ++i) {
    if (cudaMemcpy(b.d_in[i], b.h_in, n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) {
      fprintf(stderr, "labbench compaction: uploading the input failed\n");
      free_size_buffers(&b);
      return 1;
    }
  }
  if (measure(opt, &job, "copy", 0, 0.0) < 0) {
    fprintf(stderr, "labbench compaction: the copy failed: %s\n", gl_last_error());
    ++failures;
  }

  for (int r = 0; r < KEEP_RATIO_COUNT; ++r) {
    const int percent = keep_percents[r];
    int wanted = 0;
    for (int p = 0; p < count; ++p) {
      wanted |= points[p].percent == 0 || points[p].percent == percent;
    }
    if (!wanted) continue;
    make_input(b.h_in, b.h_flags, n, percent);
    size_t kept = gl_ref_compact_loop(b.h_in, n, GL_KEEP_NONZERO, 0, b.h_compacted);
    gl_ref_split(b.h_in, n, GL_KEEP_NONZERO, 0, b.h_split);
    for (int i = 0; i < copies; ++i) {
      if (cudaMemcpy(b.d_in[i], b.h_in, n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "labbench compaction: uploading the input failed\n");
        free_size_buffers(&b);
        return failures + 1;
      }
    }

    /* The yardsticks first: every step's row carries the CUB time of the same point. */
    snprintf(what, sizeof what, "compaction cub n=%zu keep=%d%%", n, percent);
    lb_progress(*done, total, what);
    double select_ms = 0.0, partition_ms = 0.0;
    job.what = RUN_CUB_SELECT;
    snprintf(row_name, sizeof row_name, "cub-select-if@%d", percent);
    select_ms = measure(opt, &job, row_name, kept, 0.0);
    if (select_ms < 0 ||
        !output_is_right(&job, kept, b.h_compacted, b.h_split, b.h_out, row_name)) {
      fprintf(stderr, "labbench compaction: CUB select failed: %s\n", gl_last_error());
      ++failures;
      select_ms = 0.0;
    }
    job.what = RUN_CUB_PARTITION;
    snprintf(row_name, sizeof row_name, "cub-partition-if@%d", percent);
    partition_ms = measure(opt, &job, row_name, kept, 0.0);
    if (partition_ms < 0 ||
        !output_is_right(&job, kept, b.h_compacted, b.h_split, b.h_out, row_name)) {
      fprintf(stderr, "labbench compaction: CUB partition failed: %s\n", gl_last_error());
      ++failures;
      partition_ms = 0.0;
    }

    /* Step 1: the CPU, once per (n, ratio). */
    const bench_what cpu_steps[2] = {RUN_CPU_LOOP, RUN_CPU_SCAN};
    const char *cpu_names[2] = {"1a-cpu-loop", "1b-cpu-scan"};
    for (int c = 0; c < 2; ++c) {
      if (!lb_step_selected(opt, 1, cpu_names[c])) continue;
      job.what = cpu_steps[c];
      snprintf(row_name, sizeof row_name, "%s@%d", cpu_names[c], percent);
      snprintf(what, sizeof what, "compaction %s n=%zu", row_name, n);
      lb_progress(*done, total, what);
      measure(opt, &job, row_name, kept, select_ms);
    }

    job.what = RUN_STEP;
    for (int s = 0; s < COMPACTION_STEP_COUNT; ++s) {
      const compaction_step step = (compaction_step)s;
      const char *name = compaction_step_name(step);
      if (!lb_step_selected(opt, compaction_step_number(step), name)) continue;
      const int splits = step == COMPACTION_STEP_SPLIT || step == COMPACTION_STEP_SPLIT_PAIRS ||
                         step == COMPACTION_STEP_COMPLEMENT;
      for (int p = 0; p < count; ++p) {
        if (points[p].percent != 0 && points[p].percent != percent) continue;
        job.step = step;
        job.block_size = points[p].block_size; /* 0: the lab's default, shown as "-" */
        snprintf(row_name, sizeof row_name, "%s@%d", name, percent);
        snprintf(what, sizeof what, "compaction %s n=%zu block=%d", row_name, n,
                 job.block_size);
        lb_progress((*done)++, total, what);
        double ms = measure(opt, &job, row_name, kept, splits ? partition_ms : select_ms);
        if (ms < 0) {
          if (strstr(gl_last_error(), "not implemented") != NULL) {
            if (!reported_missing[s]) {
              fprintf(stderr, "labbench compaction: %s skipped: %s\n", name, gl_last_error());
              reported_missing[s] = 1;
            }
          } else {
            fprintf(stderr, "labbench compaction: %s failed: %s\n", name, gl_last_error());
            ++failures;
          }
        } else if (!output_is_right(&job, kept, b.h_compacted, b.h_split, b.h_out, row_name)) {
          ++failures;
        }
      }
    }
  }
  free_size_buffers(&b);
  return failures;
}

extern "C" int labbench_compaction(const lb_options *opt) {
  static bench_point points[MAX_POINTS];
  int count = make_points(opt, points);
  int total = 0;
  for (int p = 0; p < count; ++p) {
    total += (points[p].percent == 0 ? KEEP_RATIO_COUNT : 1) * COMPACTION_STEP_COUNT;
  }
  int failures = 0, done = 0;
  for (int first = 0; first < count;) {
    int last = first;
    while (last < count && points[last].n == points[first].n) ++last;
    if (points[first].n > COMPACTION_MAX_N) {
      fprintf(stderr, "labbench compaction: n = %zu is beyond COMPACTION_MAX_N; skipped\n",
              points[first].n);
    } else {
      failures += bench_one_size(opt, points[first].n, points + first, last - first, &done, total);
    }
    first = last;
  }
  gl_yardstick_compaction_release();
  return failures == 0 ? 0 : 1;
}
