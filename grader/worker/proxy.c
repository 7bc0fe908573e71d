/* The test program's side of the lab worker (proxy.h). */
#define _GNU_SOURCE
#include "proxy.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mailbox.h"
#include "share.h"
#include "worker.h"
#include "wire.h"

extern char **environ;

#define MAX_OUTS 8
#define MAX_SHARED 64          /* allocations remembered before the dead ones are swept */
#define FORWARD_LIMIT (1 << 20) /* bytes of the worker's output forwarded per test program */
#define PREFIX "[lab worker] "
#define IDLE_POLL_US 200      /* how long the worker polls for the next call, between tests */
#define TIMING_POLL_US 50000  /* ... and in a timed loop (gl_worker_set_timing) */

/* The proxies are polled for this long before the test program sleeps on the socket: a short
 * call then costs no wake-up (timed calls of 0.1 ms would otherwise carry one). */
#ifdef GPULABS_SIM
#define REPLY_SPIN_US 0 /* the CPU backend needs the cores for its kernels */
#else
#define REPLY_SPIN_US 300
#endif
/* In a timed loop the test program spins for the whole call: a timed call that outlasts
 * REPLY_SPIN_US would otherwise carry a wake-up that the yardstick's side never pays. */
#ifdef GPULABS_SIM
#define TIMING_SPIN_US 0
#else
#define TIMING_SPIN_US 200000
#endif

struct gl_call {
  gl_wire request, reply;
  void *outs[MAX_OUTS];
  size_t out_bytes[MAX_OUTS];
  int nouts;
  uint32_t fn;
  const char *name;
  double t_begin;
  uint64_t result;
  const char *text;
  int broken; /* an argument could not be sent */
};

typedef struct shared_entry {
  gl_share_token token;
  uintptr_t base;
} shared_entry;

typedef struct pending_output {
  int fd;       /* the pipe from the worker, -1 once closed */
  int to;       /* 1 or 2: where its lines go */
  char line[1024];
  size_t used;
} pending_output;

static struct {
  pthread_mutex_t lock;
  gl_call call;
  pid_t pid;
  int sock;
  gl_mailbox *box;
  uint32_t reply_seen;
  pending_output out[2];
  size_t forwarded;
  char failure[512]; /* why the worker is unusable, once it is */
  shared_entry shared[MAX_SHARED];
  int nshared;
  uint64_t forget[MAX_SHARED];
  int nforget;
  unsigned poll_us; /* how long the worker polls for the next call before it sleeps */
  int timing;       /* gl_worker_set_timing */
  int timed;
  double stream_ms, host_ms;
  int device_error;
  char device_error_text[512];
  int sticky; /* the worker reported a GPU error: its context may be unusable */
  int primed; /* gl_worker_prime just answered: nothing of this process's runs on the GPU */
  const char *path; /* the lab's worker program, as its proxy named it (gl_worker_early) */
} g = {PTHREAD_MUTEX_INITIALIZER, .pid = -1, .sock = -1, .out = {{.fd = -1}, {.fd = -1}},
       .poll_us = IDLE_POLL_US};

/* ---- What the worker prints -------------------------------------------------------------- */

static void write_all(int fd, const char *text, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, text, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    text += w;
    n -= (size_t)w;
  }
}

/* One line, prefixed, so nothing the lab prints can pass for a line of the test program. */
static void emit_line(pending_output *o) {
  if (o->used == 0) return;
  fflush(stdout);
  fflush(stderr);
  if (g.forwarded < FORWARD_LIMIT) {
    char buf[sizeof o->line + sizeof PREFIX + 2];
    int n = snprintf(buf, sizeof buf, PREFIX "%.*s\n", (int)o->used, o->line);
    write_all(o->to, buf, (size_t)n);
    g.forwarded += (size_t)n;
    if (g.forwarded >= FORWARD_LIMIT) {
      const char *note = PREFIX "(more output dropped: 1 MiB is forwarded per test program)\n";
      write_all(o->to, note, strlen(note));
    }
  }
  o->used = 0;
}

