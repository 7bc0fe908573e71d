/* The bitonic sort lab across the worker boundary (reduction_calls.c explains the layout). */
#include "bitonic_sort.h"
#include "worker/calls.h"

enum {
  FN_STEP_NAME = 1 | GL_HOST_ONLY,
  FN_KEYS = 2,
  FN_PAIRS = 3,
};

#ifdef GL_WORKER_SIDE

gl_status gl_worker_dispatch(uint32_t fn, gl_args *a) {
  bitonic_step step;
  bitonic_order order;
  size_t n;
  int block_size;
  switch (fn) {
    case FN_STEP_NAME:
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result_text(a, bitonic_step_name(step));
      return GL_OK;
    case FN_KEYS: {
      GL_ARG(a, step);
      GL_ARG(a, order);
      uint32_t *d_keys = (uint32_t *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "bitonic_sort_keys", n >= 2,
                       bitonic_sort_keys(step, order, d_keys, n, block_size));
    }
    case FN_PAIRS: {
      GL_ARG(a, step);
      GL_ARG(a, order);
      uint32_t *d_keys = (uint32_t *)gl_arg_device(a);
      uint32_t *d_values = (uint32_t *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(
          a, "bitonic_sort_pairs", n >= 2,
          bitonic_sort_pairs(step, order, d_keys, d_values, n, block_size));
    }
  }
  return gl_unknown_call(fn);
}

#else

const char *bitonic_step_name(bitonic_step step) {
  gl_call *c = GL_BEGIN(FN_STEP_NAME, "bitonic_step_name");
  GL_PUT(c, step);
  return gl_call_text_end(c);
}

gl_status bitonic_sort_keys(bitonic_step step, bitonic_order order, uint32_t *d_keys, size_t n,
                            int block_size) {
  gl_call *c = GL_BEGIN(FN_KEYS, "bitonic_sort_keys");
  GL_PUT(c, step);
  GL_PUT(c, order);
  gl_call_device(c, d_keys);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  return gl_call_status(c);
}

gl_status bitonic_sort_pairs(bitonic_step step, bitonic_order order, uint32_t *d_keys,
                             uint32_t *d_values, size_t n, int block_size) {
  gl_call *c = GL_BEGIN(FN_PAIRS, "bitonic_sort_pairs");
  GL_PUT(c, step);
  GL_PUT(c, order);
  gl_call_device(c, d_keys);
  gl_call_device(c, d_values);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  return gl_call_status(c);
}

#endif
