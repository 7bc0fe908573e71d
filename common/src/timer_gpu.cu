// The GPU half of timer.h: CUDA events on the default stream.
#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "gpulabs/timer.h"

extern "C" gl_status gl_gpu_timer_create(gl_gpu_timer *timer) {
  if (timer == NULL) return gl_fail(GL_ERR_NULL_POINTER, "gl_gpu_timer_create: timer is NULL");
  cudaEvent_t start, stop;
  LAB_CHECK(cudaEventCreate(&start));
  LAB_CHECK(cudaEventCreate(&stop));
  timer->start = (void *)start;
  timer->stop = (void *)stop;
  return GL_OK;
}

extern "C" gl_status gl_gpu_timer_start(gl_gpu_timer *timer) {
  LAB_CHECK(cudaEventRecord((cudaEvent_t)timer->start, 0));
  return GL_OK;
}

extern "C" gl_status gl_gpu_timer_stop(gl_gpu_timer *timer, double *elapsed_ms) {
  float ms = 0.0f;
  LAB_CHECK(cudaEventRecord((cudaEvent_t)timer->stop, 0));
  LAB_CHECK(cudaEventSynchronize((cudaEvent_t)timer->stop));
  LAB_CHECK(cudaEventElapsedTime(&ms, (cudaEvent_t)timer->start, (cudaEvent_t)timer->stop));
  *elapsed_ms = (double)ms;
  return GL_OK;
}

extern "C" void gl_gpu_timer_destroy(gl_gpu_timer *timer) {
  if (timer == NULL) return;
  if (timer->start) cudaEventDestroy((cudaEvent_t)timer->start);
  if (timer->stop) cudaEventDestroy((cudaEvent_t)timer->stop);
  timer->start = timer->stop = NULL;
}