static void drain(pending_output *o) {
  char buf[4096];
  for (;;) {
    ssize_t n = read(o->fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      emit_line(o);
      close(o->fd);
      o->fd = -1;
      return;
    }
    for (ssize_t i = 0; i < n; ++i) {
      char ch = buf[i];
      if (ch == '\n' || o->used == sizeof o->line) emit_line(o);
      if (ch != '\n') o->line[o->used++] = ch == '\r' ? ' ' : ch;
    }
  }
}

static void drain_all(int flush_partial) {
  for (int i = 0; i < 2; ++i) {
    if (g.out[i].fd >= 0) drain(&g.out[i]);
    if (flush_partial) emit_line(&g.out[i]);
  }
}

/* ---- The worker's life -------------------------------------------------------------------- */

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Why the worker is gone ("killed by signal 11 (Segmentation fault)"), once it is. */
static void describe_end(char *text, size_t size) {
  int status = 0;
  pid_t r = 0;
  for (int i = 0; i < 200 && r == 0; ++i) { /* it closed the socket: give it a second to end */
    r = waitpid(g.pid, &status, WNOHANG);
    if (r == 0) nanosleep(&(struct timespec){0, 5000000}, NULL);
  }
  if (r != g.pid) {
    kill(g.pid, SIGKILL);
    r = waitpid(g.pid, &status, 0);
  }
  if (r == g.pid && WIFEXITED(status)) {
    snprintf(text, size, "exited with status %d", WEXITSTATUS(status));
  } else if (r == g.pid && WIFSIGNALED(status)) {
    snprintf(text, size, "was killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  } else {
    snprintf(text, size, "ended");
  }
  g.pid = -1;
}

static void stop_worker(const char *why) {
  if (g.sock >= 0) close(g.sock);
  g.sock = -1;
  if (g.pid > 0) {
    kill(g.pid, SIGKILL);
    waitpid(g.pid, NULL, 0);
    g.pid = -1;
  }
  drain_all(1);
  if (why != NULL && g.failure[0] == '\0') snprintf(g.failure, sizeof g.failure, "%s", why);
}

/* A call's number: random, so that the worker cannot answer a call before it has read it (the
 * mailbox is its memory too: a reply written ahead would end the next timed call at once). Drawn
 * in batches, outside no interval in particular: a draw costs less than a microsecond. */
static uint64_t next_call_number(void) {
  static uint64_t batch[64];
  static size_t left = 0;
  if (left == 0) {
    ssize_t got = getrandom(batch, sizeof batch, 0);
    if (got != (ssize_t)sizeof batch) { /* no getrandom: still never 0, never repeated here */
      static uint64_t counter = 0;
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      for (size_t i = 0; i < 64; ++i) {
        batch[i] = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (++counter << 40);
      }
    }
    left = 64;
  }
  uint64_t number = batch[--left];
  return number != 0 ? number : 1;
}

/* Waits for the worker's answer in the mailbox: spins first (a short call then costs no
 * wake-up), then sleeps on it; meanwhile forwards its output and notices its end (the socket
 * closes). 1, or 0 with the reason in g.failure. */
static int await_reply(gl_wire *w, const char *during) {
  const double spin_until = now_us() + (g.timing ? TIMING_SPIN_US : REPLY_SPIN_US);
  for (unsigned spins = 0;; ++spins) {
    int got = gl_mailbox_take(&g.box->reply, &g.reply_seen, g.sock, w);
    if (got == 1) return 1;
    if (got < 0) {
      char why[300];
      snprintf(why, sizeof why, "the lab worker broke the protocol during %s", during);
      stop_worker(why);
      return 0;
    }
    const int spinning = now_us() < spin_until;
    if (spinning && spins % 64 != 0) continue;
    struct pollfd p[3] = {{g.sock, POLLIN, 0}, {g.out[0].fd, POLLIN, 0}, {g.out[1].fd, POLLIN, 0}};
    if (poll(p, 3, 0) > 0) {
      if (p[1].revents) drain(&g.out[0]);
      if (p[2].revents) drain(&g.out[1]);
      if (p[0].revents) { /* the worker sends nothing on the socket now: it ended */
        if (gl_mailbox_take(&g.box->reply, &g.reply_seen, g.sock, w) == 1) return 1;
        char end[128];
        close(g.sock);
        g.sock = -1;
        drain_all(1);
        describe_end(end, sizeof end);
        char why[400];
        snprintf(why, sizeof why, "the lab worker %s during %s", end, during);
        stop_worker(why);
        return 0;
      }
    }
    if (!spinning) gl_mailbox_sleep(&g.box->reply, g.reply_seen, 2000);
  }
}

/* The worker's environment: this program's, less the run's seed on the GPU, where the timed
 * inputs are drawn from it (a worker that knew it could compute them ahead of its timed calls).
 * The CPU backend keeps it: it replays the thread schedule of the kernels the worker runs. The
 * array is freed by the caller, its strings are environ's; NULL when out of memory. */
static char **worker_environment(void) {
  size_t n = 0;
  while (environ[n] != NULL) ++n;
  char **env = malloc((n + 1) * sizeof *env);
  if (env == NULL) return NULL;
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
#ifndef GPULABS_SIM
    if (strncmp(environ[i], "GPULABS_SEED=", 13) == 0) continue;
#endif
    env[kept++] = environ[i];
  }
  env[kept] = NULL;
  return env;
}

