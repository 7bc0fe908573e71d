// The radix_sort lab's benchmark: every step (keys and key-value pairs) over a sweep of sizes,
// beside CUB's DeviceRadixSort::SortKeys and SortPairs in the same run.
//
// Rows count 8 bytes per key (one read, one written) and 16 per pair, as the CUB anchor does:
// the least a sort must move, so GB/s says how far a sort is from the copy, and the last column
// is CUB's time over the row's (1.00 = as fast as CUB; pairs rows against CUB's pairs).
// Default sizes: 2^16, 2^18, ..., 2^26, uniform keys over the full 32-bit range. Step 2 (32
// passes) and the CPU reference (step 1, wall clock, 1 warm-up and at most 5 runs) are slow:
// by default they stop at 2^22; --n measures them at every size given.
// Every GPU step's output is checked against CUB's at each size.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpulabs/check.h"
#include "gpulabs/compare.h"
#include "gpulabs/data.h"
#include "radix_sort_reference.h"
#include "gpulabs/status.h"
#include "gpulabs/timer.h"
#include "radix_sort_yardstick.h"
#include "labbench.h"
#include "radix_sort.h"

#define SLOW_STEP_MAX_N ((size_t)1 << 22)
#define MAX_COPIES 64

// The rows of one size: the CPU, CUB, and each step at its digit sizes.
typedef enum bench_what { RUN_CPU, RUN_CUB, RUN_STEP } bench_what;

typedef struct bench_variant {
  radix_sort_step step;
  int digit_bits;
  const char *keys_name;
  const char *pairs_name;
} bench_variant;

static const bench_variant variants[] = {
    {RADIX_STEP_SPLIT, 1, "2-split", "2-split-pairs"},
    {RADIX_STEP_DIGITS, 4, "3-digits-4bit", "3-digits-4bit-pairs"},
    {RADIX_STEP_DIGITS, 8, "3-digits-8bit", "3-digits-8bit-pairs"},
    {RADIX_STEP_ONESWEEP, 8, "4-onesweep", "4-onesweep-pairs"},
    {RADIX_STEP_ONESWEEP_TUNED, 8, "5-onesweep-tuned", "5-onesweep-tuned-pairs"},
};
#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]))

// What one timed call does. Inputs and outputs rotate through `copies` buffers so that small
// sizes are not timed out of L2.
typedef struct bench_job {
  bench_what what;
  const bench_variant *variant;
  int pairs;
  size_t n;
  int copies;
  int next;
  uint32_t *keys_in[MAX_COPIES], *keys_out[MAX_COPIES];
  uint32_t *values_in[MAX_COPIES], *values_out[MAX_COPIES];
  const uint32_t *h_keys;
  uint32_t *h_sorted;
} bench_job;

static gl_status run_once(void *context) {
  bench_job *job = (bench_job *)context;
  int i = job->next;
  job->next = (job->next + 1) % job->copies;
  switch (job->what) {
    case RUN_CPU: return gl_ref_radix_sort_keys(job->h_keys, job->h_sorted, job->n, 0, 32);
    case RUN_CUB:
      return job->pairs ? gl_yardstick_radix_sort_pairs(job->keys_in[i], job->keys_out[i],
                                                        job->values_in[i], job->values_out[i],
                                                        job->n, 0, 32)
                        : gl_yardstick_radix_sort_keys(job->keys_in[i], job->keys_out[i], job->n,
                                                       0, 32);
    case RUN_STEP: {
      radix_sort_options options = {job->variant->digit_bits, 0, 32};
      return job->pairs ? radix_sort_pairs(job->variant->step, job->keys_in[i], job->keys_out[i],
                                           job->values_in[i], job->values_out[i], job->n,
                                           &options)
                        : radix_sort_keys(job->variant->step, job->keys_in[i], job->keys_out[i],
                                          job->n, &options);
    }
  }
  return GL_OK;
}

// Times the job and emits a row; returns the median, or a negative value when a call failed.
static double measure(const lb_options *opt, bench_job *job, const char *name,
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
  gl_bench_row row = {"radix_sort", name, job->n, 0, ms, (job->pairs ? 16.0 : 8.0) * (double)job->n,
                      opt->copy_gbps, yardstick_ms};
  // Its limit: every pass at its digit size reads and writes the keys (and values) once, and
  // one read of the keys counts the digits (CUB sorts 32-bit keys in 4 passes of 8 bits).
  if (job->what != RUN_CPU) {
    int bits = job->what == RUN_STEP ? job->variant->digit_bits : 8;
    row.moved_bytes = (32 / bits) * row.bytes + 4.0 * (double)job->n;
  }
  lb_emit(opt, &row);
  return ms;
}

