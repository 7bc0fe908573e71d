// The CUDA runtime API on the CPU: errors, device memory (host memory that is tracked, so a
// copy to or from something that is not device memory fails as it would on a GPU), streams
// and events (every call completes before it returns, so they only keep time), and the
// properties of the virtual device.
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include <unistd.h>

#include "internal.h"

namespace gpulabs_sim {
namespace {

__thread cudaError_t tls_last_error __attribute__((tls_model("initial-exec"))) = cudaSuccess;

struct State {
  std::mutex mutex;
  std::map<uintptr_t, DeviceMapping> allocations;  // device memory by base (ipc.cpp)
  size_t allocated = 0;                            // the bytes of those not imported
  cudaError_t pending = cudaSuccess;  // a kernel failure not yet returned by a sync
  std::string failure;                // its report
  std::string failure_text;           // what cudaGetErrorString returns for it
  size_t dynamic_shared_limit = kStaticSharedPerBlock;
};
State &state() {
  static State *s = new State;  // never destroyed: memory may be freed during exit
  return *s;
}

size_t total_memory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  size_t bytes = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 2 : ((size_t)8 << 30);
  return bytes > ((size_t)80 << 30) ? ((size_t)80 << 30) : bytes;
}

// True when [ptr, ptr + count) lies in one device allocation.
bool is_device_range(const void *ptr, size_t count) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  auto it = s.allocations.upper_bound(p);
  if (it == s.allocations.begin()) return false;
  --it;
  const size_t size = it->second.size;
  return p >= it->first && p - it->first <= size && count <= size - (p - it->first);
}

// The allocation that holds ptr (base <= ptr < base + size), or end(). The caller holds the lock.
std::map<uintptr_t, DeviceMapping>::iterator find_allocation(State &s, const void *ptr) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  auto it = s.allocations.upper_bound(p);
  if (it == s.allocations.begin()) return s.allocations.end();
  --it;
  return p - it->first < it->second.size ? it : s.allocations.end();
}

const char *kind_name(cudaMemcpyKind kind) {
  switch (kind) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
  }
  return "an unknown kind";
}

cudaError_t take_pending() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  cudaError_t e = s.pending;
  s.pending = cudaSuccess;
  return e;
}

// What a synchronising call returns: a kernel's failure once, then success.
cudaError_t sync_result() { return record_error(take_pending()); }

