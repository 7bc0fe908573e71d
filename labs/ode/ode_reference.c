/* CPU reference of the ode lab: the sequential program (see ode_reference.h). */
#include "ode_reference.h"

#include <math.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

ode_params ode_report_params(void) {
  ode_params params = {35, 65.0, 10.0, 10, 2, 10};
  return params;
}

static gl_status check_steps(const char *caller, const char *name, int steps) {
  if (steps <= 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: %s = %d steps per year must be at least 1",
                   caller, name, steps);
  }
  if (steps > ODE_MAX_STEPS_PER_YEAR) {
    return gl_fail(GL_ERR_SIZE, "%s: %s = %d steps per year exceeds the limit %d "
                   "(ODE_MAX_STEPS_PER_YEAR)", caller, name, steps, ODE_MAX_STEPS_PER_YEAR);
  }
  return GL_OK;
}

gl_status ode_check_params(const ode_params *params, const char *caller) {
  if (caller == NULL) caller = "ode";
  if (params == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: params is NULL", caller);
  if (params->x < 0 || params->x >= ODE_OMEGA) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: x = %d must be an age in [0, %d)", caller,
                   params->x, ODE_OMEGA);
  }
  if (!isfinite(params->r) || params->r < params->x) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: r = %g must be a retirement age no lower than the insured's age x = %d",
                   caller, params->r, params->x);
  }
  if (!isfinite(params->g) || params->g < 0.0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: g = %g must be a guarantee period >= 0 years",
                   caller, params->g);
  }
  gl_status status = check_steps(caller, "h1", params->h1);
  if (status == GL_OK) status = check_steps(caller, "h2", params->h2);
  if (status == GL_OK) status = check_steps(caller, "h3", params->h3);
  return status;
}

size_t ode_year_count(const ode_params *params) { return (size_t)(ODE_OMEGA - params->x) + 1; }

size_t ode_outer_point_count(const ode_params *params) {
  return 2 * (size_t)(ODE_OMEGA - params->x) * (size_t)params->h1 + 1;
}

double ode_ref_middle_point(const ode_params *params, int j) {
  ode_point point = ode_outer_point(params->x, params->r, params->g, params->h1, j);
  int steps = ode_middle_step_count(params->h2);
  /* I(120) = 0; each RK4 step adds its kSum (the derivative does not depend on I). */
  double integral = 0.0;
  for (int i = 0; i < steps; ++i) {
    integral += ode_middle_step(point.tau, point.t, point.k, params->h2, params->h3, i);
  }
  return integral;
}

gl_status ode_ref_middle(const ode_params *params, size_t first, size_t count, double *middle) {
  gl_status status = ode_check_params(params, "ode_ref_middle");
  if (status != GL_OK) return status;
  size_t points = ode_outer_point_count(params);
  if (first > points || count > points - first) {
    return gl_fail(GL_ERR_SIZE, "ode_ref_middle: points [%zu, %zu) lie beyond the %zu points of "
                   "Outer", first, first + count, points);
  }
  if (count > 0 && middle == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "ode_ref_middle: middle is NULL");
  }
  for (size_t i = 0; i < count; ++i) middle[i] = ode_ref_middle_point(params, (int)(first + i));
  return GL_OK;
}

gl_status ode_ref_outer(const ode_params *params, const double *middle, double *reserves) {
  gl_status status = ode_check_params(params, "ode_ref_outer");
  if (status != GL_OK) return status;
  if (middle == NULL || reserves == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "ode_ref_outer: %s is NULL",
                   middle == NULL ? "middle" : "reserves");
  }
  const int x = params->x, h1 = params->h1;
  const int years = ODE_OMEGA - x;
  const int steps = years * h1; /* 120 - x is whole: every step of Outer is a full one */
  const double step = -1.0 / h1;
  double v = 0.0; /* V(120 - x) = 0: nothing is left to pay at the maximum age */
  reserves[years] = v;
  for (int i = 0; i < steps; ++i) {
    /* Step i runs from point 2i (time t) through 2i + 1 (t + h/2) to 2i + 2 (t + h). */
    double t0 = ode_outer_time(x, h1, 2 * i);
    double t_mid = ode_outer_time(x, h1, 2 * i + 1);
    double t1 = ode_outer_time(x, h1, 2 * i + 2);
    double k1 = step * ode_outer_derivative(x, t0, v, middle[2 * i]);
    double k2 = step * ode_outer_derivative(x, t_mid, v + k1 / 2.0, middle[2 * i + 1]);
    double k3 = step * ode_outer_derivative(x, t_mid, v + k2 / 2.0, middle[2 * i + 1]);
    double k4 = step * ode_outer_derivative(x, t1, v + k3, middle[2 * i + 2]);
    v = v + k1 / 6.0 + k2 / 3.0 + k3 / 3.0 + k4 / 6.0;
    if ((i + 1) % h1 == 0) reserves[years - (i + 1) / h1] = v;
  }
  return GL_OK;
}

gl_status ode_ref_reserves(const ode_params *params, double *reserves) {
  gl_status status = ode_check_params(params, "ode_ref_reserves");
  if (status != GL_OK) return status;
  if (reserves == NULL) return gl_fail(GL_ERR_NULL_POINTER, "ode_ref_reserves: reserves is NULL");
  size_t points = ode_outer_point_count(params);
  double *middle = (double *)malloc(points * sizeof *middle);
  if (middle == NULL) {
    return gl_fail(GL_ERR_NO_MEMORY, "ode_ref_reserves: no memory for %zu Middle values", points);
  }
  status = ode_ref_middle(params, 0, points, middle);
  if (status == GL_OK) status = ode_ref_outer(params, middle, reserves);
  free(middle);
  return status;
}

