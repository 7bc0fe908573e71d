/* A hostile submission of the reduction lab, for the lab worker's tests
 * (grader/tests/worker_hostile_test.cpp): the lab's API, where every call of reduce_sum_int
 * tries the attack that GPULABS_HOSTILE names instead of summing. Each attack reports its own
 * success: GL_OK when it got what it wanted, an error (with errno's text) when it was refused,
 * so the test can tell a refusal from an attack that was never tried.
 *
 * This file is what a student could write; it is never linked into a test program. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "reduction.h"
#include "worker/mailbox.h"

extern char **environ;

static const char *attack(void) {
  const char *a = getenv("GPULABS_HOSTILE");
  return a == NULL ? "" : a;
}

/* Code that runs before main, in each place a student could put it: a constructor (default
 * priority, and 100, below the first a program may use), a .preinit_array entry, and an IFUNC
 * resolver, which the dynamic loader runs while it relocates the program. The worker's launcher
 * enters the sandbox before the worker's first instruction, so each attempt must be refused:
 * leaving a file where the grader might read it, starting a process that outlives the test
 * (in a session of its own), running another program. Each records what it got in `early`,
 * which the call "early-report" returns: GL_OK when anything got through. */
static const char *early_when;
static long early_write, early_fork, early_exec; /* each 0 (it got through) or -errno */
static int early_ran;

/* Raw system calls only: an IFUNC resolver runs while the dynamic loader relocates the program,
 * before the C library or AddressSanitizer is ready for calls. */
/* Not instrumented: a .preinit_array entry and an IFUNC resolver may run before AddressSanitizer
 * has mapped its shadow memory. */
#define EARLY __attribute__((no_sanitize_address))

EARLY static long raw(long nr, long a, long b, long c, long d, long e) { return syscall(nr, a, b, c, d, e); }

/* Whether the environment holds "GPULABS_HOSTILE=<when>", read from /proc (getenv may not work
 * yet). */
EARLY static int hostile_is(const char *when) {
  static char env[65536];
  long fd = raw(SYS_openat, AT_FDCWD, (long)"/proc/self/environ", O_RDONLY, 0, 0);
  if (fd < 0) return 0;
  long n = raw(SYS_read, fd, (long)env, sizeof env - 1, 0, 0);
  raw(SYS_close, fd, 0, 0, 0, 0);
  const char key[] = "GPULABS_HOSTILE=";
  for (long i = 0; n > 0 && i < n; ) {
    const char *entry = env + i;
    long len = 0;
    while (i + len < n && env[i + len] != '\0') ++len;
    long k = 0;
    while (key[k] != '\0' && k < len && entry[k] == key[k]) ++k;
    if (key[k] == '\0') {
      long w = 0;
      while (when[w] != '\0' && k + w < len && entry[k + w] == when[w]) ++w;
      if (when[w] == '\0' && k + w == len) return 1;
    }
    i += len + 1;
  }
  return 0;
}

EARLY static void early_attempts(const char *when) {
  if (early_ran || !hostile_is(when)) return;
  early_ran = 1;
  early_when = when;
  const char *path = getenv("GPULABS_HOSTILE_FILE"); /* set by then in every case but ifunc */
  static const char fallback[] = "/tmp/gpulabs-hostile-ifunc";
  if (path == NULL) path = fallback;
  long fd = raw(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644, 0);
  early_write = fd < 0 ? fd : raw(SYS_write, fd, (long)"before main\n", 12, 0, 0) == 12 ? 0 : -EFBIG;
  if (fd >= 0) raw(SYS_close, fd, 0, 0, 0, 0);
  long pid = raw(SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (pid == 0) { /* a process in a session of its own, waiting for the grader's files */
    struct timespec wait = {30, 0};
    raw(SYS_setsid, 0, 0, 0, 0, 0);
    raw(SYS_nanosleep, (long)&wait, 0, 0, 0, 0);
    raw(SYS_exit_group, 0, 0, 0, 0, 0);
  }
  early_fork = pid > 0 ? 0 : pid;
  static char *const argv[] = {(char *)"sh", (char *)"-c", (char *)"echo exec > /tmp/gpulabs-hostile-exec", NULL};
  early_exec = raw(SYS_execve, (long)"/bin/sh", (long)argv, 0, 0, 0);
}

static gl_status early_report(void) {
  if (!early_ran) return gl_not_implemented("no early code ran");
  if (early_write == 0 || early_fork == 0 || early_exec == 0) return GL_OK;
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s write: %s; fork: %s; exec: %s", early_when,
                 strerror((int)-early_write), strerror((int)-early_fork),
                 strerror((int)-early_exec));
}

