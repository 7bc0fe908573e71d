// labbench reduction: every step of the ladder beside CUB's DeviceReduce and the copy bandwidth,
// all measured in this run: the modern version of the K40m table in the handout.
//
// Default run (no --n, no --block):
//   n = 2^26 ints, every block size (32 ... 1024), every step, CUB          (the ladder table)
//   n = 2^16, 2^20, 2^22, 2^24, 2^28, block size 256, every step, CUB         (the size sweep)
//   n = 2^26, the final kernel's other operators and types, beside CUB's
// With --n and/or --block: every step for each n and block size given (defaults 2^26 and 256).
// Bytes are counted as the input read once (4n); "%copy" compares that rate with the measured
// device-to-device copy (bytes read + written per second). Inputs smaller than twice the L2 are
// rotated through several copies, so no timed call finds its input in the cache.
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labbench.h"

extern "C" {
#include "gpulabs/data.h"
#include "reduction_reference.h"
#include "gpulabs/timer.h"
#include "reduction_yardstick.h"
#include "reduction.h"
}

namespace {

// Copies of one input (so the timed calls can rotate through them) and one result slot.
struct Input {
  size_t n;
  int copies;
  int next;
  int *d_ints;     // copies * n ints
  float *d_floats; // copies * n floats, only when the float rows are run
  int64_t *d_result;
  int *d_result32;
  float *d_fresult;
  int64_t expected_sum;
  int expected_min, expected_max;
};

void free_input(Input *in) {
  cudaFree(in->d_ints);
  cudaFree(in->d_floats);
  cudaFree(in->d_result);
  cudaFree(in->d_result32);
  cudaFree(in->d_fresult);
  memset(in, 0, sizeof *in);
}

// Fresh random ints (full range) and, if asked, floats in [-1, 1), each copied `copies` times.
int make_input(const lb_options *opt, size_t n, int with_floats, Input *in) {
  memset(in, 0, sizeof *in);
  in->n = n;
  in->copies = lb_rotation(opt, n * sizeof(int));
  size_t bytes = n * sizeof(int) * (size_t)in->copies;
  int *host = (int *)malloc(n * sizeof(int) + 1);
  if (host == NULL) {
    fprintf(stderr, "labbench reduction: out of host memory for n = %zu\n", n);
    return 1;
  }
  gl_fill_int(host, n, INT_MIN, INT_MAX, GL_DIST_UNIFORM, gl_seed_derive(0x5eed, n));
  in->expected_sum = reduce_ref_sum_int(host, n);
  in->expected_min = reduce_ref_min_int(host, n);
  in->expected_max = reduce_ref_max_int(host, n);
  cudaError_t err = cudaMalloc((void **)&in->d_ints, bytes);
  if (err == cudaSuccess) err = cudaMalloc((void **)&in->d_result, sizeof(int64_t));
  if (err == cudaSuccess) err = cudaMalloc((void **)&in->d_result32, sizeof(int));
  if (err == cudaSuccess) err = cudaMalloc((void **)&in->d_fresult, sizeof(float));
  for (int c = 0; c < in->copies && err == cudaSuccess; ++c) {
    err = cudaMemcpy(in->d_ints + (size_t)c * n, host, n * sizeof(int), cudaMemcpyHostToDevice);
  }
  if (err == cudaSuccess && with_floats) {
    float *fhost = (float *)host; // same size; the ints are no longer needed
    gl_fill_float(fhost, n, -1.0f, 1.0f, GL_DIST_UNIFORM, gl_seed_derive(0xf10a7, n));
    err = cudaMalloc((void **)&in->d_floats, bytes);
    for (int c = 0; c < in->copies && err == cudaSuccess; ++c) {
      err = cudaMemcpy(in->d_floats + (size_t)c * n, fhost, n * sizeof(float),
                       cudaMemcpyHostToDevice);
    }
  }
  free(host);
  if (err != cudaSuccess) {
    fprintf(stderr, "labbench reduction: preparing n = %zu (%d copies) failed: %s\n", n,
            in->copies, cudaGetErrorString(err));
    free_input(in);
    return 1;
  }
  return 0;
}

const int *next_ints(Input *in) {
  const int *p = in->d_ints + (size_t)in->next * in->n;
  in->next = (in->next + 1) % in->copies;
  return p;
}

const float *next_floats(Input *in) {
  const float *p = in->d_floats + (size_t)in->next * in->n;
  in->next = (in->next + 1) % in->copies;
  return p;
}

// What one timed call runs.
enum job_kind { JOB_STEP, JOB_FINAL_INT, JOB_FINAL_FLOAT, JOB_CUB_SUM, JOB_CUB_SUM32,
                JOB_CUB_MIN_INT, JOB_CUB_MAX_INT, JOB_CUB_SUM_FLOAT, JOB_CUB_MIN_FLOAT,
                JOB_CUB_MAX_FLOAT };

struct Job {
  job_kind kind;
  reduce_step step;
  reduce_op op;
  int block;
  Input *in;
};

gl_status run_job(void *context) {
  Job *job = (Job *)context;
  Input *in = job->in;
  switch (job->kind) {
    case JOB_STEP:
      return reduce_sum_int(job->step, next_ints(in), in->n, job->block, in->d_result);
    case JOB_FINAL_INT: return reduce_int(job->op, next_ints(in), in->n, job->block, in->d_result);
    case JOB_FINAL_FLOAT:
      return reduce_float(job->op, next_floats(in), in->n, job->block, in->d_fresult);
    case JOB_CUB_SUM: return gl_yardstick_reduce_sum_int(next_ints(in), in->n, in->d_result);
    case JOB_CUB_SUM32: return gl_yardstick_reduce_sum_int32(next_ints(in), in->n, in->d_result32);
    case JOB_CUB_MIN_INT: return gl_yardstick_reduce_min_int(next_ints(in), in->n, in->d_result32);
    case JOB_CUB_MAX_INT: return gl_yardstick_reduce_max_int(next_ints(in), in->n, in->d_result32);
    case JOB_CUB_SUM_FLOAT:
      return gl_yardstick_reduce_sum_float(next_floats(in), in->n, in->d_fresult);
    case JOB_CUB_MIN_FLOAT:
      return gl_yardstick_reduce_min_float(next_floats(in), in->n, in->d_fresult);
    case JOB_CUB_MAX_FLOAT:
      return gl_yardstick_reduce_max_float(next_floats(in), in->n, in->d_fresult);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "labbench reduction: unknown job %d", (int)job->kind);
}

// Checks an int result of the job's input before it is timed (a wrong kernel gets no time).
int int_result_is(Input *in, int64_t expected, const char *what) {
  int64_t got = 0;
  if (cudaMemcpy(&got, in->d_result, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "labbench reduction: %s: reading the result failed\n", what);
    return 0;
  }
  if (got != expected) {
    fprintf(stderr, "labbench reduction: %s, n = %zu: WRONG result %lld, expected %lld\n", what,
            in->n, (long long)got, (long long)expected);
    return 0;
  }
  return 1;
}

// Times one job; returns 0 and sets *ms, or 1 after printing why it could not.
int time_job(const lb_options *opt, Job *job, const char *what, double *ms) {
  gl_clear_error();
  gl_status status = run_job(job);
  if (status == GL_OK && cudaDeviceSynchronize() != cudaSuccess) {
    status = gl_fail(GL_ERR_CUDA, "the kernel failed: %s", cudaGetErrorString(cudaGetLastError()));
  }
  if (status != GL_OK) {
    fprintf(stderr, "labbench reduction: %s, n = %zu: %s\n", what, job->in->n, gl_last_error());
    return 1;
  }
  if (job->kind == JOB_STEP || (job->kind == JOB_FINAL_INT && job->op == REDUCE_SUM)) {
    if (!int_result_is(job->in, job->in->expected_sum, what)) return 1;
  } else if (job->kind == JOB_FINAL_INT) {
    int64_t expected = job->op == REDUCE_MIN ? job->in->expected_min : job->in->expected_max;
    if (!int_result_is(job->in, expected, what)) return 1;
  }
  status = gl_time_median_ms(GL_CLOCK_GPU, run_job, job, opt->warmup, opt->reps, ms);
  if (status != GL_OK) {
    fprintf(stderr, "labbench reduction: timing %s failed: %s\n", what, gl_last_error());
    return 1;
  }
  return 0;
}

gl_bench_row make_row(const lb_options *opt, const char *step, size_t n, int block, double ms,
                      double cub_ms) {
  gl_bench_row row;
  row.lab = "reduction";
  row.step = step;
  row.n = n;
  row.block_size = block;
  row.ms = ms;
  row.bytes = (double)n * sizeof(int);
  row.copy_gbps = opt->copy_gbps;
  row.yardstick_ms = cub_ms;
  return row;
}

// Every selected step at size n for each block size, after CUB's rows for that n.
int ladder_rows(const lb_options *opt, size_t n, const int *blocks, int n_blocks, int *done,
                int total) {
  Input in;
  if (make_input(opt, n, 0, &in) != 0) return 1;
  int failures = 0;
  double cub_ms = 0, ms = 0;
  Job cub = {JOB_CUB_SUM, REDUCE_STEP_WARP_SHUFFLE, REDUCE_SUM, 0, &in};
  lb_progress((*done)++, total, "reduction cub");
  if (time_job(opt, &cub, "CUB DeviceReduce::Sum", &cub_ms) == 0) {
    if (!int_result_is(&in, in.expected_sum, "CUB DeviceReduce::Sum")) ++failures;
    gl_bench_row row = make_row(opt, "cub", n, 0, cub_ms, cub_ms);
    lb_emit(opt, &row);
  } else {
    ++failures;
  }
  Job cub32 = {JOB_CUB_SUM32, REDUCE_STEP_WARP_SHUFFLE, REDUCE_SUM, 0, &in};
  if (time_job(opt, &cub32, "CUB DeviceReduce::Sum int32", &ms) == 0) {
    gl_bench_row row = make_row(opt, "cub-int32", n, 0, ms, cub_ms);
    lb_emit(opt, &row);
  }
  for (int b = 0; b < n_blocks; ++b) {
    for (int s = REDUCE_FIRST_STEP; s <= REDUCE_LAST_STEP; ++s) {
      reduce_step step = (reduce_step)s;
      if (!lb_step_selected(opt, s, reduce_step_name(step))) continue;
      char what[96], progress[128];
      snprintf(what, sizeof what, "step %s, block_size %d", reduce_step_name(step), blocks[b]);
      snprintf(progress, sizeof progress, "reduction %s n=%zu", what, n);
      lb_progress((*done)++, total, progress);
      Job job = {JOB_STEP, step, REDUCE_SUM, blocks[b], &in};
      if (time_job(opt, &job, what, &ms) != 0) {
        ++failures;
        continue;
      }
      gl_bench_row row = make_row(opt, reduce_step_name(step), n, blocks[b], ms, cub_ms);
      lb_emit(opt, &row);
    }
  }
  free_input(&in);
  return failures;
}

// The final kernel's other operators and types at n, each beside CUB's version of it.
int final_op_rows(const lb_options *opt, size_t n, int block, int *done, int total) {
  Input in;
  if (make_input(opt, n, 1, &in) != 0) return 1;
  struct {
    const char *name, *cub_name;
    job_kind kind, cub_kind;
    reduce_op op;
  } rows[] = {
      {"8-min-int", "cub-min-int", JOB_FINAL_INT, JOB_CUB_MIN_INT, REDUCE_MIN},
      {"8-max-int", "cub-max-int", JOB_FINAL_INT, JOB_CUB_MAX_INT, REDUCE_MAX},
      {"8-sum-float", "cub-sum-float", JOB_FINAL_FLOAT, JOB_CUB_SUM_FLOAT, REDUCE_SUM},
      {"8-min-float", "cub-min-float", JOB_FINAL_FLOAT, JOB_CUB_MIN_FLOAT, REDUCE_MIN},
      {"8-max-float", "cub-max-float", JOB_FINAL_FLOAT, JOB_CUB_MAX_FLOAT, REDUCE_MAX},
  };
  int failures = 0;
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
    double cub_ms = 0, ms = 0;
    lb_progress((*done)++, total, rows[r].name);
    Job cub = {rows[r].cub_kind, REDUCE_STEP_WARP_SHUFFLE, rows[r].op, 0, &in};
    if (time_job(opt, &cub, rows[r].cub_name, &cub_ms) != 0) {
      ++failures;
      continue;
    }
    Job job = {rows[r].kind, REDUCE_STEP_WARP_SHUFFLE, rows[r].op, block, &in};
    if (time_job(opt, &job, rows[r].name, &ms) != 0) {
      ++failures;
      continue;
    }
    gl_bench_row cub_row = make_row(opt, rows[r].cub_name, n, 0, cub_ms, cub_ms);
    gl_bench_row row = make_row(opt, rows[r].name, n, block, ms, cub_ms);
    lb_emit(opt, &cub_row);
    lb_emit(opt, &row);
  }
  free_input(&in);
  return failures;
}

