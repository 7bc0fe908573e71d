// The ode lab's benchmark: the CPU program, MiddlePar, OuterPar and the steps beyond the report
// at the report's parameters (x = 35, r = 65, g = 10, h1 = 10, h2 = 2, h3 = 10), then the
// report's profiler table rebuilt from the runtime's attributes.
//
// The whole CPU program takes half a minute or more at these parameters, so it is estimated:
// every Middle call does the same work (119 * h2 steps of three Inner calls whose lengths
// depend on eta alone), so its time is one call's times the number of calls, plus Outer's
// recurrence. The estimate is checked against the whole program at smaller step counts.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labbench.h"

extern "C" {
#include "gpulabs/timer.h"
#include "ode.h"
}

namespace {

const int kCpuSamples = 5;

struct CpuEstimate {
  double per_call_ms[kCpuSamples];
  double median_call_ms;
  double outer_ms;
  double total_ms;  // median call x calls + Outer
};

// Times Middle at kCpuSamples points spread over the run, one call each, and Outer once.
// middle_at_samples receives the values (to check the GPU against).
int EstimateCpu(const ode_params *p, CpuEstimate *est, size_t *sample_points,
                double *middle_at_samples) {
  size_t points = ode_outer_point_count(p);
  for (int i = 0; i < kCpuSamples; ++i) {
    sample_points[i] = (size_t)(i + 1) * points / (kCpuSamples + 1);
    double start = gl_host_now_ms();
    if (ode_ref_middle(p, sample_points[i], 1, &middle_at_samples[i]) != GL_OK) return 1;
    est->per_call_ms[i] = gl_host_now_ms() - start;
  }
  double sorted[kCpuSamples];
  memcpy(sorted, est->per_call_ms, sizeof sorted);
  est->median_call_ms = gl_median(sorted, kCpuSamples);
  // Outer's recurrence on any Middle values costs the same: time it on zeros.
  double *zeros = (double *)calloc(points, sizeof(double));
  double *reserves = (double *)malloc(ode_year_count(p) * sizeof(double));
  if (zeros == NULL || reserves == NULL) {
    free(zeros);
    free(reserves);
    return 1;
  }
  double start = gl_host_now_ms();
  gl_status status = ode_ref_outer(p, zeros, reserves);
  est->outer_ms = gl_host_now_ms() - start;
  free(zeros);
  free(reserves);
  est->total_ms = est->median_call_ms * (double)points + est->outer_ms;
  return status == GL_OK ? 0 : 1;
}

struct StepRun {
  ode_params p;
  ode_step step;
  int block;
  double *reserves;
};

gl_status RunStep(void *context) {
  StepRun *run = (StepRun *)context;
  return ode_run(run->step, &run->p, run->block, run->reserves);
}

// Largest relative difference between two arrays (0 when both are 0).
double MaxRelDiff(const double *a, const double *b, size_t n) {
  double worst = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double scale = fabs(a[i]) > fabs(b[i]) ? fabs(a[i]) : fabs(b[i]);
    double diff = a[i] == b[i] ? 0.0 : fabs(a[i] - b[i]) / scale;
    if (!(diff <= worst)) worst = diff;  // NaN counts as the worst
  }
  return worst;
}

void PrintParams(const ode_params *p) {
  printf("x = %d, r = %g, g = %g, h1 = %d, h2 = %d, h3 = %d", p->x, p->r, p->g, p->h1, p->h2,
         p->h3);
}

struct Measured {
  bool done;
  double ms;
  ode_step_info info;
};

