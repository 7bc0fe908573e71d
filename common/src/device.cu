// Device query and the measured device-to-device copy bandwidth.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "gpulabs/check.h"
#include "gpulabs/device.h"
#include "gpulabs/timer.h"

static char no_device_reason[256];

extern "C" int gl_device_count(void) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    snprintf(no_device_reason, sizeof no_device_reason, "no CUDA device (%s: %s)",
             cudaGetErrorName(err), cudaGetErrorString(err));
    cudaGetLastError(); // not sticky, but leave no trace for the next check
    return 0;
  }
  if (count == 0) {
    snprintf(no_device_reason, sizeof no_device_reason, "no CUDA device");
  } else {
    no_device_reason[0] = '\0';
  }
  return count;
}

extern "C" const char *gl_no_device_reason(void) { return no_device_reason; }

extern "C" gl_status gl_device_query(int ordinal, gl_device_info *info) {
  if (info == NULL) return gl_fail(GL_ERR_NULL_POINTER, "gl_device_query: info is NULL");
  cudaDeviceProp prop;
  LAB_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  memset(info, 0, sizeof *info);
  snprintf(info->name, sizeof info->name, "%s", prop.name);
  info->ordinal = ordinal;
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  info->sm_count = prop.multiProcessorCount;
  info->max_threads_per_block = prop.maxThreadsPerBlock;
  info->shared_mem_per_block_optin = prop.sharedMemPerBlockOptin;
  info->l2_bytes = (size_t)prop.l2CacheSize;
  info->global_mem_bytes = prop.totalGlobalMem;
  // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain.
  LAB_CHECK(cudaDeviceGetAttribute(&info->mem_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  LAB_CHECK(cudaDeviceGetAttribute(&info->bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal));
  info->theoretical_gbps = 2.0 * info->mem_clock_khz * 1e3 * (info->bus_width_bits / 8.0) / 1e9;
  return GL_OK;
}

extern "C" void gl_device_describe(const gl_device_info *info, char *line, size_t line_size) {
  snprintf(line, line_size, "%s, cc %d.%d, %d SMs, L2 %zu MB, %.0f GB, theoretical %.0f GB/s",
           info->name, info->cc_major, info->cc_minor, info->sm_count, info->l2_bytes >> 20,
           info->global_mem_bytes / 1e9, info->theoretical_gbps);
}

typedef struct copy_job {
  void *dst;
  const void *src;
  size_t bytes;
} copy_job;

static gl_status run_copy(void *context) {
  copy_job *job = (copy_job *)context;
  LAB_CHECK(cudaMemcpyAsync(job->dst, job->src, job->bytes, cudaMemcpyDeviceToDevice, 0));
  return GL_OK;
}

extern "C" gl_status gl_measure_copy_gbps(size_t bytes, int reps, double *gbps) {
  if (gbps == NULL) return gl_fail(GL_ERR_NULL_POINTER, "gl_measure_copy_gbps: gbps is NULL");
  if (bytes == 0) return gl_fail(GL_ERR_SIZE, "gl_measure_copy_gbps: bytes must be > 0");
  copy_job job = {NULL, NULL, bytes};
  void *src = NULL;
  LAB_CHECK(cudaMalloc(&src, bytes));
  cudaError_t err = cudaMalloc(&job.dst, bytes);
  if (err != cudaSuccess) {
    cudaFree(src);
    LAB_CHECK(err);
  }
  job.src = src;
  double ms = 0.0;
  gl_status status = cudaMemset(src, 1, bytes) == cudaSuccess
                         ? gl_time_median_ms(GL_CLOCK_GPU, run_copy, &job, 3, reps, &ms)
                         : gl_fail(GL_ERR_CUDA, "gl_measure_copy_gbps: cudaMemset failed");
  cudaFree(src);
  cudaFree(job.dst);
  if (status != GL_OK) return status;
  *gbps = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
  return GL_OK;
}
