/* The ODE lab across the worker boundary (reduction_calls.c explains the layout). ode_run's
 * reserves and ode_describe's table are host outputs, copied back; the kernels' names in the
 * table travel as texts after it. */
#include <string.h>

#include "ode.h"
#include "worker/calls.h"

enum {
  FN_STEP_NAME = 1 | GL_HOST_ONLY,
  FN_MIDDLE = 2,
  FN_RUN = 3,
  FN_DESCRIBE = 4,
};

#ifdef GL_WORKER_SIDE

gl_status gl_worker_dispatch(uint32_t fn, gl_args *a) {
  ode_step step;
  size_t first, count, years;
  int block_size;
  switch (fn) {
    case FN_STEP_NAME:
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result_text(a, ode_step_name(step));
      return GL_OK;
    case FN_MIDDLE: {
      GL_ARG(a, step);
      const ode_params *params = gl_arg_in(a, sizeof(ode_params));
      GL_ARG(a, first);
      GL_ARG(a, count);
      GL_ARG(a, block_size);
      double *d_middle = (double *)gl_arg_device(a);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(
          a, "ode_middle", count >= 1,
          ode_middle(step, params, first, count, block_size, d_middle));
    }
    case FN_RUN: {
      GL_ARG(a, step);
      const ode_params *params = gl_arg_in(a, sizeof(ode_params));
      GL_ARG(a, block_size);
      GL_ARG(a, years);
      double *reserves = gl_arg_out(a, years * sizeof(double));
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "ode_run", 1,
                       ode_run(step, params, block_size, reserves));
    }
    case FN_DESCRIBE: {
      GL_ARG(a, step);
      const ode_params *params = gl_arg_in(a, sizeof(ode_params));
      GL_ARG(a, block_size);
      ode_step_info *info = gl_arg_out(a, sizeof(ode_step_info));
      GL_ARGS_CHECK(a);
      gl_status status = ode_describe(step, params, block_size, info);
      for (int k = 0; info != NULL && k < ODE_MAX_KERNELS; ++k) {
        gl_result_more_text(a, info->kernels[k].name != NULL ? info->kernels[k].name : "");
        info->kernels[k].name = NULL; /* a pointer of this process: meaningless there */
      }
      return status;
    }
  }
  return gl_unknown_call(fn);
}

#else

const char *ode_step_name(ode_step step) {
  gl_call *c = GL_BEGIN(FN_STEP_NAME, "ode_step_name");
  GL_PUT(c, step);
  return gl_call_text_end(c);
}

gl_status ode_middle(ode_step step, const ode_params *params, size_t first, size_t count,
                     int block_size, double *d_middle) {
  gl_call *c = GL_BEGIN(FN_MIDDLE, "ode_middle");
  GL_PUT(c, step);
  gl_call_in(c, params, sizeof *params);
  GL_PUT(c, first);
  GL_PUT(c, count);
  GL_PUT(c, block_size);
  gl_call_device(c, d_middle);
  return gl_call_status(c);
}

gl_status ode_run(ode_step step, const ode_params *params, int block_size, double *reserves) {
  /* The reserves the call writes: one per year, for parameters the lab will accept (it checks
   * them first; for others nothing is written). */
  size_t years = params != NULL && ode_check_params(params, "ode_run") == GL_OK
                     ? ode_year_count(params)
                     : 0;
  gl_call *c = GL_BEGIN(FN_RUN, "ode_run");
  GL_PUT(c, step);
  gl_call_in(c, params, sizeof *params);
  GL_PUT(c, block_size);
  GL_PUT(c, years);
  gl_call_out(c, reserves, years * sizeof(double));
  return gl_call_status(c);
}

gl_status ode_describe(ode_step step, const ode_params *params, int block_size,
                       ode_step_info *info) {
  gl_call *c = GL_BEGIN(FN_DESCRIBE, "ode_describe");
  GL_PUT(c, step);
  gl_call_in(c, params, sizeof *params);
  GL_PUT(c, block_size);
  gl_call_out(c, info, sizeof *info);
  gl_status status = gl_call_finish(c);
  if (status != GL_ERR_WORKER) {
    for (int k = 0; info != NULL && k < ODE_MAX_KERNELS; ++k) {
      const char *name = gl_call_next_text(c);
      info->kernels[k].name = name[0] != '\0' ? name : NULL;
    }
  }
  gl_call_end(c);
  return status;
}

#endif