cudaError_t check_copy(const char *api, void *dst, const void *src, size_t count,
                       cudaMemcpyKind kind) {
  if (count == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) {
    note("%s: %s is NULL (cudaErrorInvalidValue)", api, dst == nullptr ? "dst" : "src");
    return cudaErrorInvalidValue;
  }
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((int)kind < 0 || (int)kind > 4) {
    note("%s: kind %d is not a cudaMemcpyKind (cudaErrorInvalidMemcpyDirection)", api, (int)kind);
    return cudaErrorInvalidMemcpyDirection;
  }
  if (dst_device && !is_device_range(dst, count)) {
    note(
        "%s(%s): dst %p with %zu bytes is not inside memory from cudaMalloc "
        "(cudaErrorInvalidValue)",
        api, kind_name(kind), dst, count);
    return cudaErrorInvalidValue;
  }
  if (src_device && !is_device_range(src, count)) {
    note(
        "%s(%s): src %p with %zu bytes is not inside memory from cudaMalloc "
        "(cudaErrorInvalidValue)",
        api, kind_name(kind), src, count);
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

cudaError_t copy(const char *api, void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  cudaError_t e = check_copy(api, dst, src, count, kind);
  if (e != cudaSuccess) return record_error(e);
  if (count != 0) memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t set(const char *api, void *ptr, int value, size_t count) {
  if (count == 0) return cudaSuccess;
  if (!is_device_range(ptr, count)) {
    note("%s: %p with %zu bytes is not inside memory from cudaMalloc (cudaErrorInvalidValue)", api,
         ptr, count);
    return record_error(cudaErrorInvalidValue);
  }
  memset(ptr, value, count);
  return cudaSuccess;
}

}  // namespace
}  // namespace gpulabs_sim

struct CUstream_st {
  unsigned flags;
};
struct CUevent_st {
  unsigned flags;
  bool recorded;
  double ms;  // host clock when recorded
};

namespace gpulabs_sim {
namespace {
double now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

// The streams and events that exist, so a destroyed or made-up handle is refused (not read).
struct Handles {
  std::mutex mutex;
  std::set<const void *> live;
  void add(const void *h) {
    std::lock_guard<std::mutex> lock(mutex);
    live.insert(h);
  }
  bool remove(const void *h) {
    std::lock_guard<std::mutex> lock(mutex);
    return live.erase(h) == 1;
  }
  bool contains(const void *h) {
    std::lock_guard<std::mutex> lock(mutex);
    return live.count(h) == 1;
  }
};
Handles &handles() {
  static Handles *h = new Handles;
  return *h;
}
bool valid_event(cudaEvent_t e) { return e != nullptr && handles().contains(e); }
}  // namespace

// ---- internal.h ---------------------------------------------------------------------------

void note(const char *format, ...) {
  char buf[2048];
  va_list args;
  va_start(args, format);
  vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  fprintf(stderr, "gpulabs-sim: %s\n", buf);
  fflush(stderr);
}

cudaError_t record_error(cudaError_t error) {
  if (error != cudaSuccess) tls_last_error = error;
  return error;
}

void report_kernel_failure(cudaError_t error, const std::string &report) {
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.pending = error;
    s.failure = report;
    // One line for cudaGetErrorString: the report's first line.
    s.failure_text = report.substr(0, report.find('\n'));
  }
  record_error(error);
}

size_t dynamic_shared_limit() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.dynamic_shared_limit;
}

bool is_valid_stream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread ||
         handles().contains(stream);
}

cudaError_t copy_symbol(void *symbol, size_t symbol_size, size_t offset, void *host, size_t count,
                        bool to_symbol, cudaMemcpyKind kind, const char *api) {
  if (offset > symbol_size || count > symbol_size - offset) {
    note(
        "%s: %zu bytes at offset %zu do not fit in the %zu-byte variable "
        "(cudaErrorInvalidValue)",
        api, count, offset, symbol_size);
    return record_error(cudaErrorInvalidValue);
  }
  const bool host_side_is_device = kind == cudaMemcpyDeviceToDevice;  // the other pointer
  if (kind != cudaMemcpyDefault && kind != cudaMemcpyDeviceToDevice &&
      kind != (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost)) {
    note("%s: kind %s does not fit a copy %s a symbol (cudaErrorInvalidMemcpyDirection)", api,
         kind_name(kind), to_symbol ? "to" : "from");
    return record_error(cudaErrorInvalidMemcpyDirection);
  }
  if (count == 0) return cudaSuccess;
  if (host == nullptr) {
    note("%s: the %s pointer is NULL (cudaErrorInvalidValue)", api,
         to_symbol ? "source" : "destination");
    return record_error(cudaErrorInvalidValue);
  }
  if (host_side_is_device && !is_device_range(host, count)) {
    note("%s: %p is not inside memory from cudaMalloc (cudaErrorInvalidValue)", api, host);
    return record_error(cudaErrorInvalidValue);
  }
  char *sym = static_cast<char *>(symbol) + offset;
  if (to_symbol) {
    memcpy(sym, host, count);
  } else {
    memcpy(host, sym, count);
  }
  return cudaSuccess;
}

}  // namespace gpulabs_sim

using gpulabs_sim::note;
using gpulabs_sim::record_error;

