// The ode lab, reference solution: MiddlePar, OuterPar and two steps beyond the report.
//
// The model's functions (Inner, Middle's steps and points, Outer's points) come from
// gpulabs/reference/ode_model.h, compiled here for the device: the kernels only decide who
// computes what and how the pieces are summed.
#include <stdlib.h>

#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "ode.h"

// ---- Given: constants, argument checks, launch helpers -------------------------------------

// What every kernel reads and no thread writes: the parameters, in constant memory. All threads
// of a warp read the same field at the same time, which constant memory serves in one broadcast.
typedef struct ode_constants {
  int x;
  double r;
  double g;
  int h1, h2, h3;
  int middle_steps;  // 119 * h2
} ode_constants;

__constant__ ode_constants c_model;

static gl_status upload_constants(const ode_params *params) {
  ode_constants host;
  host.x = params->x;
  host.r = params->r;
  host.g = params->g;
  host.h1 = params->h1;
  host.h2 = params->h2;
  host.h3 = params->h3;
  host.middle_steps = ode_middle_step_count(params->h2);
  LAB_CHECK(cudaMemcpyToSymbol(c_model, &host, sizeof host));
  return GL_OK;
}

const char *ode_step_name(ode_step step) {
  switch (step) {
    case ODE_STEP_MIDDLE_PAR: return "1-middle-par";
    case ODE_STEP_OUTER_PAR: return "2-outer-par";
    case ODE_STEP_OUTER_PAR_REDUCE: return "3-outer-par-reduce";
    case ODE_STEP_SHARED_POINTS: return "4-shared-points";
    case ODE_STEP_INNER_TABLE: return "5-inner-table";
  }
  return "unknown";
}

static gl_status check_step(const char *caller, ode_step step) {
  if (step < ODE_FIRST_STEP || step > ODE_LAST_STEP) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d is not a step of the ladder (%d to %d)",
                   caller, (int)step, ODE_FIRST_STEP, ODE_LAST_STEP);
  }
  return GL_OK;
}

// block_size 0 picks the default; anything else must be a power of two in [32, 512].
static gl_status check_block_size(const char *caller, int block_size, int *block) {
  if (block_size == 0) block_size = ODE_DEFAULT_BLOCK_SIZE;
  if (block_size < 32 || block_size > ODE_MAX_BLOCK_SIZE || (block_size & (block_size - 1)) != 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: block_size %d must be a power of two in [32, %d] (or 0 for %d)", caller,
                   block_size, ODE_MAX_BLOCK_SIZE, ODE_DEFAULT_BLOCK_SIZE);
  }
  *block = block_size;
  return GL_OK;
}

// Kernels that need more than the default 48 KiB of dynamic shared memory must opt in first.
static gl_status allow_dynamic_shared(const char *caller, const void *kernel, size_t bytes) {
  int device = 0, optin = 0;
  LAB_CHECK(cudaGetDevice(&device));
  LAB_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attr;
  LAB_CHECK(cudaFuncGetAttributes(&attr, kernel));
  if (bytes + attr.sharedSizeBytes > (size_t)optin) {
    return gl_fail(GL_ERR_SIZE,
                   "%s: %zu bytes of shared memory per block are needed, the device allows %d "
                   "(lower h2)", caller, bytes + attr.sharedSizeBytes, optin);
  }
  if (bytes > 48 * 1024) {
    LAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  }
  return GL_OK;
}

// ---- Step 1: MiddlePar ---------------------------------------------------------------------
//
// One launch per Middle call; thread i computes the kSum of Middle's step i (three Inner calls)
// into global memory. The host adds them up.
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

