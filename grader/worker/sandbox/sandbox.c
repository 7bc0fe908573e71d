/* The lab worker's sandbox (sandbox.h). Linux only; no dependency beyond libc and the kernel's
 * UAPI headers: Landlock's are defined here (distributions ship old ones), seccomp's filter is
 * written by hand (libseccomp is not on the GPU machines). */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <elf.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* ---- The report ------------------------------------------------------------------------- */

typedef struct report {
  char *buf;
  size_t size, len;
} report;

static void say(report *r, const char *fmt, ...) {
  if (r->size == 0) return;
  va_list ap;
  va_start(ap, fmt);
  size_t room = r->size - r->len;
  int n = vsnprintf(r->buf + r->len, room, fmt, ap);
  va_end(ap);
  if (n > 0) r->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* Starts the next layer's text. */
static void next(report *r) {
  if (r->len > 0) say(r, "; ");
}

static int fail(report *r, const char *what) {
  int err = errno;
  next(r);
  say(r, "FAILED: %s: %s", what, strerror(err));
  return -1;
}

static void bytes_text(char *out, size_t size, unsigned long long b) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && b >= (1ULL << (10 * (u + 1)))) u++;
  if (u == 0) snprintf(out, size, "%llu bytes", b);
  else if (b % (1ULL << (10 * u)) == 0) snprintf(out, size, "%llu %s", b >> (10 * u), units[u]);
  else snprintf(out, size, "%.1f %s", (double)b / (double)(1ULL << (10 * u)), units[u]);
}

/* ---- Threads ---------------------------------------------------------------------------- */

/* A number from /proc/self/status ("Threads:", "VmData:"), or -1 where /proc cannot tell. */
static long long status_field(const char *name) {
  FILE *f = fopen("/proc/self/status", "re");
  if (f == NULL) return -1;
  char line[256];
  long long value = -1;
  size_t len = strlen(name);
  while (value < 0 && fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, name, len) != 0 || sscanf(line + len, "%lld", &value) != 1) value = -1;
  }
  fclose(f);
  return value;
}

/* ---- Root ------------------------------------------------------------------------------- */

static int drop_root(report *r) {
  if (getuid() != 0 && geteuid() != 0) {
    next(r);
    say(r, "uid %u kept (not root)", (unsigned)getuid());
    return 0;
  }
  /* Groups first: changing them needs CAP_SETGID, which setresuid takes away. */
  if (setgroups(0, NULL) != 0 && getgroups(0, NULL) != 0) return fail(r, "setgroups(0)");
  if (setresgid(GL_SANDBOX_UID, GL_SANDBOX_UID, GL_SANDBOX_UID) != 0) return fail(r, "setresgid(65534)");
  if (setresuid(GL_SANDBOX_UID, GL_SANDBOX_UID, GL_SANDBOX_UID) != 0) return fail(r, "setresuid(65534)");
  /* Leaving uid 0 for good clears every capability (unless a parent set SECBIT_KEEP_CAPS or
     SECBIT_NO_SETUID_FIXUP): check rather than trust, and check root cannot come back. */
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct caps[2];
  memset(caps, 0, sizeof caps);
  if (syscall(SYS_capget, &head, caps) != 0) return fail(r, "capget");
  if (caps[0].effective | caps[1].effective | caps[0].permitted | caps[1].permitted) {
    errno = EPERM;
    return fail(r, "capabilities kept after leaving root");
  }
  if (setuid(0) == 0) {
    errno = EPERM;
    return fail(r, "root came back after setresuid");
  }
  next(r);
  say(r, "uid %d gid %d (root dropped)", GL_SANDBOX_UID, GL_SANDBOX_UID);
  return 0;
}

/* ---- rlimits ---------------------------------------------------------------------------- */

/* Lowers a limit, never raising one the parent already set lower. */
static int lower_limit(int resource, rlim_t soft, rlim_t hard) {
  struct rlimit cur;
  if (getrlimit(resource, &cur) != 0) return -1;
  if (hard > cur.rlim_max) hard = cur.rlim_max;
  if (soft > cur.rlim_cur) soft = cur.rlim_cur;
  if (soft > hard) soft = hard;
  struct rlimit lim = {soft, hard};
  return setrlimit(resource, &lim);
}