extern "C" {

// ---- Errors -------------------------------------------------------------------------------

cudaError_t cudaGetLastError(void) {
  cudaError_t e = gpulabs_sim::tls_last_error;
  gpulabs_sim::tls_last_error = cudaSuccess;
  if (e == cudaSuccess)
    e = gpulabs_sim::take_pending();
  else
    gpulabs_sim::take_pending();  // delivered: do not report it again
  return e;
}

cudaError_t cudaPeekAtLastError(void) {
  if (gpulabs_sim::tls_last_error != cudaSuccess) return gpulabs_sim::tls_last_error;
  gpulabs_sim::State &s = gpulabs_sim::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.pending;
}

const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
#define GPULABS_SIM_NAME(e) \
  case e: return #e;
    GPULABS_SIM_NAME(cudaSuccess)
    GPULABS_SIM_NAME(cudaErrorInvalidValue)
    GPULABS_SIM_NAME(cudaErrorMemoryAllocation)
    GPULABS_SIM_NAME(cudaErrorInitializationError)
    GPULABS_SIM_NAME(cudaErrorInvalidConfiguration)
    GPULABS_SIM_NAME(cudaErrorInvalidSymbol)
    GPULABS_SIM_NAME(cudaErrorInvalidDevicePointer)
    GPULABS_SIM_NAME(cudaErrorInvalidMemcpyDirection)
    GPULABS_SIM_NAME(cudaErrorInvalidDeviceFunction)
    GPULABS_SIM_NAME(cudaErrorNoDevice)
    GPULABS_SIM_NAME(cudaErrorInvalidDevice)
    GPULABS_SIM_NAME(cudaErrorInvalidResourceHandle)
    GPULABS_SIM_NAME(cudaErrorNotReady)
    GPULABS_SIM_NAME(cudaErrorIllegalAddress)
    GPULABS_SIM_NAME(cudaErrorLaunchOutOfResources)
    GPULABS_SIM_NAME(cudaErrorLaunchTimeout)
    GPULABS_SIM_NAME(cudaErrorAssert)
    GPULABS_SIM_NAME(cudaErrorLaunchFailure)
    GPULABS_SIM_NAME(cudaErrorNotSupported)
    GPULABS_SIM_NAME(cudaErrorUnknown)
#undef GPULABS_SIM_NAME
  }
  return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorLaunchFailure: {
      // The simulator knows why: say so (the full report went to stderr).
      gpulabs_sim::State &s = gpulabs_sim::state();
      std::lock_guard<std::mutex> lock(s.mutex);
      if (!s.failure_text.empty()) return s.failure_text.c_str();
      return "unspecified launch failure";
    }
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unrecognized error code";
}