static gl_status middle_par(const ode_params *params, int first, int count, int block,
                            double *d_middle) {
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

// ---- Step 2: OuterPar ----------------------------------------------------------------------
//
// One launch for every Middle call: block b computes Middle at point first + b. Its threads
// stride over Middle's steps into a shared kSum, then thread 0 adds them in step order.
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

static size_t outer_par_shared_bytes(const ode_params *params) {
  return ode_middle_step_count(params->h2) * sizeof(double);
}

static gl_status outer_par(const ode_params *params, int first, int count, int block,
                           double *d_middle) {
  size_t shared = outer_par_shared_bytes(params);
  GL_TRY(allow_dynamic_shared("ode_middle", (const void *)outer_par_kernel, shared));
  outer_par_kernel<<<count, block, shared>>>(first, d_middle);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// ---- Step 3: OuterPar with a block reduction -----------------------------------------------
//
// Any step count works: each thread first adds the steps it computed (a strided loop, so a
// count that is not a power of two, or smaller than the block, needs no padding), then the
// block adds its threads' partial sums as a tree: shuffles inside each warp, one shared slot
// per warp, shuffles in warp 0. The kSum array is gone with it: 32 doubles of shared memory.

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

static gl_status outer_par_reduce(int first, int count, int block, double *d_middle) {
  outer_par_reduce_kernel<<<count, block>>>(first, d_middle);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// ---- Step 4: one thread per distinct Inner call ----------------------------------------------
//
// The three Inner calls of step i are at points 2i, 2i + 1 and 2i + 2: step i + 1 starts where
// step i ends. A Middle call therefore needs 2 * steps + 1 Inner calls, not 3 * steps. The block
// computes each point's integrand once into shared memory, then combines them step by step.
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

static size_t shared_points_shared_bytes(const ode_params *params) {
  return (2 * (size_t)ode_middle_step_count(params->h2) + 1) * sizeof(double);
}

static gl_status shared_points(const ode_params *params, int first, int count, int block,
                               double *d_middle) {
  size_t shared = shared_points_shared_bytes(params);
  GL_TRY(allow_dynamic_shared("ode_middle", (const void *)shared_points_kernel, shared));
  shared_points_kernel<<<count, block, shared>>>(first, d_middle);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// ---- Step 5: the Inner table -----------------------------------------------------------------
//
// Inner(eta, k, t) depends on t only through the interest rate, which is constant here. So
// Inner depends on (eta, k) alone; eta runs over Middle's 2 * steps + 1 points, the same for
// every Middle call, and k = k(tau) takes one value (g) for every tau < r, one (0) for every
// tau >= r + g, and distinct values only in between. Kernel 1 fills a table with one Inner call
// per (distinct k, point); kernel 2 is step 4's combination, reading the table.
#if !ODE_RATE_IS_CONSTANT
#error "step 5 (the Inner table) is only valid while the interest rate does not depend on time"
#endif

// The table's rows: one per distinct k among the requested points, in the points' order.
typedef struct table_rows {
  int count;        // rows
  double *k;        // k of each row
  int *point_row;   // row of each requested point
  int *first_point; // first requested point of each row, plus one past the last: count + 1
} table_rows;

static void free_table_rows(table_rows *rows) {
  free(rows->k);
  free(rows->point_row);
  free(rows->first_point);
}

// Points with equal k are neighbours (k(tau) is monotone in the point index), so equal
// neighbours share a row. The k of each point is computed by the same code as on the device.
static gl_status build_table_rows(const ode_params *params, int first, int count,
                                  table_rows *rows) {
  rows->count = 0;
  rows->k = (double *)malloc(count * sizeof(double));
  rows->point_row = (int *)malloc(count * sizeof(int));
  rows->first_point = (int *)malloc((count + 1) * sizeof(int));
  if (rows->k == NULL || rows->point_row == NULL || rows->first_point == NULL) {
    free_table_rows(rows);
    return gl_fail(GL_ERR_NO_MEMORY, "ode_middle: no host memory for the rows of %d points", count);
  }
  for (int q = 0; q < count; ++q) {
    double k = ode_outer_point(params->x, params->r, params->g, params->h1, first + q).k;
    if (rows->count == 0 || k != rows->k[rows->count - 1]) {
      rows->k[rows->count] = k;
      rows->first_point[rows->count] = q;
      ++rows->count;
    }
    rows->point_row[q] = rows->count - 1;
  }
  rows->first_point[rows->count] = count;
  return GL_OK;
}

// At most this many doubles in the table at once (128 MiB); more rows are done in batches.
#define ODE_TABLE_MAX_VALUES ((size_t)1 << 24)

static int table_rows_per_batch(const ode_params *params) {
  size_t points = 2 * (size_t)ode_middle_step_count(params->h2) + 1;
  size_t rows = ODE_TABLE_MAX_VALUES / points;
  return rows < 1 ? 1 : (int)rows;
}

// Thread (row, j) computes Inner at Middle's point j for the row's k.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) inner_table_kernel(const double *row_k,
                                                                         int rows,
                                                                         double *table) {
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

static gl_status inner_table(const ode_params *params, int first, int count, int block,
                             double *d_middle) {
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

// ---- Given: the API ----------------------------------------------------------------------------

gl_status ode_middle(ode_step step, const ode_params *params, size_t first, size_t count,
                     int block_size, double *d_middle) {
  const char *caller = "ode_middle";
  int block = 0;
  GL_TRY(check_step(caller, step));
  GL_TRY(ode_check_params(params, caller));
  GL_TRY(check_block_size(caller, block_size, &block));
  size_t points = ode_outer_point_count(params);
  if (first > points || count > points - first) {
    return gl_fail(GL_ERR_SIZE, "%s: first = %zu, count = %zu go beyond Outer's %zu points "
                   "(x = %d, h1 = %d)", caller, first, count, points, params->x, params->h1);
  }
  if (count == 0) return GL_OK;
  if (d_middle == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_middle is NULL", caller);
  GL_TRY(upload_constants(params));
  // points <= 2 * 120 * ODE_MAX_STEPS_PER_YEAR + 1: every index fits in an int.
  int first_point = (int)first, n = (int)count;
  switch (step) {
    case ODE_STEP_MIDDLE_PAR: return middle_par(params, first_point, n, block, d_middle);
    case ODE_STEP_OUTER_PAR: return outer_par(params, first_point, n, block, d_middle);
    case ODE_STEP_OUTER_PAR_REDUCE: return outer_par_reduce(first_point, n, block, d_middle);
    case ODE_STEP_SHARED_POINTS: return shared_points(params, first_point, n, block, d_middle);
    case ODE_STEP_INNER_TABLE: return inner_table(params, first_point, n, block, d_middle);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d is unknown", caller, (int)step);
}

gl_status ode_run(ode_step step, const ode_params *params, int block_size, double *reserves) {
  const char *caller = "ode_run";
  int block = 0;
  GL_TRY(check_step(caller, step));
  GL_TRY(ode_check_params(params, caller));
  GL_TRY(check_block_size(caller, block_size, &block));
  if (reserves == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: reserves is NULL", caller);
  size_t points = ode_outer_point_count(params);
  double *h_middle = (double *)malloc(points * sizeof(double));
  if (h_middle == NULL) {
    return gl_fail(GL_ERR_NO_MEMORY, "%s: no host memory for %zu Middle values", caller, points);
  }
  double *d_middle = NULL;
  cudaError_t err = cudaMalloc(&d_middle, points * sizeof(double));
  if (err != cudaSuccess) {
    free(h_middle);
    return gl_fail(GL_ERR_CUDA, "%s: cudaMalloc of %zu Middle values failed: %s (%s)", caller,
                   points, cudaGetErrorString(err), cudaGetErrorName(err));
  }
  gl_status status = ode_middle(step, params, 0, points, block, d_middle);
  if (status == GL_OK) {
    err = cudaMemcpy(h_middle, d_middle, points * sizeof(double), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
      status = gl_fail(GL_ERR_CUDA, "%s: the Middle kernels failed: %s (%s)", caller,
                       cudaGetErrorString(err), cudaGetErrorName(err));
    }
  }
  // Outer's recurrence: a chain of cheap dependent steps, on the host.
  if (status == GL_OK) status = ode_ref_outer(params, h_middle, reserves);
  cudaFree(d_middle);
  free(h_middle);
  return status;
}

// ---- Given: what each step launches, for the benchmark ----------------------------------------

static gl_status kernel_info(const void *kernel, const char *name, long launches, long grid,
                             int block, size_t dynamic_shared, ode_kernel_info *info) {
  cudaFuncAttributes attr;
  LAB_CHECK(cudaFuncGetAttributes(&attr, kernel));
  int device = 0, max_threads = 0, resident_blocks = 0;
  LAB_CHECK(cudaGetDevice(&device));
  LAB_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  LAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_blocks, kernel, block,
                                                          dynamic_shared));
  info->name = name;
  info->launches = launches;
  info->grid = grid;
  info->block = block;
  info->registers = attr.numRegs;
  info->shared_bytes = attr.sharedSizeBytes + dynamic_shared;
  info->theoretical_occupancy = max_threads > 0 ? (double)resident_blocks * block / max_threads : 0;
  return GL_OK;
}

gl_status ode_describe(ode_step step, const ode_params *params, int block_size,
                       ode_step_info *info) {
  const char *caller = "ode_describe";
  int block = 0;
  GL_TRY(check_step(caller, step));
  GL_TRY(ode_check_params(params, caller));
  GL_TRY(check_block_size(caller, block_size, &block));
  if (info == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: info is NULL", caller);
  const long points = (long)ode_outer_point_count(params);
  const int steps = ode_middle_step_count(params->h2);
  info->kernel_count = 1;
  switch (step) {
    case ODE_STEP_MIDDLE_PAR:
      return kernel_info((const void *)middle_par_kernel, "middle_par_kernel", points,
                         (steps + block - 1) / block, block, 0, &info->kernels[0]);
    case ODE_STEP_OUTER_PAR: {
      size_t shared = outer_par_shared_bytes(params);
      GL_TRY(allow_dynamic_shared(caller, (const void *)outer_par_kernel, shared));
      return kernel_info((const void *)outer_par_kernel, "outer_par_kernel", 1, points, block,
                         shared, &info->kernels[0]);
    }
    case ODE_STEP_OUTER_PAR_REDUCE:
      return kernel_info((const void *)outer_par_reduce_kernel, "outer_par_reduce_kernel", 1,
                         points, block, 0, &info->kernels[0]);
    case ODE_STEP_SHARED_POINTS: {
      size_t shared = shared_points_shared_bytes(params);
      GL_TRY(allow_dynamic_shared(caller, (const void *)shared_points_kernel, shared));
      return kernel_info((const void *)shared_points_kernel, "shared_points_kernel", 1, points,
                         block, shared, &info->kernels[0]);
    }
    case ODE_STEP_INNER_TABLE: {
      table_rows rows;
      GL_TRY(build_table_rows(params, 0, (int)points, &rows));
      const int per_batch = table_rows_per_batch(params);
      const long batches = (rows.count + per_batch - 1) / per_batch;
      const long batch_rows = rows.count < per_batch ? rows.count : per_batch;
      long widest = 0;  // the most points one batch's Middle launch covers
      for (int row0 = 0; row0 < rows.count; row0 += per_batch) {
        int row1 = row0 + per_batch < rows.count ? row0 + per_batch : rows.count;
        long span = rows.first_point[row1] - rows.first_point[row0];
        if (span > widest) widest = span;
      }
      free_table_rows(&rows);
      const long table_threads = batch_rows * (2L * steps + 1);
      info->kernel_count = 2;
      GL_TRY(kernel_info((const void *)inner_table_kernel, "inner_table_kernel", batches,
                         (table_threads + block - 1) / block, block, 0, &info->kernels[0]));
      return kernel_info((const void *)table_middle_kernel, "table_middle_kernel", batches, widest,
                         block, 0, &info->kernels[1]);
    }
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d is unknown", caller, (int)step);
}