/* RLIMIT_DATA, not RLIMIT_AS: see sandbox.h. Counted from what the process already has (*entry):
   little for a fresh worker, but AddressSanitizer's shadow counts as terabytes of data. */
static int limit_data(size_t bytes, unsigned long long *entry) {
  long long kib = status_field("VmData:");
  *entry = kib > 0 ? (unsigned long long)kib * 1024 : 0;
  rlim_t limit = (rlim_t)bytes + (rlim_t)*entry;
  if (limit < (rlim_t)bytes || limit == RLIM_INFINITY) limit = RLIM_INFINITY - 1;
  return lower_limit(RLIMIT_DATA, limit, limit);
}

int gl_sandbox_limit_data(size_t bytes) {
  unsigned long long entry = 0;
  return limit_data(bytes, &entry);
}

static int set_rlimits(report *r, const gl_sandbox_limits *limits) {
  /* RLIMIT_FSIZE 0: no write(2) to a regular file at all (every offset is at or past the
     limit) and no file can grow, whatever Landlock allows or misses; it fails with EFBIG
     rather than killing the worker with SIGXFSZ. Pipes and sockets are not files: the
     worker's channels are unaffected. (A shared mapping of a file opened for writing before
     is not covered: the parent must not hand such a descriptor over.) */
  if (lower_limit(RLIMIT_FSIZE, 0, 0) != 0) return fail(r, "setrlimit(RLIMIT_FSIZE)");
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  if (sigaction(SIGXFSZ, &ignore, NULL) != 0) return fail(r, "sigaction(SIGXFSZ)");
  if (lower_limit(RLIMIT_CORE, 0, 0) != 0) return fail(r, "setrlimit(RLIMIT_CORE)");
  /* No descriptor can ever take the number of the one exec's (sandbox.h). */
  if (limits->exec_program != NULL &&
      lower_limit(RLIMIT_NOFILE, (rlim_t)limits->exec_fd, (rlim_t)limits->exec_fd) != 0) {
    return fail(r, "setrlimit(RLIMIT_NOFILE)");
  }
  next(r);
  say(r, "rlimits (");
  if (limits->cpu_seconds > 0) {
    rlim_t secs = (rlim_t)limits->cpu_seconds;
    if ((double)secs < limits->cpu_seconds) secs++;
    /* SIGXCPU at the soft limit; SIGKILL at the hard one if student code ignores SIGXCPU. */
    if (lower_limit(RLIMIT_CPU, secs, secs + 1) != 0) return fail(r, "setrlimit(RLIMIT_CPU)");
    struct rlimit now;
    getrlimit(RLIMIT_CPU, &now);
    say(r, "cpu %llu s, ", (unsigned long long)now.rlim_cur);
  }
  say(r, "fsize 0, core 0");
  if (limits->exec_program != NULL) say(r, ", nofile %d", limits->exec_fd);
  if (limits->memory_bytes > 0) {
    unsigned long long entry = 0;
    if (limit_data(limits->memory_bytes, &entry) != 0) return fail(r, "setrlimit(RLIMIT_DATA)");
    struct rlimit now;
    getrlimit(RLIMIT_DATA, &now);
    char text[32], in_use[32];
    bytes_text(text, sizeof text,
               now.rlim_cur > (rlim_t)entry ? (unsigned long long)(now.rlim_cur - entry) : 0);
    bytes_text(in_use, sizeof in_use, entry);
    say(r, ", data %s beyond the %s at entry", text, in_use);
  }
  say(r, ")");
  return 0;
}

/* ---- Landlock --------------------------------------------------------------------------- */

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_ABI1 ((1ULL << 13) - 1) /* execute .. make_sym */
#define LL_FS_REFER (1ULL << 13)      /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)   /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* The kernel's structs, at their newest: a kernel that knows fewer fields accepts the larger
   size as long as the fields it does not know are zero. */
struct ll_ruleset_attr {
  uint64_t handled_access_fs, handled_access_net, scoped;
};
struct ll_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

typedef struct landlock {
  int abi;        /* 0: the kernel lacks Landlock */
  int ruleset_fd;
  uint64_t fs;    /* the rights this ABI knows, all handled (denied unless a rule allows) */
  int readable;   /* paths given a read rule beyond the system's */
  int writable;   /* paths given a write rule */
  char note[256]; /* the given paths missing, or why the kernel has no Landlock */
} landlock;

