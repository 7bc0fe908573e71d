/* CPU reference for the ode lab: the sequential C program the lab parallelises.
 *
 * The reserve V(t) of a collective spouse pension, by three nested RK4 solvers (Outer over the
 * calendar time t, Middle over the spouse's age eta, Inner over the time s since the insured's
 * death). The model's functions live in ode_model.h, shared with the GPU code.
 *
 * Middle's value at Outer's evaluation point j does not depend on the reserve, so the program
 * computes Middle once at each of the 2 * (120 - x) * h1 + 1 distinct points (Outer's RK4 needs
 * it at t, t + h/2 and t + h of every step) and then runs Outer's recurrence over those values.
 * The *_threads functions at the end share those points among CPU threads (OpenMP), to the bit
 * the same results.
 */
#ifndef GPULABS_REFERENCE_ODE_H
#define GPULABS_REFERENCE_ODE_H

#include <stddef.h>

#include "ode_model.h"
#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest step count per year the lab accepts, at every level (GL_ERR_SIZE beyond it).
 * It keeps the work and the memory of one run bounded: at 50 the CPU program would take days. */
#define ODE_MAX_STEPS_PER_YEAR 50

typedef struct ode_params {
  int x;    /* the insured's age today, in whole years: 0 <= x < 120 */
  double r; /* retirement age: r >= x */
  double g; /* guarantee period in years: g >= 0 */
  int h1;   /* Outer's steps per year, 1 .. ODE_MAX_STEPS_PER_YEAR */
  int h2;   /* Middle's steps per year, likewise */
  int h3;   /* Inner's steps per year, likewise */
} ode_params;

/* The report's profiled run: x = 35, r = 65, g = 10, h1 = 10, h2 = 2, h3 = 10. */
ode_params ode_report_params(void);

/* GL_OK, or GL_ERR_NULL_POINTER / GL_ERR_INVALID_ARGUMENT / GL_ERR_SIZE with a message that
 * starts with `caller` and names the bad parameter and its value, e.g.
 *   "ode_run: r = 30 is below the insured's age x = 35" */
gl_status ode_check_params(const ode_params *params, const char *caller);

/* Whole years with a reserve: t = 0 .. 120 - x, so 121 - x values. */
size_t ode_year_count(const ode_params *params);

/* Outer's distinct evaluation points, where Middle is needed: 2 * (120 - x) * h1 + 1. */
size_t ode_outer_point_count(const ode_params *params);

/* Middle's value at Outer's point j (0 <= j < ode_outer_point_count), the sequential way: one
 * loop over Middle's 119 * h2 steps, three Inner calls each, summed in step order.
 * params must be valid (ode_check_params). */
double ode_ref_middle_point(const ode_params *params, int j);

/* middle[i] = Middle at Outer's point first + i, for i < count (host array). */
gl_status ode_ref_middle(const ode_params *params, size_t first, size_t count, double *middle);

/* Outer's RK4 recurrence on the host, given Middle at all ode_outer_point_count(params) points
 * (host array): reserves[t] = V(t) for t = 0 .. 120 - x (host array of ode_year_count values).
 * The GPU steps call it too, on the Middle values they computed. */
gl_status ode_ref_outer(const ode_params *params, const double *middle, double *reserves);

/* The whole program: Middle at every point, then Outer. reserves as in ode_ref_outer. */
gl_status ode_ref_reserves(const ode_params *params, double *reserves);

/* ---- The same program on several CPU threads (OpenMP) ------------------------------------------
 *
 * The loop OuterPar parallelises: Middle at Outer's points, which are independent of each other
 * and of the reserve. The threads share out the points (one at a time, dynamically: a thread
 * that finishes a point takes the next one not yet started), and each point is computed by one
 * thread with ode_ref_middle_point, the sequential code, into its own slot. Outer's recurrence,
 * step after step, stays on one thread. So the results are those of the sequential program to
 * the bit, whatever the number of threads or the order in which the points finish. */

/* The largest thread count the *_threads functions accept (GL_ERR_SIZE beyond it). */
#define ODE_MAX_THREADS 4096

/* 1 when the reference was compiled with OpenMP; 0 when not: then every *_threads function
 * runs on one thread whatever it is asked (ode_reference --threads says so). */
int ode_ref_have_openmp(void);

/* How many threads a run asked for `threads` uses: `threads` itself, or for 0 every core this
 * process may run on (OpenMP's omp_get_num_procs: the CPUs of its affinity mask); always 1
 * without OpenMP. threads must be 0 .. ODE_MAX_THREADS. */
int ode_ref_thread_count(int threads);

/* ode_ref_middle on ode_ref_thread_count(threads) threads: the same values, bit for bit. */
gl_status ode_ref_middle_threads(const ode_params *params, size_t first, size_t count, int threads,
                                 double *middle);

/* ode_ref_reserves on ode_ref_thread_count(threads) threads: the same values, bit for bit. */
gl_status ode_ref_reserves_threads(const ode_params *params, int threads, double *reserves);

/* A whole run with progress reports, a way to stop it, and Middle's values kept (the
 * benchmark's). Fill the inputs, zero the rest. */
typedef struct ode_ref_run {
  int threads; /* in: 0 = every core, 1 = the sequential loop, N = N threads */
  /* in, optional: called after each Middle point with the points done so far and the total, by
   * one thread at a time (the thread that finished the point). Non-zero stops the run: points
   * not yet started are skipped, Outer does not run and the reserves are left NaN. */
  int (*progress)(size_t done, size_t total, void *context);
  void *context;
  double *middle;     /* in, optional: Middle at every point (ode_outer_point_count values);
                       * the points a stopped run skipped are left NaN */
  int threads_used;   /* out: the threads the run had (OpenMP may give fewer than asked) */
  size_t points_done; /* out: Middle points computed: all of them, unless stopped */
  int stopped;        /* out: 1 when progress stopped the run */
} ode_ref_run;

/* The whole program as `run` says. reserves as in ode_ref_outer. */
gl_status ode_ref_reserves_run(const ode_params *params, ode_ref_run *run, double *reserves);

#ifdef __cplusplus
}
#endif
#endif