// ---- Device -------------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int *count) {
  if (count == nullptr) return record_error(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  if (device == nullptr) return record_error(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : record_error(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  using namespace gpulabs_sim;
  if (prop == nullptr) return record_error(cudaErrorInvalidValue);
  if (device != 0) return record_error(cudaErrorInvalidDevice);
  memset(prop, 0, sizeof *prop);
  const int sms = worker_count();
  snprintf(prop->name, sizeof prop->name, "gpulabs-sim virtual GPU (CPU, %d host threads)", sms);
  prop->totalGlobalMem = total_memory();
  prop->sharedMemPerBlock = kStaticSharedPerBlock;
  prop->regsPerBlock = kRegistersPerMultiprocessor;
  prop->warpSize = (int)kWarpSize;
  prop->memPitch = (size_t)2147483647;
  prop->maxThreadsPerBlock = (int)kMaxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = (int)kMaxBlockDim[i];
    prop->maxGridSize[i] = (int)kMaxGridDim[i];
  }
  prop->totalConstMem = kConstantMemory;
  prop->major = 9;
  prop->minor = 0;
  prop->textureAlignment = 512;
  prop->multiProcessorCount = sms;
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->asyncEngineCount = 1;
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = 128;
  prop->l2CacheSize = 32 << 20;
  prop->maxThreadsPerMultiProcessor = kMaxThreadsPerMultiprocessor;
  prop->sharedMemPerMultiprocessor = kSharedPerMultiprocessor;
  prop->regsPerMultiprocessor = kRegistersPerMultiprocessor;
  prop->managedMemory = 1;
  prop->cooperativeLaunch = 0;
  prop->sharedMemPerBlockOptin = kSharedPerBlockOptin;
  prop->maxBlocksPerMultiProcessor = kMaxBlocksPerMultiprocessor;
  prop->reservedSharedMemPerBlock = kReservedSharedPerBlock;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  if (value == nullptr) return record_error(cudaErrorInvalidValue);
  if (device != 0) return record_error(cudaErrorInvalidDevice);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = 2000000; break;  // kHz
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrMemoryClockRate: *value = 3200000; break;  // kHz: a DDR5-6400 channel pair
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = (int)p.sharedMemPerMultiprocessor;
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = (int)p.reservedSharedMemPerBlock; break;
    default:
      note("cudaDeviceGetAttribute: attribute %d is not described by the simulator", (int)attr);
      return record_error(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) { return gpulabs_sim::sync_result(); }

cudaError_t cudaDeviceReset(void) {
  gpulabs_sim::State &s = gpulabs_sim::state();
  std::map<uintptr_t, gpulabs_sim::DeviceMapping> freed;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    freed.swap(s.allocations);
    s.allocated = 0;
    s.pending = cudaSuccess;
    s.dynamic_shared_limit = gpulabs_sim::kStaticSharedPerBlock;
  }
  for (const auto &a : freed) gpulabs_sim::unmap_device_memory(a.second);
  gpulabs_sim::tls_last_error = cudaSuccess;
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }

cudaError_t cudaRuntimeGetVersion(int *version) {
  if (version == nullptr) return record_error(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version) { return cudaRuntimeGetVersion(version); }

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr) return record_error(cudaErrorInvalidValue);
  gpulabs_sim::State &s = gpulabs_sim::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  *total_bytes = gpulabs_sim::total_memory();
  *free_bytes = *total_bytes > s.allocated ? *total_bytes - s.allocated : 0;
  return cudaSuccess;
}

// ---- Memory -------------------------------------------------------------------------------

cudaError_t cudaMalloc(void **dev_ptr, size_t size) {
  if (dev_ptr == nullptr) return record_error(cudaErrorInvalidValue);
  *dev_ptr = nullptr;
  if (size == 0) return cudaSuccess;
  gpulabs_sim::State &s = gpulabs_sim::state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (size > gpulabs_sim::total_memory() - s.allocated)
      return record_error(cudaErrorMemoryAllocation);
  }
  gpulabs_sim::DeviceMapping m;
  if (!gpulabs_sim::map_device_memory(size, &m)) return record_error(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.allocations[reinterpret_cast<uintptr_t>(m.base)] = m;
  s.allocated += size;
  *dev_ptr = m.base;
  return cudaSuccess;
}

cudaError_t cudaMallocManaged(void **dev_ptr, size_t size, unsigned int) {
  return cudaMalloc(dev_ptr, size);
}

cudaError_t cudaFree(void *dev_ptr) {
  if (dev_ptr == nullptr) return cudaSuccess;
  gpulabs_sim::State &s = gpulabs_sim::state();
  gpulabs_sim::DeviceMapping m;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.allocations.find(reinterpret_cast<uintptr_t>(dev_ptr));
    if (it == s.allocations.end()) {
      note(
          "cudaFree(%p): not a pointer returned by cudaMalloc, or freed already "
          "(cudaErrorInvalidValue)",
          dev_ptr);
      return record_error(cudaErrorInvalidValue);
    }
    m = it->second;
    if (!m.imported) s.allocated -= m.size;
    s.allocations.erase(it);
  }
  gpulabs_sim::unmap_device_memory(m);
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
  if (ptr == nullptr) return record_error(cudaErrorInvalidValue);
  *ptr = size == 0 ? nullptr : malloc(size);
  return size != 0 && *ptr == nullptr ? record_error(cudaErrorMemoryAllocation) : cudaSuccess;
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int) {
  return cudaMallocHost(ptr, size);
}