#define LL_READ (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)

/* What every worker may read and execute: the system's programs, libraries and settings, and
   the kernel's and the devices' views, which the GPU driver reads. Not /home, /tmp, /var,
   /srv, /mnt, /media, /root, /autograder: where submissions, classmates' files and grades
   live. A missing path is skipped. */
static const char *const system_readable[] = {"/usr", "/lib", "/lib32", "/lib64", "/libx32",
                                              "/bin", "/sbin", "/etc", "/opt", "/dev",
                                              "/proc", "/sys", NULL};

/* The writable paths every worker gets: what the GPU driver opens read-write. Of /proc only
   the process's own entries (/proc/self is resolved here, to /proc/<pid>, which exec keeps):
   the driver and the C library write there (a thread's name), and another process's entries
   of the same user (the test program's oom_score_adj, say) stay out of reach. */
static const char *const default_writable[] = {"/dev/null", "/dev/zero", "/dev/shm",
                                               "/proc/self", NULL};

/* Adds a rule giving `path` (and what is beneath it) `rights`, as far as a file can have them.
   A missing path is skipped, and named in the note when `given` (the caller asked for it). */
static int allow_path(report *r, landlock *l, const char *path, uint64_t rights, int given,
                      int *count) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (given) {
      size_t len = strlen(l->note);
      snprintf(l->note + len, sizeof l->note - len, "%s%s", len ? ", " : "", path);
    }
    return 0;
  }
  struct stat st;
  struct ll_path_beneath_attr rule = {0, fd};
  if (fstat(fd, &st) != 0) {
    close(fd);
    return fail(r, path);
  }
  /* A file's rule may name only the rights files have. IOCTL_DEV is what CUDA's ioctls on
     /dev/nvidia* need (ABI 5). */
  rule.allowed_access = S_ISDIR(st.st_mode)
                            ? rights
                            : rights & (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE |
                                        LL_FS_TRUNCATE | LL_FS_IOCTL_DEV);
  long rc = syscall(__NR_landlock_add_rule, l->ruleset_fd, LL_RULE_PATH_BENEATH, &rule, 0);
  close(fd);
  if (rc != 0) {
    char what[300];
    snprintf(what, sizeof what, "landlock_add_rule(%s)", path);
    return fail(r, what);
  }
  if (count != NULL) (*count)++;
  return 0;
}

/* Whether `path` is one of the system's readable paths or beneath one. */
static int under_system(const char *path) {
  for (int i = 0; system_readable[i] != NULL; i++) {
    size_t len = strlen(system_readable[i]);
    if (strncmp(path, system_readable[i], len) == 0 && (path[len] == '\0' || path[len] == '/'))
      return 1;
  }
  return 0;
}

/* The ELF interpreter a program names (PT_INTERP, e.g. /lib64/ld-linux-x86-64.so.2), resolved,
   into out; "" for a static program. 0, or -1 with errno. */
static int elf_interpreter(const char *program, char *out, size_t size) {
  out[0] = '\0';
  int fd = open(program, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  Elf64_Ehdr eh;
  int rc = -1;
  errno = ENOEXEC;
  if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
    rc = 0;
    for (int i = 0; i < eh.e_phnum; i++) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) != (ssize_t)sizeof ph) {
        rc = -1;
        break;
      }
      if (ph.p_type != PT_INTERP) continue;
      char name[4096];
      if (ph.p_filesz == 0 || ph.p_filesz > sizeof name ||
          pread(fd, name, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) {
        rc = -1;
        break;
      }
      name[ph.p_filesz - 1] = '\0';
      if (strlen(name) >= size || realpath(name, out) == NULL) rc = -1;
      break;
    }
  }
  close(fd);
  return rc;
}

/* The process's program, and the folders of the other files it has mapped (its shared
   libraries, what a sanitizer or debugger preloaded), of CUDA_INJECTION64_PATH and of
   LD_LIBRARY_PATH: a library loaded later (libcuda through cudart, a tool's injection library)
   comes from there. Each folder once. */
