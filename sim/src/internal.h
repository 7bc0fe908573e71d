// What the runtime (runtime.cpp) and the scheduler (scheduler.h and its parts) share.
#ifndef GPULABS_SIM_INTERNAL_H
#define GPULABS_SIM_INTERNAL_H

#include <cstddef>
#include <string>

#include "cuda_runtime.h"
#include "gpulabs_sim.h"

namespace gpulabs_sim {

// The virtual device: the limits of a compute capability 9.0 GPU (H100), so a launch that
// would fail there fails here too.
constexpr unsigned kWarpSize = 32;
constexpr unsigned kMaxThreadsPerBlock = 1024;
constexpr unsigned kMaxBlockDim[3] = {1024, 1024, 64};
constexpr unsigned kMaxGridDim[3] = {2147483647u, 65535u, 65535u};
constexpr size_t kStaticSharedPerBlock = 48 * 1024;  // also the default dynamic limit
constexpr size_t kSharedPerBlockOptin = 232448;      // 227 KiB
constexpr size_t kSharedPerMultiprocessor = 233472;  // 228 KiB
constexpr size_t kReservedSharedPerBlock = 1024;
constexpr int kMaxThreadsPerMultiprocessor = 2048;
constexpr int kMaxBlocksPerMultiprocessor = 32;
constexpr int kRegistersPerMultiprocessor = 65536;
constexpr int kRegistersPerThreadAssumed = 32;
constexpr size_t kConstantMemory = 64 * 1024;

// Prints "gpulabs-sim: <message>" on stderr.
void note(const char *format, ...) __attribute__((format(printf, 1, 2)));

// Records `error` as the calling host thread's last error (unless it is cudaSuccess) and
// returns it.
cudaError_t record_error(cudaError_t error);

// A kernel failed in the simulator: keep the report for cudaGetErrorString and
// gpulabs_sim_last_failure, and make the next synchronising call return the error.
void report_kernel_failure(cudaError_t error, const std::string &report);

// The largest dynamic shared memory a launch may ask for (48 KiB unless
// cudaFuncSetAttribute raised it).
size_t dynamic_shared_limit();

bool is_valid_stream(cudaStream_t stream);

// Host threads that run blocks (the virtual device's multiprocessor count).
int worker_count();

}  // namespace gpulabs_sim

#endif
