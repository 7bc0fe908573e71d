/* The lab worker: the one process where a lab's code runs (proxy.h says why). The test program
 * starts it through its launcher (launcher.c), which enters the sandbox (sandbox/sandbox.h)
 * and then executes this program, with the socket on descriptor 3 and its stdout and stderr on
 * pipes the test program forwards, prefixed. Everything here, the lab's code included, runs
 * sandboxed from the first instruction on. It maps the buffers each call hands it, calls the
 * lab, waits for the GPU, and answers with the status, the message, the GPU's error if any and
 * the times. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"
#include "mailbox.h"
#include "share.h"
#include "worker.h"
#include "wire.h"

#define SOCK 3
#define MAILBOX 4
#define MAX_IMPORTED 256
#define OUT_ARENA 49152

struct gl_args {
  gl_wire *request;
  int failed;
  char failure[256];
  uint64_t result;
  char text[512];
  unsigned char out[OUT_ARENA];
  size_t out_used;
  void *outs[8];
  size_t out_bytes[8];
  int nouts;
  char more[2048];
  size_t more_used;
  long launches_before; /* kernels launched before this call; -1: not counted here */
};

/* Kernels the worker has launched (launches.c, linked into the labs' workers), or -1. */
long gl_kernel_launches(void) __attribute__((weak));

static long kernel_launches(void) { return gl_kernel_launches != NULL ? gl_kernel_launches() : -1; }
/* Why the GPU memory cap (gpu_memory.c, linked into the labs' workers) refused an allocation
 * during this call, or "". */
const char *gl_gpu_memory_note(void) __attribute__((weak));
void gl_gpu_memory_clear_note(void) __attribute__((weak));

gl_status gl_on_gpu(gl_args *a, const char *fn, int needs_kernel, gl_status status) {
  if (status != GL_OK || !needs_kernel || a->launches_before < 0) return status;
  if (kernel_launches() != a->launches_before) return status;
  return gl_fail(GL_ERR_WORKER,
                 "%s launched no kernel: a GPU step computes its answer on the GPU, not on the "
                 "host",
                 fn);
}

static struct {
  uint64_t id;
  void *base;
  unsigned long call; /* the last call that used it */
} imported[MAX_IMPORTED];
static int nimported;
static unsigned long calls; /* calls so far: the current one's number */

/* Lets go of every test buffer the current call has not used. */
static void release_unused(void) {
  for (int i = 0; i < nimported;) {
    if (imported[i].call == calls) {
      ++i;
      continue;
    }
    gl_share_close(imported[i].base);
    imported[i] = imported[--nimported];
  }
}

/* Priority 101, the first a program may use. A worker started any other way than through the
 * launcher (launcher.c) refuses to run: no_new_privs, the sandbox's first layer, is the mark. */
__attribute__((constructor(101))) static void check_sealed(void) {
  struct stat st;
  if (fstat(SOCK, &st) != 0 || !S_ISSOCK(st.st_mode)) {
    fprintf(stderr,
            "This is a lab worker: the test programs start it (see grader/README.md, \"The lab "
            "worker\"). Run the lab's test program instead.\n");
    _exit(2);
  }
  const char *off = getenv("GPULABS_SANDBOX");
  if (off != NULL && strcmp(off, "off") == 0) return;
  if (!gl_sandbox_is_sealed()) {
    fprintf(stderr, "the lab worker was not started through its launcher's sandbox\n");
    _exit(3);
  }
  /* Under AddressSanitizer the launcher leaves the host-memory limit to here, counted beyond
   * the shadow memory mapped before this constructor. */
  const char *limit = getenv("GPULABS_WORKER_DATA_LIMIT");
  if (limit != NULL && gl_sandbox_limit_data(strtoull(limit, NULL, 10)) != 0) {
    fprintf(stderr, "the lab worker could not limit its memory\n");
    _exit(3);
  }
}

/* ---- Arguments ---------------------------------------------------------------------------- */