static int allow_library_folders(report *r, landlock *l, const char *exec_program) {
  char folders[64][256];
  int count = 0;
  /* The program itself as a file, not its folder: in a batch that is the build tree of the
     course copy, where a lab that did not build may still hold another submission's objects.
     Under a launcher, the program it runs next (and that program's interpreter, which the
     kernel opens for execution too); the launcher's own libraries are the system's, as the
     worker's are. */
  char program[4096];
  ssize_t len = -1;
  if (exec_program != NULL) {
    if (realpath(exec_program, program) == NULL) return fail(r, exec_program);
    len = (ssize_t)strlen(program);
    char interp[4096];
    if (elf_interpreter(program, interp, sizeof interp) != 0) return fail(r, "the program's interpreter");
    if (interp[0] != '\0' && allow_path(r, l, interp, LL_READ, 0, NULL) != 0) return -1;
    if (allow_path(r, l, program, LL_READ, 0, &l->readable) != 0) return -1;
  } else {
    len = readlink("/proc/self/exe", program, sizeof program - 1);
    program[len > 0 ? len : 0] = '\0';
    if (len > 0 && !under_system(program) &&
        allow_path(r, l, program, LL_READ, 0, &l->readable) != 0) {
      return -1;
    }
  }
  FILE *maps = fopen("/proc/self/maps", "re");
  char line[512];
  while (maps != NULL && fgets(line, sizeof line, maps) != NULL) {
    char *path = strchr(line, '/');
    if (path == NULL) continue; /* anonymous, [heap], [stack], [vdso] */
    path[strcspn(path, "\n")] = '\0';
    char *slash = strrchr(path, '/');
    if (strstr(path, " (deleted)") != NULL || slash == path || strcmp(path, program) == 0) {
      continue;
    }
    *slash = '\0';
    int seen = 0;
    for (int i = 0; i < count && !seen; i++) seen = strcmp(folders[i], path) == 0;
    if (!seen && !under_system(path) && count < 64 && strlen(path) < sizeof folders[0])
      strcpy(folders[count++], path);
  }
  if (maps != NULL) fclose(maps);
  /* A tool's injection library (a sanitizer's, a profiler's, CUPTI's), which CUDA loads at its
     start: its folder, as a path list of one. */
  const char *inject = getenv("CUDA_INJECTION64_PATH");
  const char *cut = inject != NULL ? strrchr(inject, '/') : NULL;
  if (cut != NULL && cut > inject && (size_t)(cut - inject) < sizeof folders[0] && count < 64) {
    memcpy(folders[count], inject, (size_t)(cut - inject));
    folders[count][cut - inject] = '\0';
    if (!under_system(folders[count])) count++;
  }
  const char *env = getenv("LD_LIBRARY_PATH");
  while (env != NULL && *env != '\0') {
    size_t len = strcspn(env, ":");
    if (env[0] == '/' && len < sizeof folders[0] && count < 64) {
      memcpy(folders[count], env, len);
      folders[count][len] = '\0';
      if (!under_system(folders[count])) count++;
    }
    env += len + (env[len] == ':');
  }
  for (int i = 0; i < count; i++) {
    if (allow_path(r, l, folders[i], LL_READ, 0, &l->readable) != 0) return -1;
  }
  return 0;
}