__attribute__((constructor)) static void early_constructor(void) { early_attempts("constructor"); }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor" /* reserved: that is the point */
__attribute__((constructor(100))) static void earliest_constructor(void) {
  early_attempts("constructor-100");
}
#pragma GCC diagnostic pop
EARLY static void preinit(void) { early_attempts("preinit"); }
__attribute__((section(".preinit_array"), used)) static void (*const preinit_entry)(void) = preinit;

EARLY static int plain_answer(void) { return 0; }
EARLY static int (*resolve_answer(void))(void) {
  early_attempts("ifunc");
  return plain_answer;
}
int hostile_answer(void) __attribute__((ifunc("resolve_answer")));

/* forge-handles: two real IPC handles of the test program (a submission can find the handles
 * the worker was given in its own memory) in GPULABS_HOSTILE_HANDLES, as 128 hex digits each,
 * comma between. Tries every handle whose bytes that differ between the two are within 16 of
 * theirs (all combinations, up to 20,000 handles; then one byte at a time), and each with one
 * 8-byte word zeroed; writes 42 into the first 8 bytes of whatever opens. GL_OK when a forged
 * handle opened (it then printed how many). */
static int parse_handle(const char *hex, unsigned char out[64]) {
  for (int i = 0; i < 64; ++i) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
    out[i] = (unsigned char)v;
  }
  return 0;
}

/* Forged handles tried and opened; the two real ones are neither. */
static long forged_tried, forged_opened;

