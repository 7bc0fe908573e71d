/* The lab worker's sandbox: what the process that runs student code may still do.
 *
 * The lab worker's launcher (started by a trusted Google Test program, talking to it over a
 * socketpair) calls gl_sandbox_enter() once, then executes the worker, so the sandbox is in
 * place before any student code or CUDA runs and before any thread starts. From then on the process may use the GPU (/dev/nvidia*), compute,
 * read the system's files and its own, talk over the descriptors it already holds, and little
 * else:
 *
 *   no_new_privs, and SIGKILL when the parent dies
 *   root dropped to uid/gid 65534 ("nobody"), no supplementary groups, no capabilities
 *   rlimits: no file written or grown (RLIMIT_FSIZE 0), no core dumps, CPU time, data
 *   Landlock: reads only the system's paths (/usr, /lib*, /bin, /sbin, /etc, /opt, /dev,
 *             /proc, /sys), its program, the folders of its libraries (and those of
 *             LD_LIBRARY_PATH and CUDA_INJECTION64_PATH), and what the caller names: not
 *             /home, /tmp, /var and the like, where submissions and grades live; writes
 *             only the GPU's device nodes and a few others; no TCP bind or connect, no
 *             signals or abstract sockets outside it
 *   seccomp: no fork, exec, ptrace, mounts, namespaces, or sockets other than AF_UNIX
 *
 * Descriptors that are open when it is called keep the access they were opened with (that is
 * how the worker talks to its parent). RLIMIT_FSIZE 0 makes every write(2) to a regular file
 * fail with EFBIG, inherited descriptors included (so a worker whose stdout is a file loses
 * its output), and no file can grow (nor can a memfd be sized: ftruncate fails too); but a
 * file opened for writing before can still be changed through a shared mapping. The parent
 * should hand over pipes and sockets only. */
#ifndef GPULABS_WORKER_SANDBOX_H
#define GPULABS_WORKER_SANDBOX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The uid and gid a worker started as root runs as ("nobody"). */
#define GL_SANDBOX_UID 65534

typedef struct gl_sandbox_limits {
  /* RLIMIT_CPU, the process's CPU time over all its threads, rounded up to whole seconds:
     SIGXCPU at the limit, SIGKILL a second later. 0: no limit. */
  double cpu_seconds;
  /* RLIMIT_DATA: private writable memory (heap, anonymous mmaps, thread stacks), counted
     beyond what the process holds at entry (little for a fresh worker; AddressSanitizer's
     shadow counts as terabytes). Not RLIMIT_AS: CUDA reserves huge PROT_NONE ranges of
     address space (its unified address space), which RLIMIT_AS counts and RLIMIT_DATA does
     not; device memory and the driver's shared mappings of /dev/nvidia* are not counted
     either. Allocations past it fail (malloc returns NULL). A guard against runaway
     allocations, not a hard cap: shared anonymous mappings are not counted, and a MAP_FIXED
     mapping over a reservation is not charged; a hard cap is a cgroup's (memory.max), set by
     whoever starts the tests. 0: no limit. */
  size_t memory_bytes;
  /* NULL-terminated extra paths the worker may write (or create in: directories count with
     everything beneath them), matched as given (no globbing); a missing one is skipped and
     named. /dev/nvidia*, /dev/null, /dev/zero, /dev/shm and /proc are always writable. NULL:
     none. With RLIMIT_FSIZE 0, files there can be created, not written. */
  const char *const *writable;
  /* NULL-terminated extra paths the worker may read (directories with everything beneath
     them), as given; a missing one is skipped and named. NULL: none. */
  const char *const *readable;
  /* The program the caller executes next (a trusted launcher's lab worker), or NULL, and a
     descriptor of it (O_PATH, close-on-exec) at a number no later descriptor can take: the
     sandbox lowers RLIMIT_NOFILE to that number. Then the sandbox is entered before that
     program's first instruction, and seccomp allows one exec: execveat(exec_fd, "", ...,
     AT_EMPTY_PATH), the caller's. The descriptor closes with that exec, and no other can ever
     have its number, so nothing that runs afterwards can execute anything. Landlock lets that
     file and its ELF interpreter be executed and nothing else (the system's paths are read,
     not executed), and that file, not the caller's, is the program it lets be read. */
  const char *exec_program;
  int exec_fd;
} gl_sandbox_limits;

/* Enters the sandbox for the rest of the process's life. `limits` may be NULL (no CPU or
 * memory limit, no extra paths). Writes into `layers` (may be NULL when layers_size is 0) a
 * short text for reports naming each layer that took effect and each one skipped because the
 * kernel lacks it, e.g.
 *   "no_new_privs; uid 65534 gid 65534 (root dropped); pdeathsig SIGKILL; rlimits (cpu 60 s,
 *    fsize 0, core 0, data 8 GiB beyond the 3.1 MiB at entry); landlock abi 7 (reads the
 *    system's paths and 1 more, writes 9 paths, tcp denied, signals and abstract sockets
 *    scoped); seccomp (no fork/exec/ptrace/mount/namespaces/
 *    non-unix sockets)"
 * Returns 0 on success; -1 when a layer that should work failed, or when called with more
 * than one thread (Landlock binds only the calling thread), with "FAILED: ..." in `layers`.
 * After -1 the process may be partly sandboxed: the worker should report it and exit.
 *
 * Parent death is the death of the thread that forked the worker: start it from a thread that
 * lives as long as the worker should. Not async-signal-safe; not thread-safe (by design). */
int gl_sandbox_enter(const gl_sandbox_limits *limits, char *layers, size_t layers_size);

/* RLIMIT_DATA at `bytes` beyond the private data the process holds now (see memory_bytes), for
 * a program whose own start maps much (AddressSanitizer's shadow). 0, or -1 with errno. */
int gl_sandbox_limit_data(size_t bytes);

/* Whether no_new_privs is set, the sandbox's first layer (a process cannot clear it): what a
 * program started through a launcher checks before it trusts that it was. */
int gl_sandbox_is_sealed(void);

#ifdef __cplusplus
}
#endif

#endif