/* Builds the ruleset, while still root: a path the parent names may be out of nobody's reach. */
static int landlock_prepare(report *r, landlock *l, const gl_sandbox_limits *limits) {
  memset(l, 0, sizeof *l);
  l->ruleset_fd = -1;
  long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  if (abi < 0) {
    /* ENOSYS: not built in; EOPNOTSUPP: not enabled at boot; EPERM: a container's policy. */
    if (errno == ENOSYS || errno == EOPNOTSUPP || errno == EPERM) {
      snprintf(l->note, sizeof l->note, "%s", strerror(errno));
      return 0;
    }
    return fail(r, "landlock_create_ruleset(version)");
  }
  l->abi = (int)abi;
  l->fs = LL_FS_ABI1;
  if (abi >= 2) l->fs |= LL_FS_REFER;
  if (abi >= 3) l->fs |= LL_FS_TRUNCATE;
  if (abi >= 5) l->fs |= LL_FS_IOCTL_DEV;
  struct ll_ruleset_attr attr = {l->fs, 0, 0};
  if (abi >= 4) attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP; /* no rules: none */
  if (abi >= 6) attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
  l->ruleset_fd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (l->ruleset_fd < 0) return fail(r, "landlock_create_ruleset");

  /* Readable: the system, the folders of the libraries, and what the caller names. */
  /* Under a launcher the system's programs are read, not executed: the one program that may
     be is the worker, so an execve before it forbids exec can only start it again. */
  const uint64_t system_rights =
      limits->exec_program != NULL ? (LL_FS_READ_FILE | LL_FS_READ_DIR) : LL_READ;
  for (int i = 0; system_readable[i] != NULL; i++) {
    if (allow_path(r, l, system_readable[i], system_rights, 0, NULL) != 0) return -1;
  }
  if (allow_library_folders(r, l, limits->exec_program) != 0) return -1;
  for (int i = 0; limits->readable != NULL && limits->readable[i] != NULL; i++) {
    if (allow_path(r, l, limits->readable[i], LL_READ, 1, &l->readable) != 0) return -1;
  }

  /* The GPU's nodes: nvidiactl, nvidia-uvm(-tools), nvidia0.., nvidia-modeset, nvidia-caps/. */
  DIR *dev = opendir("/dev");
  if (dev != NULL) {
    struct dirent *e;
    while ((e = readdir(dev)) != NULL) {
      if (strncmp(e->d_name, "nvidia", 6) != 0) continue;
      char path[300];
      snprintf(path, sizeof path, "/dev/%s", e->d_name);
      if (allow_path(r, l, path, l->fs, 0, &l->writable) != 0) {
        closedir(dev);
        return -1;
      }
    }
    closedir(dev);
  }
  for (int i = 0; default_writable[i] != NULL; i++) {
    if (allow_path(r, l, default_writable[i], l->fs, 0, &l->writable) != 0) return -1;
  }
  for (int i = 0; limits->writable != NULL && limits->writable[i] != NULL; i++) {
    if (allow_path(r, l, limits->writable[i], l->fs, 1, &l->writable) != 0) return -1;
  }
  return 0;
}

static int landlock_apply(report *r, landlock *l) {
  next(r);
  if (l->abi == 0) {
    say(r, "landlock skipped (%s)", l->note);
    return 0;
  }
  long rc = syscall(__NR_landlock_restrict_self, l->ruleset_fd, 0);
  close(l->ruleset_fd);
  l->ruleset_fd = -1;
  if (rc != 0) return fail(r, "landlock_restrict_self");
  say(r, "landlock abi %d (reads the system's paths and %d more, writes %d paths", l->abi,
      l->readable, l->writable);
  if (l->note[0] != '\0') say(r, ", skipped as missing: %s", l->note);
  say(r, l->abi >= 4 ? ", tcp denied" : ", tcp not covered (abi < 4)");
  say(r, l->abi >= 6 ? ", signals and abstract sockets scoped)" : ", signals not scoped (abi < 6))");
  return 0;
}

/* ---- seccomp ---------------------------------------------------------------------------- */

/* The filter reads the low half of 64-bit arguments as the first word: little-endian only. */
#if defined(__x86_64__)
#define GL_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GL_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef GL_AUDIT_ARCH
/* Numbers from the table both architectures share (424 on), for old headers. */
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#define __NR_move_mount 429
#define __NR_fsopen 430
#define __NR_fsconfig 431
#define __NR_fsmount 432
#define __NR_fspick 433
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#ifndef SECCOMP_FILTER_FLAG_TSYNC
#define SECCOMP_FILTER_FLAG_TSYNC 1
#endif

/* Refused with EPERM: new processes and programs, other processes' memory, the kernel's and
   the machine's state, namespaces and mounts, and the interfaces that get around seccomp's
   view of syscalls (io_uring) or help exploits (userfaultfd, bpf, keyrings). */
