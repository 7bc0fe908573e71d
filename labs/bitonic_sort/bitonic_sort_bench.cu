// The bitonic_sort lab's benchmark: keys per second of every step over sizes (and block sizes
// for steps 2 and 3), beside CUB's merge sort and radix sort measured in the same run.
//
// Rows: step "1-cpu" (the iterative CPU reference, small n only), "2-global", "3-shared",
// "4-registers", "5-windows" (the bonus step), "cub-merge", "cub-radix". Bytes per row: 8 per
// key (each key read and written once, the least any sort moves). The "vs CUB" column is cub-merge's time over the row's time.
// A step's limit (%limit) is its own passes at the copy bandwidth: every kernel of a bitonic
// step reads and writes the whole array, so its passes are the kernels one call launches
// (lb_count_launches, with CUPTI), plus the restore copy timed with it.
// In-place sorts (bitonic, CUB merge) restore their input with one device copy inside each
// timed call (counted, as in the performance test); CUB radix sort writes another buffer and is
// timed alone.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labbench.h"

extern "C" {
#include "bitonic_sort.h"
#include "gpulabs/check.h"
#include "gpulabs/data.h"
#include "bitonic_sort_reference.h"
#include "gpulabs/timer.h"
#include "bitonic_sort_yardstick.h"
#include "radix_sort.h"
}

