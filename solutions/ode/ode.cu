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
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= c_model.middle_steps) return;  // the last block may have more threads than steps
  ode_point p = ode_outer_point(c_model.x, c_model.r, c_model.g, c_model.h1, point);
  ksum[i] = ode_middle_step(p.tau, p.t, p.k, c_model.h2, c_model.h3, i);
}

static gl_status middle_par_points(int first, int count, int steps, int block, double *d_ksum,
                                   double *h_ksum, double *h_middle) {
  int blocks = (steps + block - 1) / block;
  for (int q = 0; q < count; ++q) {
    middle_par_kernel<<<blocks, block>>>(first + q, d_ksum);
    LAB_CHECK_LAUNCH();
    // A blocking copy: it waits for the kernel, so each Middle call costs a launch and a sync.
    LAB_CHECK(cudaMemcpy(h_ksum, d_ksum, steps * sizeof(double), cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (int i = 0; i < steps; ++i) sum += h_ksum[i];  // in step order, as the CPU does
    h_middle[q] = sum;
  }
  return GL_OK;
}

gl_status ode_step1(const ode_params *params, int first, int count, int block, double *d_middle) {
  int steps = ode_middle_step_count(params->h2);
  double *d_ksum = NULL;
  LAB_CHECK(cudaMalloc(&d_ksum, steps * sizeof(double)));
  double *h_ksum = (double *)malloc(steps * sizeof(double));
  double *h_middle = (double *)malloc(count * sizeof(double));
  gl_status status = GL_OK;
  if (h_ksum == NULL || h_middle == NULL) {
    status = gl_fail(GL_ERR_NO_MEMORY, "ode_middle: no host memory for %d kSum values", steps);
  } else {
    status = middle_par_points(first, count, steps, block, d_ksum, h_ksum, h_middle);
  }
  if (status == GL_OK) {
    cudaError_t err = cudaMemcpy(d_middle, h_middle, count * sizeof(double), cudaMemcpyHostToDevice);
    if (err != cudaSuccess) {
      status = gl_fail(GL_ERR_CUDA, "ode_middle: copying the Middle values to the device failed: "
                       "%s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
    }
  }
  free(h_ksum);
  free(h_middle);
  cudaFree(d_ksum);
  return status;
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
  const int steps = c_model.middle_steps;
  ode_point p = ode_outer_point(c_model.x, c_model.r, c_model.g, c_model.h1, first + blockIdx.x);
  for (int i = threadIdx.x; i < steps; i += blockDim.x) {
    ksum[i] = ode_middle_step(p.tau, p.t, p.k, c_model.h2, c_model.h3, i);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double sum = 0.0;
    for (int i = 0; i < steps; ++i) sum += ksum[i];
    middle[blockIdx.x] = sum;
  }
}

gl_status ode_step2(const ode_params *params, int first, int count, int block, double *d_middle) {
  size_t shared = outer_par_shared_bytes(params);
  GL_TRY(allow_dynamic_shared("ode_middle", (const void *)outer_par_kernel, shared));
  outer_par_kernel<<<count, block, shared>>>(first, d_middle);
  LAB_CHECK_LAUNCH();
  return GL_OK;
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

// Sum of v over the 32 lanes of a warp, in lane 0.
__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sum of v over the block, in thread 0. blockDim.x is a multiple of 32 (checked on the host),
// and every thread of the block must call it.
__device__ double block_sum(double v) {
  __shared__ double warp_totals[ODE_MAX_BLOCK_SIZE / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  v = 0.0;
  if (warp == 0) {
    if (lane < (int)blockDim.x / 32) v = warp_totals[lane];
    v = warp_sum(v);
  }
  return v;
}

__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) outer_par_reduce_kernel(int first,
                                                                              double *middle) {
  const int steps = c_model.middle_steps;
  ode_point p = ode_outer_point(c_model.x, c_model.r, c_model.g, c_model.h1, first + blockIdx.x);
  double partial = 0.0;
  for (int i = threadIdx.x; i < steps; i += blockDim.x) {
    partial += ode_middle_step(p.tau, p.t, p.k, c_model.h2, c_model.h3, i);
  }
  double total = block_sum(partial);
  if (threadIdx.x == 0) middle[blockIdx.x] = total;
}

gl_status ode_step3(const ode_params *params, int first, int count, int block, double *d_middle) {
  (void)params;  // the kernel reads the parameters from c_model, and needs no shared memory size
  outer_par_reduce_kernel<<<count, block>>>(first, d_middle);
  LAB_CHECK_LAUNCH();
  return GL_OK;
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
  const int steps = c_model.middle_steps, points = 2 * steps + 1;
  ode_point p = ode_outer_point(c_model.x, c_model.r, c_model.g, c_model.h1, first + blockIdx.x);
  for (int j = threadIdx.x; j < points; j += blockDim.x) {
    integrand[j] = ode_middle_point_value(p.tau, p.t, p.k, c_model.h2, c_model.h3, j);
  }
  __syncthreads();
  double partial = 0.0;
  for (int i = threadIdx.x; i < steps; i += blockDim.x) {
    partial += ode_middle_step_sum(c_model.h2, integrand[2 * i], integrand[2 * i + 1],
                                   integrand[2 * i + 2]);
  }
  double total = block_sum(partial);
  if (threadIdx.x == 0) middle[blockIdx.x] = total;
}

gl_status ode_step4(const ode_params *params, int first, int count, int block, double *d_middle) {
  size_t shared = shared_points_shared_bytes(params);
  GL_TRY(allow_dynamic_shared("ode_middle", (const void *)shared_points_kernel, shared));
  shared_points_kernel<<<count, block, shared>>>(first, d_middle);
  LAB_CHECK_LAUNCH();
  return GL_OK;
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

// Thread (row, j) computes Inner at Middle's point j for the row's k.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) inner_table_kernel(const double *row_k,
                                                                         int rows, double *table) {
  const int points = 2 * c_model.middle_steps + 1;
  long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)rows * points) return;
  int row = (int)(idx / points), j = (int)(idx % points);
  double eta = ode_middle_eta(c_model.h2, j);
  table[idx] = ode_inner(eta, row_k[row], 0.0, c_model.h3);  // t is unused: the rate is constant
}

// Block b computes Middle at point first + q0 + b from its row of the table.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) table_middle_kernel(
    int first, int q0, const int *point_row, int row0, const double *table, double *middle) {
  const int steps = c_model.middle_steps, points = 2 * steps + 1, h2 = c_model.h2;
  const int q = q0 + blockIdx.x;
  ode_point p = ode_outer_point(c_model.x, c_model.r, c_model.g, c_model.h1, first + q);
  const double *inner = table + (size_t)(point_row[q] - row0) * points;
  double partial = 0.0;
  for (int i = threadIdx.x; i < steps; i += blockDim.x) {
    double f_start = ode_middle_integrand(p.tau, ode_middle_eta(h2, 2 * i), inner[2 * i]);
    double f_mid = ode_middle_integrand(p.tau, ode_middle_eta(h2, 2 * i + 1), inner[2 * i + 1]);
    double f_end = ode_middle_integrand(p.tau, ode_middle_eta(h2, 2 * i + 2), inner[2 * i + 2]);
    partial += ode_middle_step_sum(h2, f_start, f_mid, f_end);
  }
  double total = block_sum(partial);
  if (threadIdx.x == 0) middle[q] = total;
}

static gl_status inner_table_batches(const ode_params *params, int first, const table_rows *rows,
                                     int block, const double *d_row_k, const int *d_point_row,
                                     double *d_table, double *d_middle) {
  const int points = 2 * ode_middle_step_count(params->h2) + 1;
  const int per_batch = table_rows_per_batch(params);
  for (int row0 = 0; row0 < rows->count; row0 += per_batch) {
    int batch = rows->count - row0 < per_batch ? rows->count - row0 : per_batch;
    long long threads = (long long)batch * points;
    unsigned int blocks = (unsigned int)((threads + block - 1) / block);
    inner_table_kernel<<<blocks, block>>>(d_row_k + row0, batch, d_table);
    LAB_CHECK_LAUNCH();
    int q0 = rows->first_point[row0], q1 = rows->first_point[row0 + batch];
    table_middle_kernel<<<q1 - q0, block>>>(first, q0, d_point_row, row0, d_table, d_middle);
    LAB_CHECK_LAUNCH();
  }
  return GL_OK;
}

gl_status ode_step5(const ode_params *params, int first, int count, int block, double *d_middle) {
  table_rows rows;
  GL_TRY(build_table_rows(params, first, count, &rows));
  const size_t points = 2 * (size_t)ode_middle_step_count(params->h2) + 1;
  const int per_batch = table_rows_per_batch(params);
  const size_t table_rows_max = (size_t)(rows.count < per_batch ? rows.count : per_batch);
  double *d_row_k = NULL, *d_table = NULL;
  int *d_point_row = NULL;
  gl_status status = GL_OK;
  cudaError_t err = cudaMalloc(&d_row_k, rows.count * sizeof(double));
  if (err == cudaSuccess) err = cudaMalloc(&d_point_row, count * sizeof(int));
  if (err == cudaSuccess) err = cudaMalloc(&d_table, table_rows_max * points * sizeof(double));
  if (err == cudaSuccess) {
    err = cudaMemcpy(d_row_k, rows.k, rows.count * sizeof(double), cudaMemcpyHostToDevice);
  }
  if (err == cudaSuccess) {
    err = cudaMemcpy(d_point_row, rows.point_row, count * sizeof(int), cudaMemcpyHostToDevice);
  }
  if (err != cudaSuccess) {
    status = gl_fail(GL_ERR_CUDA, "ode_middle: setting up the Inner table (%d rows of %zu) "
                     "failed: %s (%s)", rows.count, points, cudaGetErrorString(err),
                     cudaGetErrorName(err));
  } else {
    status = inner_table_batches(params, first, &rows, block, d_row_k, d_point_row, d_table,
                                 d_middle);
  }
  // cudaFree waits for the kernels that still use these buffers.
  cudaFree(d_row_k);
  cudaFree(d_point_row);
  cudaFree(d_table);
  free_table_rows(&rows);
  return status;
}

// The table is only valid while the interest rate does not depend on time: without that, step 5
// must not compile.
#if !ODE_RATE_IS_CONSTANT
#error "step 5 (the Inner table) is only valid while the interest rate does not depend on time"
#endif