static const int denied[] = {
#ifdef __NR_fork
    __NR_fork,
#endif
#ifdef __NR_vfork
    __NR_vfork,
#endif
    __NR_execve, __NR_execveat, __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
    __NR_pidfd_getfd, __NR_process_madvise, __NR_kcmp, __NR_tkill, __NR_pidfd_send_signal,
    __NR_kexec_load,
#ifdef __NR_kexec_file_load
    __NR_kexec_file_load,
#endif
    __NR_init_module, __NR_finit_module, __NR_delete_module, __NR_reboot, __NR_swapon,
    __NR_swapoff, __NR_acct, __NR_syslog, __NR_quotactl, __NR_vhangup,
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_setns, __NR_unshare,
    __NR_open_tree, __NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick,
    __NR_mount_setattr, __NR_open_by_handle_at,
    __NR_bpf, __NR_perf_event_open, __NR_userfaultfd, __NR_add_key, __NR_request_key,
    __NR_keyctl, __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
#ifdef __NR_iopl
    __NR_iopl,
#endif
#ifdef __NR_ioperm
    __NR_ioperm,
#endif
#ifdef __NR_uselib
    __NR_uselib,
#endif
};

/* Refused with EPERM: every call that renames, links, truncates or changes the mode, owner or
   times of a file, so that where Landlock is missing and the worker runs as the grader's own
   user, the files the grader reads back (its test programs, JUnit files and reports) cannot be
   replaced; no file can grow either (RLIMIT_FSIZE 0). unlink and open with O_TRUNC stay
   allowed: CUDA's IPC needs both (in /dev/shm), and seccomp cannot see a path. */
static const int file_changes[] = {
#ifdef __NR_rename
    __NR_rename, __NR_link, __NR_symlink, __NR_mkdir, __NR_rmdir, __NR_mknod, __NR_chmod,
    __NR_chown, __NR_lchown, __NR_utime, __NR_utimes, __NR_futimesat,
#endif
    __NR_renameat, __NR_renameat2, __NR_linkat, __NR_symlinkat, __NR_mkdirat, __NR_mknodat,
    __NR_fchmod, __NR_fchmodat, __NR_fchown, __NR_fchownat, __NR_truncate, __NR_ftruncate,
    __NR_utimensat, __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr, __NR_removexattr,
    __NR_lremovexattr, __NR_fremovexattr, __NR_fallocate,
};

#define ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
/* The low 32 bits of argument 0. */
#define ARG0_LOW offsetof(struct seccomp_data, args[0])
/* The namespace flags clone() accepts; a thread may not ask for any. */
#define CLONE_NAMESPACES                                                                     \
  (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |            \
   CLONE_NEWPID | CLONE_NEWNET)

static int seccomp_apply(report *r, int exec_fd) {
  const uint32_t self = (uint32_t)getpid();
  struct sock_filter f[320];
  unsigned short n = 0;
  int overflow = 0;
#define EMIT(insn)                                                                           \
  do {                                                                                       \
    if (n < sizeof f / sizeof f[0]) f[n++] = (struct sock_filter)insn;                       \
    else overflow = 1;                                                                       \
  } while (0)
  /* Another architecture's syscall table (i386 through int 0x80, say) would get past the
     numbers below: kill. */
  EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
  EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GL_AUDIT_ARCH, 1, 0));
  EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
  /* x32 syscalls report AUDIT_ARCH_X86_64 with bit 30 set in their numbers. */
  EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
  EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
