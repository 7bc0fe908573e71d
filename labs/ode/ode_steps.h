// The ode lab: what each step defines, and what the given code hands it. Given: do not edit.
//
// labs/ode/ode_given.cu checks every argument of the API (ode.h), uploads the parameters into
// c_model and then calls one step function below; labs/ode/ode.cu (yours) defines them, and the
// kernels the given code names in the benchmark's table (ode_describe).
//
// The model's functions (Inner, Middle's steps and points, Outer's points) are in
// ode_model.h, __host__ __device__: your kernels call the same code as the CPU
// reference does, and decide only who computes what and how the pieces are summed.
#ifndef GPULABS_LAB_ODE_STEPS_H
#define GPULABS_LAB_ODE_STEPS_H

#include <stdlib.h>

#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "ode.h"

// ---- The parameters in constant memory ------------------------------------------------------

// What every kernel reads and no thread writes: the parameters, in constant memory. All threads
// of a warp read the same field at the same time, which constant memory serves in one broadcast.
typedef struct ode_constants {
  int x;
  double r;
  double g;
  int h1, h2, h3;
  int middle_steps;  // 119 * h2
} ode_constants;

// Copies the parameters into c_model. The given code calls it before every step, so c_model
// holds this call's parameters when your step function runs.
gl_status ode_upload_constants(const ode_params *params);

// c_model must live in the translation unit of your kernels (device code is per file), so it and
// its upload are defined here only when labs/ode/ode.cu includes this header.
#ifdef GPULABS_EXERCISE_FILE
__constant__ ode_constants c_model;

gl_status ode_upload_constants(const ode_params *params) {
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
#endif

// ---- What every step is handed --------------------------------------------------------------
//
// Each step computes Middle at Outer's points first .. first + count - 1 into d_middle[0 ..
// count - 1], a device array of count doubles. The given code has checked everything: params
// are valid (step counts 1 to ODE_MAX_STEPS_PER_YEAR), count > 0, first + count <= Outer's point
// count (so every point index fits in an int), d_middle is not NULL, and block is the block
// size, a power of two in [32, ODE_MAX_BLOCK_SIZE]. A step may return before the GPU is done
// (steps 2 to 5 do); it frees everything it allocates, on every path. The kernels are named
// here because the given code queries them (registers, shared memory, occupancy) for the
// benchmark: define each one, with this signature, in labs/ode/ode.cu.

// Step 1, MiddlePar: one launch of middle_par_kernel per point, its kSum summed on the host.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) middle_par_kernel(int point, double *ksum);
gl_status ode_step1(const ode_params *params, int first, int count, int block, double *d_middle);

// Step 2, OuterPar: one launch of outer_par_kernel, one block per point, with
// outer_par_shared_bytes() of dynamic shared memory.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) outer_par_kernel(int first, double *middle);
gl_status ode_step2(const ode_params *params, int first, int count, int block, double *d_middle);

// Step 3, OuterPar with a block reduction: one launch of outer_par_reduce_kernel, no dynamic
// shared memory.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) outer_par_reduce_kernel(int first,
                                                                              double *middle);
gl_status ode_step3(const ode_params *params, int first, int count, int block, double *d_middle);

// Step 4, shared points: one launch of shared_points_kernel, one block per point, with
// shared_points_shared_bytes() of dynamic shared memory.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) shared_points_kernel(int first,
                                                                           double *middle);
gl_status ode_step4(const ode_params *params, int first, int count, int block, double *d_middle);

// Step 5, the Inner table: per batch of table rows, inner_table_kernel fills the table and
// table_middle_kernel computes Middle for the points of those rows.
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) inner_table_kernel(const double *row_k,
                                                                         int rows,
                                                                         double *table);
__global__ void __launch_bounds__(ODE_MAX_BLOCK_SIZE) table_middle_kernel(
    int first, int q0, const int *point_row, int row0, const double *table, double *middle);
gl_status ode_step5(const ode_params *params, int first, int count, int block, double *d_middle);

// ---- Given helpers for the steps ------------------------------------------------------------

// Kernels that need more than the default 48 KiB of dynamic shared memory must opt in first:
// call this before such a launch (steps 2 and 4). GL_ERR_SIZE when the device has too little.
static inline gl_status allow_dynamic_shared(const char *caller, const void *kernel,
                                             size_t bytes) {
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

// The dynamic shared memory outer_par_kernel needs per block (step 2): one double per step.
static inline size_t outer_par_shared_bytes(const ode_params *params) {
  return ode_middle_step_count(params->h2) * sizeof(double);
}

// The dynamic shared memory shared_points_kernel needs per block (step 4): one double per point.
static inline size_t shared_points_shared_bytes(const ode_params *params) {
  return (2 * (size_t)ode_middle_step_count(params->h2) + 1) * sizeof(double);
}

// Step 5's table rows: one per distinct k among the requested points, in the points' order.
typedef struct table_rows {
  int count;        // rows
  double *k;        // k of each row
  int *point_row;   // row of each requested point
  int *first_point; // first requested point of each row, plus one past the last: count + 1
} table_rows;

static inline void free_table_rows(table_rows *rows) {
  free(rows->k);
  free(rows->point_row);
  free(rows->first_point);
}

// Points with equal k are neighbours (k(tau) is monotone in the point index), so equal
// neighbours share a row. The k of each point is computed by the same code as on the device.
// The rows of points first .. first + count - 1; free them with free_table_rows.
static inline gl_status build_table_rows(const ode_params *params, int first, int count,
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

// The rows one batch of step 5 may hold: at least 1.
static inline int table_rows_per_batch(const ode_params *params) {
  size_t points = 2 * (size_t)ode_middle_step_count(params->h2) + 1;
  size_t rows = ODE_TABLE_MAX_VALUES / points;
  return rows < 1 ? 1 : (int)rows;
}

#endif
