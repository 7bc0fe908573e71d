/* gpulabs-sim's own controls, for C and C++ (tests, tools). Kernels never need this header.
 *
 * Environment variables read at the first kernel launch:
 *   GPULABS_SIM_SEED     the schedule seed (decimal or 0x-hex); else GPULABS_SEED; else fresh
 *   GPULABS_SIM_THREADS  host threads that run blocks (default: the number of CPUs)
 *   GPULABS_SIM_STACK_KIB  stack size of each simulated thread (default 128)
 *   GPULABS_SIM_QUIET    set to 1 to keep the seed line off stderr */
#ifndef GPULABS_SIM_H
#define GPULABS_SIM_H

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

#ifdef __cplusplus
}
#endif

#endif