static void fail_args(gl_args *a, const char *why) {
  if (!a->failed) snprintf(a->failure, sizeof a->failure, "%s", why);
  a->failed = 1;
}

void gl_arg_value(gl_args *a, void *value, size_t bytes) {
  gl_wire_get(a->request, value, bytes);
  if (a->request->bad) fail_args(a, "the call's message was short");
}

void *gl_arg_device(gl_args *a) {
  uint32_t kind = gl_wire_get_u32(a->request);
  if (kind == 0) return NULL;
  if (kind == 2) return (void *)(uintptr_t)gl_wire_get_u64(a->request);
  gl_share_token token;
  gl_wire_get(a->request, &token, sizeof token);
  uint64_t offset = gl_wire_get_u64(a->request);
  int fd = gl_wire_get_u32(a->request) ? gl_wire_get_fd(a->request) : -1;
  if (kind != 1 || a->request->bad || offset > token.size) {
    if (fd >= 0) close(fd);
    fail_args(a, "a device argument was malformed");
    return NULL;
  }
  for (int i = 0; i < nimported; ++i) {
    if (imported[i].id == token.id) {
      imported[i].call = calls;
      if (fd >= 0) close(fd);
      return (char *)imported[i].base + offset;
    }
  }
  if (nimported == MAX_IMPORTED) release_unused(); /* the test program keeps freed buffers */
  if (nimported == MAX_IMPORTED) {
    fail_args(a, "too many test buffers at once");
    if (fd >= 0) close(fd);
    return NULL;
  }
  void *base = gl_share_import(&token, fd);
  if (base == NULL && fd < 0 && nimported > 0) {
    /* On the GPU: the test program may have freed buffers it handed over earlier and allocated
     * this one in their memory, which CUDA refuses to map twice ("resource already mapped").
     * Let go of every buffer this call has not used and try again; a later call maps a live
     * one afresh. */
    release_unused();
    base = gl_share_import(&token, fd);
  }
  if (base == NULL) {
    fail_args(a, gl_last_error());
    return NULL;
  }
  imported[nimported].id = token.id;
  imported[nimported].call = calls;
  imported[nimported++].base = base;
  return (char *)base + offset;
}

static void *host_arg(gl_args *a, size_t bytes, int out) {
  if (!gl_wire_get_u32(a->request)) return NULL;
  uint64_t sent = gl_wire_get_u64(a->request);
  if (sent != bytes) {
    fail_args(a, "a host argument has the wrong size");
    return NULL;
  }
  if (!out) {
    const void *p = gl_wire_take(a->request, bytes);
    if (p == NULL) fail_args(a, "the call's message was short");
    return (void *)p;
  }
  if (a->nouts == 8 || bytes > OUT_ARENA - a->out_used) {
    fail_args(a, "a host output is too large");
    return NULL;
  }
  void *p = a->out + a->out_used;
  memset(p, 0, bytes);
  a->out_used += (bytes + 15) & ~(size_t)15;
  if (a->out_used > OUT_ARENA) a->out_used = OUT_ARENA;
  a->outs[a->nouts] = p;
  a->out_bytes[a->nouts++] = bytes;
  return p;
}

const void *gl_arg_in(gl_args *a, size_t bytes) { return host_arg(a, bytes, 0); }
void *gl_arg_out(gl_args *a, size_t bytes) { return host_arg(a, bytes, 1); }
int gl_args_ok(const gl_args *a) { return !a->failed; }
gl_status gl_args_failure(gl_args *a) {
  return gl_fail(GL_ERR_WORKER, "the lab worker could not take the call's arguments: %s",
                 a->failure);
}
gl_status gl_unknown_call(uint32_t fn) {
  return gl_fail(GL_ERR_WORKER, "the lab worker has no function %u", (unsigned)fn);
}
void gl_result(gl_args *a, uint64_t value) { a->result = value; }
void gl_result_text(gl_args *a, const char *text) {
  snprintf(a->text, sizeof a->text, "%s", text == NULL ? "(null)" : text);
}
void gl_result_more_text(gl_args *a, const char *text) {
  size_t n = text == NULL ? 0 : strlen(text);
  if (n > 255) n = 255;
  if (a->more_used + 4 + n > sizeof a->more) return;
  uint32_t len = (uint32_t)n;
  memcpy(a->more + a->more_used, &len, 4);
  if (n > 0) memcpy(a->more + a->more_used + 4, text, n);
  a->more_used += 4 + n;
}

