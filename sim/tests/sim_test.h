// Helpers shared by the kernel tests. They compile for both backends: with gpulabs-sim
// (GPULABS_SIM defined) and with nvcc against a real GPU.
#ifndef GPULABS_SIM_TEST_H
#define GPULABS_SIM_TEST_H

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#ifdef GPULABS_SIM
#include "gpulabs_sim.h"
#endif

// Built with AddressSanitizer (GCC and Clang say so differently).
#if defined(__SANITIZE_ADDRESS__)
#define SIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_TEST_ASAN 1
#endif
#endif

#define CUDA_ASSERT(call)                                              \
  do {                                                                 \
    cudaError_t cuda_assert_err_ = (call);                             \
    ASSERT_EQ(cudaSuccess, cuda_assert_err_)                           \
        << #call << ": " << cudaGetErrorName(cuda_assert_err_) << ": " \
        << cudaGetErrorString(cuda_assert_err_) << ScheduleNote();     \
  } while (0)

// "; schedule seed 0x..." under the simulator (what replays a failure), "" on a GPU.
inline std::string ScheduleNote() {
#ifdef GPULABS_SIM
  char buf[96];
  snprintf(buf, sizeof buf, "; schedule seed 0x%llx (GPULABS_SIM_SEED)",
           (unsigned long long)gpulabs_sim_schedule_seed());
  return buf;
#else
  return "";
#endif
}

// Device memory for one test, freed at the end of the scope.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : n_(n) {
    if (cudaMalloc(&ptr_, (n == 0 ? 1 : n) * sizeof(T)) != cudaSuccess) ptr_ = nullptr;
  }
  explicit DeviceArray(const std::vector<T> &host) : DeviceArray(host.size()) { Upload(host); }
  ~DeviceArray() { cudaFree(ptr_); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  T *get() const { return ptr_; }
  void Upload(const std::vector<T> &host) {
    cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  void Fill(int byte) { cudaMemset(ptr_, byte, n_ * sizeof(T)); }
  std::vector<T> Download() const {
    std::vector<T> host(n_);
    cudaMemcpy(host.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost);
    return host;
  }

 private:
  size_t n_;
  T *ptr_ = nullptr;
};

// A small seeded generator for test inputs (the same sequence on both backends).
class TestRng {
 public:
  explicit TestRng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t Below(uint32_t bound) { return (uint32_t)(((Next() >> 32) * bound) >> 32); }

 private:
  uint64_t state_;
};

#endif
