/* The ode lab's API: the nested Runge-Kutta pension model (MiddlePar, OuterPar and beyond).
 *
 * Implemented by labs/ode/ode_given.cu (given), which calls the steps of labs/ode/ode.cu (yours;
 * solutions/ode/ode.cu is the same file filled in). The model, its parameters and the CPU reference
 * are in ode_reference.h and ode_model.h; the model's functions there are __host__
 * __device__, so your kernels call the same Inner as the CPU does.
 *
 * Every step computes Middle at Outer's evaluation points on the GPU. Outer's recurrence then
 * runs on the host (ode_ref_outer), as in the report: it is a chain of 2 * (120 - x) * h1 cheap
 * dependent steps.
 */
#ifndef GPULABS_LAB_ODE_H
#define GPULABS_LAB_ODE_H

#include <stddef.h>

#include "ode_reference.h"
#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder, numbered as in the handout. */
typedef enum ode_step {
  ODE_STEP_MIDDLE_PAR = 1,       /* one launch per Middle call, one thread per Middle step,
                                    kSum in global memory, summed on the host */
  ODE_STEP_OUTER_PAR = 2,        /* one launch for all Middle calls, one block per call, kSum in
                                    shared memory, summed by one thread (the report's kernel) */
  ODE_STEP_OUTER_PAR_REDUCE = 3, /* step 2 with a block-level reduction: per-thread partial sums,
                                    warp shuffles, one shared slot per warp */
  ODE_STEP_SHARED_POINTS = 4,    /* one thread per distinct Inner call of a Middle call (the
                                    report's discarded "thread per k"): 2*steps+1 calls, not 3*steps */
  ODE_STEP_INNER_TABLE = 5       /* Inner does not depend on t while the rate is constant: each
                                    distinct (eta, k) is computed once for the whole run */
} ode_step;

#define ODE_FIRST_STEP ODE_STEP_MIDDLE_PAR
#define ODE_LAST_STEP ODE_STEP_INNER_TABLE

/* Threads per block: a power of two in [32, ODE_MAX_BLOCK_SIZE], or 0 for the default. The
 * kernels need 48 to 62 registers per thread (sm_90), and a block of 1024 threads would need all
 * of an SM's 65536 registers, leaving the compiler no room: the lab stops at 512, and the kernels
 * are declared __launch_bounds__(ODE_MAX_BLOCK_SIZE). */
#define ODE_MAX_BLOCK_SIZE 512
#define ODE_DEFAULT_BLOCK_SIZE 128

/* "1-middle-par", "2-outer-par", ...; "unknown" for a value outside the ladder. */
const char *ode_step_name(ode_step step);

/* Middle at Outer's points first .. first + count - 1: d_middle[i] = Middle at point
 * first + i (device array of count doubles). count == 0 is valid and writes nothing.
 * GL_ERR_SIZE when the range goes beyond ode_outer_point_count(params). The call may return
 * before the GPU is done (steps 2 to 5). */
gl_status ode_middle(ode_step step, const ode_params *params, size_t first, size_t count,
                     int block_size, double *d_middle);

/* The whole model with one step: Middle at every point on the GPU, then Outer's recurrence on
 * the host. reserves: host array of ode_year_count(params) doubles, reserves[t] = V(t). */
gl_status ode_run(ode_step step, const ode_params *params, int block_size, double *reserves);

/* What a step launches, for the benchmark's profiler table. */
#define ODE_MAX_KERNELS 2
typedef struct ode_kernel_info {
  char name[48];               /* the kernel's name in the handout */
  long launches;               /* launches in one ode_run */
  long grid;                   /* blocks per launch (the largest, when it varies) */
  int block;                   /* threads per block */
  int registers;               /* per thread, from cudaFuncGetAttributes */
  size_t shared_bytes;         /* per block: static + dynamic shared memory */
  double theoretical_occupancy;/* resident warps / the SM's maximum, from the occupancy API */
} ode_kernel_info;

typedef struct ode_step_info {
  int kernel_count;
  ode_kernel_info kernels[ODE_MAX_KERNELS];
} ode_step_info;

/* Fills info for one ode_run of `step` with these parameters and block size. */
gl_status ode_describe(ode_step step, const ode_params *params, int block_size,
                       ode_step_info *info);

#ifdef __cplusplus
}
#endif
#endif
