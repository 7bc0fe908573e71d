// The ode lab: MiddlePar, OuterPar and two steps beyond the report. Your file.
//
// The model's functions (Inner, Middle's steps and points, Outer's points) come from
// gpulabs/reference/ode_model.h and are __host__ __device__: call them from your kernels, as the
// CPU reference does. Your kernels decide who computes what and how the pieces are summed.
// Sections marked "Given" work as they are; each step's section is yours (docs/labs/ode.md).
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
// One launch per Middle call. Thread i computes the kSum of Middle's step i,
//   ode_middle_step(tau, t, k, h2, h3, i)
// with tau, t and k from ode_outer_point(x, r, g, h1, point), the parameters from c_model, and
// stores it in ksum[i] (global memory). The last block may have more threads than steps.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) middle_par_kernel(int point, double *ksum) {
  // TODO (step 1)
  (void)point;
  (void)ksum;
}

// Middle at points first .. first + count - 1 into d_middle[0 .. count - 1]: for each point,
// launch middle_par_kernel with enough blocks of `block` threads for the 119 * h2 steps, copy
// kSum back and add it up on the host in step order. Free everything you allocate, on every path.
static gl_status middle_par(const ode_params *params, int first, int count, int block,
                            double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 1 (middle-par): write middle_par_kernel and middle_par() "
                            "in labs/ode/ode.cu");
}

// ---- Step 2: OuterPar ----------------------------------------------------------------------
//
// One launch for every Middle call: block b computes Middle at point first + b into middle[b].
// Its threads stride over Middle's steps (i = threadIdx.x, i += blockDim.x) into the shared
// kSum; after a barrier, thread 0 adds them up in step order.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) outer_par_kernel(int first, double *middle) {
  extern __shared__ double ksum[];  // one per Middle step
  // TODO (step 2)
  (void)first;
  (void)middle;
  (void)ksum;
}

// The dynamic shared memory outer_par_kernel needs per block.
static size_t outer_par_shared_bytes(const ode_params *params) {
  return ode_middle_step_count(params->h2) * sizeof(double);
}

static gl_status outer_par(const ode_params *params, int first, int count, int block,
                           double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 2 (outer-par): write outer_par_kernel and its launch in "
                            "outer_par() in labs/ode/ode.cu");
}

// ---- Step 3: OuterPar with a block reduction -----------------------------------------------
//
// Step 2 without the single-thread loop: each thread adds the steps it computes into a register,
// then the block adds its threads' partial sums as a tree (warp shuffles, one shared slot per
// warp). It must work for any step count, powers of two or not.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) outer_par_reduce_kernel(int first,
                                                                              double *middle) {
  // TODO (step 3)
  (void)first;
  (void)middle;
}

static gl_status outer_par_reduce(int first, int count, int block, double *d_middle) {
  (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 3 (outer-par-reduce): write outer_par_reduce_kernel, its "
                            "block-level sum and its launch in labs/ode/ode.cu");
}

// ---- Step 4: one thread per distinct Inner call ----------------------------------------------
//
// Step i's three Inner calls are at Middle's points 2i, 2i + 1 and 2i + 2: 2 * steps + 1
// distinct calls per Middle call, not 3 * steps. Compute each point's integrand once,
//   ode_middle_point_value(tau, t, k, h2, h3, j),
// into shared memory, then combine them step by step (ode_middle_step_sum) and reduce as in
// step 3.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) shared_points_kernel(int first,
                                                                           double *middle) {
  extern __shared__ double integrand[];  // one per Middle point: 2 * steps + 1
  // TODO (step 4)
  (void)first;
  (void)middle;
  (void)integrand;
}

// The dynamic shared memory shared_points_kernel needs per block.
static size_t shared_points_shared_bytes(const ode_params *params) {
  return (2 * (size_t)ode_middle_step_count(params->h2) + 1) * sizeof(double);
}

// Past 48 KiB of dynamic shared memory a kernel must opt in: allow_dynamic_shared() does it.
static gl_status shared_points(const ode_params *params, int first, int count, int block,
                               double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 4 (shared-points): write shared_points_kernel and its "
                            "launch in labs/ode/ode.cu");
}

// ---- Step 5: the Inner table -----------------------------------------------------------------
//
// Inner(eta, k, t) depends on t only through the interest rate, which is constant here: a table
// of Inner over (distinct k, Middle's point j) serves every Middle call. The rows are given
// (build_table_rows); kernel 1 fills a batch of rows, kernel 2 computes Middle for the points of
// those rows from the table, as step 4 does from shared memory.
#if !ODE_RATE_IS_CONSTANT
#error "step 5 (the Inner table) is only valid while the interest rate does not depend on time"
#endif

// Given: the table's rows, one per distinct k among the requested points, in their order.
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

// Thread (row, j) of a batch: table[row * points + j] = Inner at Middle's point j for the row's
// k (row_k[row]), where points = 2 * steps + 1.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) inner_table_kernel(const double *row_k,
                                                                         int rows,
                                                                         double *table) {
  // TODO (step 5)
  (void)row_k;
  (void)rows;
  (void)table;
}

// Block b: Middle at point first + q0 + b into middle[q0 + b], from row point_row[q0 + b] - row0
// of the batch's table.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) table_middle_kernel(
    int first, int q0, const int *point_row, int row0, const double *table, double *middle) {
  // TODO (step 5)
  (void)first, (void)q0, (void)point_row, (void)row0, (void)table, (void)middle;
}

// Build the rows, copy each row's k and each point's row to the device, allocate a table of
// up to table_rows_per_batch() rows, then for each batch of rows launch inner_table_kernel and
// table_middle_kernel for the points of those rows (rows.first_point). Free everything.
static gl_status inner_table(const ode_params *params, int first, int count, int block,
                             double *d_middle) {
  (void)params, (void)first, (void)count, (void)block, (void)d_middle;
  return gl_not_implemented("ode step 5 (inner-table): write inner_table_kernel, "
                            "table_middle_kernel and inner_table() in labs/ode/ode.cu");
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
