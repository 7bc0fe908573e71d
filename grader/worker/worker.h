/* The lab worker's side of a call: a lab's dispatcher (lab_calls.c, built with
 * GL_WORKER_SIDE) reads the arguments in the order its proxy wrote them and calls the lab.
 * The worker itself (worker_main.c) runs sandboxed from its first instruction (launcher.c
 * enters the sandbox, then executes it) and answers calls until the test program closes the
 * socket. */
#ifndef GPULABS_WORKER_WORKER_H
#define GPULABS_WORKER_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A function number with this bit set runs on the host only (names, sizes): the worker does
 * not touch the GPU around it. */
#define GL_HOST_ONLY 0x8000u
/* Function 0 is the worker's own: GPU work that brings its context onto the GPU (proxy.h). */
#define GL_PRIME 0u
/* ... and with the host-only bit, an answer at once (gl_worker_ping): the round trip alone. */
#define GL_PING (GL_PRIME | GL_HOST_ONLY)

typedef struct gl_args gl_args;

void gl_arg_value(gl_args *a, void *value, size_t bytes);
void *gl_arg_device(gl_args *a);
/* Host input of exactly `bytes` bytes (NULL when the caller passed NULL). */
const void *gl_arg_in(gl_args *a, size_t bytes);
/* Host output of exactly `bytes` bytes, zeroed, sent back after the call (NULL likewise). */
void *gl_arg_out(gl_args *a, size_t bytes);
/* Whether every argument arrived (a buffer that could not be mapped, a short message); when
 * not, gl_args_failure returns GL_ERR_WORKER with the reason. */
int gl_args_ok(const gl_args *a);
gl_status gl_args_failure(gl_args *a);
/* What a function returns besides a status: a number, a text, and more texts after the
 * outputs (gl_call_result, gl_call_text, gl_call_next_text on the other side). */
void gl_result(gl_args *a, uint64_t value);
void gl_result_text(gl_args *a, const char *text);
void gl_result_more_text(gl_args *a, const char *text);

/* What a GPU function's dispatcher returns: `status`, unless the call succeeded where it needed
 * the GPU (`needs_kernel`: two elements or more, say) and launched no kernel: its answer was
 * computed on the host, and the call fails, naming `fn`. Calls that fail, and calls too small to
 * need a kernel, pass through as they are. */
gl_status gl_on_gpu(gl_args *a, const char *fn, int needs_kernel, gl_status status);

#define GL_ARG(a, var) gl_arg_value((a), &(var), sizeof(var))
#define GL_ARGS_CHECK(a)                             \
  do {                                               \
    if (!gl_args_ok(a)) return gl_args_failure(a);   \
  } while (0)

/* Defined by lab_calls.c, built for the lab: runs function `fn` (as its proxy numbered it). */
gl_status gl_worker_dispatch(uint32_t fn, gl_args *a);
/* What a dispatcher returns for a number it does not know. */
gl_status gl_unknown_call(uint32_t fn);

#ifdef __cplusplus
}
#endif
#endif