// Downloads the output of the last timed call.
static int download_last(const bench_job *job, uint32_t *keys, uint32_t *values) {
  int last = (job->next + job->copies - 1) % job->copies;
  size_t bytes = job->n * sizeof(uint32_t);
  if (cudaMemcpy(keys, job->keys_out[last], bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 0;
  if (job->pairs &&
      cudaMemcpy(values, job->values_out[last], bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    return 0;
  }
  return 1;
}

// Compares the last output with CUB's (both sorts are stable: the outputs must be equal).
static int output_is_right(const bench_job *job, const uint32_t *cub_keys,
                           const uint32_t *cub_values, uint32_t *keys, uint32_t *values,
                           const char *name) {
  if (!download_last(job, keys, values)) {
    fprintf(stderr, "labbench radix_sort: reading back the output of %s failed\n", name);
    cudaGetLastError();
    return 0;
  }
  char msg[256];
  if (gl_compare_u32(cub_keys, keys, job->n, 0, msg, sizeof msg) != GL_NO_MISMATCH ||
      (job->pairs &&
       gl_compare_u32(cub_values, values, job->n, 0, msg, sizeof msg) != GL_NO_MISMATCH)) {
    fprintf(stderr, "labbench radix_sort: %s (n = %zu) differs from CUB: %s\n", name, job->n, msg);
    return 0;
  }
  return 1;
}

static void free_job(bench_job *job) {
  for (int i = 0; i < MAX_COPIES; ++i) {
    if (job->keys_in[i]) cudaFree(job->keys_in[i]);
    if (job->keys_out[i]) cudaFree(job->keys_out[i]);
    if (job->values_in[i]) cudaFree(job->values_in[i]);
    if (job->values_out[i]) cudaFree(job->values_out[i]);
    job->keys_in[i] = job->keys_out[i] = job->values_in[i] = job->values_out[i] = NULL;
  }
}

// Steps whose "not implemented" message was already printed.
static int reported_missing[RADIX_LAST_STEP + 1];

// Measures the CPU (keys only), CUB and every selected step at one size, for keys or pairs.
static int bench_one(const lb_options *opt, bench_job *job, int pairs, int *done, int total,
                     uint32_t *h_cub_keys, uint32_t *h_cub_values, uint32_t *h_keys,
                     uint32_t *h_values) {
  int failures = 0;
  size_t n = job->n;
  char what[96];
  job->pairs = pairs;
  job->what = RUN_CUB;
  snprintf(what, sizeof what, "radix_sort cub-%s n=%zu", pairs ? "pairs" : "keys", n);
  lb_progress(*done, total, what);
  double cub_ms = measure(opt, job, pairs ? "cub-pairs" : "cub-keys", 0.0);
  if (cub_ms < 0 || !download_last(job, h_cub_keys, h_cub_values)) {
    fprintf(stderr, "labbench radix_sort: CUB failed at n = %zu: %s\n", n, gl_last_error());
    return 1;
  }
  int explicit_sizes = opt->n_sizes > 0;
  if (!pairs && lb_step_selected(opt, 1, "1-cpu") && (explicit_sizes || n <= SLOW_STEP_MAX_N)) {
    job->what = RUN_CPU;
    snprintf(what, sizeof what, "radix_sort 1-cpu n=%zu", n);
    lb_progress(*done, total, what);
    if (measure(opt, job, "1-cpu", cub_ms) < 0) {
      fprintf(stderr, "labbench radix_sort: the CPU reference failed: %s\n", gl_last_error());
      ++failures;
    }
  }
  job->what = RUN_STEP;
  for (int v = 0; v < VARIANT_COUNT; ++v) {
    const bench_variant *variant = &variants[v];
    if (!lb_step_selected(opt, variant->step, radix_sort_step_name(variant->step))) continue;
    if (variant->step == RADIX_STEP_SPLIT && !explicit_sizes && n > SLOW_STEP_MAX_N) continue;
    const char *name = pairs ? variant->pairs_name : variant->keys_name;
    snprintf(what, sizeof what, "radix_sort %s n=%zu", name, n);
    lb_progress(*done, total, what);
    ++*done;
    job->variant = variant;
    gl_clear_error();
    if (measure(opt, job, name, cub_ms) < 0) {
      // A step not written yet is reported once and skipped; any other failure counts.
      int not_written = strstr(gl_last_error(), "not implemented") != NULL;
      if (!not_written || !reported_missing[variant->step]) {
        lb_progress(0, 0, NULL);
        fprintf(stderr, "labbench radix_sort: %s (n = %zu): %s\n", name, n, gl_last_error());
      }
      if (not_written) {
        reported_missing[variant->step] = 1;
      } else {
        ++failures;
      }
      continue;
    }
    if (!output_is_right(job, h_cub_keys, h_cub_values, h_keys, h_values, name)) ++failures;
  }
  return failures;
}

static int bench_one_size(const lb_options *opt, size_t n, int *done, int total) {
  bench_job *job = (bench_job *)calloc(1, sizeof *job);
  size_t bytes = n * sizeof(uint32_t);
  uint32_t *h_keys = (uint32_t *)malloc(bytes + 4), *h_values = (uint32_t *)malloc(bytes + 4);
  uint32_t *h_sorted = (uint32_t *)malloc(bytes + 4), *h_cub_keys = (uint32_t *)malloc(bytes + 4);
  uint32_t *h_cub_values = (uint32_t *)malloc(bytes + 4);
  int failures = 0;
  if (job == NULL || h_keys == NULL || h_values == NULL || h_sorted == NULL ||
      h_cub_keys == NULL || h_cub_values == NULL) {
    fprintf(stderr, "labbench radix_sort: out of host memory for n = %zu\n", n);
    failures = 1;
    goto done;
  }
  gl_fill_u32(h_keys, n, GL_DIST_UNIFORM, gl_seed_derive(0x4ad1, n));
  for (size_t i = 0; i < n; ++i) h_values[i] = (uint32_t)i;
  job->n = n;
  job->h_keys = h_keys;
  job->h_sorted = h_sorted;
  // Room for the inputs of keys and values, rotated so that small sizes miss in L2.
  job->copies = lb_rotation(opt, 2 * bytes);
  if (job->copies > MAX_COPIES) job->copies = MAX_COPIES;
  for (int i = 0; i < job->copies; ++i) {
    if (cudaMalloc(&job->keys_in[i], bytes + 4) != cudaSuccess ||
        cudaMalloc(&job->keys_out[i], bytes + 4) != cudaSuccess ||
        cudaMalloc(&job->values_in[i], bytes + 4) != cudaSuccess ||
        cudaMalloc(&job->values_out[i], bytes + 4) != cudaSuccess ||
        cudaMemcpy(job->keys_in[i], h_keys, bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(job->values_in[i], h_values, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
      fprintf(stderr, "labbench radix_sort: cannot set up %d copies of n = %zu on the device\n",
              job->copies, n);
      cudaGetLastError();
      failures = 1;
      goto done;
    }
  }
  failures += bench_one(opt, job, 0, done, total, h_cub_keys, h_cub_values, h_sorted, h_values);
  failures += bench_one(opt, job, 1, done, total, h_cub_keys, h_cub_values, h_sorted, h_values);
done:
  lb_progress(0, 0, NULL);
  if (job != NULL) free_job(job);
  free(job);
  free(h_keys), free(h_values), free(h_sorted), free(h_cub_keys), free(h_cub_values);
  return failures;
}

extern "C" int labbench_radix_sort(const lb_options *opt) {
  size_t sizes[LB_MAX_SIZES];
  int size_count = 0;
  if (opt->n_sizes > 0) {
    for (int s = 0; s < opt->n_sizes; ++s) sizes[size_count++] = opt->sizes[s];
  } else {
    for (int k = 16; k <= 26; k += 2) sizes[size_count++] = (size_t)1 << k;
  }
  if (opt->n_blocks > 0) {
    fprintf(stderr, "labbench radix_sort: the steps choose their own block sizes; --block is ignored\n");
  }
  int total = 0;
  for (int s = 0; s < size_count; ++s) {
    for (int v = 0; v < VARIANT_COUNT; ++v) {
      if (!lb_step_selected(opt, variants[v].step, radix_sort_step_name(variants[v].step))) continue;
      if (variants[v].step == RADIX_STEP_SPLIT && opt->n_sizes == 0 && sizes[s] > SLOW_STEP_MAX_N) continue;
      total += 2;  // keys and pairs
    }
  }
  int failures = 0, done = 0;
  for (int s = 0; s < size_count; ++s) {
    if (sizes[s] == 0 || sizes[s] > RADIX_MAX_N) {
      fprintf(stderr, "labbench radix_sort: n = %zu is outside [1, RADIX_MAX_N]: skipped\n", sizes[s]);
      continue;
    }
    failures += bench_one_size(opt, sizes[s], &done, total);
  }
  radix_sort_release();
  gl_yardstick_radix_sort_release();
  return failures == 0 ? 0 : 1;
}
