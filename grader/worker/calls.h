/* What lab_calls.c includes: the worker's side (GL_WORKER_SIDE, in the lab worker)
 * or the proxies' side (in the test programs), and a few short forms for the proxies. */
#ifndef GPULABS_WORKER_CALLS_H
#define GPULABS_WORKER_CALLS_H

#include "worker/worker.h"

#ifndef GL_WORKER_SIDE
#include "worker/proxy.h"

/* GPULABS_WORKER_PATH: the lab's worker program, defined by the build (grader/worker). */
#define GL_BEGIN(fn, name) gl_call_begin(GPULABS_WORKER_PATH, (uint32_t)(fn), (name))
#define GL_PUT(c, value) gl_call_value((c), &(value), sizeof(value))

/* GPULABS_WORKER_EARLY=1: the worker starts before the test program touches CUDA, so that
 * cuda-gdb can follow it (docs/student-guide.md, section 9). */
__attribute__((constructor)) static void gl_start_worker_early(void) {
  gl_worker_early(GPULABS_WORKER_PATH);
}

/* The text a function returned ("?" when the worker failed: the test reports that call). */
static inline const char *gl_call_text_end(gl_call *c) {
  const char *text = gl_call_finish(c) == GL_OK ? gl_call_text(c) : "?";
  gl_call_end(c);
  return text;
}

/* The number a function returned (`failed` when the worker failed). */
static inline uint64_t gl_call_result_end(gl_call *c, uint64_t failed) {
  uint64_t value = gl_call_finish(c) == GL_OK ? gl_call_result(c) : failed;
  gl_call_end(c);
  return value;
}
#endif

#endif
