/* The compaction lab across the worker boundary (reduction_calls.c explains the layout). */
#include "compaction.h"
#include "worker/calls.h"

enum {
  FN_STEP_NAME = 1 | GL_HOST_ONLY,
  FN_STEP_NUMBER = 2 | GL_HOST_ONLY,
  FN_STEP_IS_STABLE = 3 | GL_HOST_ONLY,
  FN_SCRATCH_BYTES = 4 | GL_HOST_ONLY,
  FN_COMPACT = 5,
  FN_SPLIT = 6,
  FN_SPLIT_PAIRS = 7,
  FN_ENQUEUE_COMPLEMENT = 8,
};

#ifdef GL_WORKER_SIDE

gl_status gl_worker_dispatch(uint32_t fn, gl_args *a) {
  compaction_step step;
  compaction_pred pred;
  size_t n;
  int block_size;
  size_t scratch_bytes;
  switch (fn) {
    case FN_STEP_NAME:
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result_text(a, compaction_step_name(step));
      return GL_OK;
    case FN_STEP_NUMBER:
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result(a, (uint64_t)(int64_t)compaction_step_number(step));
      return GL_OK;
    case FN_STEP_IS_STABLE:
      GL_ARG(a, step);
      GL_ARGS_CHECK(a);
      gl_result(a, (uint64_t)(int64_t)compaction_step_is_stable(step));
      return GL_OK;
    case FN_SCRATCH_BYTES:
      GL_ARG(a, step);
      GL_ARG(a, n);
      GL_ARGS_CHECK(a);
      gl_result(a, (uint64_t)compaction_scratch_bytes(step, n));
      return GL_OK;
    case FN_COMPACT: {
      GL_ARG(a, step);
      GL_ARG(a, pred);
      const int *d_in = (const int *)gl_arg_device(a);
      int *d_out = (int *)gl_arg_device(a);
      int *d_count = (int *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      void *d_scratch = gl_arg_device(a);
      GL_ARG(a, scratch_bytes);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "compaction_compact", n >= 2,
                       compaction_compact(step, pred, d_in, d_out, d_count, n,
                                          block_size, d_scratch,
                                          scratch_bytes));
    }
    case FN_SPLIT: {
      GL_ARG(a, pred);
      const int *d_in = (const int *)gl_arg_device(a);
      int *d_out = (int *)gl_arg_device(a);
      int *d_count = (int *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      void *d_scratch = gl_arg_device(a);
      GL_ARG(a, scratch_bytes);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "compaction_split", n >= 2,
                       compaction_split(pred, d_in, d_out, d_count, n,
                                        block_size, d_scratch, scratch_bytes));
    }
    case FN_SPLIT_PAIRS: {
      GL_ARG(a, pred);
      const int *d_keys_in = (const int *)gl_arg_device(a);
      const int *d_values_in = (const int *)gl_arg_device(a);
      int *d_keys_out = (int *)gl_arg_device(a);
      int *d_values_out = (int *)gl_arg_device(a);
      int *d_count = (int *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      void *d_scratch = gl_arg_device(a);
      GL_ARG(a, scratch_bytes);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "compaction_split_pairs", n >= 2,
                       compaction_split_pairs(pred, d_keys_in, d_values_in,
                                              d_keys_out, d_values_out, d_count,
                                              n, block_size, d_scratch,
                                              scratch_bytes));
    }
    case FN_ENQUEUE_COMPLEMENT: {
      GL_ARG(a, pred);
      const int *d_in = (const int *)gl_arg_device(a);
      int *d_kept = (int *)gl_arg_device(a);
      int *d_rest = (int *)gl_arg_device(a);
      int *d_counts = (int *)gl_arg_device(a);
      GL_ARG(a, n);
      GL_ARG(a, block_size);
      GL_ARGS_CHECK(a);
      return gl_on_gpu(a, "compaction_enqueue_complement", n >= 2,
                       compaction_enqueue_complement(pred, d_in, d_kept, d_rest,
                                                     d_counts, n, block_size));
    }
  }
  return gl_unknown_call(fn);
}

#else

const char *compaction_step_name(compaction_step step) {
  gl_call *c = GL_BEGIN(FN_STEP_NAME, "compaction_step_name");
  GL_PUT(c, step);
  return gl_call_text_end(c);
}

int compaction_step_number(compaction_step step) {
  gl_call *c = GL_BEGIN(FN_STEP_NUMBER, "compaction_step_number");
  GL_PUT(c, step);
  return (int)(int64_t)gl_call_result_end(c, 0);
}

int compaction_step_is_stable(compaction_step step) {
  gl_call *c = GL_BEGIN(FN_STEP_IS_STABLE, "compaction_step_is_stable");
  GL_PUT(c, step);
  return (int)(int64_t)gl_call_result_end(c, 1); /* a failed worker: check the order */
}

size_t compaction_scratch_bytes(compaction_step step, size_t n) {
  gl_call *c = GL_BEGIN(FN_SCRATCH_BYTES, "compaction_scratch_bytes");
  GL_PUT(c, step);
  GL_PUT(c, n);
  return (size_t)gl_call_result_end(c, 0);
}

gl_status compaction_compact(compaction_step step, compaction_pred pred, const int *d_in,
                             int *d_out, int *d_count, size_t n, int block_size, void *d_scratch,
                             size_t scratch_bytes) {
  gl_call *c = GL_BEGIN(FN_COMPACT, "compaction_compact");
  GL_PUT(c, step);
  GL_PUT(c, pred);
  gl_call_device(c, d_in);
  gl_call_device(c, d_out);
  gl_call_device(c, d_count);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  gl_call_device(c, d_scratch);
  GL_PUT(c, scratch_bytes);
  return gl_call_status(c);
}

gl_status compaction_split(compaction_pred pred, const int *d_in, int *d_out, int *d_count,
                           size_t n, int block_size, void *d_scratch, size_t scratch_bytes) {
  gl_call *c = GL_BEGIN(FN_SPLIT, "compaction_split");
  GL_PUT(c, pred);
  gl_call_device(c, d_in);
  gl_call_device(c, d_out);
  gl_call_device(c, d_count);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  gl_call_device(c, d_scratch);
  GL_PUT(c, scratch_bytes);
  return gl_call_status(c);
}

gl_status compaction_split_pairs(compaction_pred pred, const int *d_keys_in,
                                 const int *d_values_in, int *d_keys_out, int *d_values_out,
                                 int *d_count, size_t n, int block_size, void *d_scratch,
                                 size_t scratch_bytes) {
  gl_call *c = GL_BEGIN(FN_SPLIT_PAIRS, "compaction_split_pairs");
  GL_PUT(c, pred);
  gl_call_device(c, d_keys_in);
  gl_call_device(c, d_values_in);
  gl_call_device(c, d_keys_out);
  gl_call_device(c, d_values_out);
  gl_call_device(c, d_count);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  gl_call_device(c, d_scratch);
  GL_PUT(c, scratch_bytes);
  return gl_call_status(c);
}

gl_status compaction_enqueue_complement(compaction_pred pred, const int *d_in, int *d_kept,
                                        int *d_rest, int *d_counts, size_t n, int block_size) {
  gl_call *c = GL_BEGIN(FN_ENQUEUE_COMPLEMENT, "compaction_enqueue_complement");
  GL_PUT(c, pred);
  gl_call_device(c, d_in);
  gl_call_device(c, d_kept);
  gl_call_device(c, d_rest);
  gl_call_device(c, d_counts);
  GL_PUT(c, n);
  GL_PUT(c, block_size);
  return gl_call_status(c);
}

#endif