cudaError_t cudaFreeHost(void *ptr) {
  free(ptr);
  return cudaSuccess;
}

cudaError_t cudaHostRegister(void *, size_t, unsigned int) { return cudaSuccess; }
cudaError_t cudaHostUnregister(void *) { return cudaSuccess; }

cudaError_t cudaMallocAsync(void **dev_ptr, size_t size, cudaStream_t stream) {
  if (!gpulabs_sim::is_valid_stream(stream)) return record_error(cudaErrorInvalidResourceHandle);
  return cudaMalloc(dev_ptr, size);
}

cudaError_t cudaFreeAsync(void *dev_ptr, cudaStream_t stream) {
  if (!gpulabs_sim::is_valid_stream(stream)) return record_error(cudaErrorInvalidResourceHandle);
  return cudaFree(dev_ptr);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  cudaError_t pending = gpulabs_sim::sync_result();  // a synchronous copy waits for kernels
  if (pending != cudaSuccess) return pending;
  return gpulabs_sim::copy("cudaMemcpy", dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (!gpulabs_sim::is_valid_stream(stream)) return record_error(cudaErrorInvalidResourceHandle);
  return gpulabs_sim::copy("cudaMemcpyAsync", dst, src, count, kind);
}

cudaError_t cudaMemset(void *dev_ptr, int value, size_t count) {
  return gpulabs_sim::set("cudaMemset", dev_ptr, value, count);
}

cudaError_t cudaMemsetAsync(void *dev_ptr, int value, size_t count, cudaStream_t stream) {
  if (!gpulabs_sim::is_valid_stream(stream)) return record_error(cudaErrorInvalidResourceHandle);
  return gpulabs_sim::set("cudaMemsetAsync", dev_ptr, value, count);
}

cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t stream) {
  if (!gpulabs_sim::is_valid_stream(stream)) return record_error(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

// The C forms cannot see the variable's size: the C++ templates in cuda_runtime.h can.
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               cudaMemcpyKind kind) {
  if (symbol == nullptr) return record_error(cudaErrorInvalidSymbol);
  return gpulabs_sim::copy_symbol(const_cast<void *>(symbol), offset + count, offset,
                                  const_cast<void *>(src), count, true, kind, "cudaMemcpyToSymbol");
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 cudaMemcpyKind kind) {
  if (symbol == nullptr) return record_error(cudaErrorInvalidSymbol);
  return gpulabs_sim::copy_symbol(const_cast<void *>(symbol), offset + count, offset, dst, count,
                                  false, kind, "cudaMemcpyFromSymbol");
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  if (!gpulabs_sim::is_valid_stream(stream)) return record_error(cudaErrorInvalidResourceHandle);
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void **dev_ptr, const void *symbol) {
  if (dev_ptr == nullptr) return record_error(cudaErrorInvalidValue);
  if (symbol == nullptr) return record_error(cudaErrorInvalidSymbol);
  *dev_ptr = const_cast<void *>(symbol);
  return cudaSuccess;
}

// ---- Streams and events -------------------------------------------------------------------

cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags) {
  if (stream == nullptr) return record_error(cudaErrorInvalidValue);
  *stream = new CUstream_st{flags};
  gpulabs_sim::handles().add(*stream);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == nullptr || !gpulabs_sim::handles().remove(stream)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!gpulabs_sim::is_valid_stream(stream)) return record_error(cudaErrorInvalidResourceHandle);
  return gpulabs_sim::sync_result();
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (!gpulabs_sim::is_valid_stream(stream)) return record_error(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  if (!gpulabs_sim::is_valid_stream(stream) || !gpulabs_sim::valid_event(event)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  if (event == nullptr) return record_error(cudaErrorInvalidValue);
  *event = new CUevent_st{flags, false, 0.0};
  gpulabs_sim::handles().add(*event);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (event == nullptr || !gpulabs_sim::handles().remove(event)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!gpulabs_sim::valid_event(event) || !gpulabs_sim::is_valid_stream(stream)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  event->recorded = true;
  event->ms = gpulabs_sim::now_ms();
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!gpulabs_sim::valid_event(event)) return record_error(cudaErrorInvalidResourceHandle);
  return gpulabs_sim::sync_result();
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (!gpulabs_sim::valid_event(event)) return record_error(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (ms == nullptr) return record_error(cudaErrorInvalidValue);
  if (!gpulabs_sim::valid_event(start) || !gpulabs_sim::valid_event(end) ||
      (start->flags & cudaEventDisableTiming) || (end->flags & cudaEventDisableTiming)) {
    return record_error(cudaErrorInvalidResourceHandle);
  }
  if (!start->recorded || !end->recorded) return record_error(cudaErrorInvalidResourceHandle);
  *ms = (float)(end->ms - start->ms);
  return cudaSuccess;
}

// ---- Kernels ------------------------------------------------------------------------------

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  if (attr == nullptr) return record_error(cudaErrorInvalidValue);
  if (func == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = (int)gpulabs_sim::kMaxThreadsPerBlock;
  attr->numRegs = gpulabs_sim::kRegistersPerThreadAssumed;
  attr->ptxVersion = 90;
  attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = (int)gpulabs_sim::dynamic_shared_limit();
  attr->preferredShmemCarveout = -1;
  return cudaSuccess;
}

// The simulator does not tell kernels apart here: raising the dynamic shared memory limit
// for one kernel raises it for all (see README).
cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value) {
  if (func == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || (size_t)value > gpulabs_sim::kSharedPerBlockOptin) {
      note(
          "cudaFuncSetAttribute: %d bytes of dynamic shared memory is outside [0, %zu] "
          "(cudaErrorInvalidValue)",
          value, gpulabs_sim::kSharedPerBlockOptin);
      return record_error(cudaErrorInvalidValue);
    }
    gpulabs_sim::State &s = gpulabs_sim::state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if ((size_t)value > s.dynamic_shared_limit) s.dynamic_shared_limit = (size_t)value;
    return cudaSuccess;
  }
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
    return value >= -1 && value <= 100 ? cudaSuccess : record_error(cudaErrorInvalidValue);
  }
  return record_error(cudaErrorInvalidValue);
}

cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache) {
  return func == nullptr ? record_error(cudaErrorInvalidDeviceFunction) : cudaSuccess;
}

// Occupancy of the described device, assuming 32 registers per thread.
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *num_blocks, const void *func,
                                                          int block_size,
                                                          size_t dynamic_smem_size) {
  using namespace gpulabs_sim;
  if (num_blocks == nullptr) return record_error(cudaErrorInvalidValue);
  if (func == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
  if (block_size <= 0) return record_error(cudaErrorInvalidValue);
  if (block_size > (int)kMaxThreadsPerBlock) {  // no block of that size fits (as CUDA answers)
    *num_blocks = 0;
    return cudaSuccess;
  }
  const int warps = (block_size + 31) / 32;
  int blocks = kMaxBlocksPerMultiprocessor;
  const int by_threads = kMaxThreadsPerMultiprocessor / (warps * 32);
  const int by_registers = kRegistersPerMultiprocessor / (warps * 32 * kRegistersPerThreadAssumed);
  const int by_shared =
      (int)(kSharedPerMultiprocessor / (dynamic_smem_size + kReservedSharedPerBlock));
  if (by_threads < blocks) blocks = by_threads;
  if (by_registers < blocks) blocks = by_registers;
  if (by_shared < blocks) blocks = by_shared;
  *num_blocks = blocks;
  return cudaSuccess;
}

}  // extern "C"

extern "C" const char *gpulabs_sim_last_failure(void) {
  gpulabs_sim::State &s = gpulabs_sim::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.failure.c_str();
}

