// The hashing lab's yardsticks (hashing_yardstick.h): fresh distinct keys, the GPU's random
// gather and atomicCAS limits, and CUB's sort with a binary search.
#include <cub/device/device_radix_sort.cuh>
#include <stdint.h>

#include "gpulabs/check.h"
#include "gpulabs/scratch.h"
#include "hashing_yardstick.h"

#define EMPTY 0xFFFFFFFFu

static gl_scratch table = GL_SCRATCH_INIT;      // the limits' table
static size_t table_slots = 0;
static gl_scratch sorted = GL_SCRATCH_INIT;     // sorted keys, then their values
static gl_scratch cub_temp = GL_SCRATCH_INIT;   // CUB's temporary storage
static size_t sorted_n = 0;

__host__ __device__ static inline uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

static uint64_t gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static unsigned int grid_for(size_t n) {
  size_t blocks = (n + 255) / 256;
  return (unsigned int)(blocks < 65535u * 16u ? blocks : 65535u * 16u);
}

#define GRID_STRIDE(i, n)                                                   \
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
       i += (size_t)gridDim.x * blockDim.x)

// The i-th key of the sequence; the one index whose image is the reserved key takes the image
// of index `spare` (past every index drawn), so no key repeats.
__device__ static inline uint32_t key_at(uint32_t a, uint32_t b, size_t i, size_t spare) {
  uint32_t k = fmix32(a * (uint32_t)i + b);
  return k != EMPTY ? k : fmix32(a * (uint32_t)spare + b);
}

__global__ void draw_kernel(uint32_t *keys, uint32_t *values, uint32_t *absent, size_t n,
                            uint32_t a, uint32_t b) {
  GRID_STRIDE(i, n) {
    keys[i] = key_at(a, b, i, 2 * n);
    values[i] = (uint32_t)i;
    if (absent != NULL) absent[i] = key_at(a, b, n + i, 2 * n);
  }
}

