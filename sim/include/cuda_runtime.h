/* gpulabs-sim: the CUDA runtime for the CPU backend. From C it is cuda_runtime_api.h; from C++
 * it adds what device code uses (gpulabs_sim_device.h) and the runtime API's C++ templates.
 * As nvcc does for .cu files, it brings in printf, malloc, memcpy and the math functions. */
#ifndef GPULABS_SIM_CUDA_RUNTIME_H
#define GPULABS_SIM_CUDA_RUNTIME_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_runtime_api.h"
#include "vector_functions.h"

#ifdef __cplusplus
#include "gpulabs_sim_device.h"

template <class T>
inline cudaError_t cudaMalloc(T **dev_ptr, size_t size) {
  return ::cudaMalloc(reinterpret_cast<void **>(dev_ptr), size);
}
template <class T>
inline cudaError_t cudaMallocManaged(T **dev_ptr, size_t size,
                                     unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged(reinterpret_cast<void **>(dev_ptr), size, flags);
}
template <class T>
inline cudaError_t cudaMallocHost(T **ptr, size_t size) {
  return ::cudaMallocHost(reinterpret_cast<void **>(ptr), size);
}
template <class T>
inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
inline cudaError_t cudaMallocAsync(T **dev_ptr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync(reinterpret_cast<void **>(dev_ptr), size, stream);
}

/* Symbols: the variable itself is passed, so the copy is checked against its size. */
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                      size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::gpulabs_sim::copy_symbol(const_cast<T *>(&symbol), sizeof(T), offset,
                                    const_cast<void *>(src), count, true, kind,
                                    "cudaMemcpyToSymbol");
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                           size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                           cudaStream_t stream = 0) {
  (void)stream;
  return ::gpulabs_sim::copy_symbol(const_cast<T *>(&symbol), sizeof(T), offset,
                                    const_cast<void *>(src), count, true, kind,
                                    "cudaMemcpyToSymbolAsync");
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return ::gpulabs_sim::copy_symbol(const_cast<T *>(&symbol), sizeof(T), offset, dst, count, false,
                                    kind, "cudaMemcpyFromSymbol");
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void **dev_ptr, const T &symbol) {
  return ::cudaGetSymbolAddress(dev_ptr, static_cast<const void *>(&symbol));
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
  (void)symbol;
  if (size == NULL) return ::gpulabs_sim::record_error(cudaErrorInvalidValue);
  *size = sizeof(T);
  return cudaSuccess;
}

inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
  return ::cudaEventCreateWithFlags(event, flags);
}

/* Kernel attributes, keyed by the kernel's address. */
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *entry) {
  return ::cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(entry));
}
template <class T>
inline cudaError_t cudaFuncSetAttribute(T *entry, cudaFuncAttribute attr, int value) {
  return ::cudaFuncSetAttribute(reinterpret_cast<const void *>(entry), attr, value);
}
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T *entry, cudaFuncCache config) {
  return ::cudaFuncSetCacheConfig(reinterpret_cast<const void *>(entry), config);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *num_blocks, T entry,
                                                                 int block_size,
                                                                 size_t dynamic_smem_size) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      num_blocks, reinterpret_cast<const void *>(entry), block_size, dynamic_smem_size);
}
/* The block size with the most resident threads per SM (the largest such), and the grid
 * that fills every SM with it. */
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid_size, int *block_size, T entry,
                                                      size_t dynamic_smem_size = 0,
                                                      int block_size_limit = 0) {
  if (min_grid_size == NULL || block_size == NULL) {
    return ::gpulabs_sim::record_error(cudaErrorInvalidValue);
  }
  int limit = block_size_limit > 0 && block_size_limit < 1024 ? block_size_limit : 1024;
  int best_size = 0, best_threads = -1, best_blocks = 0;
  for (int size = 32; size <= limit; size += 32) {
    int blocks = 0;
    cudaError_t err = ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, reinterpret_cast<const void *>(entry), size, dynamic_smem_size);
    if (err != cudaSuccess) return err;
    if (blocks * size >= best_threads) {
      best_threads = blocks * size;
      best_size = size;
      best_blocks = blocks;
    }
  }
  int sm_count = 0;
  cudaError_t err = ::cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0);
  if (err != cudaSuccess) return err;
  *block_size = best_size;
  *min_grid_size = best_blocks * sm_count;
  return cudaSuccess;
}
#endif /* __cplusplus */

#endif
