// The Google Test shim: what every lab's tests need, in one place.
//
// Lab code is C; tests are C++ and reach each lab through its C header (extern "C"). This
// header adds: skip-without-GPU, gl_status checks that print the lab's own message, poisoned
// device buffers, array comparison that names the first mismatch and the seed, the seed itself
// ($GPULABS_SEED or a fresh one, printed so any failure can be replayed), and the ratio report
// performance tests hand to the grader.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <initializer_list>
#include <vector>

extern "C" {
#include "gpulabs/compare.h"
#include "gpulabs/data.h"
#include "gpulabs/device.h"
#include "gpulabs/status.h"
}

namespace gl {

// The seed of this run. Every failing test prints it with the command that replays it.
uint64_t Seed();
// A seed of its own for each input a test draws (label: any number that tells inputs apart).
inline uint64_t SeedFor(uint64_t label) { return gl_seed_derive(Seed(), label); }

// True when a CUDA device can be used.
bool HaveGpu();

// Checks a lab call's status; on failure the message carries the lab's own explanation
// (gl_last_error), e.g. "reduce(...) returned GL_ERR_NOT_IMPLEMENTED: not implemented: ...".
::testing::AssertionResult StatusIs(gl_status expected, gl_status actual, const char *call);

// Compares whole arrays with common's reporters (first mismatch, index, n, seed).
::testing::AssertionResult ArraysEqual(const std::vector<int32_t> &expected,
                                       const std::vector<int32_t> &got);
::testing::AssertionResult ArraysEqual(const std::vector<uint32_t> &expected,
                                       const std::vector<uint32_t> &got);
::testing::AssertionResult ArraysEqual(const std::vector<int64_t> &expected,
                                       const std::vector<int64_t> &got);
::testing::AssertionResult ArraysNear(const std::vector<float> &expected,
                                      const std::vector<float> &got, double rel_tol,
                                      double abs_tol);
::testing::AssertionResult ArraysNear(const std::vector<double> &expected,
                                      const std::vector<double> &got, double rel_tol,
                                      double abs_tol);

// Sizes every lab is tested on, up to `max_n`: 0, 1, small odd ones, warp and block edges
// (31, 32, 33, 1023, 1024, 1025, ...), non-powers of two, and large ones. $GPULABS_MAX_N, when
// set, caps them further (compute-sanitizer runs use it: racecheck is ~100x slower).
std::vector<size_t> StandardSizes(size_t max_n);
// min(n, $GPULABS_MAX_N): for tests that pick a large size of their own.
size_t CapSize(size_t n);
// Each size through CapSize, without the repeats the cap makes (order kept): for a test's own
// list of large sizes, which the CPU backend and the sanitizers run at a smaller scale.
std::vector<size_t> CapSizes(std::initializer_list<size_t> sizes);
// True under the CPU backend (LAB_BACKEND=sim), where kernels run on the CPU.
bool OnCpuBackend();

// Performance tests call this once per metric. It prints a line the grader reads
//   GPULABS_METRIC name=<metric> ratio=<value> <detail>
// and records the ratio as a test property (it shows in CTest's JUnit output too).
void ReportRatio(const std::string &metric, double ratio, const std::string &detail);

// Device memory for one test (grader/shim/test_buffers.cpp): filled with the poison byte when
// made and on Poison(), so an element the code under test never writes is reported as such.
// Never null, even for n = 0. A private buffer holds what the verdict rests on (an expected
// array checked on the GPU, a pristine input the test restores): the lab worker never maps it,
// and a private buffer handed to a lab call reaches the lab as an address it cannot use.
void *DeviceAllocPoisoned(size_t bytes);
void *DeviceAllocPrivate(size_t bytes);
void DeviceFree(void *ptr);
void DevicePoison(void *ptr, size_t bytes);
void CopyToDevice(void *dst, const void *src, size_t bytes);
void CopyToHost(void *dst, const void *src, size_t bytes);

struct PrivateTag {};
constexpr PrivateTag kPrivate{};  // DeviceBuffer<T> expected(host, gl::kPrivate)

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n), ptr_(static_cast<T *>(DeviceAllocPoisoned(Bytes()))) {}
  explicit DeviceBuffer(const std::vector<T> &host) : DeviceBuffer(host.size()) { Upload(host); }
  DeviceBuffer(size_t n, PrivateTag) : n_(n), ptr_(static_cast<T *>(DeviceAllocPrivate(Bytes()))) {}
  DeviceBuffer(const std::vector<T> &host, PrivateTag p) : DeviceBuffer(host.size(), p) { Upload(host); }
  ~DeviceBuffer() { DeviceFree(ptr_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  T *get() const { return ptr_; }
  size_t size() const { return n_; }
  void Poison() { DevicePoison(ptr_, Bytes()); }
  void Upload(const std::vector<T> &host) { CopyToDevice(ptr_, host.data(), n_ * sizeof(T)); }
  std::vector<T> Download() const {
    std::vector<T> host(n_);
    CopyToHost(host.data(), ptr_, n_ * sizeof(T));
    return host;
  }

 private:
  size_t Bytes() const { return (n_ == 0 ? 1 : n_) * sizeof(T); }
  size_t n_;
  T *ptr_;
};

}  // namespace gl

// Skips the current test, as CTest's "Skipped", when there is no GPU.
#define GL_SKIP_WITHOUT_GPU()                                                   \
  do {                                                                          \
    if (!gl::HaveGpu()) GTEST_SKIP() << gl_no_device_reason();                  \
  } while (0)

#define GL_ASSERT_OK(call) ASSERT_TRUE(gl::StatusIs(GL_OK, (gl_clear_error(), (call)), #call))
#define GL_EXPECT_OK(call) EXPECT_TRUE(gl::StatusIs(GL_OK, (gl_clear_error(), (call)), #call))
#define GL_EXPECT_STATUS(expected, call) \
  EXPECT_TRUE(gl::StatusIs((expected), (gl_clear_error(), (call)), #call))

// Waits for the GPU and fails the test (not the process) if a kernel failed, e.g.
// "the GPU reported cudaErrorIllegalAddress: an illegal memory access was encountered".
namespace gl {
::testing::AssertionResult DeviceOk(const char *after);
}
#define GL_ASSERT_DEVICE_OK(after) ASSERT_TRUE(gl::DeviceOk(after))

// A fixture for GPU tests: skipped without a device.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override { GL_SKIP_WITHOUT_GPU(); }
};
