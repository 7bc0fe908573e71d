// The sealed timing's trusted device code: the fresh inputs' random fills, the compare kernel
// and the L2 flush (gpulabs/yardstick/sealed.h).
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "gpulabs/check.h"
#include "gpulabs/compare.h"
#include "gpulabs/device.h"
#include "gpulabs/yardstick/sealed.h"

namespace {

const unsigned int kFullMask = 0xffffffffu;
const int kThreads = 256;
const int kBlocksPerSm = 8; // 2048 threads per SM: a grid-stride loop that keeps memory busy

// result[0]: mismatches; result[1]: the lowest mismatching index (all ones when none).
unsigned long long *g_result = NULL;
void *g_flush = NULL;
size_t g_flush_bytes = 0;
int g_blocks = 0;

// Element i of a fill with `seed`: splitmix64's finaliser of the i-th step of its sequence, the
// high half (its best bits). A function of (seed, i) alone, so every thread draws its own
// elements in any order, and the host computes the same values.
__host__ __device__ inline uint32_t random_u32(uint64_t seed, size_t i) {
  uint64_t z = seed + ((uint64_t)i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (uint32_t)(z >> 32);
}

// lo + value * span / 2^32: uniform in [lo, lo + span) up to a bias below span / 2^32 (none for
// the full range, span = 2^32). The product fits: (2^32 - 1) * 2^32 < 2^64.
__global__ void fill_int_kernel(int *d, size_t n, int lo, uint64_t span, uint64_t seed) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t offset = ((uint64_t)random_u32(seed, i) * span) >> 32;
    d[i] = (int)(uint32_t)((uint32_t)lo + (uint32_t)offset);  // wraps like the ints it means
  }
}

__global__ void fill_u32_kernel(uint32_t *d, size_t n, uint64_t seed) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    d[i] = random_u32(seed, i);
  }
}

// Each thread walks its indices upwards, so the first mismatch it meets is its lowest; the warp
// then adds its counts and takes its lowest index, and one lane per warp updates the result.
// Past n, in the guard region, an element must still be `poison`.
template <typename T>
__global__ void compare_kernel(const T *want, const T *got, size_t n, size_t guard, T poison,
                               unsigned long long *result) {
  unsigned long long count = 0, first = ~0ull;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t end = n + guard;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < end; i += stride) {
    if ((i < n ? want[i] : poison) != got[i]) {
      if (count == 0) first = i;
      ++count;
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    count += __shfl_down_sync(kFullMask, count, offset);
    unsigned long long other = __shfl_down_sync(kFullMask, first, offset);
    first = other < first ? other : first;
  }
  if (threadIdx.x % 32 == 0 && count > 0) {
    atomicAdd(&result[0], count);
    atomicMin(&result[1], first);
  }
}

// Reads the whole buffer; the store never happens in practice, but the compiler cannot know.
__global__ void read_kernel(const uint4 *buffer, size_t words, unsigned long long *sink) {
  unsigned int acc = 0;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
    uint4 v = buffer[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x5eedf1u) *sink = acc;
}

gl_status ensure_setup(void) {
  if (g_blocks > 0) return GL_OK;
  int device = 0;
  LAB_CHECK(cudaGetDevice(&device));
  gl_device_info info;
  GL_TRY(gl_device_query(device, &info));
  if (g_result == NULL) LAB_CHECK(cudaMalloc(&g_result, 2 * sizeof(unsigned long long)));
  // Twice the L2, in whole MiB, and never less than 8 MiB.
  size_t bytes = 2 * info.l2_bytes;
  if (bytes < ((size_t)8 << 20)) bytes = (size_t)8 << 20;
  bytes = (bytes + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);
  LAB_CHECK(cudaMalloc(&g_flush, bytes));
  g_flush_bytes = bytes;
  g_blocks = info.sm_count * kBlocksPerSm;
  return GL_OK;
}

// An element of elem_bytes whose every byte is the poison: what the guard region must hold.
template <typename T>
T poison_of(void) {
  T value;
  memset(&value, GL_POISON_BYTE, sizeof value);
  return value;
}

} // namespace

extern "C" uint32_t gl_sealed_random_u32(uint64_t seed, size_t i) { return random_u32(seed, i); }

