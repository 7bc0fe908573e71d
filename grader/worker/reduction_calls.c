/* The reduction lab across the worker boundary: each function of reduction.h as a proxy (in
 * the test programs) and as a dispatch case (in the lab worker), side by side so that the two
 * read and write the arguments in the same order. */
#include "reduction.h"
#include "worker/calls.h"

enum {
  FN_STEP_NAME = 1 | GL_HOST_ONLY,
  FN_OP_NAME = 2 | GL_HOST_ONLY,
  FN_SUM_INT = 3,
  FN_INT = 4,
  FN_FLOAT = 5,
  FN_FREE_SCRATCH = 6,
};

#ifdef GL_WORKER_SIDE

gl_status gl_worker_dispatch(uint32_t fn, gl_args *a) {
  switch (fn) {
    case FN_STEP_NAME: {
      reduce_step step;
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result_text(a, reduce_step_name(step));
      return GL_OK;
    }
    case FN_OP_NAME: {
      reduce_op op;
      GL_ARG(a, op);
      GL_ARGS_CHECK(a);
      gl_result_text(a, reduce_op_name(op));
      return GL_OK;
    }
    case FN_SUM_INT: {
      reduce_step step;
      size_t n;
      int block_size;
      GL_ARG(a, step);
      const int *d_in = (const int *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      int64_t *d_sum = (int64_t *)gl_arg_device(a);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "reduce_sum_int", n >= 2,
                       reduce_sum_int(step, d_in, n, block_size, d_sum));
    }
    case FN_INT: {
      reduce_op op;
      size_t n;
      int block_size;
      GL_ARG(a, op);
      const int *d_in = (const int *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      int64_t *d_result = (int64_t *)gl_arg_device(a);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "reduce_int", n >= 2,
                       reduce_int(op, d_in, n, block_size, d_result));
    }
    case FN_FLOAT: {
      reduce_op op;
      size_t n;
      int block_size;
      GL_ARG(a, op);
      const float *d_in = (const float *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      float *d_result = (float *)gl_arg_device(a);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "reduce_float", n >= 2,
                       reduce_float(op, d_in, n, block_size, d_result));
    }
    case FN_FREE_SCRATCH:
      reduce_free_scratch();
      return GL_OK;
  }
  return gl_unknown_call(fn);
}

#else

const char *reduce_step_name(reduce_step step) {
  gl_call *c = GL_BEGIN(FN_STEP_NAME, "reduce_step_name");
  GL_PUT(c, step);
  return gl_call_text_end(c);
}

const char *reduce_op_name(reduce_op op) {
  gl_call *c = GL_BEGIN(FN_OP_NAME, "reduce_op_name");
  GL_PUT(c, op);
  return gl_call_text_end(c);
}

gl_status reduce_sum_int(reduce_step step, const int *d_in, size_t n, int block_size,
                         int64_t *d_sum) {
  gl_call *c = GL_BEGIN(FN_SUM_INT, "reduce_sum_int");
  GL_PUT(c, step);
  gl_call_device(c, d_in);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  gl_call_device(c, d_sum);
  return gl_call_status(c);
}

gl_status reduce_int(reduce_op op, const int *d_in, size_t n, int block_size, int64_t *d_result) {
  gl_call *c = GL_BEGIN(FN_INT, "reduce_int");
  GL_PUT(c, op);
  gl_call_device(c, d_in);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  gl_call_device(c, d_result);
  return gl_call_status(c);
}

gl_status reduce_float(reduce_op op, const float *d_in, size_t n, int block_size,
                       float *d_result) {
  gl_call *c = GL_BEGIN(FN_FLOAT, "reduce_float");
  GL_PUT(c, op);
  gl_call_device(c, d_in);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  gl_call_device(c, d_result);
  return gl_call_status(c);
}

void reduce_free_scratch(void) { gl_call_status(GL_BEGIN(FN_FREE_SCRATCH, "reduce_free_scratch")); }

#endif