/* ---- The same program on several CPU threads (OpenMP) ---------------------------------------- */

int ode_ref_have_openmp(void) {
#ifdef _OPENMP
  return 1;
#else
  return 0;
#endif
}

int ode_ref_thread_count(int threads) {
#ifdef _OPENMP
  if (threads == 0) {
    int procs = omp_get_num_procs();
    return procs < 1 ? 1 : procs > ODE_MAX_THREADS ? ODE_MAX_THREADS : procs;
  }
  return threads < 1 ? 1 : threads > ODE_MAX_THREADS ? ODE_MAX_THREADS : threads;
#else
  (void)threads;
  return 1;
#endif
}

static gl_status check_threads(const char *caller, int threads) {
  if (threads < 0 || threads > ODE_MAX_THREADS) {
    return gl_fail(threads < 0 ? GL_ERR_INVALID_ARGUMENT : GL_ERR_SIZE,
                   "%s: threads = %d must be 0 (every core) or 1 to %d (ODE_MAX_THREADS)", caller,
                   threads, ODE_MAX_THREADS);
  }
  return GL_OK;
}

/* Middle at points first .. first + count - 1 into middle[0 .. count - 1] on `threads` threads
 * (already resolved), reporting to run->progress when there is one. Each point is computed
 * whole by one thread with the sequential code: the values do not depend on the threads. */
static void middle_on_threads(const ode_params *params, size_t first, size_t count, int threads,
                              ode_ref_run *run) {
  double *middle = run->middle;
  size_t done = 0;
  int stop = 0, used = 1;
#ifdef _OPENMP
  if (threads > 1 && count > 1) {
    /* One point at a time to whichever thread is free: the points cost the same on paper, but
     * the threads of a shared host do not run at the same speed. A point is tens of
     * milliseconds of work at the report's parameters: handing them out costs nothing. */
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
      used = omp_get_num_threads();
#pragma omp for schedule(dynamic, 1)
      for (size_t i = 0; i < count; ++i) {
        int stopping;
#pragma omp atomic read
        stopping = stop;
        if (stopping) continue; /* a loop of OpenMP cannot break: skip what is left */
        middle[i] = ode_ref_middle_point(params, (int)(first + i));
#pragma omp critical(ode_ref_progress)
        {
          ++done;
          if (run->progress != NULL && !stop && run->progress(done, count, run->context) != 0) {
#pragma omp atomic write
            stop = 1;
          }
        }
      }
    }
  } else
#endif
  {
    (void)threads;
    /* The sequential program's loop, in point order. */
    for (size_t i = 0; i < count && !stop; ++i) {
      middle[i] = ode_ref_middle_point(params, (int)(first + i));
      ++done;
      if (run->progress != NULL) stop = run->progress(done, count, run->context) != 0;
    }
  }
  run->threads_used = used;
  run->points_done = done;
  run->stopped = stop;
}

gl_status ode_ref_middle_threads(const ode_params *params, size_t first, size_t count, int threads,
                                 double *middle) {
  gl_status status = ode_check_params(params, "ode_ref_middle_threads");
  if (status == GL_OK) status = check_threads("ode_ref_middle_threads", threads);
  if (status != GL_OK) return status;
  size_t points = ode_outer_point_count(params);
  if (first > points || count > points - first) {
    return gl_fail(GL_ERR_SIZE, "ode_ref_middle_threads: points [%zu, %zu) lie beyond the %zu "
                   "points of Outer", first, first + count, points);
  }
  if (count > 0 && middle == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "ode_ref_middle_threads: middle is NULL");
  }
  ode_ref_run run = {0};
  run.middle = middle;
  middle_on_threads(params, first, count, ode_ref_thread_count(threads), &run);
  return GL_OK;
}

gl_status ode_ref_reserves_run(const ode_params *params, ode_ref_run *run, double *reserves) {
  gl_status status = ode_check_params(params, "ode_ref_reserves_run");
  if (status != GL_OK) return status;
  if (run == NULL || reserves == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "ode_ref_reserves_run: %s is NULL",
                   run == NULL ? "run" : "reserves");
  }
  status = check_threads("ode_ref_reserves_run", run->threads);
  if (status != GL_OK) return status;
  size_t points = ode_outer_point_count(params);
  double *kept = run->middle;
  double *middle = kept != NULL ? kept : (double *)malloc(points * sizeof *middle);
  if (middle == NULL) {
    return gl_fail(GL_ERR_NO_MEMORY, "ode_ref_reserves_run: no memory for %zu Middle values",
                   points);
  }
  for (size_t j = 0; j < points; ++j) middle[j] = NAN;
  run->middle = middle;
  middle_on_threads(params, 0, points, ode_ref_thread_count(run->threads), run);
  run->middle = kept;
  if (run->stopped) {
    for (size_t t = 0; t < ode_year_count(params); ++t) reserves[t] = NAN;
  } else {
    status = ode_ref_outer(params, middle, reserves);
  }
  if (kept == NULL) free(middle);
  return status;
}

gl_status ode_ref_reserves_threads(const ode_params *params, int threads, double *reserves) {
  gl_status status = ode_check_params(params, "ode_ref_reserves_threads");
  if (status == GL_OK) status = check_threads("ode_ref_reserves_threads", threads);
  if (status != GL_OK) return status;
  if (reserves == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "ode_ref_reserves_threads: reserves is NULL");
  }
  ode_ref_run run = {0};
  run.threads = threads;
  return ode_ref_reserves_run(params, &run, reserves);
}