void PrintTable(const Measured *measured, double cpu_ms, int block) {
  // Columns: one per kernel of each measured step.
  const char *head[ODE_LAST_STEP * ODE_MAX_KERNELS];
  const ode_kernel_info *kernels[ODE_LAST_STEP * ODE_MAX_KERNELS];
  const Measured *owner[ODE_LAST_STEP * ODE_MAX_KERNELS];
  int columns = 0;
  for (int s = ODE_FIRST_STEP; s <= ODE_LAST_STEP; ++s) {
    const Measured *m = &measured[s];
    if (!m->done) continue;
    for (int k = 0; k < m->info.kernel_count; ++k) {
      head[columns] = ode_step_name((ode_step)s);
      kernels[columns] = &m->info.kernels[k];
      owner[columns] = m;
      ++columns;
    }
  }
  if (columns == 0) return;
  printf("\nThe report's profiler table, rebuilt (block %d; a step with two kernels has two "
         "columns):\n", block);
  printf("%-30s", "attribute");
  for (int c = 0; c < columns; ++c) printf(" %21s", head[c]);
  printf("\n%-30s", "kernel");
  for (int c = 0; c < columns; ++c) printf(" %21.21s", kernels[c]->name);
  printf("\n%-30s", "launches per run");
  for (int c = 0; c < columns; ++c) printf(" %21ld", kernels[c]->launches);
  printf("\n%-30s", "grid size (largest launch)");
  for (int c = 0; c < columns; ++c) printf(" %15ld,1,1    ", kernels[c]->grid);
  printf("\n%-30s", "block size");
  for (int c = 0; c < columns; ++c) printf(" %15d,1,1    ", kernels[c]->block);
  printf("\n%-30s", "registers per thread");
  for (int c = 0; c < columns; ++c) printf(" %21d", kernels[c]->registers);
  printf("\n%-30s", "shared memory per block (B)");
  for (int c = 0; c < columns; ++c) printf(" %21zu", kernels[c]->shared_bytes);
  printf("\n%-30s", "theoretical occupancy");
  for (int c = 0; c < columns; ++c) printf(" %20.1f%%", 100.0 * kernels[c]->theoretical_occupancy);
  printf("\n%-30s", "time of the whole run (ms)");
  for (int c = 0; c < columns; ++c) printf(" %21.3f", owner[c]->ms);
  printf("\n%-30s", "speed-up over the CPU");
  for (int c = 0; c < columns; ++c) printf(" %20.1fx", cpu_ms / owner[c]->ms);
  if (measured[ODE_STEP_MIDDLE_PAR].done) {
    printf("\n%-30s", "speed-up over MiddlePar");
    for (int c = 0; c < columns; ++c) {
      printf(" %20.1fx", measured[ODE_STEP_MIDDLE_PAR].ms / owner[c]->ms);
    }
  }
  printf("\n\nAchieved occupancy, load/store efficiency and branch efficiency come from Nsight "
         "Compute;\nsee docs/labs/ode.md for the command.\n");
}

}  // namespace

