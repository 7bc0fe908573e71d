// A hostile submission (grader/selftest/hostile/README.md): every step's answer computed on the
// host, no kernel at all. The sums are right, so the tests of the answers pass; a GPU step that
// launches no kernel of its own earns nothing, on both backends.
#define GPULABS_EXERCISE_FILE
#include <cuda_runtime.h>
#include <stdint.h>

#include <limits>
#include <vector>

#include "gpulabs/check.h"
#include "reduction_steps.h"

template <typename T>
static gl_status to_host(const T *in, size_t n, std::vector<T> *h) {
  h->resize(n);
  if (n > 0 && cudaMemcpy(h->data(), in, n * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess) {
    return gl_fail(GL_ERR_CUDA, "copying the input to the host failed");
  }
  return GL_OK;
}

// The whole sum in partials[0] and 0 in every other partial: each later pass, and the given
// code's final one, then sees the right total whatever the decomposition.
template <typename T>
static gl_status host_pass(const T *in, size_t n, int64_t *partials, unsigned int blocks) {
  std::vector<T> h;
  GL_TRY(to_host(in, n, &h));
  std::vector<int64_t> out(blocks > 0 ? blocks : 1, 0);
  for (size_t i = 0; i < n; ++i) out[0] += (int64_t)h[i];
  if (cudaMemcpy(partials, out.data(), out.size() * sizeof(int64_t), cudaMemcpyHostToDevice) !=
      cudaSuccess) {
    return gl_fail(GL_ERR_CUDA, "copying the partial sums to the device failed");
  }
  return GL_OK;
}

#define ON_THE_HOST(k)                                                                    \
  template <typename T>                                                                   \
  gl_status reduce_step##k(const T *in, size_t n, int64_t *partials, unsigned int blocks, \
                           int block_size, size_t shared_bytes) {                         \
    (void)block_size, (void)shared_bytes;                                                 \
    return host_pass(in, n, partials, blocks);                                            \
  }
ON_THE_HOST(1)
ON_THE_HOST(2)
ON_THE_HOST(3)
ON_THE_HOST(4)
ON_THE_HOST(5)
ON_THE_HOST(6)
ON_THE_HOST(7)

template <reduce_op OP, typename T, typename Acc, typename Out>
gl_status reduce_step8(const T *in, size_t n, int block_size, Out *result) {
  (void)block_size;
  std::vector<T> h;
  GL_TRY(to_host(in, n, &h));
  Acc acc = OP == REDUCE_SUM ? (Acc)0
            : OP == REDUCE_MIN
                ? (std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity()
                                                         : std::numeric_limits<Acc>::max())
                : (std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                         : std::numeric_limits<Acc>::lowest());
  for (size_t i = 0; i < n; ++i) {
    Acc v = (Acc)h[i];
    acc = OP == REDUCE_SUM ? acc + v : OP == REDUCE_MIN ? (v < acc ? v : acc) : (v > acc ? v : acc);
  }
  Out out = (Out)acc;
  if (cudaMemcpy(result, &out, sizeof out, cudaMemcpyHostToDevice) != cudaSuccess) {
    return gl_fail(GL_ERR_CUDA, "copying the result to the device failed");
  }
  return GL_OK;
}
