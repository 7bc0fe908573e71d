/* labbench: one benchmark program for every lab. Each lab supplies one function,
 * labbench_<lab>(), in labs/<lab>/<lab>_bench.cu; labbench.c parses the options, names the GPU,
 * measures the copy bandwidth once, and calls it. */
#ifndef GPULABS_LABBENCH_H
#define GPULABS_LABBENCH_H

#include <stddef.h>
#include <stdio.h>

#include "gpulabs/bench.h"
#include "gpulabs/device.h"
#include "gpulabs/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LB_MAX_SIZES 64
#define LB_MAX_BLOCKS 16

typedef struct lb_options {
  const char *step;           /* run only this step (its number or name); NULL: every step */
  size_t sizes[LB_MAX_SIZES]; /* n to measure; n_sizes == 0: the lab's default */
  int n_sizes;
  int blocks[LB_MAX_BLOCKS];  /* block sizes; n_blocks == 0: the lab's default */
  int n_blocks;
  int warmup;                 /* untimed calls before timing */
  int reps;                   /* timed calls; the median is reported */
  gl_device_info device;
  double copy_gbps;           /* device-to-device copy, measured at the start of the run */
  FILE *csv;                  /* NULL: no CSV */
  char date[32];              /* YYYY-MM-DD of the run, for the CSV */
  double cpu_limit_s;         /* ode: --cpu-limit, seconds each CPU run may take before it is
                               * stopped; < 0: no limit (the default), 0: no CPU runs */
} lb_options;

/* Prints the row to the terminal table and the CSV. */
void lb_emit(const lb_options *opt, const gl_bench_row *row);

/* A progress line on stderr ("[ 3/24] scan 4-shared n=16777216"), erased when done. */
void lb_progress(int done, int total, const char *what);

/* How many copies of an input of `bytes` to rotate through so that the timed loop does not
 * measure L2 hits: enough to exceed twice the L2 size, at least 1, at most 64. */
int lb_rotation(const lb_options *opt, size_t bytes);

/* The kernels one call of fn launches (the device synchronised before and after), counted by
 * CUPTI's launch callbacks; -1 where this build has no CUPTI, where another tool holds it
 * (compute-sanitizer, ncu) or where the call failed. For a sort whose every kernel reads and
 * writes the whole array (bitonic sort's steps), the passes its method makes, so that its limit
 * is passes x bytes a pass at the copy bandwidth, whatever the step's plan. */
long lb_count_launches(gl_timed_fn fn, void *context);

/* True when `step` (a number or a name) is selected by opt->step. */
int lb_step_selected(const lb_options *opt, int number, const char *name);

/* Each lab's entry point: returns 0 on success, non-zero (after printing why) on failure. */
/* Each lab's benchmark, labs/<lab>/<lab>_bench.cu: labbench_<lab>. */
#define LB_LAB(lab) int labbench_##lab(const lb_options *opt);
#include "labbench_labs.h"
#undef LB_LAB

#ifdef __cplusplus
}
#endif
#endif
