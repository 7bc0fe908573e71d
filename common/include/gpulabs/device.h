/* Device query and the measured copy bandwidth: the "speed of light" every lab compares with. */
#ifndef GPULABS_DEVICE_H
#define GPULABS_DEVICE_H

#include <stddef.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gl_device_info {
  char name[256];
  int ordinal;
  int cc_major, cc_minor;
  int sm_count;
  int max_threads_per_block;
  size_t shared_mem_per_block_optin; /* bytes a block may use after opting in */
  size_t l2_bytes;
  size_t global_mem_bytes;
  int mem_clock_khz;
  int bus_width_bits;
  double theoretical_gbps; /* 2 (DDR) * clock * bus width: read + write peak */
} gl_device_info;

/* Number of usable CUDA devices; 0 when there is no GPU or no driver (never fails). */
int gl_device_count(void);

/* Why gl_device_count() is 0, e.g. "no CUDA device (cudaErrorNoDevice)"; "" when one exists. */
const char *gl_no_device_reason(void);

gl_status gl_device_query(int ordinal, gl_device_info *info);

/* One line: "NVIDIA H100 80GB HBM3, cc 9.0, 132 SMs, L2 50 MB, 80 GB, theoretical 3352 GB/s" */
void gl_device_describe(const gl_device_info *info, char *line, size_t line_size);

/* Median device-to-device cudaMemcpy bandwidth for a buffer of `bytes`, counting the bytes
 * read plus the bytes written (2 * bytes per copy), in GB/s (1e9 bytes). */
gl_status gl_measure_copy_gbps(size_t bytes, int reps, double *gbps);

#ifdef __cplusplus
}
#endif
#endif
