// The ode lab: the given code. Do not edit: the grader always takes this file from the course.
//
// Step names, argument checks, the upload of the parameters, the dispatch to your steps
// (labs/ode/ode.cu, as declared in labs/ode/ode_steps.h), Outer's recurrence on the host
// (ode_run) and what each step launches, for the benchmark (ode_describe).
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "ode_steps.h"

// ---- Step names and argument checks ---------------------------------------------------------

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

// ---- The API ----------------------------------------------------------------------------------

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
  GL_TRY(ode_upload_constants(params));
  // points <= 2 * 120 * ODE_MAX_STEPS_PER_YEAR + 1: every index fits in an int.
  int first_point = (int)first, n = (int)count;
  switch (step) {
    case ODE_STEP_MIDDLE_PAR: return ode_step1(params, first_point, n, block, d_middle);
    case ODE_STEP_OUTER_PAR: return ode_step2(params, first_point, n, block, d_middle);
    case ODE_STEP_OUTER_PAR_REDUCE: return ode_step3(params, first_point, n, block, d_middle);
    case ODE_STEP_SHARED_POINTS: return ode_step4(params, first_point, n, block, d_middle);
    case ODE_STEP_INNER_TABLE: return ode_step5(params, first_point, n, block, d_middle);
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

// ---- What each step launches, for the benchmark ---------------------------------------------

static gl_status kernel_info(const void *kernel, const char *name, long launches, long grid,
                             int block, size_t dynamic_shared, ode_kernel_info *info) {
  cudaFuncAttributes attr;
  LAB_CHECK(cudaFuncGetAttributes(&attr, kernel));
  int device = 0, max_threads = 0, resident_blocks = 0;
  LAB_CHECK(cudaGetDevice(&device));
  LAB_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  LAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident_blocks, kernel, block,
                                                          dynamic_shared));
  snprintf(info->name, sizeof info->name, "%s", name);
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