static int start_worker(const char *path) {
  const char *override = getenv("GPULABS_LAB_WORKER");
  if (override != NULL && override[0] != '\0') path = override;
  int sv[2], outp[2], errp[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0 ||
      pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
    snprintf(g.failure, sizeof g.failure, "could not start the lab worker: %s", strerror(errno));
    return 0;
  }
  /* A fresh mailbox for each worker. */
  if (g.box != NULL) munmap(g.box, sizeof *g.box);
  int box_fd = -1;
  g.box = gl_mailbox_create(&box_fd);
  if (g.box == NULL) {
    snprintf(g.failure, sizeof g.failure, "could not create the worker's mailbox: %s",
             strerror(errno));
    return 0;
  }
  g.reply_seen = 0;
  /* Only this end: the worker's writes block when the pipe is full, and nothing is lost. */
  fcntl(outp[0], F_SETFL, O_NONBLOCK);
  fcntl(errp[0], F_SETFL, O_NONBLOCK);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
  posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 3);
  posix_spawn_file_actions_adddup2(&fa, box_fd, 4);
  posix_spawn_file_actions_addclosefrom_np(&fa, 5);
  /* The launcher enters the sandbox and then executes the worker (launcher.c): nothing of the
   * lab's code runs before the sandbox is in place. */
#if defined(__SANITIZE_ADDRESS__)
  char *argv[] = {(char *)GPULABS_WORKER_LAUNCHER, (char *)path, "--data-limit-in-worker", NULL};
#else
  char *argv[] = {(char *)GPULABS_WORKER_LAUNCHER, (char *)path, NULL};
#endif
  pid_t pid = -1;
  char **env = worker_environment();
  int rc = posix_spawn(&pid, GPULABS_WORKER_LAUNCHER, &fa, NULL, argv, env != NULL ? env : environ);
  free(env);
  posix_spawn_file_actions_destroy(&fa);
  close(box_fd);
  close(sv[1]);
  close(outp[1]);
  close(errp[1]);
  g.sock = sv[0];
  g.out[0] = (pending_output){.fd = outp[0], .to = 1};
  g.out[1] = (pending_output){.fd = errp[0], .to = 2};
  if (rc != 0) {
    close(g.sock);
    g.sock = -1;
    drain_all(1);
    snprintf(g.failure, sizeof g.failure, "could not start the lab worker %s: %s", path,
             strerror(rc));
    return 0;
  }
  g.pid = pid;
  gl_wire *hello = &g.call.reply;
  if (!await_reply(hello, "its start")) return 0;
  char layers[512];
  uint32_t magic = gl_wire_get_u32(hello);
  int32_t ok = (int32_t)gl_wire_get_u32(hello);
  gl_wire_get_str(hello, layers, sizeof layers);
  gl_wire_close_fds(hello);
  if (magic != GL_WIRE_HELLO || hello->bad) {
    stop_worker("the lab worker broke the protocol at its start");
    return 0;
  }
  if (!ok) {
    char why[700];
    snprintf(why, sizeof why, "the lab worker could not enter its sandbox: %s", layers);
    stop_worker(why);
    return 0;
  }
  /* Once per test program: which layers sealed the worker (grader/README.md). */
  fflush(stdout);
  printf("[ gpulabs  ] lab worker %d, sandbox: %s\n", (int)pid, layers);
  fflush(stdout);
  return 1;
}

