/* The test program's side of the lab worker. A test calls the lab's API (reduce_int, ...) as
 * before; in the test program those names are proxies (lab_calls.c) that start the lab worker
 * on first use, hand it the call's device buffers and arguments, and return what it answered.
 * The lab's code runs only in the worker: nothing it does can print a verdict, exit the test,
 * touch a file, or reach a private buffer (the allocations calls handed it are all it maps; on
 * the GPU an allocation is a slab of the test's shared buffers: grader/README.md, "The lab
 * worker").
 *
 * A proxy writes its arguments in the order the worker's dispatcher reads them:
 *   gl_call *c = gl_call_begin(WORKER, FN_REDUCE_INT, "reduce_int");
 *   gl_call_value(c, &op, sizeof op);
 *   gl_call_device(c, d_in);
 *   ...
 *   return gl_call_status(c);
 * Calls are serialised (one worker per test program). */
#ifndef GPULABS_WORKER_PROXY_H
#define GPULABS_WORKER_PROXY_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gl_call gl_call;

/* Starts a call of function `fn` (called `name` in messages) of the lab whose worker is `worker` (a path; the environment
 * variable GPULABS_LAB_WORKER replaces it, as the grader does). */
gl_call *gl_call_begin(const char *worker, uint32_t fn, const char *name);
void gl_call_value(gl_call *c, const void *value, size_t bytes);
/* A device pointer: NULL, a pointer into a buffer of the test program (handed over), or any
 * other value (passed as it is: the worker cannot use it, as a GPU could not). */
void gl_call_device(gl_call *c, const void *ptr);
/* Host memory the call reads (NULL stays NULL). */
void gl_call_in(gl_call *c, const void *host, size_t bytes);
/* Host memory the call writes, copied back after it (NULL stays NULL). */
void gl_call_out(gl_call *c, void *host, size_t bytes);
/* Sends the call, waits for the answer (forwarding what the worker prints), copies the outputs
 * back, and returns the lab's status with its message in gl_last_error(). GL_ERR_WORKER when the
 * worker could not start, died, or answered nonsense, with the reason. */
gl_status gl_call_finish(gl_call *c);
/* After gl_call_finish: the number and the text the function returned (step names, sizes).
 * The text stays valid for the life of the process. */
uint64_t gl_call_result(gl_call *c);
const char *gl_call_text(gl_call *c);
/* After gl_call_finish: the next string the dispatcher appended to its answer ("" at the end). */
const char *gl_call_next_text(gl_call *c);
/* Ends the call (releases the lock gl_call_begin took). */
void gl_call_end(gl_call *c);
/* gl_call_finish and gl_call_end: what most proxies return. */
gl_status gl_call_status(gl_call *c);

/* The worker's own view of the last call: its default-stream time (events around the call)
 * and its host time (call plus cudaDeviceSynchronize). 0 when no call ran in a worker. */
int gl_worker_last_timing(double *stream_ms, double *host_ms);
/* Whether a worker is running in this process. */
int gl_worker_running(void);
/* Has the running worker do a little GPU work and wait for it: the GPU then runs the worker's
 * context, and a call timed right after does not pay the switch from this process's (about
 * 0.1 ms on an H100). GL_OK when no worker runs. The next call skips this process's
 * synchronisation before it is sent (it synchronised for the priming): make it right after,
 * with no GPU work of this process in between. */
gl_status gl_worker_prime(void);
/* One round trip to the worker that runs nothing there, not even on the GPU (the worker is
 * started first when none runs yet). The sealed timing makes one inside each of the yardstick's
 * timed intervals, so that both sides of a ratio pay what the lab's side pays for running
 * apart: about 6 us on an H100. GL_OK at once when this program has no lab proxy. */
gl_status gl_worker_ping(void);
/* Timed loops turn this on (1) around their calls and off (0) after: the worker then polls for
 * the next call instead of sleeping, so that waking it up is not part of a timed interval, and
 * its output is forwarded at the next untimed call instead of after each timed one. With
 * GPULABS_WORKER_TRACE set, turning it off prints where the timed calls' microseconds went. */
void gl_worker_set_timing(int on);
/* Stops the worker (if any) and forgets why an earlier one failed: the next call starts a new
 * one. For tests that run several workers in one process. */
void gl_worker_stop(void);
/* The start of a test case (the shim calls it; a test program may run many, as the grader's
 * shards do): a worker that ended, broke the protocol or reported a GPU error is let go, so the
 * test gets a fresh one. On the CPU backend every test case gets a fresh worker, so that its
 * thread schedule replays as when the test runs alone. */
void gl_worker_test_start(void);
/* Each lab's proxy calls this from a constructor (calls.h): `path` is the worker that
 * gl_worker_ping starts when none runs yet. Debugging: when GPULABS_WORKER_EARLY is set (and
 * not "0"), it also starts the worker now, before this process touches CUDA: cuda-gdb follows a
 * child (follow-fork-mode child) only of a process that has not. On the CPU backend every test
 * case gets a fresh worker, so that is not needed there. */
void gl_worker_early(const char *path);
/* A GPU error the worker reported after a call (its cudaDeviceSynchronize or
 * cudaGetLastError), taken once: 0 when none. gltest's DeviceOk reports it. */
int gl_worker_take_device_error(char *text, size_t size);

#ifdef __cplusplus
}
#endif
#endif