extern "C" int labbench_ode(const lb_options *opt) {
  const ode_params p = ode_report_params();
  const size_t points = ode_outer_point_count(&p), years = ode_year_count(&p);
  const int steps = ode_middle_step_count(p.h2);
  printf("\node: the report's parameters: ");
  PrintParams(&p);
  printf("\n  %zu Middle calls (Outer's distinct points), each %d steps of 3 Inner calls\n",
         points, steps);
  printf("  the vs CUB column below is the CPU reference here: cpu_ms / ms\n\n");

  // ---- The CPU, estimated from a sample of Middle calls --------------------------------------
  CpuEstimate cpu;
  size_t sample_points[kCpuSamples];
  double cpu_middle[kCpuSamples];
  if (EstimateCpu(&p, &cpu, sample_points, cpu_middle) != 0) {
    fprintf(stderr, "labbench ode: the CPU reference failed: %s\n", gl_last_error());
    return 1;
  }
  printf("CPU: one Middle call at points");
  for (int i = 0; i < kCpuSamples; ++i) printf(" %zu", sample_points[i]);
  printf(" took");
  for (int i = 0; i < kCpuSamples; ++i) printf(" %.2f", cpu.per_call_ms[i]);
  printf(" ms (the same work each);\n  whole program estimated as %.2f ms x %zu calls + Outer "
         "%.3f ms = %.1f ms\n", cpu.median_call_ms, points, cpu.outer_ms, cpu.total_ms);

  // The estimate against the whole program at smaller step counts.
  ode_params small = p;
  small.h1 = small.h2 = small.h3 = 2;
  CpuEstimate small_est;
  size_t small_points[kCpuSamples];
  double small_middle[kCpuSamples];
  double *small_reserves = (double *)malloc(ode_year_count(&small) * sizeof(double));
  if (small_reserves == NULL || EstimateCpu(&small, &small_est, small_points, small_middle) != 0) {
    fprintf(stderr, "labbench ode: the CPU cross-check failed: %s\n", gl_last_error());
    free(small_reserves);
    return 1;
  }
  double start = gl_host_now_ms();
  gl_status small_status = ode_ref_reserves(&small, small_reserves);
  double small_full_ms = gl_host_now_ms() - start;
  free(small_reserves);
  if (small_status != GL_OK) {
    fprintf(stderr, "labbench ode: %s\n", gl_last_error());
    return 1;
  }
  printf("  cross-check at ");
  PrintParams(&small);
  printf(": whole program %.1f ms, estimate %.1f ms (ratio %.3f)\n\n", small_full_ms,
         small_est.total_ms, small_full_ms / small_est.total_ms);

  gl_bench_row row;
  memset(&row, 0, sizeof row);
  row.lab = "ode";
  row.step = "cpu-estimated";
  row.n = points;
  row.ms = cpu.total_ms;
  lb_emit(opt, &row);
  row.step = "cpu-h2-whole";
  row.n = ode_outer_point_count(&small);
  row.ms = small_full_ms;
  lb_emit(opt, &row);
  row.step = "cpu-h2-estimated";
  row.ms = small_est.total_ms;
  lb_emit(opt, &row);

  // ---- The GPU steps ----------------------------------------------------------------------------
  int blocks[LB_MAX_BLOCKS];
  int n_blocks = opt->n_blocks;
  if (n_blocks == 0) {
    blocks[0] = ODE_DEFAULT_BLOCK_SIZE;
    n_blocks = 1;
  } else {
    memcpy(blocks, opt->blocks, n_blocks * sizeof(int));
  }
  double *reserves = (double *)malloc(years * sizeof(double));
  double *first_reserves = (double *)malloc(years * sizeof(double));
  double *h_middle = (double *)malloc(points * sizeof(double));
  double *d_middle = NULL;
  if (reserves == NULL || first_reserves == NULL || h_middle == NULL ||
      cudaMalloc(&d_middle, points * sizeof(double)) != cudaSuccess) {
    fprintf(stderr, "labbench ode: out of memory\n");
    free(reserves);
    free(first_reserves);
    free(h_middle);
    return 1;
  }
  int failures = 0, have_first = 0;
  Measured measured[ODE_LAST_STEP + 1];
  memset(measured, 0, sizeof measured);
  for (int b = 0; b < n_blocks; ++b) {
    for (int s = ODE_FIRST_STEP; s <= ODE_LAST_STEP; ++s) {
      ode_step step = (ode_step)s;
      if (!lb_step_selected(opt, s, ode_step_name(step))) continue;
      lb_progress(s - 1, ODE_LAST_STEP, ode_step_name(step));
      // Check first: the sampled points against the CPU, the reserves against the first step.
      gl_status status = ode_middle(step, &p, 0, points, blocks[b], d_middle);
      if (status == GL_OK &&
          cudaMemcpy(h_middle, d_middle, points * sizeof(double), cudaMemcpyDeviceToHost) !=
              cudaSuccess) {
        status = gl_fail(GL_ERR_CUDA, "the kernels of %s failed", ode_step_name(step));
      }
      double ms = 0;
      StepRun run = {p, step, blocks[b], reserves};
      if (status == GL_OK) {
        // MiddlePar takes seconds: one timed run after a short warm-up of a few calls.
        int warmup = step == ODE_STEP_MIDDLE_PAR ? 0 : opt->warmup;
        int reps = step == ODE_STEP_MIDDLE_PAR ? 1 : opt->reps;
        status = gl_time_median_ms(GL_CLOCK_HOST, RunStep, &run, warmup, reps, &ms);
      }
      if (status != GL_OK) {
        lb_progress(0, 0, NULL);
        printf("ode %-24s block %4d: %s\n", ode_step_name(step), blocks[b], gl_last_error());
        if (status != GL_ERR_NOT_IMPLEMENTED) ++failures;
        continue;
      }
      double worst = 0.0;
      for (int i = 0; i < kCpuSamples; ++i) {
        double diff = MaxRelDiff(&cpu_middle[i], &h_middle[sample_points[i]], 1);
        if (!(diff <= worst)) worst = diff;
      }
      double against_first = 0.0;
      if (have_first) {
        against_first = MaxRelDiff(first_reserves, reserves, years);
      } else {
        memcpy(first_reserves, reserves, years * sizeof(double));
        have_first = 1;
      }
      if (!(worst <= 1e-12) || !(against_first <= 1e-12)) {
        lb_progress(0, 0, NULL);
        printf("ode %s block %d: WRONG: %.3g relative from the CPU at the sampled points, %.3g "
               "from the first step's reserves\n", ode_step_name(step), blocks[b], worst,
               against_first);
        ++failures;
        continue;
      }
      row.step = ode_step_name(step);
      row.n = points;
      row.block_size = blocks[b];
      row.ms = ms;
      row.yardstick_ms = cpu.total_ms;
      lb_emit(opt, &row);
      if (b == 0) {
        measured[s].done = true;
        measured[s].ms = ms;
        if (ode_describe(step, &p, blocks[b], &measured[s].info) != GL_OK) {
          printf("ode %s: %s\n", ode_step_name(step), gl_last_error());
          measured[s].done = false;
          ++failures;
        }
      }
    }
  }
  lb_progress(0, 0, NULL);
  if (have_first) printf("\nV(0) = %.17g\n", first_reserves[0]);
  PrintTable(measured, cpu.total_ms, blocks[0]);
  cudaFree(d_middle);
  free(reserves);
  free(first_reserves);
  free(h_middle);
  return failures == 0 ? 0 : 1;
}