extern "C" gl_status hashing_yardstick_draw(uint32_t *d_keys, uint32_t *d_values,
                                            uint32_t *d_absent, size_t n, uint64_t seed) {
  if (n > ((size_t)1 << 31) - 1) {
    return gl_fail(GL_ERR_SIZE, "hashing_yardstick_draw: n = %zu exceeds 2^31 - 1", n);
  }
  if (n == 0) return GL_OK;
  const uint32_t a = (uint32_t)(seed >> 32) | 1u, b = (uint32_t)seed;
  draw_kernel<<<grid_for(n), 256>>>(d_keys, d_values, d_absent, n, a, b);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

__global__ void queries_kernel(const uint32_t *keys, uint32_t *queries, uint32_t *expected,
                               size_t n, uint64_t c, uint64_t d) {
  GRID_STRIDE(j, n) {
    const uint32_t p = (uint32_t)((c * (uint64_t)j + d) % n);
    queries[j] = keys[p];
    expected[j] = p;
  }
}

extern "C" gl_status hashing_yardstick_queries(const uint32_t *d_keys, uint32_t *d_queries,
                                               uint32_t *d_expected, size_t n, uint64_t seed) {
  if (n == 0) return GL_OK;
  if (n > ((size_t)1 << 31)) {
    return gl_fail(GL_ERR_SIZE, "hashing_yardstick_queries: n = %zu exceeds 2^31", n);
  }
  // c * j + d stays below 2^64: c < 2^32 and j < 2^31.
  uint64_t c = (fmix32((uint32_t)(seed >> 32)) % n) | 1u, d = fmix32((uint32_t)seed) % n;
  while (gcd(c, n) != 1) c += 2;
  queries_kernel<<<grid_for(n), 256>>>(d_keys, d_queries, d_expected, n, c, d);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

extern "C" gl_status hashing_yardstick_prepare(size_t slots) {
  if (slots == 0 || (slots & (slots - 1)) != 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "hashing_yardstick_prepare: %zu slots is not a power of two", slots);
  }
  GL_TRY(gl_scratch_reserve(&table, slots * sizeof(unsigned long long)));
  if (slots != table_slots) {
    // Every word something other than the keys' low halves, so a gather reads real memory.
    LAB_CHECK(cudaMemset(table.ptr, 0x5a, slots * sizeof(unsigned long long)));
    table_slots = slots;
  }
  return GL_OK;
}

__global__ void gather_kernel(const unsigned long long *words, size_t mask, const uint32_t *keys,
                              uint32_t *out, size_t n) {
  GRID_STRIDE(i, n) out[i] = (uint32_t)words[fmix32(keys[i]) & mask];
}

extern "C" gl_status hashing_yardstick_gather(const uint32_t *d_keys, uint32_t *d_out, size_t n) {
  if (table_slots == 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "hashing_yardstick_gather: call prepare first");
  }
  if (n == 0) return GL_OK;
  gather_kernel<<<grid_for(n), 256>>>((const unsigned long long *)table.ptr, table_slots - 1,
                                      d_keys, d_out, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

__global__ void cas_kernel(uint32_t *words, size_t mask, const uint32_t *keys, size_t n) {
  GRID_STRIDE(i, n) {
    const uint32_t k = keys[i];
    atomicCAS(&words[fmix32(k) & mask], EMPTY, k);
  }
}

extern "C" gl_status hashing_yardstick_cas(const uint32_t *d_keys, size_t n) {
  if (table_slots == 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "hashing_yardstick_cas: call prepare first");
  }
  // A table of 4-byte words, emptied first as a hash table's build empties its slots.
  LAB_CHECK(cudaMemsetAsync(table.ptr, 0xff, table_slots * sizeof(uint32_t), 0));
  if (n == 0) return GL_OK;
  cas_kernel<<<grid_for(n), 256>>>((uint32_t *)table.ptr, table_slots - 1, d_keys, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

extern "C" gl_status hashing_yardstick_sort_build(const uint32_t *d_keys,
                                                  const uint32_t *d_values, size_t n) {
  if (n > (size_t)INT32_MAX) {
    return gl_fail(GL_ERR_SIZE, "hashing_yardstick_sort_build: n = %zu exceeds CUB's int", n);
  }
  GL_TRY(gl_scratch_reserve(&sorted, 2 * (n ? n : 1) * sizeof(uint32_t)));
  uint32_t *keys_out = (uint32_t *)sorted.ptr, *values_out = keys_out + n;
  size_t temp_bytes = 0;
  LAB_CHECK(cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, d_keys, keys_out, d_values,
                                            values_out, (int)n));
  GL_TRY(gl_scratch_reserve(&cub_temp, temp_bytes ? temp_bytes : 1));
  LAB_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp.ptr, temp_bytes, d_keys, keys_out, d_values,
                                            values_out, (int)n));
  sorted_n = n;
  return GL_OK;
}

__global__ void sorted_find_kernel(const uint32_t *keys, const uint32_t *values, size_t count,
                                   const uint32_t *queries, uint32_t *out, size_t n) {
  GRID_STRIDE(i, n) {
    const uint32_t q = queries[i];
    size_t lo = 0, hi = count;  // the first key >= q is in [lo, hi]
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (keys[mid] < q) lo = mid + 1;
      else hi = mid;
    }
    out[i] = lo < count && keys[lo] == q ? values[lo] : EMPTY;
  }
}

extern "C" gl_status hashing_yardstick_sorted_find(const uint32_t *d_queries,
                                                   uint32_t *d_values_out, size_t n) {
  if (n == 0) return GL_OK;
  const uint32_t *keys = (const uint32_t *)sorted.ptr;
  sorted_find_kernel<<<grid_for(n), 256>>>(keys, keys + sorted_n, sorted_n, d_queries,
                                           d_values_out, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

extern "C" void hashing_yardstick_release(void) {
  gl_scratch_release(&table);
  gl_scratch_release(&sorted);
  gl_scratch_release(&cub_temp);
  table_slots = sorted_n = 0;
}
