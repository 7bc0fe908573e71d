/* The lab worker's launcher: the trusted program the test program starts in place of the
 * worker (proxy.c). It enters the sandbox (sandbox/sandbox.h), tells the test program which
 * layers took effect, and only then executes the lab worker, so that everything of the lab's
 * code runs sandboxed, from the worker's first instruction on: constructors of any priority,
 * initialisers, .preinit_array entries and IFUNC resolvers included. It links no lab code.
 *
 *   launcher WORKER [--data-limit-in-worker]
 *
 * with the socket on descriptor 3 and the mailbox on 4, as the worker expects them. With
 * --data-limit-in-worker (a worker built with AddressSanitizer, whose shadow memory counts as
 * terabytes of data) the host-memory limit is left to the worker's first constructor, counted
 * beyond what it holds then; otherwise it is set here. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mailbox.h"
#include "sandbox.h"
#include "wire.h"

#define SOCK 3
#define MAILBOX 4
/* Beyond any test's timeout: a runaway still ends. */
#define WORKER_CPU_SECONDS 1800
/* Host memory a worker may take: 8 GiB, or half the machine's when that is less. */
#define WORKER_DATA_BYTES ((size_t)8 << 30)

extern char **environ;

static size_t data_limit(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t half = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 2 : WORKER_DATA_BYTES;
  return half < WORKER_DATA_BYTES ? half : WORKER_DATA_BYTES;
}

/* The worker, opened for the one exec the sandbox allows, at the highest number the current
 * descriptor limit allows (the sandbox then lowers the limit to it, so no later descriptor can
 * take its number). -1 with errno on failure. */
static int exec_descriptor(const char *worker) {
  struct rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return -1;
  rlim_t top = lim.rlim_cur < 64 ? 64 : lim.rlim_cur > 65536 ? 65536 : lim.rlim_cur;
  int fd = open(worker, O_PATH | O_CLOEXEC);
  if (fd < 0) return -1;
  int at = dup3(fd, (int)top - 1, O_CLOEXEC);
  close(fd);
  return at;
}

/* The worker's first message, from here: the sandbox's layers, or why it could not be entered. */
static int hello(gl_mailbox *box, int sealed, const char *layers) {
  gl_wire w;
  gl_wire_reset(&w);
  gl_wire_put_u32(&w, GL_WIRE_HELLO);
  gl_wire_put_u32(&w, (uint32_t)sealed);
  gl_wire_put_str(&w, layers);
  return gl_mailbox_send(&box->reply, SOCK, &w);
}

int main(int argc, char **argv) {
  struct stat st;
  if (argc < 2 || fstat(SOCK, &st) != 0 || !S_ISSOCK(st.st_mode)) {
    fprintf(stderr,
            "This is the lab worker's launcher: the test programs start it (see grader/README.md, "
            "\"The lab worker\"). Run the lab's test program instead.\n");
    return 2;
  }
  const char *worker = argv[1];
  const int limit_in_worker = argc > 2 && strcmp(argv[2], "--data-limit-in-worker") == 0;
  gl_mailbox *box = gl_mailbox_open(MAILBOX);
  if (box == NULL) {
    fprintf(stderr, "the lab worker's launcher could not map its mailbox (descriptor 4)\n");
    return 3;
  }

  char layers[512];
  int sealed = 1, exec_fd = -1;
  const char *off = getenv("GPULABS_SANDBOX");
  if (off != NULL && strcmp(off, "off") == 0) {
    snprintf(layers, sizeof layers, "off (GPULABS_SANDBOX=off: for debugging only)");
  } else {
    gl_sandbox_limits limits;
    memset(&limits, 0, sizeof limits);
    limits.cpu_seconds = WORKER_CPU_SECONDS;
    limits.exec_program = worker;
    limits.exec_fd = exec_fd = exec_descriptor(worker);
    if (exec_fd < 0) {
      perror("the lab worker's launcher could not open the worker");
      return 3;
    }
    char bytes[32];
    if (limit_in_worker) {
      snprintf(bytes, sizeof bytes, "%zu", data_limit());
      setenv("GPULABS_WORKER_DATA_LIMIT", bytes, 1);
    } else {
      limits.memory_bytes = data_limit();
    }
    sealed = gl_sandbox_enter(&limits, layers, sizeof layers) == 0;
  }
  if (hello(box, sealed, layers) != 0 || !sealed) return 3;

  char *const worker_argv[] = {(char *)worker, NULL};
  if (exec_fd >= 0) {
    syscall(SYS_execveat, exec_fd, "", worker_argv, environ, AT_EMPTY_PATH);
  } else {
    execve(worker, worker_argv, environ);
  }
  perror("the lab worker's launcher could not start the worker");
  return 127;
}