/* ---- GPULABS_WORKER_TRACE: where a timed call's microseconds go ---------------------------- */

/* The parts of each timed call's round trip, in microseconds, from the two processes' shared
 * monotonic clock; printed (percentiles) when a timed loop ends, outside every interval. */
#define TRACE_PARTS 7
#define TRACE_CALLS 1024
static const char *const trace_names[TRACE_PARTS] = {
    "arguments packed", "request seen by the worker", "worker until the call",
    "the call, synchronised", "worker until the answer", "answer seen here", "answer read"};
static double trace[TRACE_CALLS][TRACE_PARTS];
static int traced;

static void trace_add(const double *parts) {
  static int on = -1;
  if (on < 0) on = getenv("GPULABS_WORKER_TRACE") != NULL;
  if (on && traced < TRACE_CALLS) memcpy(trace[traced++], parts, sizeof trace[0]);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void trace_print(void) {
  if (traced == 0) return;
  double column[TRACE_CALLS];
  fprintf(stderr, "worker trace: %d timed calls, microseconds (p10 / median / p90):\n", traced);
  for (int p = 0; p < TRACE_PARTS; ++p) {
    for (int i = 0; i < traced; ++i) column[i] = trace[i][p];
    qsort(column, (size_t)traced, sizeof column[0], by_value);
    fprintf(stderr, "worker trace:   %-28s %8.2f %8.2f %8.2f\n", trace_names[p],
            column[traced / 10], column[traced / 2], column[traced * 9 / 10]);
  }
  traced = 0;
}

/* ---- Calls -------------------------------------------------------------------------------- */

/* Allocations freed since they were handed over: the worker lets go of them with the next call. */
static void sweep_shared(void) {
  int kept = 0;
  for (int i = 0; i < g.nshared; ++i) {
    if (gl_share_alive(&g.shared[i].token, g.shared[i].base)) {
      g.shared[kept++] = g.shared[i];
    } else if (g.nforget < MAX_SHARED) {
      g.forget[g.nforget++] = g.shared[i].token.id;
    }
  }
  g.nshared = kept;
  if (g.nshared >= MAX_SHARED) g.nshared = 0; /* all alive: the worker keeps them mapped */
}

gl_call *gl_call_begin(const char *worker, uint32_t fn, const char *name) {
  pthread_mutex_lock(&g.lock);
  gl_call *c = &g.call;
  gl_wire_reset(&c->request);
  c->nouts = 0;
  c->fn = fn;
  c->name = name;
  c->t_begin = now_us();
  c->result = 0;
  c->text = "";
  c->broken = 0;
  if (g.sock < 0 && g.failure[0] == '\0') start_worker(worker);
  gl_wire_reset(&c->request);
  gl_wire_put_u32(&c->request, GL_WIRE_REQUEST);
  gl_wire_put_u32(&c->request, fn);
  gl_wire_put_u32(&c->request, g.poll_us);
  if (g.nshared >= MAX_SHARED) sweep_shared();
  gl_wire_put_u32(&c->request, (uint32_t)g.nforget);
  for (int i = 0; i < g.nforget; ++i) gl_wire_put_u64(&c->request, g.forget[i]);
  return c;
}

void gl_call_value(gl_call *c, const void *value, size_t bytes) {
  gl_wire_put(&c->request, value, bytes);
}

/* While timing, the same few buffers go with every call, and describing one to the driver is
 * a trip into it inside each timed interval: their tokens are kept until the timed loop ends
 * (gl_worker_set_timing), during which the test program frees none. Only buffers that need no
 * file sent along (CUDA IPC) are kept. */
#define TIMED_BUFFERS 8
static struct {
  const void *ptr;
  gl_share_token token;
  uintptr_t base;
} timed_buffers[TIMED_BUFFERS];
static int ntimed_buffers;

static int share_export(const void *ptr, gl_share_token *token, uintptr_t *base, int *fd) {
  for (int i = 0; g.timing && i < ntimed_buffers; ++i) {
    if (timed_buffers[i].ptr == ptr) {
      *token = timed_buffers[i].token;
      *base = timed_buffers[i].base;
      *fd = -1;
      return 0;
    }
  }
  if (gl_share_export(ptr, token, base, fd) != 0) return -1;
  if (g.timing && *fd < 0 && ntimed_buffers < TIMED_BUFFERS) {
    timed_buffers[ntimed_buffers].ptr = ptr;
    timed_buffers[ntimed_buffers].token = *token;
    timed_buffers[ntimed_buffers++].base = *base;
  }
  return 0;
}

/* The test program's private buffers (grader/shim/test_buffers.cpp), which the lab never sees. */
extern int gl_test_buffer_private(const void *ptr) __attribute__((weak));

void gl_call_device(gl_call *c, const void *ptr) {
  gl_share_token token;
  uintptr_t base = 0;
  int fd = -1;
  if (ptr == NULL) {
    gl_wire_put_u32(&c->request, 0);
    return;
  }
  if ((gl_test_buffer_private != NULL && gl_test_buffer_private(ptr)) ||
      share_export(ptr, &token, &base, &fd) != 0) {
    gl_wire_put_u32(&c->request, 2); /* not a buffer of ours: its value, unusable there */
    gl_wire_put_u64(&c->request, (uint64_t)(uintptr_t)ptr);
    return;
  }
  int known = 0;
  for (int i = 0; i < g.nshared && !known; ++i) {
    known = g.shared[i].token.id == token.id && g.shared[i].base == base;
  }
  if (!known && g.nshared < MAX_SHARED) g.shared[g.nshared++] = (shared_entry){token, base};
  gl_wire_put_u32(&c->request, 1);
  gl_wire_put(&c->request, &token, sizeof token);
  gl_wire_put_u64(&c->request, (uint64_t)((uintptr_t)ptr - base));
  /* The memory file travels each time (the worker may have let go of it); cheap on a socket. */
  gl_wire_put_u32(&c->request, fd >= 0);
  if (fd >= 0) gl_wire_put_fd(&c->request, fd);
}

void gl_call_in(gl_call *c, const void *host, size_t bytes) {
  gl_wire_put_u32(&c->request, host != NULL);
  if (host == NULL) return;
  gl_wire_put_u64(&c->request, bytes);
  gl_wire_put(&c->request, host, bytes);
}

void gl_call_out(gl_call *c, void *host, size_t bytes) {
  gl_wire_put_u32(&c->request, host != NULL);
  if (host == NULL) return;
  gl_wire_put_u64(&c->request, bytes);
  if (c->nouts == MAX_OUTS) {
    c->broken = 1;
    return;
  }
  c->outs[c->nouts] = host;
  c->out_bytes[c->nouts++] = bytes;
}

/* Interned copies of the texts the worker returns (step names are compared by pointer nowhere,
 * but must outlive the call). */
static const char *intern(const char *text) {
  static char **texts;
  static size_t count;
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(texts[i], text) == 0) return texts[i];
  }
  char **grown = realloc(texts, (count + 1) * sizeof *texts);
  char *copy = strdup(text);
  if (grown == NULL || copy == NULL) return "";
  texts = grown;
  texts[count++] = copy;
  return copy;
}