// ---- Device memory shared with another process (gpulabs_sim.h; the mappings: ipc.cpp) ------
// Not CUDA calls: they leave the last error alone (a test program asks about pointers that may
// have been freed, and a failed question must not turn up in a later cudaGetLastError).

extern "C" int gpulabs_sim_ipc_export(const void *ptr, int *fd, void **base, size_t *size) {
  if (fd != nullptr) *fd = -1;
  if (base != nullptr) *base = nullptr;
  if (size != nullptr) *size = 0;
  if (fd == nullptr || ptr == nullptr) return cudaErrorInvalidValue;
  gpulabs_sim::State &s = gpulabs_sim::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = gpulabs_sim::find_allocation(s, ptr);
  if (it == s.allocations.end()) return cudaErrorInvalidValue;
  const cudaError_t e = gpulabs_sim::share_device_memory(&it->second);
  if (e != cudaSuccess) return e;
  *fd = it->second.fd;
  if (base != nullptr) *base = it->second.base;
  if (size != nullptr) *size = it->second.size;
  return cudaSuccess;
}

extern "C" int gpulabs_sim_ipc_import(int fd, size_t size, void **base) {
  if (base != nullptr) *base = nullptr;
  if (fd < 0) {
    note("gpulabs_sim_ipc_import: descriptor %d (cudaErrorInvalidValue)", fd);
    return cudaErrorInvalidValue;
  }
  gpulabs_sim::DeviceMapping m;
  cudaError_t e = base == nullptr ? cudaErrorInvalidValue
                                  : gpulabs_sim::import_device_memory(fd, size, &m);
  if (e != cudaSuccess) {
    close(fd);  // taken over, whatever the outcome
    return e;
  }
  gpulabs_sim::State &s = gpulabs_sim::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.allocations[reinterpret_cast<uintptr_t>(m.base)] = m;
  *base = m.base;
  return cudaSuccess;
}

extern "C" int gpulabs_sim_ipc_release(void *base) {
  gpulabs_sim::State &s = gpulabs_sim::state();
  gpulabs_sim::DeviceMapping m;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.allocations.find(reinterpret_cast<uintptr_t>(base));
    if (it == s.allocations.end() || !it->second.imported) {
      note(
          "gpulabs_sim_ipc_release(%p): not a base returned by gpulabs_sim_ipc_import, or "
          "released already (cudaErrorInvalidValue)",
          base);
      return cudaErrorInvalidValue;
    }
    m = it->second;
    s.allocations.erase(it);
  }
  gpulabs_sim::unmap_device_memory(m);
  return cudaSuccess;
}

// CUDA's own IPC passes a 64-byte handle, which cannot carry a file descriptor: the simulator
// shares through gpulabs_sim_ipc_export/import instead (see sim/README.md).
extern "C" cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *) {
  if (handle != nullptr) memset(handle, 0, sizeof *handle);
  note(
      "cudaIpcGetMemHandle: not simulated (a handle cannot carry the shared-memory file): use "
      "gpulabs_sim_ipc_export/gpulabs_sim_ipc_import (gpulabs_sim.h) and pass the descriptor "
      "over a Unix socket (cudaErrorNotSupported)");
  return record_error(cudaErrorNotSupported);
}

extern "C" cudaError_t cudaIpcOpenMemHandle(void **dev_ptr, cudaIpcMemHandle_t, unsigned int) {
  if (dev_ptr != nullptr) *dev_ptr = nullptr;
  note(
      "cudaIpcOpenMemHandle: not simulated (a handle cannot carry the shared-memory file): use "
      "gpulabs_sim_ipc_import (gpulabs_sim.h) on a descriptor received over a Unix socket "
      "(cudaErrorNotSupported)");
  return record_error(cudaErrorNotSupported);
}

// Releases what gpulabs_sim_ipc_import mapped, so code written for the GPU can close it.
extern "C" cudaError_t cudaIpcCloseMemHandle(void *dev_ptr) {
  return record_error((cudaError_t)gpulabs_sim_ipc_release(dev_ptr));
}