int count_selected_steps(const lb_options *opt) {
  int count = 0;
  for (int s = REDUCE_FIRST_STEP; s <= REDUCE_LAST_STEP; ++s) {
    count += lb_step_selected(opt, s, reduce_step_name((reduce_step)s));
  }
  return count;
}

}  // namespace

extern "C" int labbench_reduction(const lb_options *opt) {
  const int all_blocks[] = {32, 64, 128, 256, 512, 1024};
  const int default_block[] = {REDUCE_DEFAULT_BLOCK};
  const size_t sweep[] = {(size_t)1 << 16, (size_t)1 << 20, (size_t)1 << 22, (size_t)1 << 24,
                          (size_t)1 << 28};
  const size_t main_n = (size_t)1 << 26;
  int steps = count_selected_steps(opt);
  int failures = 0, done = 0;
  if (opt->n_sizes > 0 || opt->n_blocks > 0) {
    const size_t *sizes = opt->n_sizes > 0 ? opt->sizes : &main_n;
    int n_sizes = opt->n_sizes > 0 ? opt->n_sizes : 1;
    const int *blocks = opt->n_blocks > 0 ? opt->blocks : default_block;
    int n_blocks = opt->n_blocks > 0 ? opt->n_blocks : 1;
    int total = n_sizes * (1 + n_blocks * steps);
    for (int i = 0; i < n_sizes; ++i) {
      if (sizes[i] > REDUCE_MAX_N) {
        fprintf(stderr, "labbench reduction: n = %zu exceeds REDUCE_MAX_N\n", sizes[i]);
        ++failures;
        continue;
      }
      failures += ladder_rows(opt, sizes[i], blocks, n_blocks, &done, total);
    }
  } else {
    int n_sweep = (int)(sizeof sweep / sizeof sweep[0]);
    int total = (1 + 6 * steps) + n_sweep * (1 + steps) + 5;
    failures += ladder_rows(opt, main_n, all_blocks, 6, &done, total);
    for (int i = 0; i < n_sweep; ++i) {
      failures += ladder_rows(opt, sweep[i], default_block, 1, &done, total);
    }
    if (lb_step_selected(opt, REDUCE_STEP_WARP_SHUFFLE,
                         reduce_step_name(REDUCE_STEP_WARP_SHUFFLE))) {
      failures += final_op_rows(opt, main_n, REDUCE_DEFAULT_BLOCK, &done, total);
    }
  }
  lb_progress(0, 0, NULL);
  reduce_free_scratch();
  gl_yardstick_reduction_release();
  return failures == 0 ? 0 : 1;
}