gl_status gl_call_finish(gl_call *c) {
  g.timed = 0;
  if (g.sock < 0) {
    return gl_fail(GL_ERR_WORKER, "%s", g.failure[0] ? g.failure : "the lab worker is not running");
  }
  if (c->broken || c->request.bad) {
    return gl_fail(GL_ERR_WORKER, "the call's arguments do not fit in one message to the worker");
  }
  char during[96];
  snprintf(during, sizeof during, "the call of %s", c->name);
  /* This process's GPU work (an upload, a poison) must be finished before the worker reads the
   * buffers: work in two processes' contexts is not ordered, and cudaMemcpy from pageable
   * memory may return before its copy lands. */
  if (!(c->fn & GL_HOST_ONLY) && !(g.primed && c->fn != GL_PRIME)) {
    /* An error here is this process's own (or no GPU at all): the test's checks report it. */
    cudaError_t err = cudaDeviceSynchronize();
#ifndef GPULABS_SIM
    if (err == cudaErrorInsufficientDriver) err = cudaErrorNoDevice;
#endif
    if (err == cudaErrorNoDevice) cudaGetLastError();
  }
  g.primed = 0;
  c->request.call = next_call_number();
  const double t_send = now_us();
  if (gl_mailbox_send(&g.box->request, g.sock, &c->request) != 0) {
    char why[256];
    snprintf(why, sizeof why, "sending a call to the lab worker failed: %s", strerror(errno));
    stop_worker(why);
    return gl_fail(GL_ERR_WORKER, "%s", g.failure);
  }
  g.nforget = 0;
  gl_wire *r = &c->reply;
  if (!await_reply(r, during)) return gl_fail(GL_ERR_WORKER, "%s", g.failure);
  const double t_reply = now_us();
  if (r->call != c->request.call) {
    char why[300];
    snprintf(why, sizeof why, "the lab worker broke the protocol during %s: it answered before "
             "it had read the call (an answer written ahead)", during);
    gl_wire_close_fds(r);
    stop_worker(why);
    return gl_fail(GL_ERR_WORKER, "%s", g.failure);
  }
  gl_wire_close_fds(r); /* the worker sends none */
  /* While timing, the output waits for the next untimed call (or the worker's end): two reads
   * of empty pipes would otherwise sit in every timed interval. */
  if (!g.timing) drain_all(1);
  uint32_t magic = gl_wire_get_u32(r);
  int32_t status = (int32_t)gl_wire_get_u32(r);
  int32_t device_error = (int32_t)gl_wire_get_u32(r);
  double stream_ms = 0, host_ms = 0, clocks[3] = {0, 0, 0};
  gl_wire_get(r, &stream_ms, sizeof stream_ms);
  gl_wire_get(r, &host_ms, sizeof host_ms);
  gl_wire_get(r, clocks, sizeof clocks);
  char message[1024], device_text[512], text[512];
  gl_wire_get_str(r, message, sizeof message);
  gl_wire_get_str(r, device_text, sizeof device_text);
  c->result = gl_wire_get_u64(r);
  gl_wire_get_str(r, text, sizeof text);
  for (int i = 0; i < c->nouts && !r->bad; ++i) {
    uint64_t n = gl_wire_get_u64(r);
    const void *bytes = n == c->out_bytes[i] ? gl_wire_take(r, n) : NULL;
    if (bytes == NULL) r->bad = 1;
    else memcpy(c->outs[i], bytes, n);
  }
  if (magic != GL_WIRE_REPLY || r->bad || status < GL_OK || status > GL_ERR_WORKER) {
    stop_worker("the lab worker broke the protocol (a malformed answer)");
    return gl_fail(GL_ERR_WORKER, "%s", g.failure);
  }
  c->text = intern(text);
  if (g.timing && c->fn != GL_PRIME && c->fn != GL_PING) {
    trace_add((double[TRACE_PARTS]){t_send - c->t_begin, clocks[0] * 1e3 - t_send,
                                    (clocks[1] - clocks[0]) * 1e3, host_ms * 1e3,
                                    (clocks[2] - clocks[1]) * 1e3 - host_ms * 1e3,
                                    t_reply - clocks[2] * 1e3, now_us() - t_reply});
  }
  g.timed = 1;
  g.stream_ms = stream_ms;
  g.host_ms = host_ms;
  if (device_error != 0) g.sticky = 1;
  if (device_error != 0 && g.device_error == 0) {
    g.device_error = device_error;
    snprintf(g.device_error_text, sizeof g.device_error_text, "%s", device_text);
  }
  /* A call that succeeds leaves the last message alone, as a direct call would: a test that
   * names the step (a proxied call) after a failure still reports the failure's message. */
  if (status == GL_OK) return GL_OK;
  return gl_fail((gl_status)status, "%s", message);
}