extern "C" gl_status gl_sealed_fill_int(int *d, size_t n, int lo, int hi, uint64_t seed) {
  if (n == 0) return GL_OK;
  if (d == NULL) return gl_fail(GL_ERR_NULL_POINTER, "gl_sealed_fill_int: d is NULL");
  if (hi < lo) {
    int t = lo;
    lo = hi;
    hi = t;
  }
  GL_TRY(ensure_setup());
  const uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
  fill_int_kernel<<<g_blocks, kThreads, 0, cudaStreamLegacy>>>(d, n, lo, span, seed);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

extern "C" gl_status gl_sealed_fill_u32(uint32_t *d, size_t n, uint64_t seed) {
  if (n == 0) return GL_OK;
  if (d == NULL) return gl_fail(GL_ERR_NULL_POINTER, "gl_sealed_fill_u32: d is NULL");
  GL_TRY(ensure_setup());
  fill_u32_kernel<<<g_blocks, kThreads, 0, cudaStreamLegacy>>>(d, n, seed);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

extern "C" gl_status gl_sealed_compare(const void *d_want, const void *d_got, size_t n,
                                       size_t guard, size_t elem_bytes,
                                       gl_sealed_mismatch *result) {
  if (result == NULL) return gl_fail(GL_ERR_NULL_POINTER, "gl_sealed_compare: result is NULL");
  result->count = 0;
  result->first = 0;
  result->want = result->got = 0;
  if (elem_bytes != 4 && elem_bytes != 8) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "gl_sealed_compare: elem_bytes %zu is not 4 or 8",
                   elem_bytes);
  }
  if (n + guard == 0) return GL_OK;
  if ((n > 0 && d_want == NULL) || d_got == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "gl_sealed_compare: %s is NULL",
                   d_got == NULL ? "d_got" : "d_want");
  }
  GL_TRY(ensure_setup());
  unsigned long long host[2];
  LAB_CHECK(cudaMemsetAsync(g_result, 0, sizeof(unsigned long long), cudaStreamLegacy));
  LAB_CHECK(cudaMemsetAsync(g_result + 1, 0xff, sizeof(unsigned long long), cudaStreamLegacy));
  if (elem_bytes == 4) {
    compare_kernel<<<g_blocks, kThreads, 0, cudaStreamLegacy>>>(
        (const uint32_t *)d_want, (const uint32_t *)d_got, n, guard, poison_of<uint32_t>(),
        g_result);
  } else {
    compare_kernel<<<g_blocks, kThreads, 0, cudaStreamLegacy>>>(
        (const unsigned long long *)d_want, (const unsigned long long *)d_got, n, guard,
        poison_of<unsigned long long>(), g_result);
  }
  LAB_CHECK_LAUNCH();
  LAB_CHECK(cudaMemcpy(host, g_result, sizeof host, cudaMemcpyDeviceToHost));
  result->count = host[0];
  if (host[0] == 0) return GL_OK;
  result->first = host[1];
  const size_t offset = (size_t)host[1] * elem_bytes;
  if (host[1] < n) {
    LAB_CHECK(cudaMemcpy(&result->want, (const char *)d_want + offset, elem_bytes,
                         cudaMemcpyDeviceToHost));
  } else {
    memset(&result->want, GL_POISON_BYTE, elem_bytes);  // the guard region's
  }
  LAB_CHECK(cudaMemcpy(&result->got, (const char *)d_got + offset, elem_bytes,
                       cudaMemcpyDeviceToHost));
  return GL_OK;
}

extern "C" gl_status gl_sealed_flush_l2(void) {
  GL_TRY(ensure_setup());
  LAB_CHECK(cudaMemsetAsync(g_flush, 0x5a, g_flush_bytes, cudaStreamLegacy));
  read_kernel<<<g_blocks, kThreads, 0, cudaStreamLegacy>>>((const uint4 *)g_flush,
                                                          g_flush_bytes / sizeof(uint4), g_result);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

extern "C" size_t gl_sealed_flush_bytes(void) { return g_flush_bytes; }

extern "C" void gl_sealed_release(void) {
  if (g_result != NULL) cudaFree(g_result);
  if (g_flush != NULL) cudaFree(g_flush);
  g_result = NULL;
  g_flush = NULL;
  g_flush_bytes = 0;
  g_blocks = 0;
}