namespace {

const size_t kDefaultSizes[] = {(size_t)1 << 12, (size_t)1 << 16, (size_t)1 << 18,
                                (size_t)1 << 20, ((size_t)1 << 20) + 1, (size_t)1 << 22,
                                (size_t)1 << 24};
const int kDefaultBlocksStep2[] = {256};
const int kDefaultBlocksStep3[] = {128, 256, 512, 1024};
const size_t kCpuMaxN = (size_t)1 << 18;  // the CPU network is slow: keep step 1 small

// Copies of the input rotated through so that small sizes are not timed from L2 alone.
typedef struct bench_data {
  size_t n;
  int copies;
  uint32_t *inputs;  // copies * n keys, never modified
  uint32_t *works;   // copies * n keys, sorted in place
  int next;
} bench_data;

typedef struct gpu_job {
  bench_data *data;
  bitonic_step step;  // for the bitonic rows
  int block_size;
} gpu_job;

gl_status restore(bench_data *data, uint32_t **work) {
  int i = data->next;
  data->next = (data->next + 1) % data->copies;
  *work = data->works + (size_t)i * data->n;
  LAB_CHECK(cudaMemcpyAsync(*work, data->inputs + (size_t)i * data->n, data->n * sizeof(uint32_t),
                            cudaMemcpyDeviceToDevice, 0));
  return GL_OK;
}

gl_status run_bitonic(void *context) {
  gpu_job *job = (gpu_job *)context;
  uint32_t *work = NULL;
  GL_TRY(restore(job->data, &work));
  return bitonic_sort_keys(job->step, BITONIC_ASCENDING, work, job->data->n, job->block_size);
}

gl_status run_cub_merge(void *context) {
  gpu_job *job = (gpu_job *)context;
  uint32_t *work = NULL;
  GL_TRY(restore(job->data, &work));
  return bitonic_yardstick_cub_merge_sort_keys(work, job->data->n, 0);
}

gl_status run_cub_radix(void *context) {
  gpu_job *job = (gpu_job *)context;
  bench_data *data = job->data;
  int i = data->next;
  data->next = (data->next + 1) % data->copies;
  return bitonic_yardstick_cub_radix_sort_keys(data->inputs + (size_t)i * data->n,
                                               data->works + (size_t)i * data->n, data->n, 0);
}

// The course's own radix sort (lab 4, its fastest step) beside the network: O(n) against O(n log^2 n).
gl_status run_lab_radix(void *context) {
  gpu_job *job = (gpu_job *)context;
  bench_data *data = job->data;
  int i = data->next;
  data->next = (data->next + 1) % data->copies;
  return radix_sort_keys(RADIX_STEP_ONESWEEP, data->inputs + (size_t)i * data->n,
                         data->works + (size_t)i * data->n, data->n, NULL);
}

typedef struct cpu_job {
  const uint32_t *input;
  uint32_t *work;
  size_t n;
} cpu_job;

gl_status run_cpu(void *context) {
  cpu_job *job = (cpu_job *)context;
  memcpy(job->work, job->input, job->n * sizeof(uint32_t));
  bitonic_ref_sort_iterative(job->work, NULL, job->n, 0);
  return GL_OK;
}

// Sorted ascending? Checks the last output written (untimed), so a wrong step never reports a time.
int check_sorted(const bench_data *data, uint32_t *host, const char *what) {
  int last = (data->next + data->copies - 1) % data->copies;
  if (cudaMemcpy(host, data->works + (size_t)last * data->n, data->n * sizeof(uint32_t),
                 cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "labbench bitonic_sort: copying %s's output back failed\n", what);
    return 0;
  }
  for (size_t i = 1; i < data->n; ++i) {
    if (host[i - 1] > host[i]) {
      fprintf(stderr, "labbench bitonic_sort: %s did not sort n = %zu (index %zu: %u > %u)\n", what,
              data->n, i - 1, host[i - 1], host[i]);
      return 0;
    }
  }
  return 1;
}

// Times one GPU row (after one checked, untimed run); returns the median or -1 on failure.
double time_gpu(const lb_options *opt, gl_timed_fn fn, gpu_job *job, uint32_t *host,
                const char *what) {
  gl_status status = fn(job);
  if (status == GL_ERR_NOT_IMPLEMENTED) {
    fprintf(stderr, "labbench bitonic_sort: %s skipped: %s\n", what, gl_last_error());
    return 0;
  }
  if (status != GL_OK || cudaDeviceSynchronize() != cudaSuccess) {
    fprintf(stderr, "labbench bitonic_sort: %s failed: %s %s\n", what, gl_last_error(),
            cudaGetErrorString(cudaGetLastError()));
    return -1;
  }
  if (!check_sorted(job->data, host, what)) return -1;
  double ms = 0;
  if (gl_time_median_ms(GL_CLOCK_GPU, fn, job, opt->warmup, opt->reps, &ms) != GL_OK) {
    fprintf(stderr, "labbench bitonic_sort: timing %s failed: %s\n", what, gl_last_error());
    return -1;
  }
  return ms;
}

void emit(const lb_options *opt, const char *step, size_t n, int block, double ms,
          double merge_ms, double moved_bytes = 0) {
  gl_bench_row row;
  memset(&row, 0, sizeof row);
  row.lab = "bitonic_sort";
  row.step = step;
  row.n = n;
  row.block_size = block;
  row.ms = ms;
  row.bytes = 8.0 * (double)n;
  row.copy_gbps = opt->copy_gbps;
  row.yardstick_ms = merge_ms;
  row.moved_bytes = moved_bytes;
  lb_emit(opt, &row);
}

int bench_size(const lb_options *opt, size_t n) {
  bench_data data;
  memset(&data, 0, sizeof data);
  data.n = n;
  data.copies = lb_rotation(opt, 2 * n * sizeof(uint32_t));
  uint32_t *host = (uint32_t *)malloc(n * sizeof(uint32_t));
  uint32_t *host_work = (uint32_t *)malloc(n * sizeof(uint32_t));
  if (host == NULL || host_work == NULL) {
    fprintf(stderr, "labbench bitonic_sort: no host memory for n = %zu\n", n);
    free(host);
    free(host_work);
    return 1;
  }
  gl_fill_u32(host, n, GL_DIST_UNIFORM, gl_seed_derive(0xB170, n));
  size_t bytes = (size_t)data.copies * n * sizeof(uint32_t);
  int failed = 0;
  if (cudaMalloc(&data.inputs, bytes) != cudaSuccess || cudaMalloc(&data.works, bytes) != cudaSuccess) {
    fprintf(stderr, "labbench bitonic_sort: no device memory for n = %zu\n", n);
    failed = 1;
  }
  for (int i = 0; !failed && i < data.copies; ++i) {
    failed = cudaMemcpy(data.inputs + (size_t)i * n, host, n * sizeof(uint32_t),
                        cudaMemcpyHostToDevice) != cudaSuccess;
  }

  gpu_job job = {&data, BITONIC_STEP_GLOBAL, 0};
  double merge_ms = failed ? -1 : time_gpu(opt, run_cub_merge, &job, host_work, "cub-merge");
  if (merge_ms < 0) failed = 1;
  if (!failed && lb_step_selected(opt, 0, "cub-merge")) emit(opt, "cub-merge", n, 0, merge_ms, merge_ms);
  if (!failed && lb_step_selected(opt, 0, "cub-radix")) {
    double ms = time_gpu(opt, run_cub_radix, &job, host_work, "cub-radix");
    if (ms < 0) failed = 1;
    else emit(opt, "cub-radix", n, 0, ms, merge_ms);
  }

  if (!failed && lb_step_selected(opt, 0, "lab-radix")) {
    double ms = time_gpu(opt, run_lab_radix, &job, host_work, "lab-radix (radix_sort step 4)");
    if (ms < 0) failed = 1;
    else if (ms > 0) emit(opt, "lab-radix", n, 0, ms, merge_ms);
  }

  if (!failed && n <= kCpuMaxN && lb_step_selected(opt, 1, "1-cpu")) {
    cpu_job cpu = {host, host_work, n};
    double ms = 0;
    int reps = opt->reps < 3 ? opt->reps : 3;
    if (gl_time_median_ms(GL_CLOCK_HOST, run_cpu, &cpu, 0, reps, &ms) == GL_OK) {
      emit(opt, "1-cpu", n, 0, ms, merge_ms);
    }
  }

  for (int s = BITONIC_FIRST_STEP; !failed && s <= BITONIC_LAST_STEP; ++s) {
    bitonic_step step = (bitonic_step)s;
    if (!lb_step_selected(opt, s, bitonic_step_name(step))) continue;
    const int *blocks = opt->blocks;
    int n_blocks = opt->n_blocks;
    int zero = 0;
    if (step == BITONIC_STEP_REGISTERS || step == BITONIC_STEP_WINDOWS) {
      blocks = &zero;  // steps 4 and 5 fix their own shapes
      n_blocks = 1;
    } else if (n_blocks == 0) {
      blocks = step == BITONIC_STEP_GLOBAL ? kDefaultBlocksStep2 : kDefaultBlocksStep3;
      n_blocks = step == BITONIC_STEP_GLOBAL
                     ? (int)(sizeof kDefaultBlocksStep2 / sizeof kDefaultBlocksStep2[0])
                     : (int)(sizeof kDefaultBlocksStep3 / sizeof kDefaultBlocksStep3[0]);
    }
    for (int b = 0; !failed && b < n_blocks; ++b) {
      char what[96];
      snprintf(what, sizeof what, "bitonic_sort %s block %d n=%zu", bitonic_step_name(step),
               blocks[b], n);
      lb_progress(0, 1, what);
      job.step = step;
      job.block_size = blocks[b];
      double ms = time_gpu(opt, run_bitonic, &job, host_work, what);
      if (ms < 0) {
        failed = 1;
      } else if (ms > 0) {
        const long passes = lb_count_launches(run_bitonic, &job);
        const double moved = passes > 0 ? (double)(passes + 1) * 8.0 * (double)n : 0.0;
        emit(opt, bitonic_step_name(step), n, blocks[b], ms, merge_ms, moved);
      }
    }
  }
  bitonic_yardstick_release();
  radix_sort_release();
  cudaFree(data.inputs);
  cudaFree(data.works);
  free(host);
  free(host_work);
  return failed;
}

}  // namespace

extern "C" int labbench_bitonic_sort(const lb_options *opt) {
  const size_t *sizes = opt->n_sizes > 0 ? opt->sizes : kDefaultSizes;
  int n_sizes = opt->n_sizes > 0 ? opt->n_sizes : (int)(sizeof kDefaultSizes / sizeof kDefaultSizes[0]);
  int failures = 0;
  for (int i = 0; i < n_sizes; ++i) {
    if (sizes[i] < 2 || sizes[i] > BITONIC_MAX_N) {
      fprintf(stderr, "labbench bitonic_sort: n = %zu skipped (2 .. BITONIC_MAX_N)\n", sizes[i]);
      continue;
    }
    failures += bench_size(opt, sizes[i]);
  }
  return failures == 0 ? 0 : 1;
}
