/* Status codes every lab API returns, with a detail message that names the cause. */
#ifndef GPULABS_STATUS_H
#define GPULABS_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gl_status {
  GL_OK = 0,
  GL_ERR_NOT_IMPLEMENTED, /* a stub the student has not filled in yet */
  GL_ERR_NULL_POINTER,    /* a required pointer was NULL */
  GL_ERR_SIZE,            /* n (or another size) is beyond what the lab allows */
  GL_ERR_INVALID_ARGUMENT,/* any other bad argument: block size, step, bit range, ... */
  GL_ERR_CUDA,            /* a CUDA call or a kernel launch failed */
  GL_ERR_NO_MEMORY,       /* a host or device allocation failed */
  GL_ERR_WORKER           /* the lab worker process died, hung or broke the protocol */
} gl_status;

/* "GL_OK", "GL_ERR_NOT_IMPLEMENTED", ... */
const char *gl_status_name(gl_status status);

/* Records why the last call failed (printf-style) and returns `status`, so a lab can write
 *   return gl_fail(GL_ERR_SIZE, "reduce: n = %zu exceeds the limit %zu", n, limit);
 * The message is kept per thread. */
gl_status gl_fail(gl_status status, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Returns `status` with the message "not implemented: <what>" (what a stub returns). */
gl_status gl_not_implemented(const char *what);

/* The message of the last gl_fail on this thread ("" when there was none). */
const char *gl_last_error(void);

/* Given code calls this after each kernel it launches itself (a check of its arguments on the
 * GPU, say), so that the lab worker judges a step's call by the step's own kernels: a call
 * whose only kernel is the given code's computed its answer on the host (grader/worker/
 * launches.c). Outside the worker it does nothing. */
void gl_given_kernel_launched(void);

/* Forgets the last message (tests call it before each call they check). */
void gl_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
