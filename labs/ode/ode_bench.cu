// The ode lab's benchmark: the CPU program, MiddlePar, OuterPar and the steps beyond the report
// at the report's parameters (x = 35, r = 65, g = 10, h1 = 10, h2 = 2, h3 = 10), then the
// report's profiler table rebuilt from the runtime's attributes.
//
// Two CPU baselines, each the whole program timed once on this host:
//   - one thread: the sequential program (ode_ref_reserves_run with 1 thread: the same loop as
//     ode_ref_reserves): tens of seconds or more, with its progress on stderr;
//   - every core: the same program with Outer's points, the Middle calls, shared among all the
//     host's cores by OpenMP (the loop OuterPar parallelises), to the bit the same values.
// Both print their progress on stderr; --cpu-limit S stops each after S seconds (the speed-ups
// are then lower bounds, printed with ">") and --cpu-limit 0 skips them. The GPU steps are
// checked against the CPU's Middle values and reserves.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "labbench.h"

extern "C" {
#include "gpulabs/timer.h"
#include "ode.h"
}

namespace {

// ---- The host ------------------------------------------------------------------------------

struct HostCpu {
  char model[128];
  int logical;  // "processor" entries of /proc/cpuinfo
  int cores;    // distinct (physical id, core id) pairs; 0 when /proc/cpuinfo does not say
  int sockets;  // distinct physical ids; 0 likewise
};

// The value of a "key : value" line of /proc/cpuinfo whose key is `key`, or NULL.
const char *CpuinfoValue(const char *line, const char *key) {
  size_t n = strlen(key);
  if (strncmp(line, key, n) != 0) return NULL;
  const char *p = line + n;
  while (*p == ' ' || *p == '\t') ++p;
  if (*p != ':') return NULL;
  ++p;
  while (*p == ' ') ++p;
  return p;
}

void DescribeHost(HostCpu *host) {
  memset(host, 0, sizeof *host);
  snprintf(host->model, sizeof host->model, "unknown (no model name in /proc/cpuinfo)");
  FILE *in = fopen("/proc/cpuinfo", "r");
  if (in == NULL) return;
  enum { kMaxCores = 4096 };
  static long core_keys[kMaxCores];
  long physical = -1;
  long sockets[256];
  int n_cores = 0, n_sockets = 0, have_model = 0;
  char line[512];
  while (fgets(line, sizeof line, in) != NULL) {
    const char *value;
    if ((value = CpuinfoValue(line, "processor")) != NULL) {
      ++host->logical;
      physical = -1;
    } else if (!have_model && (value = CpuinfoValue(line, "model name")) != NULL) {
      snprintf(host->model, sizeof host->model, "%.*s", (int)strcspn(value, "\n"), value);
      have_model = 1;
    } else if ((value = CpuinfoValue(line, "physical id")) != NULL) {
      physical = atol(value);
      int seen = 0;
      for (int i = 0; i < n_sockets; ++i) seen |= sockets[i] == physical;
      if (!seen && n_sockets < 256) sockets[n_sockets++] = physical;
    } else if ((value = CpuinfoValue(line, "core id")) != NULL && physical >= 0) {
      long key = physical * 1000000 + atol(value);
      int seen = 0;
      for (int i = 0; i < n_cores; ++i) seen |= core_keys[i] == key;
      if (!seen && n_cores < kMaxCores) core_keys[n_cores++] = key;
    }
  }
  fclose(in);
  host->cores = n_cores;
  host->sockets = n_sockets;
}

// ---- The CPU baselines ---------------------------------------------------------------------

// Progress on stderr: on a terminal one line rewritten after every point; in a log a line at
// each tenth of the points, at most one per 10 s. Stops the run past the time limit.
struct Progress {
  const char *what;
  double start_ms;
  double last_line_ms;
  double limit_ms;  // <= 0: none
  int tty;
  size_t next_tenth;
};

int ReportProgress(size_t done, size_t total, void *context) {
  Progress *pr = (Progress *)context;
  double now = gl_host_now_ms(), elapsed = now - pr->start_ms;
  double left_s = elapsed / (double)done * (double)(total - done) / 1000.0;
  char text[160];
  snprintf(text, sizeof text, "ode CPU, %s: %zu of %zu Middle calls in %.0f s, about %.0f s left",
           pr->what, done, total, elapsed / 1000.0, left_s);
  if (pr->tty) {
    fprintf(stderr, "\r%-78.78s", text);
    fflush(stderr);
  } else if (done < total && done * 10 >= pr->next_tenth * total) {
    pr->next_tenth = done * 10 / total + 1;
    if (now - pr->last_line_ms >= 10000.0) {
      fprintf(stderr, "%s\n", text);
      fflush(stderr);
      pr->last_line_ms = now;
    }
  }
  return pr->limit_ms > 0.0 && elapsed >= pr->limit_ms && done < total;
}

struct CpuRun {
  const char *name;  // the CSV's step: "cpu-1-thread", "cpu-openmp-16-threads"
  char name_text[64];
  int threads;       // the threads it had
  bool ran;          // false: not run (--cpu-limit 0, no OpenMP, one core)
  bool complete;     // false: stopped by --cpu-limit
  size_t points_done;
  double ms;         // the whole run, or until it was stopped
  double *middle;    // every point's Middle value; NaN where not computed
  double *reserves;  // NaN when stopped
};

// Times the whole program once on `threads` threads (0: every core).
int RunCpu(const ode_params *p, int threads, double limit_s, CpuRun *run) {
  ode_ref_run ref;
  memset(&ref, 0, sizeof ref);
  ref.threads = threads;
  ref.middle = run->middle;
  Progress pr;
  memset(&pr, 0, sizeof pr);
  pr.what = threads == 1 ? "1 thread" : "every core (OpenMP)";
  pr.limit_ms = limit_s > 0.0 ? 1000.0 * limit_s : 0.0;
  pr.tty = isatty(2);
  pr.next_tenth = 1;
  ref.progress = ReportProgress;
  ref.context = &pr;
  pr.start_ms = pr.last_line_ms = gl_host_now_ms();
  gl_status status = ode_ref_reserves_run(p, &ref, run->reserves);
  run->ms = gl_host_now_ms() - pr.start_ms;
  lb_progress(0, 0, NULL);  // erases the progress line on a terminal
  if (status != GL_OK) return 1;
  run->ran = true;
  run->threads = ref.threads_used;
  run->complete = !ref.stopped;
  run->points_done = ref.points_done;
  if (threads == 1) {
    snprintf(run->name_text, sizeof run->name_text, "cpu-1-thread%s",
             run->complete ? "" : "-stopped");
  } else {
    snprintf(run->name_text, sizeof run->name_text, "cpu-openmp-%d-threads%s", run->threads,
             run->complete ? "" : "-stopped");
  }
  run->name = run->name_text;
  return 0;
}

void PrintCpuRun(const CpuRun *run, size_t points) {
  if (run->complete) {
    printf("CPU, %d thread%s: the whole program took %.1f ms (measured once)\n", run->threads,
           run->threads == 1 ? "" : "s", run->ms);
  } else {
    printf("CPU, %d thread%s: stopped by --cpu-limit after %.1f ms, at %zu of %zu Middle calls; "
           "the speed-ups against it are lower bounds (\">\")\n", run->threads,
           run->threads == 1 ? "" : "s", run->ms, run->points_done, points);
  }
}

// "12.3x", or ">12.3x" when the CPU run was stopped (so it would have taken longer).
void FormatSpeedup(char *out, size_t size, const CpuRun *cpu, double ms) {
  if (!cpu->ran) {
    snprintf(out, size, "-");
  } else {
    snprintf(out, size, "%s%.1fx", cpu->complete ? "" : ">", cpu->ms / ms);
  }
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

void PrintTable(const Measured *measured, const CpuRun *one, const CpuRun *all, int block) {
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
  const CpuRun *cpus[2] = {one, all};
  for (int i = 0; i < 2; ++i) {
    if (!cpus[i]->ran) continue;
    char label[40], cell[32];
    snprintf(label, sizeof label, "speed-up vs %d CPU thread%s", cpus[i]->threads,
             cpus[i]->threads == 1 ? "" : "s");
    printf("\n%-30s", label);
    for (int c = 0; c < columns; ++c) {
      FormatSpeedup(cell, sizeof cell, cpus[i], owner[c]->ms);
      printf(" %21s", cell);
    }
  }
  if (measured[ODE_STEP_MIDDLE_PAR].done) {
    printf("\n%-30s", "speed-up over MiddlePar");
    for (int c = 0; c < columns; ++c) {
      printf(" %20.1fx", measured[ODE_STEP_MIDDLE_PAR].ms / owner[c]->ms);
    }
  }
  printf("\n\nAchieved occupancy, load/store efficiency and branch efficiency come from Nsight "
         "Compute;\nsee labs/ode/README.md for the command.\n");
}

// The worst disagreement of a GPU step with the CPU, over the points the CPU computed: Middle
// normwise (|gpu - cpu| / the largest |cpu|, as the tests compare it) and the reserves element
// by element (relative), when the CPU has them.
struct Agreement {
  size_t points;  // Middle points compared
  double middle;
  double reserves;  // -1: no CPU reserves to compare with
};

Agreement CompareWithCpu(const double *cpu_middle, const double *gpu_middle, size_t points,
                         const double *cpu_reserves, const double *gpu_reserves, size_t years) {
  Agreement a = {0, 0.0, -1.0};
  double largest = 0.0, worst_abs = 0.0;
  for (size_t j = 0; j < points; ++j) {
    if (isnan(cpu_middle[j])) continue;  // not computed (a stopped run)
    ++a.points;
    if (fabs(cpu_middle[j]) > largest) largest = fabs(cpu_middle[j]);
    double diff = fabs(gpu_middle[j] - cpu_middle[j]);
    if (!(diff <= worst_abs)) worst_abs = diff;  // NaN counts as the worst
  }
  a.middle = worst_abs == 0.0 ? 0.0 : worst_abs / largest;
  if (cpu_reserves != NULL) a.reserves = MaxRelDiff(cpu_reserves, gpu_reserves, years);
  return a;
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
  printf("  the vs CUB column below is the CPU program on 1 thread here: its ms / the step's ms\n");

  // ---- The host and the two CPU baselines ---------------------------------------------------
  HostCpu host;
  DescribeHost(&host);
  const int usable = ode_ref_thread_count(0);
  printf("host CPU: %s; /proc/cpuinfo: %d logical CPUs", host.model, host.logical);
  if (host.cores > 0) {
    printf(", %d cores in %d socket%s", host.cores, host.sockets, host.sockets == 1 ? "" : "s");
  }
  if (ode_ref_have_openmp()) {
    printf("; OpenMP: %d usable by this process\n\n", usable);
  } else {
    printf("; built without OpenMP: one thread only\n\n");
  }

  CpuRun one, all;
  memset(&one, 0, sizeof one);
  memset(&all, 0, sizeof all);
  double *cpu_buffers[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < 4; ++i) {
    size_t n = i % 2 == 0 ? points : years;
    cpu_buffers[i] = (double *)malloc(n * sizeof(double));
    if (cpu_buffers[i] == NULL) {
      fprintf(stderr, "labbench ode: out of memory\n");
      for (int k = 0; k < i; ++k) free(cpu_buffers[k]);
      return 1;
    }
    for (size_t k = 0; k < n; ++k) cpu_buffers[i][k] = NAN;
  }
  one.middle = cpu_buffers[0];
  one.reserves = cpu_buffers[1];
  all.middle = cpu_buffers[2];
  all.reserves = cpu_buffers[3];
  gl_bench_row row;
  memset(&row, 0, sizeof row);
  row.lab = "ode";
  int failures = 0;
  if (opt->cpu_limit_s == 0.0) {
    // No CPU runs: the GPU is still checked, against the CPU at a few points (untimed).
    printf("CPU: not run (--cpu-limit 0); the GPU steps are checked at 5 points only\n");
    for (int i = 1; i <= 5; ++i) {
      size_t j = (size_t)i * points / 6;
      if (ode_ref_middle(&p, j, 1, &one.middle[j]) != GL_OK) ++failures;
    }
  } else {
    if (opt->cpu_limit_s > 0) {
      printf("CPU: the whole program, timed once on 1 thread, then on every core; each stopped "
             "after %g s (--cpu-limit)\n", opt->cpu_limit_s);
    } else {
      printf("CPU: the whole program, timed once on 1 thread (a minute or more: progress on "
             "stderr; --cpu-limit S caps it), then on every core\n");
    }
    fflush(stdout);
    if (RunCpu(&p, 1, opt->cpu_limit_s, &one) != 0) {
      fprintf(stderr, "labbench ode: the CPU reference failed: %s\n", gl_last_error());
      ++failures;
    } else {
      PrintCpuRun(&one, points);
      row.step = one.name;
      row.n = one.points_done;
      row.ms = one.ms;
      lb_emit(opt, &row);
    }
    if (!ode_ref_have_openmp() || usable < 2) {
      printf("CPU, every core: not run (%s)\n",
             ode_ref_have_openmp() ? "this process may use one core only"
                                   : "this build has no OpenMP");
    } else if (RunCpu(&p, 0, opt->cpu_limit_s, &all) != 0) {
      fprintf(stderr, "labbench ode: the CPU reference on %d threads failed: %s\n", usable,
              gl_last_error());
      ++failures;
    } else {
      PrintCpuRun(&all, points);
      row.step = all.name;
      row.n = all.points_done;
      row.ms = all.ms;
      lb_emit(opt, &row);
      // The threads compute each point with the sequential code: the same bits.
      size_t compared = 0, differ = 0;
      for (size_t j = 0; j < points; ++j) {
        if (isnan(one.middle[j]) || isnan(all.middle[j])) continue;
        ++compared;
        differ += memcmp(&one.middle[j], &all.middle[j], sizeof(double)) != 0;
      }
      bool reserves_same = !one.complete || !all.complete ||
                           memcmp(one.reserves, all.reserves, years * sizeof(double)) == 0;
      if (differ != 0 || !reserves_same) {
        printf("  WRONG: %zu of %zu Middle values%s differ from the 1-thread run's\n", differ,
               compared, reserves_same ? "" : " and the reserves");
        ++failures;
      } else {
        printf("  the same bits as the 1-thread run: %zu Middle values%s\n", compared,
               one.complete && all.complete ? " and every reserve" : "");
      }
    }
    if (one.ran && all.ran && one.complete && all.complete) {
      printf("  OpenMP's speed-up on %d threads: %.2fx (%.0f%% parallel efficiency)\n",
             all.threads, one.ms / all.ms, 100.0 * one.ms / all.ms / all.threads);
    }
    if (one.complete) printf("  V(0) on the CPU = %.17g\n", one.reserves[0]);
  }
  printf("\n");
  // What the GPU is checked against: the 1-thread run's values where it has them, else the
  // OpenMP run's (the same bits).
  double *cpu_middle = one.middle;
  for (size_t j = 0; j < points; ++j) {
    if (isnan(cpu_middle[j])) cpu_middle[j] = all.middle[j];
  }
  const double *cpu_reserves = one.complete ? one.reserves : all.complete ? all.reserves : NULL;

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
    for (int i = 0; i < 4; ++i) free(cpu_buffers[i]);
    return 1;
  }
  int have_first = 0;
  const char *best_step = NULL;
  int best_block = 0;
  double best_ms = 0.0;
  Measured measured[ODE_LAST_STEP + 1];
  memset(measured, 0, sizeof measured);
  for (int b = 0; b < n_blocks; ++b) {
    for (int s = ODE_FIRST_STEP; s <= ODE_LAST_STEP; ++s) {
      ode_step step = (ode_step)s;
      if (!lb_step_selected(opt, s, ode_step_name(step))) continue;
      lb_progress(s - 1, ODE_LAST_STEP, ode_step_name(step));
      // Check first: Middle against the CPU, the reserves against the CPU and the first step.
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
      Agreement cpu = CompareWithCpu(cpu_middle, h_middle, points, cpu_reserves, reserves, years);
      double against_first = 0.0;
      if (have_first) {
        against_first = MaxRelDiff(first_reserves, reserves, years);
      } else {
        memcpy(first_reserves, reserves, years * sizeof(double));
        have_first = 1;
      }
      if (!(cpu.middle <= 1e-12) || !(cpu.reserves <= 1e-12) || !(against_first <= 1e-12)) {
        lb_progress(0, 0, NULL);
        printf("ode %s block %d: WRONG: Middle %.3g from the CPU's at %zu points (normwise), "
               "reserves %.3g from the CPU's (-1: none) and %.3g from the first step's\n",
               ode_step_name(step), blocks[b], cpu.middle, cpu.points, cpu.reserves,
               against_first);
        ++failures;
        continue;
      }
      row.step = ode_step_name(step);
      row.n = points;
      row.block_size = blocks[b];
      row.ms = ms;
      row.yardstick_ms = one.complete ? one.ms : 0.0;
      lb_emit(opt, &row);
      if (best_step == NULL || ms < best_ms) {
        best_step = ode_step_name(step);
        best_block = blocks[b];
        best_ms = ms;
      }
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
  if (best_step != NULL && (one.ran || all.ran)) {
    char vs_one[32], vs_all[32];
    FormatSpeedup(vs_one, sizeof vs_one, &one, best_ms);
    FormatSpeedup(vs_all, sizeof vs_all, &all, best_ms);
    printf("\nThe GPU's best step, %s (block %d), %.3f ms: speed-up vs 1 CPU thread (measured): "
           "%s; vs %d CPU threads (OpenMP): %s\n", best_step, best_block, best_ms, vs_one,
           all.ran ? all.threads : usable, all.ran ? vs_all : "not measured");
    printf("(host: %s, %d logical CPUs)\n", host.model, host.logical);
  }
  PrintTable(measured, &one, &all, blocks[0]);
  cudaFree(d_middle);
  free(reserves);
  free(first_reserves);
  free(h_middle);
  for (int i = 0; i < 4; ++i) free(cpu_buffers[i]);
  return failures == 0 ? 0 : 1;
}
