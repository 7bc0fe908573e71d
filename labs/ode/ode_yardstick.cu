// The ode lab's yardstick: the course's GPU reference for Middle and the report's MiddlePar
// (ode_yardstick.h). Written from the model (ode_model.h), with no
// code of the lab's.
#include <cuda_runtime.h>
#include <stdlib.h>

#include "gpulabs/check.h"
#include "gpulabs/scratch.h"
#include "ode_yardstick.h"

namespace {

const int kBlock = GL_YARDSTICK_ODE_BLOCK;
const unsigned int kFullMask = 0xffffffffu;

// MiddlePar's buffers, kept between calls: kSum on the device and on the host, and the Middle
// values on the host before their copy to the caller's array.
gl_scratch g_ksum = GL_SCRATCH_INIT;
double *g_host_ksum = NULL;
size_t g_host_ksum_count = 0;
double *g_host_middle = NULL;
size_t g_host_middle_count = 0;

gl_status check_range(const char *caller, const ode_params *params, size_t first, size_t count,
                      const double *d_middle) {
  GL_TRY(ode_check_params(params, caller));
  const size_t points = ode_outer_point_count(params);
  if (first > points || count > points - first) {
    return gl_fail(GL_ERR_SIZE, "%s: first = %zu, count = %zu go beyond Outer's %zu points",
                   caller, first, count, points);
  }
  if (count > 0 && d_middle == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: d_middle is NULL", caller);
  }
  return GL_OK;
}

// Grows a host array to hold `count` doubles (contents lost).
gl_status reserve_host(double **array, size_t *capacity, size_t count, const char *what) {
  if (*capacity >= count) return GL_OK;
  free(*array);
  *array = (double *)malloc(count * sizeof(double));
  *capacity = *array == NULL ? 0 : count;
  if (*array == NULL) {
    return gl_fail(GL_ERR_NO_MEMORY, "gl_yardstick_ode_middle_par: no host memory for %zu %s",
                   count, what);
  }
  return GL_OK;
}

// ---- The reference: one block per point ------------------------------------------------------

// The sum of v over the block, in thread 0; every thread of the block calls it.
__device__ double block_total(double v) {
  __shared__ double warp_totals[kBlock / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  v = 0.0;
  if (warp == 0) {
    v = lane < kBlock / 32 ? warp_totals[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  }
  return v;
}

// Block b: Middle at Outer's point first + b. Step i of Middle uses the integrand at points 2i,
// 2i + 1 and 2i + 2, so each of the 2 * steps + 1 points is computed once, into shared memory,
// and the steps then read them.
__global__ void __launch_bounds__(kBlock) reference_middle_kernel(ode_params p, int first,
                                                                  double *middle) {
  extern __shared__ double integrand[];  // 2 * steps + 1
  const int steps = ode_middle_step_count(p.h2), points = 2 * steps + 1;
  const ode_point at = ode_outer_point(p.x, p.r, p.g, p.h1, first + (int)blockIdx.x);
  for (int j = threadIdx.x; j < points; j += blockDim.x) {
    integrand[j] = ode_middle_point_value(at.tau, at.t, at.k, p.h2, p.h3, j);
  }
  __syncthreads();
  double partial = 0.0;
  for (int i = threadIdx.x; i < steps; i += blockDim.x) {
    partial += ode_middle_step_sum(p.h2, integrand[2 * i], integrand[2 * i + 1],
                                   integrand[2 * i + 2]);
  }
  const double total = block_total(partial);
  if (threadIdx.x == 0) middle[blockIdx.x] = total;
}

// The shared memory the reference needs per block; past the default 48 KiB (h2 > 25) it opts in.
gl_status reference_shared_bytes(const ode_params *params, size_t *bytes) {
  *bytes = (2 * (size_t)ode_middle_step_count(params->h2) + 1) * sizeof(double);
  if (*bytes <= 48 * 1024) return GL_OK;
  int device = 0, optin = 0;
  LAB_CHECK(cudaGetDevice(&device));
  LAB_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (*bytes > (size_t)optin) {
    return gl_fail(GL_ERR_SIZE, "gl_yardstick_ode_middle: h2 = %d needs %zu bytes of shared "
                   "memory per block, the device allows %d", params->h2, *bytes, optin);
  }
  LAB_CHECK(cudaFuncSetAttribute(reference_middle_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*bytes));
  return GL_OK;
}

// ---- MiddlePar: one launch per point, one thread per step ------------------------------------

// Thread i: the kSum of Middle's step i at Outer's point `point`.
__global__ void __launch_bounds__(kBlock) middle_par_kernel(ode_params p, int point,
                                                            double *ksum) {
  const int steps = ode_middle_step_count(p.h2);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= steps) return;
  const ode_point at = ode_outer_point(p.x, p.r, p.g, p.h1, point);
  ksum[i] = ode_middle_step(at.tau, at.t, at.k, p.h2, p.h3, i);
}

// Middle at points first .. first + count - 1 into g_host_middle, one launch and one blocking
// copy per point: the launch-and-wait rhythm the report measured.
gl_status middle_par_points(const ode_params *params, int first, int count) {
  const int steps = ode_middle_step_count(params->h2);
  const int blocks = (steps + kBlock - 1) / kBlock;
  double *d_ksum = (double *)g_ksum.ptr;
  for (int q = 0; q < count; ++q) {
    middle_par_kernel<<<blocks, kBlock, 0, cudaStreamLegacy>>>(*params, first + q, d_ksum);
    LAB_CHECK_LAUNCH();
    LAB_CHECK(cudaMemcpy(g_host_ksum, d_ksum, steps * sizeof(double), cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (int i = 0; i < steps; ++i) sum += g_host_ksum[i];  // in step order, as the CPU does
    g_host_middle[q] = sum;
  }
  return GL_OK;
}

} // namespace

extern "C" gl_status gl_yardstick_ode_middle(const ode_params *params, size_t first, size_t count,
                                             double *d_middle) {
  GL_TRY(check_range("gl_yardstick_ode_middle", params, first, count, d_middle));
  if (count == 0) return GL_OK;
  size_t shared = 0;
  GL_TRY(reference_shared_bytes(params, &shared));
  // Outer's points number at most 2 * 120 * ODE_MAX_STEPS_PER_YEAR + 1: an int holds them.
  reference_middle_kernel<<<(unsigned int)count, kBlock, shared, cudaStreamLegacy>>>(
      *params, (int)first, d_middle);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

extern "C" gl_status gl_yardstick_ode_middle_par(const ode_params *params, size_t first,
                                                 size_t count, double *d_middle) {
  GL_TRY(check_range("gl_yardstick_ode_middle_par", params, first, count, d_middle));
  if (count == 0) return GL_OK;
  const size_t steps = (size_t)ode_middle_step_count(params->h2);
  GL_TRY(gl_scratch_reserve(&g_ksum, steps * sizeof(double)));
  GL_TRY(reserve_host(&g_host_ksum, &g_host_ksum_count, steps, "kSum values"));
  GL_TRY(reserve_host(&g_host_middle, &g_host_middle_count, count, "Middle values"));
  GL_TRY(middle_par_points(params, (int)first, (int)count));
  LAB_CHECK(cudaMemcpy(d_middle, g_host_middle, count * sizeof(double), cudaMemcpyHostToDevice));
  return GL_OK;
}

extern "C" void gl_yardstick_ode_release(void) {
  gl_scratch_release(&g_ksum);
  free(g_host_ksum);
  free(g_host_middle);
  g_host_ksum = g_host_middle = NULL;
  g_host_ksum_count = g_host_middle_count = 0;
}
