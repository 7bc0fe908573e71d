/* The scan lab across the worker boundary (reduction_calls.c explains the layout). */
#include "scan.h"
#include "worker/calls.h"

enum {
  FN_STEP_NAME = 1 | GL_HOST_ONLY,
  FN_DEFAULT_BLOCK_SIZE = 2 | GL_HOST_ONLY,
  FN_RUN = 3,
  FN_EXCLUSIVE = 4,
  FN_RELEASE_SCRATCH = 5,
};

#ifdef GL_WORKER_SIDE

gl_status gl_worker_dispatch(uint32_t fn, gl_args *a) {
  switch (fn) {
    case FN_STEP_NAME: {
      scan_step step;
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result_text(a, scan_step_name(step));
      return GL_OK;
    }
    case FN_DEFAULT_BLOCK_SIZE: {
      scan_step step;
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result(a, (uint64_t)(int64_t)scan_default_block_size(step));
      return GL_OK;
    }
    case FN_RUN: {
      scan_step step;
      scan_kind kind;
      size_t n;
      int block_size;
      GL_ARG(a, step);
      GL_ARG(a, kind);
      const int *d_in = (const int *)gl_arg_device(a);
      int *d_out = (int *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "scan_run", n >= 2,
                       scan_run(step, kind, d_in, d_out, n, block_size));
    }
    case FN_EXCLUSIVE: {
      size_t n;
      const int *d_in = (const int *)gl_arg_device(a);
      int *d_out = (int *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "scan_exclusive", n >= 2,
                       scan_exclusive(d_in, d_out, n));
    }
    case FN_RELEASE_SCRATCH:
      scan_release_scratch();
      return GL_OK;
  }
  return gl_unknown_call(fn);
}

#else

const char *scan_step_name(scan_step step) {
  gl_call *c = GL_BEGIN(FN_STEP_NAME, "scan_step_name");
  GL_PUT(c, step);
  return gl_call_text_end(c);
}

int scan_default_block_size(scan_step step) {
  gl_call *c = GL_BEGIN(FN_DEFAULT_BLOCK_SIZE, "scan_default_block_size");
  GL_PUT(c, step);
  return (int)(int64_t)gl_call_result_end(c, 0);
}

gl_status scan_run(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                   int block_size) {
  gl_call *c = GL_BEGIN(FN_RUN, "scan_run");
  GL_PUT(c, step);
  GL_PUT(c, kind);
  gl_call_device(c, d_in);
  gl_call_device(c, d_out);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  return gl_call_status(c);
}

gl_status scan_exclusive(const int *d_in, int *d_out, size_t n) {
  gl_call *c = GL_BEGIN(FN_EXCLUSIVE, "scan_exclusive");
  gl_call_device(c, d_in);
  gl_call_device(c, d_out);
  GL_PUT(c, n);
  return gl_call_status(c);
}

void scan_release_scratch(void) {
  gl_call_status(GL_BEGIN(FN_RELEASE_SCRATCH, "scan_release_scratch"));
}

#endif
