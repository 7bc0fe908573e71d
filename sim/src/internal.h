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

// Fresh device memory holds this byte, not zeros: CUDA promises nothing about it.
constexpr unsigned char kFreshMemory = 0xCB;

// One device allocation (ipc.cpp): whole pages of its own at `base` (so page-aligned), between
// guard ranges that AddressSanitizer sees as heap redzones.
struct DeviceMapping {
  char *base;
  size_t size;    // the bytes asked for
  int fd;         // its shared-memory file: -1 until exported (or for an import, the one mapped)
  bool imported;  // mapped by gpulabs_sim_ipc_import (memory of another process)
};

// Maps `size` (> 0) bytes of fresh (kFreshMemory) private memory: false when there is none.
bool map_device_memory(size_t size, DeviceMapping *out);
// Moves the allocation onto a shared-memory file at the same address, contents kept, unless it
// has one: the caller holds the allocation table's lock, and nothing may access the allocation
// meanwhile. cudaErrorMemoryAllocation (with a note) when no file can be made.
cudaError_t share_device_memory(DeviceMapping *m);
// Maps the first `size` bytes of the file `fd` (sealed against shrinking, or sealable):
// cudaErrorInvalidValue (with a note) or cudaErrorMemoryAllocation. Does not close fd.
cudaError_t import_device_memory(int fd, size_t size, DeviceMapping *out);
// Unmaps the allocation and closes its file; its addresses stay reserved and unusable for a
// while (a use after free faults, or is a heap-use-after-free under AddressSanitizer).
void unmap_device_memory(const DeviceMapping &m);

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