/* ---- The loop ----------------------------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The next call: polled for poll_us after the last answer, then slept for. 1, or 0 when the
 * test program has closed the socket (it is done, or gone), -1 on a broken message. */
static int next_request(gl_mailbox *box, uint32_t *seen, gl_wire *w, unsigned poll_us) {
  const double until = now_ms() + poll_us / 1e3;
  for (unsigned spins = 0;; ++spins) {
    int got = gl_mailbox_take(&box->request, seen, SOCK, w);
    if (got != 0) return got;
    if (now_ms() < until) {
      if (spins % 256 == 0) sched_yield();
      continue;
    }
    char byte;
    ssize_t n = recv(SOCK, &byte, 1, MSG_DONTWAIT | MSG_PEEK);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return 0;
    gl_mailbox_sleep(&box->request, *seen, 100000);
  }
}

static void forget(uint64_t id) {
  for (int i = 0; i < nimported; ++i) {
    if (imported[i].id == id) {
      gl_share_close(imported[i].base);
      imported[i] = imported[--nimported];
      return;
    }
  }
}

/* GL_PRIME: a little GPU work of the worker's own, waited for. Two processes share the GPU by
 * time slices, and switching from the test program's context to this one costs about 0.1 ms
 * (measured on an H100): the sealed timing primes the worker before each timed call, so the
 * switch is not inside the interval it times. */
static gl_status prime(void) {
  static void *scratch;
  if (scratch == NULL && cudaMalloc(&scratch, 256) != cudaSuccess) {
    scratch = NULL;
    return gl_fail(GL_ERR_CUDA, "the lab worker could not allocate 256 bytes");
  }
  cudaMemsetAsync(scratch, 0, 256, cudaStreamLegacy);
  return GL_OK;
}

static gl_wire request, reply;
static gl_args args;

