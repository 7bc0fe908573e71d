// The ode lab: your kernels. MiddlePar and OuterPar parallelise the three nested Runge-Kutta
// solvers of a pension reserve, as the report did; steps 3 to 5 go past it.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/ode/ode.h          the API the tests call
//   labs/ode/ode_steps.h    what each step below must define, and what it is handed
//   labs/ode/ode_given.cu   argument checks, the parameters in c_model, the dispatch to your steps
//
// The handout, labs/ode/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L ode -R 'OdeStep3/|Limit.*/Step3' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1  1-middle-par         ode_step1  (middle_par_kernel)
//   step 2  2-outer-par          ode_step2  (outer_par_kernel)
//   step 3  3-outer-par-reduce   ode_step3  (outer_par_reduce_kernel, warp_sum, block_sum)
//   step 4  4-shared-points      ode_step4  (shared_points_kernel)
//   step 5  5-inner-table        ode_step5  (inner_table_kernel, table_middle_kernel)
//
// The kernels keep the names and signatures that ode_steps.h declares: the given code asks the
// runtime about them for the benchmark. The parameters are in c_model (constant memory, uploaded
// before your step runs), and the model's functions in ode_model.h are
// __host__ __device__: your kernels call the same Inner as the CPU reference.
#define GPULABS_EXERCISE_FILE
#include <stdlib.h>

#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "ode_steps.h"

// =============================================================================================
// Step 1: MiddlePar
//
// One launch per Middle call, one thread per Middle step. In middle_par_kernel, thread
// i = blockIdx.x * blockDim.x + threadIdx.x computes the kSum of Middle's step i,
//   ode_middle_step(tau, t, k, c_model.h2, c_model.h3, i)
// with tau, t and k from ode_outer_point(c_model.x, c_model.r, c_model.g, c_model.h1, point),
// and stores it in ksum[i] (global memory). The last block may have more threads than the
// c_model.middle_steps = 119 * h2 steps: those return at once, or they would write past kSum.
//
// ode_step1: for each point first + q, launch middle_par_kernel with enough blocks of `block`
// threads for the steps (derived from the step count, as the report does), copy kSum back and
// add it up on the host in step order, as the CPU reference does; d_middle[q] is the sum. Free
// everything you allocate, on every path, the failing ones included (LAB_CHECK returns).
// =============================================================================================

__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) middle_par_kernel(int point, double *ksum) {
  (void)point, (void)ksum;  // yours: step 1
}

gl_status ode_step1(const ode_params *params, int first, int count, int block, double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 1 (middle-par): write middle_par_kernel and ode_step1() "
                            "in labs/ode/ode.cu");
}

// =============================================================================================
// Step 2: OuterPar
//
// One launch for every Middle call: block b of outer_par_kernel computes Middle at point
// first + b into middle[b]. Its threads stride over Middle's steps (i = threadIdx.x;
// i += blockDim.x, so a block of any size covers any step count) into the shared kSum, one
// double per step (extern __shared__, outer_par_shared_bytes() per block, sized at launch).
// After a __syncthreads() that every thread reaches (outside the loop and outside any if),
// thread 0 adds them up in step order and writes middle[b].
//
// ode_step2: one launch of count blocks of `block` threads. Past 48 KiB of dynamic shared memory
// a kernel must opt in first: allow_dynamic_shared() (given, in ode_steps.h) does it.
// =============================================================================================

__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) outer_par_kernel(int first, double *middle) {
  extern __shared__ double ksum[];  // one per Middle step
  (void)first, (void)middle, (void)ksum;  // yours: step 2
}

gl_status ode_step2(const ode_params *params, int first, int count, int block, double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 2 (outer-par): write outer_par_kernel and its launch in "
                            "ode_step2() in labs/ode/ode.cu");
}

// =============================================================================================
// Step 3: OuterPar with a block reduction
//
// Step 2 without the single-thread loop, for any step count, powers of two or not. Each thread
// first adds the steps it computes (the same strided loop, so a count that is not a power of
// two, or smaller than the block, needs no padding) into a register; then the block adds its
// threads' partial sums as a tree: warp_sum (__shfl_down_sync with offsets 16, 8, 4, 2, 1) in
// each warp, one shared slot per warp (block_sum), one __syncthreads(), and warp 0 adds the
// slots the same way. The kSum array is gone with it: one shared double per warp (128 bytes
// for the largest block), no dynamic shared memory. Steps 4 and 5 reuse block_sum.
//
// ode_step3: one launch of count blocks of `block` threads.
// =============================================================================================

