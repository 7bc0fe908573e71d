/* gpulabs-sim's own controls, for C and C++ (tests, tools). Kernels never need this header.
 *
 * Environment variables read at the first kernel launch:
 *   GPULABS_SIM_SEED     the schedule seed (decimal or 0x-hex); else GPULABS_SEED; else fresh
 *   GPULABS_SIM_THREADS  host threads that run blocks (default: the number of CPUs)
 *   GPULABS_SIM_STACK_KIB  stack size of each simulated thread (default 128)
 *   GPULABS_SIM_QUIET    set to 1 to keep the seed line off stderr */
#ifndef GPULABS_SIM_H
#define GPULABS_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The seed that orders the threads of every block between barriers. Launch k's block b is
 * scheduled from (seed, k, b) alone, so the same seed replays the same order in each block. */
uint64_t gpulabs_sim_schedule_seed(void);
/* Replaces the seed (and restarts launch numbering), e.g. to try a kernel under many orders. */
void gpulabs_sim_set_schedule_seed(uint64_t seed);

/* Host threads that run blocks; set_worker_count takes effect at the next launch (>= 1). */
int gpulabs_sim_worker_count(void);
void gpulabs_sim_set_worker_count(int count);

/* The report of the last kernel that failed in the simulator (deadlock, misuse of a warp
 * function, too much shared memory, ...), "" if none has. */
const char *gpulabs_sim_last_failure(void);

/* Kernels launched so far. */
uint64_t gpulabs_sim_launch_count(void);

/* Device memory shared with another process (CUDA IPC's counterpart; sim/README.md). The
 * return values are cudaError_t values; these calls leave cudaGetLastError's error alone.
 *
 * The shared-memory file behind the device allocation that holds ptr: its descriptor (owned by
 * the simulator: dup it to keep it), the allocation's base and size. cudaErrorInvalidValue (and
 * *fd = -1) when ptr is not inside device memory of this process. The first export of an
 * allocation moves it onto a file (memfd, close-on-exec, sealed against resizing) at the same
 * address with its contents: no kernel or copy may use it meanwhile. base and size may be NULL.
 * cudaErrorMemoryAllocation (with a note) when no file can be made, e.g. under RLIMIT_FSIZE. */
int gpulabs_sim_ipc_export(const void *ptr, int *fd, void **base, size_t *size);
/* Maps an allocation handed over by another process (fd from gpulabs_sim_ipc_export, passed
 * with SCM_RIGHTS; size its size) as device memory of this process: copies and kernels accept
 * it as if cudaMalloc had returned it. *base: where it is mapped here (any address). The
 * simulator takes ownership of fd (and closes it if the call fails). Returns cudaSuccess or an
 * error (cudaErrorInvalidValue, cudaErrorMemoryAllocation). */
int gpulabs_sim_ipc_import(int fd, size_t size, void **base);
/* Unmaps an imported allocation (cudaFree on it does the same). */
int gpulabs_sim_ipc_release(void *base);

#ifdef __cplusplus
}
#endif

#endif