static void try_handle(const unsigned char bytes[64], const unsigned char *given[2]) {
  if (memcmp(bytes, given[0], 64) == 0 || memcmp(bytes, given[1], 64) == 0) return;
  ++forged_tried;
  cudaIpcMemHandle_t handle;
  memcpy(&handle, bytes, sizeof handle);
  void *p = NULL;
  if (cudaIpcOpenMemHandle(&p, handle, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  ++forged_opened;
  const int64_t value = 42;
  if (cudaMemcpy(p, &value, sizeof value, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaGetLastError();
  }
  cudaIpcCloseMemHandle(p);
}

static gl_status forge_handles(void) {
  const char *list = getenv("GPULABS_HOSTILE_HANDLES");
  unsigned char a[64], c[64], h[64];
  if (list == NULL || strlen(list) != 257 || parse_handle(list, a) || parse_handle(list + 129, c)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "forge-handles: GPULABS_HOSTILE_HANDLES unreadable");
  }
  const unsigned char *given[2] = {a, c};
  int at[64], lo[64], hi[64], nd = 0;
  long combinations = 1;
  for (int i = 0; i < 64; ++i) {
    if (a[i] == c[i]) continue;
    at[nd] = i;
    lo[nd] = (a[i] < c[i] ? a[i] : c[i]) - 16;
    hi[nd] = (a[i] < c[i] ? c[i] : a[i]) + 16;
    if (lo[nd] < 0) lo[nd] = 0;
    if (hi[nd] > 255) hi[nd] = 255;
    if (combinations <= 20000) combinations *= hi[nd] - lo[nd] + 1;
    ++nd;
  }
  if (nd > 0 && combinations <= 20000) {
    int v[64];
    for (int k = 0; k < nd; ++k) v[k] = lo[k];
    for (;;) {
      memcpy(h, a, 64);
      for (int k = 0; k < nd; ++k) h[at[k]] = (unsigned char)v[k];
      try_handle(h, given);
      int k = 0;
      while (k < nd && ++v[k] > hi[k]) v[k] = lo[k], ++k;
      if (k == nd) break;
    }
  } else {
    for (int k = 0; k < nd; ++k) {
      for (int base = 0; base < 2; ++base) {
        for (int x = lo[k]; x <= hi[k]; ++x) {
          memcpy(h, given[base], 64);
          h[at[k]] = (unsigned char)x;
          try_handle(h, given);
        }
      }
    }
  }
  for (int word = 0; word < 8; ++word) {
    memcpy(h, a, 64);
    memset(h + 8 * word, 0, 8);
    try_handle(h, given);
  }
  printf("forge-handles: %ld forged handles tried (%d bytes differ), %ld opened\n", forged_tried,
         nd, forged_opened);
  fflush(stdout);
  return forged_opened > 0 ? GL_OK
                           : gl_fail(GL_ERR_CUDA, "forge-handles: none of %ld forged handles opened",
                                     forged_tried);
}

/* The worker's mailbox, as a submission finds it: the shared mapping of its memory file. */
static gl_mailbox *find_mailbox(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return NULL;
  char line[512];
  unsigned long start = 0;
  while (start == 0 && fgets(line, sizeof line, maps) != NULL) {
    if (strstr(line, "gpulabs-worker-mailbox") != NULL) start = strtoul(line, NULL, 16);
  }
  fclose(maps);
  return (gl_mailbox *)start;
}

/* The first call answers; the second makes the mailbox show the first's answer again before it
 * starts, as an answer to the call just sent (a timed call would end at once), then does its
 * work. GL_OK when the test program took it. */
static gl_status answer_ahead(void) {
  static int calls = 0;
  if (calls++ == 0) return GL_OK;
  gl_mailbox *box = find_mailbox();
  if (box == NULL) return gl_fail(GL_ERR_INVALID_ARGUMENT, "answer-ahead: no mailbox found");
  __atomic_add_fetch(&box->reply.seq, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, (uint32_t *)&box->reply.seq, 1 /* FUTEX_WAKE */, 1, NULL, NULL, 0);
  struct timespec pause = {0, 300000000};
  nanosleep(&pause, NULL);
  return GL_OK;
}

static gl_status refused(const char *what) {
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s refused: %s", what, strerror(errno));
}

/* Takes all the GPU memory it can, in chunks of a 64th of the GPU, and keeps it (a worker of
 * another submission on the same GPU would then find none): GL_OK when it held more than a
 * quarter of the GPU, the worker's cap, and otherwise the error of the allocation refused. */
static gl_status gpu_hog(void) {
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return refused("cudaMemGetInfo");
  const size_t chunk = total_bytes / 64;
  size_t held = 0;
  void *p = NULL;
  cudaError_t err = cudaSuccess;
  while (held < free_bytes && (err = cudaMalloc(&p, chunk)) == cudaSuccess) held += chunk;
  if (held > total_bytes / 4) return GL_OK;
  return gl_fail(GL_ERR_CUDA, "gpu-hog: held %zu MiB, then cudaMalloc: %s", held >> 20,
                 cudaGetErrorString(err));
}

const char *reduce_step_name(reduce_step step) { return step == 1 ? "1-hostile" : "unknown"; }
const char *reduce_op_name(reduce_op op) { return op == REDUCE_SUM ? "sum" : "unknown"; }

gl_status reduce_sum_int(reduce_step step, const int *d_in, size_t n, int block_size,
                         int64_t *d_sum) {
  (void)step, (void)block_size;
  const char *a = attack();
  const char *path = getenv("GPULABS_HOSTILE_FILE");
  if (strcmp(a, "forge-verdict") == 0) {
    /* Google Test's lines, then leave before any check. */
    printf("[       OK ] WorkerHostile.ForgedVerdict (0 ms)\n[  PASSED  ] 1 test.\n");
    printf("GPULABS_METRIC ratio=99.0\n");
    fflush(stdout);
    _exit(0);
  }
  if (strcmp(a, "answer-ahead") == 0) return answer_ahead();
  if (strcmp(a, "write-file") == 0) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return refused("open(O_CREAT)");
    ssize_t w = write(fd, "pwned\n", 6);
    close(fd);
    return w == 6 ? GL_OK : refused("write");
  }
  if (strcmp(a, "read-file") == 0) {
    /* A classmate's submission in the batch folder, say: read it and print it. */
    const char *secret = getenv("GPULABS_HOSTILE_SECRET");
    int fd = open(secret != NULL ? secret : "", O_RDONLY);
    if (fd < 0) return refused("open(O_RDONLY)");
    char text[256];
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got < 0) return refused("read");
    text[got] = '\0';
    printf("stolen: %s\n", text);
    return GL_OK;
  }
  if (strcmp(a, "fork") == 0) {
    pid_t pid = fork();
    if (pid < 0) return refused("fork");
    if (pid == 0) { /* a process left behind, waiting for the grader's files */
      setsid();
      sleep(30);
      _exit(0);
    }
    return GL_OK;
  }
  if (strcmp(a, "exec") == 0) {
    execl("/bin/sh", "sh", "-c", "true", (char *)NULL);
    return refused("execl");
  }
  if (strcmp(a, "exec-self") == 0) {
    /* The worker again, by path, by a descriptor, and by a descriptor at the numbers the
     * launcher's one exec could have used: each refused. */
    char *args[] = {(char *)"worker", NULL};
    execv("/proc/self/exe", args);
    int refusal = errno;
    int fd = open("/proc/self/exe", O_PATH | O_CLOEXEC);
    if (fd >= 0) syscall(SYS_execveat, fd, "", args, environ, AT_EMPTY_PATH);
    struct rlimit lim;
    for (int at = 0; fd >= 0 && getrlimit(RLIMIT_NOFILE, &lim) == 0 && at < 4; ++at) {
      int high = dup3(fd, (int)lim.rlim_cur + at, O_CLOEXEC);
      if (high >= 0) syscall(SYS_execveat, high, "", args, environ, AT_EMPTY_PATH);
    }
    errno = refusal;
    return refused("execv(/proc/self/exe)");
  }
  if (strcmp(a, "signal-parent") == 0) {
    if (kill(getppid(), SIGUSR1) != 0) return refused("kill");
    return GL_OK;
  }
  if (strcmp(a, "ptrace-parent") == 0) {
    if (ptrace(PTRACE_ATTACH, getppid(), NULL, NULL) != 0) return refused("ptrace");
    return GL_OK;
  }
  if (strcmp(a, "read-parent-memory") == 0) {
    char buf[16];
    struct iovec local = {buf, sizeof buf}, remote = {(void *)d_sum, sizeof buf};
    if (process_vm_readv(getppid(), &local, 1, &remote, 1, 0) < 0) {
      return refused("process_vm_readv");
    }
    return GL_OK;
  }
  if (strcmp(a, "network") == 0) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return refused("socket(AF_INET)");
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(9);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(s, (struct sockaddr *)&addr, sizeof addr);
    close(s);
    return rc == 0 || errno == ECONNREFUSED ? GL_OK : refused("connect");
  }
  if (strcmp(a, "write-device") == 0) {
    /* Whatever device pointer the call was handed: overwrite what it points at. */
    const int64_t value = 42;
    if (cudaMemcpy(d_sum, &value, sizeof value, cudaMemcpyHostToDevice) != cudaSuccess) {
      cudaGetLastError();
      return gl_fail(GL_ERR_CUDA, "cudaMemcpy into the handed pointer refused");
    }
    return GL_OK;
  }
  if (strcmp(a, "constructor") == 0 || strcmp(a, "constructor-100") == 0 ||
      strcmp(a, "preinit") == 0 || strcmp(a, "ifunc") == 0) {
    if (hostile_answer() != 0) return gl_not_implemented("the IFUNC answered wrong");
    return early_report();
  }
  if (strcmp(a, "host-sum") == 0) {
    /* The right answer, computed on the host: no kernel at all. */
    int values[4096];
    if (d_in == NULL || d_sum == NULL || n > 4096) return gl_fail(GL_ERR_SIZE, "host-sum: n <= 4096");
    if (cudaMemcpy(values, d_in, n * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
      return gl_fail(GL_ERR_CUDA, "host-sum: cudaMemcpy");
    }
    int64_t sum = 0;
    for (size_t i = 0; i < n; ++i) sum += values[i];
    if (cudaMemcpy(d_sum, &sum, sizeof sum, cudaMemcpyHostToDevice) != cudaSuccess) {
      return gl_fail(GL_ERR_CUDA, "host-sum: cudaMemcpy");
    }
    return GL_OK;
  }
  if (strcmp(a, "gpu-hog") == 0) return gpu_hog();
  if (strcmp(a, "forge-handles") == 0) return forge_handles();
  if (strcmp(a, "crash") == 0) raise(SIGSEGV);
  if (strcmp(a, "flood") == 0) {
    for (int i = 0; i < 40000; ++i) printf("flooding the test's output, line %d\n", i);
    return GL_OK;
  }
  return gl_not_implemented("reduce_sum_int (no attack named)");
}

gl_status reduce_int(reduce_op op, const int *d_in, size_t n, int block_size, int64_t *d_result) {
  return reduce_sum_int((reduce_step)op, d_in, n, block_size, d_result);
}

gl_status reduce_float(reduce_op op, const float *d_in, size_t n, int block_size,
                       float *d_result) {
  (void)op, (void)d_in, (void)n, (void)block_size, (void)d_result;
  return gl_not_implemented("reduce_float");
}

void reduce_free_scratch(void) {}