__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) outer_par_reduce_kernel(int first,
                                                                              double *middle) {
  (void)first, (void)middle;  // yours: step 3
}

gl_status ode_step3(const ode_params *params, int first, int count, int block, double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 3 (outer-par-reduce): write outer_par_reduce_kernel, its "
                            "block-level sum and its launch in ode_step3() in labs/ode/ode.cu");
}

// =============================================================================================
// Step 4: one thread per distinct Inner call
//
// Step i's three Inner calls are at Middle's points 2i, 2i + 1 and 2i + 2: step i + 1 starts
// where step i ends, so a Middle call needs 2 * steps + 1 distinct Inner calls, not 3 * steps.
// Block b of shared_points_kernel computes Middle at point first + b into middle[b]: its threads
// stride over the points and compute each point's integrand once,
//   ode_middle_point_value(tau, t, k, c_model.h2, c_model.h3, j),
// into shared memory (extern __shared__, shared_points_shared_bytes() per block); after a
// barrier, each thread adds ode_middle_step_sum(h2, f[2i], f[2i + 1], f[2i + 2]) over its steps,
// and the block adds the partial sums as in step 3.
//
// ode_step4: one launch of count blocks of `block` threads. From h2 = 26 on, the integrand needs
// more than 48 KiB of dynamic shared memory: allow_dynamic_shared() (given) opts in.
// =============================================================================================

__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) shared_points_kernel(int first,
                                                                           double *middle) {
  extern __shared__ double integrand[];  // one per Middle point: 2 * steps + 1
  (void)first, (void)middle, (void)integrand;  // yours: step 4
}

gl_status ode_step4(const ode_params *params, int first, int count, int block, double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 4 (shared-points): write shared_points_kernel and its "
                            "launch in ode_step4() in labs/ode/ode.cu");
}

// =============================================================================================
// Step 5: the Inner table
//
// Inner(eta, k, t) depends on t only through the interest rate, which is constant here. So
// Inner depends on (eta, k) alone: eta runs over Middle's 2 * steps + 1 points, the same for
// every Middle call, and k = k(tau) takes one value (g) for every tau < r, one (0) for every
// tau >= r + g, and distinct values only in between. A table of Inner over (distinct k, point j)
// serves every Middle call. Its rows are given: build_table_rows() (ode_steps.h) makes one row
// per distinct k among the requested points, in the points' order (rows.k), the row of each
// point (rows.point_row) and the first point of each row (rows.first_point).
//   inner_table_kernel: thread (row, j) of a batch of rows writes table[row * points + j], where
//     points = 2 * steps + 1: Inner at Middle's point j, eta = ode_middle_eta(h2, j), for the
//     row's k, row_k[row] (t is unused while the rate is constant).
//   table_middle_kernel: block b computes Middle at point first + q0 + b into middle[q0 + b],
//     as step 4 does, with the integrand from row point_row[q0 + b] - row0 of the batch's table
//     (ode_middle_integrand), summed as in step 3.
// ode_step5: build the rows, copy each row's k and each point's row to the device, allocate a
// table of up to table_rows_per_batch() rows (given: 128 MiB at most), then for each batch of
// rows launch inner_table_kernel, and table_middle_kernel for the points of those rows
// (rows.first_point[row0] up to rows.first_point[row0 + batch]). Free everything, on every path.
// =============================================================================================

__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) inner_table_kernel(const double *row_k,
                                                                         int rows, double *table) {
  (void)row_k, (void)rows, (void)table;  // yours: step 5
}

__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) table_middle_kernel(
    int first, int q0, const int *point_row, int row0, const double *table, double *middle) {
  (void)first, (void)q0, (void)point_row, (void)row0, (void)table, (void)middle;  // yours: step 5
}

gl_status ode_step5(const ode_params *params, int first, int count, int block, double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 5 (inner-table): write inner_table_kernel, "
                            "table_middle_kernel and ode_step5() in labs/ode/ode.cu");
}

// The table is only valid while the interest rate does not depend on time: without that, step 5
// must not compile.
#if !ODE_RATE_IS_CONSTANT
#error "step 5 (the Inner table) is only valid while the interest rate does not depend on time"
#endif