uint64_t gl_call_result(gl_call *c) { return c->result; }
const char *gl_call_text(gl_call *c) { return c->text; }

const char *gl_call_next_text(gl_call *c) {
  char text[512];
  if (c->reply.pos >= c->reply.size) return "";
  gl_wire_get_str(&c->reply, text, sizeof text);
  return intern(text);
}

void gl_call_end(gl_call *c) {
  (void)c;
  pthread_mutex_unlock(&g.lock);
}

gl_status gl_call_status(gl_call *c) {
  gl_status s = gl_call_finish(c);
  gl_call_end(c);
  return s;
}

int gl_worker_last_timing(double *stream_ms, double *host_ms) {
  *stream_ms = g.timed ? g.stream_ms : 0;
  *host_ms = g.timed ? g.host_ms : 0;
  return g.timed;
}

int gl_worker_running(void) { return g.sock >= 0; }

gl_status gl_worker_prime(void) {
  if (g.sock < 0) return GL_OK;
  gl_status s = gl_call_status(gl_call_begin(NULL, GL_PRIME, "the worker's priming"));
  g.primed = s == GL_OK; /* this process synchronised before it, and the next call follows */
  return s;
}

gl_status gl_worker_ping(void) {
  if (g.sock < 0 && g.path == NULL) return GL_OK; /* no lab proxy in this program */
  return gl_call_status(gl_call_begin(g.path, GL_PING, "the worker's round trip"));
}

