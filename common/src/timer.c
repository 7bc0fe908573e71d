#define _POSIX_C_SOURCE 200809L
#include "gpulabs/timer.h"

#include <stdlib.h>
#include <time.h>

double gl_host_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double gl_median(double *values, int count) {
  if (count <= 0) {
    return 0.0;
  }
  qsort(values, (size_t)count, sizeof *values, compare_doubles);
  if (count % 2 == 1) {
    return values[count / 2];
  }
  return 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

gl_status gl_time_median_ms(gl_clock clock, gl_timed_fn fn, void *context, int warmup, int reps,
                            double *median_ms) {
  if (fn == NULL || median_ms == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "gl_time_median_ms: fn and median_ms must not be NULL");
  }
  if (reps < 1) reps = 1;
  if (reps > 1000) reps = 1000;
  for (int i = 0; i < warmup; ++i) {
    gl_status status = fn(context);
    if (status != GL_OK) return status;
  }
  double times[1000];
  gl_gpu_timer timer = {0, 0};
  if (clock == GL_CLOCK_GPU) {
    gl_status status = gl_gpu_timer_create(&timer);
    if (status != GL_OK) return status;
  }
  gl_status status = GL_OK;
  for (int i = 0; i < reps && status == GL_OK; ++i) {
    if (clock == GL_CLOCK_GPU) {
      status = gl_gpu_timer_start(&timer);
      if (status == GL_OK) status = fn(context);
      if (status == GL_OK) status = gl_gpu_timer_stop(&timer, &times[i]);
    } else {
      double start = gl_host_now_ms();
      status = fn(context);
      times[i] = gl_host_now_ms() - start;
    }
  }
  if (clock == GL_CLOCK_GPU) gl_gpu_timer_destroy(&timer);
  if (status != GL_OK) return status;
  *median_ms = gl_median(times, reps);
  return GL_OK;
}