int main(void) {
  gl_mailbox *box = gl_mailbox_open(MAILBOX);
  if (box == NULL) { /* the test program reports the exit; this says why */
    fprintf(stderr, "the lab worker could not map its mailbox (descriptor 4)\n");
    return 3;
  }
  uint32_t seen = 0; /* the launcher has sent the first answer, the sandbox's layers */

  cudaEvent_t done = NULL; /* the default stream's work is done */
  unsigned poll_us = 0;
  for (;;) {
    int got = next_request(box, &seen, &request, poll_us);
    if (got == 0) return 0; /* the test program is done (or gone) */
    if (got < 0) return 4;
    const double t_seen = now_ms();
    uint32_t magic = gl_wire_get_u32(&request);
    uint32_t fn = gl_wire_get_u32(&request);
    poll_us = gl_wire_get_u32(&request);
    uint32_t nforget = gl_wire_get_u32(&request);
    for (uint32_t i = 0; i < nforget && !request.bad; ++i) forget(gl_wire_get_u64(&request));
    if (magic != GL_WIRE_REQUEST || request.bad) return 4;

    ++calls;
    memset(&args, 0, offsetof(gl_args, out));
    args.nouts = 0;
    args.more_used = 0;
    args.out_used = 0;
    args.request = &request;
    args.launches_before = kernel_launches();
    if (gl_gpu_memory_clear_note != NULL) gl_gpu_memory_clear_note();
    const int on_gpu = !(fn & GL_HOST_ONLY);
    gl_clear_error();
    const double t0 = now_ms();
    gl_status status = fn == GL_PRIME  ? prime()
                       : fn == GL_PING ? GL_OK
                                       : gl_worker_dispatch(fn, &args);
    /* Two waits, timed on the host clock: the default stream's work (an event recorded on it,
     * which also waits for the blocking streams, as the next kernel on it would), then
     * everything. The second ends later only for work the call left running on a stream that
     * does not wait (the sealed timing's "not in default-stream order"). One event without
     * timing: recording a pair and reading their times cost microseconds in every interval. */
    cudaError_t err = cudaSuccess;
    double stream_ms = 0;
    if (on_gpu) {
      if (done == NULL && cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess) {
        done = NULL;
      }
      cudaError_t on_stream = done != NULL ? cudaEventRecord(done, cudaStreamLegacy) : cudaSuccess;
      if (on_stream == cudaSuccess && done != NULL) on_stream = cudaEventSynchronize(done);
      stream_ms = now_ms() - t0;
      cudaError_t synced = cudaDeviceSynchronize();
      cudaError_t last = cudaGetLastError();
      err = on_stream != cudaSuccess ? on_stream : synced != cudaSuccess ? synced : last;
#ifndef GPULABS_SIM
      if (err == cudaErrorInsufficientDriver) err = cudaErrorNoDevice;
#endif
      if (err == cudaErrorNoDevice) {
        err = cudaSuccess; /* no GPU here: the call was a host-only one (a rejected argument) */
        cudaGetLastError();
      }
    }
    const double host_ms = now_ms() - t0;
    gl_wire_close_fds(&request);
    fflush(stdout);
    fflush(stderr);

    gl_wire_reset(&reply);
    reply.call = request.call; /* the answer names its call: see the proxy's check */
    gl_wire_put_u32(&reply, GL_WIRE_REPLY);
    gl_wire_put_u32(&reply, (uint32_t)status);
    gl_wire_put_u32(&reply, (uint32_t)err);
    gl_wire_put(&reply, &stream_ms, sizeof stream_ms);
    gl_wire_put(&reply, &host_ms, sizeof host_ms);
    const size_t clocks_at = reply.size; /* filled in last, just before the answer goes */
    gl_wire_put(&reply, (double[3]){0, 0, 0}, 3 * sizeof(double));
    char message[1024] = "";
    if (status != GL_OK) {
      const char *cap = gl_gpu_memory_note != NULL ? gl_gpu_memory_note() : "";
      if (cap[0] != '\0') snprintf(message, sizeof message, "%s (%s)", gl_last_error(), cap);
      else snprintf(message, sizeof message, "%s", gl_last_error());
    }
    gl_wire_put_str(&reply, message);
    char device_text[300] = "";
    if (err != cudaSuccess) {
      snprintf(device_text, sizeof device_text, "%s (%s)", cudaGetErrorName(err),
               cudaGetErrorString(err));
    }
    gl_wire_put_str(&reply, device_text);
    gl_wire_put_u64(&reply, args.result);
    gl_wire_put_str(&reply, args.text);
    for (int i = 0; i < args.nouts; ++i) {
      gl_wire_put_u64(&reply, args.out_bytes[i]);
      gl_wire_put(&reply, args.outs[i], args.out_bytes[i]);
    }
    gl_wire_put(&reply, args.more, args.more_used);
    /* When this call was seen, began and is answered (CLOCK_MONOTONIC, the test program's clock
     * too): GPULABS_WORKER_TRACE's breakdown of a round trip. */
    double clocks[3] = {t_seen, t0, 0};
    clocks[2] = now_ms();
    if (clocks_at + sizeof clocks <= reply.size) memcpy(reply.data + clocks_at, clocks, sizeof clocks);
    if (gl_mailbox_send(&box->reply, SOCK, &reply) != 0) return 5;
  }
}

/* Under AddressSanitizer (the CPU backend's default), the leak check at exit stops the world
 * with a clone the sandbox refuses: the test programs check leaks, the worker need not. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