void gl_worker_set_timing(int on) {
  pthread_mutex_lock(&g.lock);
  g.timing = on != 0;
  g.poll_us = on ? TIMING_POLL_US : IDLE_POLL_US;
  ntimed_buffers = 0;
  if (!on) {
    drain_all(1); /* what the timed calls printed */
    trace_print();
  }
  pthread_mutex_unlock(&g.lock);
}

void gl_worker_stop(void) {
  pthread_mutex_lock(&g.lock);
  stop_worker(NULL);
  g.failure[0] = '\0';
  g.nshared = 0;
  g.nforget = 0;
  g.forwarded = 0;
  pthread_mutex_unlock(&g.lock);
}

void gl_worker_early(const char *path) {
  pthread_mutex_lock(&g.lock);
  if (g.path == NULL) g.path = path;
  pthread_mutex_unlock(&g.lock);
  const char *early = getenv("GPULABS_WORKER_EARLY");
  if (early == NULL || early[0] == '\0' || strcmp(early, "0") == 0) return;
  pthread_mutex_lock(&g.lock);
  if (g.sock < 0 && g.failure[0] == '\0') start_worker(path);
  pthread_mutex_unlock(&g.lock);
}

void gl_worker_test_start(void) {
  pthread_mutex_lock(&g.lock);
#ifdef GPULABS_SIM
  const int fresh = 1;
#else
  const int fresh = g.sticky || g.failure[0] != '\0';
#endif
  if (fresh && (g.pid > 0 || g.sock >= 0 || g.failure[0] != '\0')) {
    stop_worker(NULL);
    g.failure[0] = '\0';
    g.nshared = 0;
    g.nforget = 0;
    g.sticky = 0;
  } else if (g.sock >= 0) {
    sweep_shared(); /* the last test's buffers, freed by now */
  }
  pthread_mutex_unlock(&g.lock);
}

int gl_worker_take_device_error(char *text, size_t size) {
  pthread_mutex_lock(&g.lock);
  int err = g.device_error;
  if (size > 0) snprintf(text, size, "%s", err ? g.device_error_text : "");
  g.device_error = 0;
  pthread_mutex_unlock(&g.lock);
  return err;
}
