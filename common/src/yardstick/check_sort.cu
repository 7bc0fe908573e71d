// A check on the GPU that a sort of 32-bit keys (and their indices) is right, so that a
// yardstick's own output can serve as the expected one without a download
// (gpulabs/yardstick/check_sort.h). Two labs' performance tests use it: radix sort's and bitonic
// sort's.
#include <stdint.h>

#include "gpulabs/check.h"
#include "gpulabs/yardstick/check_sort.h"

struct sort_check {
  unsigned long long first_wrong;  // ULLONG_MAX: none yet
  unsigned long long sum[2], squares[2], bits[2];  // of the input [0] and the keys [1]
};

__device__ void add_warp(unsigned long long *to, unsigned long long v, bool xor_them) {
  for (int d = 16; d > 0; d /= 2) {
    unsigned long long other = __shfl_down_sync(0xffffffffu, v, d);
    v = xor_them ? v ^ other : v + other;
  }
  if ((threadIdx.x & 31) == 0) {
    if (xor_them) atomicXor(to, v);
    else atomicAdd(to, v);
  }
}

__global__ void check_sort_kernel(const uint32_t *in, const uint32_t *keys, const uint32_t *values,
                                  size_t n, unsigned int *seen, sort_check *out) {
  unsigned long long sum[2] = {0, 0}, squares[2] = {0, 0}, bits[2] = {0, 0};
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t k = keys[i];
    bool wrong = i > 0 && keys[i - 1] > k;
    if (values != NULL) {
      const uint32_t v = values[i];
      wrong = wrong || v >= n || in[v] != k || (i > 0 && keys[i - 1] == k && values[i - 1] >= v);
      if (!wrong) {
        const unsigned int bit = 1u << (v & 31);
        wrong = (atomicOr(&seen[v / 32], bit) & bit) != 0;  // an index used twice
      }
    } else {
      const uint32_t a = in[i];
      sum[0] += a, squares[0] += (unsigned long long)a * a, bits[0] ^= a;
      sum[1] += k, squares[1] += (unsigned long long)k * k, bits[1] ^= k;
    }
    if (wrong) atomicMin(&out->first_wrong, (unsigned long long)i);
  }
  if (values == NULL) {
    for (int s = 0; s < 2; ++s) {
      add_warp(&out->sum[s], sum[s], false);
      add_warp(&out->squares[s], squares[s], false);
      add_warp(&out->bits[s], bits[s], true);
    }
  }
}

extern "C" gl_status gl_yardstick_check_sort(const uint32_t *d_in, const uint32_t *d_keys,
                                                   const uint32_t *d_values, size_t n,
                                                   size_t *first_wrong) {
  *first_wrong = SIZE_MAX;
  if (n == 0) return GL_OK;
  if (d_in == NULL || d_keys == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "gl_yardstick_check_sort: an array is NULL");
  }
  sort_check host = {~0ull, {0, 0}, {0, 0}, {0, 0}};
  sort_check *check = NULL;
  unsigned int *seen = NULL;
  const size_t seen_bytes = d_values != NULL ? (n + 31) / 32 * sizeof(unsigned int) : 0;
  gl_status status = GL_OK;
  if (cudaMalloc((void **)&check, sizeof host) != cudaSuccess ||
      (seen_bytes > 0 && cudaMalloc((void **)&seen, seen_bytes) != cudaSuccess)) {
    cudaGetLastError();
    status = gl_fail(GL_ERR_NO_MEMORY, "gl_yardstick_check_sort: cudaMalloc failed");
  }
  if (status == GL_OK) {
    cudaMemcpy(check, &host, sizeof host, cudaMemcpyHostToDevice);
    if (seen_bytes > 0) cudaMemset(seen, 0, seen_bytes);
    check_sort_kernel<<<1024, 256>>>(d_in, d_keys, d_values, n, seen, check);
    cudaError_t err = cudaMemcpy(&host, check, sizeof host, cudaMemcpyDeviceToHost);
    if (err != cudaSuccess) {
      status = gl_fail(GL_ERR_CUDA, "gl_yardstick_check_sort: %s", cudaGetErrorString(err));
    }
  }
  cudaFree(check);
  cudaFree(seen);
  if (status != GL_OK) return status;
  if (host.first_wrong != ~0ull) {
    *first_wrong = (size_t)host.first_wrong;
  } else if (d_values == NULL && (host.sum[0] != host.sum[1] || host.squares[0] != host.squares[1] ||
                                  host.bits[0] != host.bits[1])) {
    *first_wrong = n;
  }
  return GL_OK;
}