#endif
  /* clone: threads (CLONE_THREAD, no new namespace) only. */
  EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 5));
  EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
  EMIT(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, CLONE_THREAD | CLONE_NAMESPACES));
  EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLONE_THREAD, 0, 1));
  EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
  /* clone3 passes its flags in memory, out of a filter's reach: ENOSYS makes glibc (2.34 on)
     fall back to clone, checked above. */
  EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1));
  EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(ENOSYS)));
  /* execveat: the launcher's one exec, of the descriptor only it can have (sandbox.h). */
  if (exec_fd >= 0) {
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 6));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)exec_fd, 0, 3));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[4])));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AT_EMPTY_PATH, 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
  }
  /* socket and socketpair: AF_UNIX only (CUDA may use it; the worker's channel is one). */
  static const int sockets[] = {__NR_socket, __NR_socketpair};
  for (int i = 0; i < 2; i++) {
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sockets[i], 0, 4));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
  }
  /* Signals: to this process only (its own threads included), as Landlock's scoping does from
     ABI 6; here for older kernels, where a worker running as its parent's uid could otherwise
     signal it. tkill and pidfd_send_signal, which name no process, are refused below. */
  static const int signals[] = {__NR_kill, __NR_tgkill, __NR_rt_sigqueueinfo,
                                __NR_rt_tgsigqueueinfo};
  for (int i = 0; i < 4; i++) {
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, signals[i], 0, 4));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
  }
  /* openat2 passes its flags in memory, out of a filter's reach: ENOSYS (the C library's open
     does not use it). */
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
  EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat2, 0, 1));
  EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(ENOSYS)));
  for (size_t i = 0; i < sizeof file_changes / sizeof file_changes[0]; i++) {
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, file_changes[i], 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
  }
  for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
    if (exec_fd >= 0 && denied[i] == __NR_execveat) continue; /* below */
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied[i], 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
  }
  EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#undef EMIT
  if (overflow) {
    errno = E2BIG;
    return fail(r, "seccomp: the filter outgrew its array");
  }
  struct sock_fprog prog = {n, f};
  /* TSYNC: every thread, should one exist after all. */
  long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
  if (rc < 0 && errno == ENOSYS) rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  next(r);
  if (rc < 0 && errno == EINVAL) {
    say(r, "seccomp skipped (the kernel lacks filters)");
    return 0;
  }
  if (rc != 0) {
    if (rc > 0) errno = EBUSY; /* TSYNC: the id of a thread it could not bind */
    return fail(r, "seccomp");
  }
  say(r, exec_fd >= 0 ? "seccomp (no fork/ptrace/mount/namespaces/non-unix sockets/signals to "
                        "others/file changes; one exec, of the worker)"
                      : "seccomp (no fork/exec/ptrace/mount/namespaces/non-unix sockets/signals "
                        "to others/file changes)");
  return 0;
}

#else
static int seccomp_apply(report *r, int exec_fd) {
  (void)exec_fd;
  next(r);
  say(r, "seccomp skipped (no filter for this architecture)");
  return 0;
}
#endif

int gl_sandbox_is_sealed(void) {
  return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

/* ---- The sandbox ------------------------------------------------------------------------ */

int gl_sandbox_enter(const gl_sandbox_limits *limits, char *layers, size_t layers_size) {
  static const gl_sandbox_limits no_limits = {0, 0, NULL, NULL, NULL, -1};
  report r = {layers, layers != NULL ? layers_size : 0, 0};
  if (r.size > 0) layers[0] = '\0';
  if (limits == NULL) limits = &no_limits;

  /* Landlock binds the calling thread only (seccomp could sync, Landlock cannot before ABI 8). */
  long long threads = status_field("Threads:");
  if (threads > 1) {
    say(&r, "FAILED: called with %lld threads: only the calling one would be sandboxed", threads);
    return -1;
  }
  const pid_t parent = getppid();

  /* 1. No privilege can be gained from here on (and Landlock and seccomp need no root). */
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(&r, "prctl(PR_SET_NO_NEW_PRIVS)");
  say(&r, "no_new_privs");

  /* 2. Landlock's rules open their paths while still root; the ruleset is applied below. */
  landlock l;
  if (landlock_prepare(&r, &l, limits) != 0) {
    if (l.ruleset_fd >= 0) close(l.ruleset_fd);
    return -1;
  }

  /* 3. Leave root: the GPU's nodes are normally 0666. */
  if (drop_root(&r) != 0) {
    if (l.ruleset_fd >= 0) close(l.ruleset_fd);
    return -1;
  }

  /* 4. After the uid change, which clears it. If the parent is already gone, say so. */
  int rc = 0;
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
    rc = fail(&r, "prctl(PR_SET_PDEATHSIG)");
  } else if (getppid() != parent) {
    errno = ESRCH;
    rc = fail(&r, "the parent died before the worker started");
  } else {
    next(&r);
    say(&r, "pdeathsig SIGKILL");
    /* 5. rlimits. */
    rc = set_rlimits(&r, limits);
  }
  if (rc != 0) {
    if (l.ruleset_fd >= 0) close(l.ruleset_fd);
    return -1;
  }

  /* 6. Landlock; 7. seccomp, last: it refuses nothing the others need. */
  if (landlock_apply(&r, &l) != 0) return -1;
  return seccomp_apply(&r, limits->exec_program != NULL ? limits->exec_fd : -1);
}
