/* The radix sort lab across the worker boundary (reduction_calls.c explains the layout). */
#include "radix_sort.h"
#include "worker/calls.h"

enum {
  FN_STEP_NAME = 1 | GL_HOST_ONLY,
  FN_KEYS = 2,
  FN_PAIRS = 3,
  FN_KEYS_I32 = 4,
  FN_KEYS_F32 = 5,
  FN_RELEASE = 6,
};

#ifdef GL_WORKER_SIDE

gl_status gl_worker_dispatch(uint32_t fn, gl_args *a) {
  radix_sort_step step;
  size_t n;
  switch (fn) {
    case FN_STEP_NAME:
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result_text(a, radix_sort_step_name(step));
      return GL_OK;
    case FN_KEYS: {
      GL_ARG(a, step);
      const uint32_t *d_keys_in = (const uint32_t *)gl_arg_device(a);
      uint32_t *d_keys_out = (uint32_t *)gl_arg_device(a);
      GL_ARG(a, n);
      const radix_sort_options *options = gl_arg_in(a, sizeof(radix_sort_options));
      GL_ARGS_CHECK(a);
      return gl_on_gpu(
          a, "radix_sort_keys", n >= 2,
          radix_sort_keys(step, d_keys_in, d_keys_out, n, options));
    }
    case FN_PAIRS: {
      GL_ARG(a, step);
      const uint32_t *d_keys_in = (const uint32_t *)gl_arg_device(a);
      uint32_t *d_keys_out = (uint32_t *)gl_arg_device(a);
      const uint32_t *d_values_in = (const uint32_t *)gl_arg_device(a);
      uint32_t *d_values_out = (uint32_t *)gl_arg_device(a);
      GL_ARG(a, n);
      const radix_sort_options *options = gl_arg_in(a, sizeof(radix_sort_options));
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "radix_sort_pairs", n >= 2,
                       radix_sort_pairs(step, d_keys_in, d_keys_out,
                                        d_values_in, d_values_out, n, options));
    }
    case FN_KEYS_I32: {
      GL_ARG(a, step);
      const int32_t *d_keys_in = (const int32_t *)gl_arg_device(a);
      int32_t *d_keys_out = (int32_t *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "radix_sort_keys_i32", n >= 2,
                       radix_sort_keys_i32(step, d_keys_in, d_keys_out, n));
    }
    case FN_KEYS_F32: {
      GL_ARG(a, step);
      const float *d_keys_in = (const float *)gl_arg_device(a);
      float *d_keys_out = (float *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "radix_sort_keys_f32", n >= 2,
                       radix_sort_keys_f32(step, d_keys_in, d_keys_out, n));
    }
    case FN_RELEASE:
      return radix_sort_release();
  }
  return gl_unknown_call(fn);
}

#else

const char *radix_sort_step_name(radix_sort_step step) {
  gl_call *c = GL_BEGIN(FN_STEP_NAME, "radix_sort_step_name");
  GL_PUT(c, step);
  return gl_call_text_end(c);
}

gl_status radix_sort_keys(radix_sort_step step, const uint32_t *d_keys_in, uint32_t *d_keys_out,
                          size_t n, const radix_sort_options *options) {
  gl_call *c = GL_BEGIN(FN_KEYS, "radix_sort_keys");
  GL_PUT(c, step);
  gl_call_device(c, d_keys_in);
  gl_call_device(c, d_keys_out);
  GL_PUT(c, n);
  gl_call_in(c, options, sizeof *options);
  return gl_call_status(c);
}

gl_status radix_sort_pairs(radix_sort_step step, const uint32_t *d_keys_in, uint32_t *d_keys_out,
                           const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                           const radix_sort_options *options) {
  gl_call *c = GL_BEGIN(FN_PAIRS, "radix_sort_pairs");
  GL_PUT(c, step);
  gl_call_device(c, d_keys_in);
  gl_call_device(c, d_keys_out);
  gl_call_device(c, d_values_in);
  gl_call_device(c, d_values_out);
  GL_PUT(c, n);
  gl_call_in(c, options, sizeof *options);
  return gl_call_status(c);
}

gl_status radix_sort_keys_i32(radix_sort_step step, const int32_t *d_keys_in, int32_t *d_keys_out,
                              size_t n) {
  gl_call *c = GL_BEGIN(FN_KEYS_I32, "radix_sort_keys_i32");
  GL_PUT(c, step);
  gl_call_device(c, d_keys_in);
  gl_call_device(c, d_keys_out);
  GL_PUT(c, n);
  return gl_call_status(c);
}

gl_status radix_sort_keys_f32(radix_sort_step step, const float *d_keys_in, float *d_keys_out,
                              size_t n) {
  gl_call *c = GL_BEGIN(FN_KEYS_F32, "radix_sort_keys_f32");
  GL_PUT(c, step);
  gl_call_device(c, d_keys_in);
  gl_call_device(c, d_keys_out);
  GL_PUT(c, n);
  return gl_call_status(c);
}

gl_status radix_sort_release(void) { return gl_call_status(GL_BEGIN(FN_RELEASE, "radix_sort_release")); }

#endif
