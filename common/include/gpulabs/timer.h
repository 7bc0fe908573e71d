/* Timers: a host wall clock, a GPU event timer, and "median of N runs after warm-up". */
#ifndef GPULABS_TIMER_H
#define GPULABS_TIMER_H

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host wall clock (CLOCK_MONOTONIC), in milliseconds since an arbitrary start. */
double gl_host_now_ms(void);

/* GPU event timer: records events on the default stream; stop waits for the GPU. */
typedef struct gl_gpu_timer {
  void *start; /* cudaEvent_t, kept opaque so C code needs no CUDA headers */
  void *stop;
} gl_gpu_timer;

gl_status gl_gpu_timer_create(gl_gpu_timer *timer);
gl_status gl_gpu_timer_start(gl_gpu_timer *timer);
/* Records the stop event, waits for it, and stores the elapsed milliseconds. */
gl_status gl_gpu_timer_stop(gl_gpu_timer *timer, double *elapsed_ms);
void gl_gpu_timer_destroy(gl_gpu_timer *timer);

/* What is timed: returns GL_OK, or a failure that stops the timing. */
typedef gl_status (*gl_timed_fn)(void *context);

typedef enum gl_clock {
  GL_CLOCK_HOST, /* wall clock around each call (for CPU code) */
  GL_CLOCK_GPU   /* CUDA events around each call, on the default stream */
} gl_clock;

/* Calls fn(context) `warmup` times untimed, then `reps` times timed, and stores the median
 * in milliseconds. reps is clamped to [1, 1000]. For the benchmark and the copy bandwidth: the
 * performance tests time lab code with gl::TimeSealed (grader/shim/sealed_timing.h) instead,
 * since events on the default stream miss work a lab leaves on a stream of its own. */
gl_status gl_time_median_ms(gl_clock clock, gl_timed_fn fn, void *context, int warmup, int reps,
                            double *median_ms);

/* Median of `count` doubles (the array is sorted in place). 0 when count is 0. */
double gl_median(double *values, int count);

#ifdef __cplusplus
}
#endif
#endif
