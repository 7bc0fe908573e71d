// The radix_sort lab: the given code. Given: read it, do not edit it; the grader always takes it
// from the course, never from a submission.
//
// The argument checks of every public call, the scratch memory kept between calls, the pass plan
// (which buffer each pass reads and writes), the dispatch to your steps (radix_step2..5 and the
// extension, in labs/radix_sort/radix_sort.cu) and the public API of radix_sort.h.
#include "radix_sort.h"

#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "radix_sort_steps.h"

// ---------------------------------------------------------------------------------------------
// Scratch memory and device facts
// ---------------------------------------------------------------------------------------------

// Device memory kept between calls: grows when a call needs more, freed by radix_sort_release().
typedef struct scratch_buffer {
  void *ptr;
  size_t bytes;
} scratch_buffer;

static scratch_buffer g_tmp_keys;   // the second buffer the passes ping-pong with
static scratch_buffer g_tmp_values; // the same for the values
static scratch_buffer g_work;       // each step's own tables (flags, histograms, tile status)
static scratch_buffer g_kept;       // step 5's tables, which it finds again as it left them

static gl_status reserve(scratch_buffer *buffer, size_t bytes, const char *what) {
  if (bytes == 0) bytes = 1;
  if (buffer->bytes >= bytes) return GL_OK;
  if (buffer->ptr != NULL) {
    LAB_CHECK(cudaFree(buffer->ptr));
    buffer->ptr = NULL;
    buffer->bytes = 0;
  }
  cudaError_t err = cudaMalloc(&buffer->ptr, bytes);
  if (err != cudaSuccess) {
    buffer->ptr = NULL;
    cudaGetLastError();  // clear the sticky-free allocation error
    return gl_fail(GL_ERR_NO_MEMORY, "radix_sort: cudaMalloc of %zu bytes for %s failed: %s",
                   bytes, what, cudaGetErrorString(err));
  }
  buffer->bytes = bytes;
  return GL_OK;
}

gl_status radix_sort_release(void) {
  scratch_buffer *all[] = {&g_tmp_keys, &g_tmp_values, &g_work, &g_kept};
  for (int i = 0; i < 4; ++i) {
    if (all[i]->ptr != NULL) LAB_CHECK(cudaFree(all[i]->ptr));
    all[i]->ptr = NULL;
    all[i]->bytes = 0;
  }
  return GL_OK;
}

gl_status radix_scratch(size_t bytes, const char *what, void **scratch) {
  GL_TRY(reserve(&g_work, bytes, what));
  *scratch = g_work.ptr;
  return GL_OK;
}

// g_work serves every step, so what one step leaves there another overwrites; g_kept serves
// step 5 alone, and says when it is new (grown or released since the last call).
gl_status radix_kept_scratch(size_t bytes, const char *what, void **scratch, int *fresh) {
  int grows = g_kept.bytes < (bytes == 0 ? 1 : bytes);
  GL_TRY(reserve(&g_kept, bytes, what));
  *scratch = g_kept.ptr;
  *fresh = grows;
  return GL_OK;
}

static int g_sm_count = 0;

gl_status radix_sm_count(int *count) {
  if (g_sm_count == 0) {
    int device = 0;
    LAB_CHECK(cudaGetDevice(&device));
    LAB_CHECK(cudaDeviceGetAttribute(&g_sm_count, cudaDevAttrMultiProcessorCount, device));
  }
  *count = g_sm_count;
  return GL_OK;
}

// ---------------------------------------------------------------------------------------------
// Argument checks and the pass plan
// ---------------------------------------------------------------------------------------------

static int ranges_overlap(const void *a, const void *b, size_t bytes) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x < y + bytes && y < x + bytes;
}

static int default_digit_bits(radix_sort_step step) {
  return step == RADIX_STEP_SPLIT ? 1 : 8;
}

static int digit_bits_allowed(radix_sort_step step, int bits) {
  switch (step) {
    case RADIX_STEP_SPLIT: return bits == 1;
    case RADIX_STEP_DIGITS: return bits == 4 || bits == 8;
    case RADIX_STEP_ONESWEEP: return bits == 8;
    case RADIX_STEP_ONESWEEP_TUNED: return bits == 8;
  }
  return 0;
}

// Checks the arguments of a public call and fills job->step .. job->with_values.
static gl_status check_call(sort_job *job, const char *fn, radix_sort_step step,
                            const void *keys_in, const void *keys_out, const void *values_in,
                            const void *values_out, int with_values, size_t n,
                            const radix_sort_options *options) {
  radix_sort_options defaults = RADIX_SORT_DEFAULT_OPTIONS;
  const radix_sort_options *opt = options != NULL ? options : &defaults;
  if (step < RADIX_FIRST_STEP || step > RADIX_LAST_STEP) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d is not a step of the ladder (%d..%d)",
                   fn, (int)step, RADIX_FIRST_STEP, RADIX_LAST_STEP);
  }
  int bits = opt->digit_bits == 0 ? default_digit_bits(step) : opt->digit_bits;
  if (!digit_bits_allowed(step, bits)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: digit_bits %d is not allowed for step %s (step 2: 1, step 3: 4 or 8, "
                   "steps 4 and 5: 8; 0 picks the default)",
                   fn, opt->digit_bits, radix_sort_step_name(step));
  }
  if (opt->begin_bit < 0 || opt->end_bit > 32 || opt->begin_bit >= opt->end_bit) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: bit range [%d, %d) is not within [0, 32] with begin_bit < end_bit", fn,
                   opt->begin_bit, opt->end_bit);
  }
  if (n > RADIX_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds RADIX_MAX_N = %zu", fn, n,
                   (size_t)RADIX_MAX_N);
  }
  if (n > 0) {
    if (keys_in == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_keys_in is NULL (n = %zu)", fn, n);
    if (keys_out == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_keys_out is NULL (n = %zu)", fn, n);
    if (with_values && values_in == NULL) {
      return gl_fail(GL_ERR_NULL_POINTER, "%s: d_values_in is NULL (n = %zu)", fn, n);
    }
    if (with_values && values_out == NULL) {
      return gl_fail(GL_ERR_NULL_POINTER, "%s: d_values_out is NULL (n = %zu)", fn, n);
    }
    size_t bytes = n * sizeof(uint32_t);
    if (keys_out != keys_in && ranges_overlap(keys_out, keys_in, bytes)) {
      return gl_fail(GL_ERR_INVALID_ARGUMENT,
                     "%s: d_keys_out overlaps d_keys_in without being the same array", fn);
    }
    if (with_values) {
      if (values_out != values_in && ranges_overlap(values_out, values_in, bytes)) {
        return gl_fail(GL_ERR_INVALID_ARGUMENT,
                       "%s: d_values_out overlaps d_values_in without being the same array", fn);
      }
      if (ranges_overlap(keys_out, values_out, bytes) || ranges_overlap(keys_out, values_in, bytes) ||
          ranges_overlap(values_out, keys_in, bytes)) {
        return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: the key and the value arrays overlap", fn);
      }
    }
  }
  job->fn = fn;
  job->step = step;
  job->n = n;
  job->begin_bit = opt->begin_bit;
  job->end_bit = opt->end_bit;
  job->digit_bits = bits;
  job->pass_count = (opt->end_bit - opt->begin_bit + bits - 1) / bits;
  job->with_values = with_values;
  return GL_OK;
}

// Reserves the scratch copies and fills the pass plan. An in-place sort with an odd number of
// passes would make pass 0 read and write the same array: the input is copied to the scratch
// buffer first and pass 0 reads the copy.
static gl_status plan_passes(sort_job *job, const uint32_t *keys_in, uint32_t *keys_out,
                             const uint32_t *values_in, uint32_t *values_out) {
  size_t bytes = job->n * sizeof(uint32_t);
  GL_TRY(reserve(&g_tmp_keys, bytes, "the scratch keys"));
  uint32_t *tmp_keys = (uint32_t *)g_tmp_keys.ptr;
  uint32_t *tmp_values = NULL;
  if (job->with_values) {
    GL_TRY(reserve(&g_tmp_values, bytes, "the scratch values"));
    tmp_values = (uint32_t *)g_tmp_values.ptr;
  }
  for (int p = 0; p < job->pass_count; ++p) {
    int to_output = (job->pass_count - 1 - p) % 2 == 0;
    job->keys_to[p] = to_output ? keys_out : tmp_keys;
    job->keys_from[p] = p == 0 ? keys_in : job->keys_to[p - 1];
    job->values_to[p] = job->with_values ? (to_output ? values_out : tmp_values) : NULL;
    job->values_from[p] = job->with_values ? (p == 0 ? values_in : job->values_to[p - 1]) : NULL;
  }
  if (job->keys_from[0] == job->keys_to[0]) {
    LAB_CHECK(cudaMemcpyAsync(tmp_keys, keys_in, bytes, cudaMemcpyDeviceToDevice));
    job->keys_from[0] = tmp_keys;
  }
  if (job->with_values && job->values_from[0] == job->values_to[0]) {
    LAB_CHECK(cudaMemcpyAsync(tmp_values, values_in, bytes, cudaMemcpyDeviceToDevice));
    job->values_from[0] = tmp_values;
  }
  return GL_OK;
}

// ---------------------------------------------------------------------------------------------
// The public API
// ---------------------------------------------------------------------------------------------

const char *radix_sort_step_name(radix_sort_step step) {
  switch (step) {
    case RADIX_STEP_SPLIT: return "2-split";
    case RADIX_STEP_DIGITS: return "3-digits";
    case RADIX_STEP_ONESWEEP: return "4-onesweep";
    case RADIX_STEP_ONESWEEP_TUNED: return "5-onesweep-tuned";
  }
  return "unknown";
}

gl_status radix_run_job(sort_job *job, const uint32_t *keys_in, uint32_t *keys_out,
                        const uint32_t *values_in, uint32_t *values_out) {
  if (job->n == 0) return GL_OK;
  GL_TRY(plan_passes(job, keys_in, keys_out, values_in, values_out));
  switch (job->step) {
    case RADIX_STEP_SPLIT: return radix_step2(job);
    case RADIX_STEP_DIGITS: return radix_step3(job);
    case RADIX_STEP_ONESWEEP: return radix_step4(job);
    case RADIX_STEP_ONESWEEP_TUNED: return radix_step5(job);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: unknown step %d", job->fn, (int)job->step);
}

gl_status radix_sort_keys(radix_sort_step step, const uint32_t *d_keys_in, uint32_t *d_keys_out,
                          size_t n, const radix_sort_options *options) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_keys", step, d_keys_in, d_keys_out, NULL, NULL, 0, n,
                    options));
  return radix_run_job(&job, d_keys_in, d_keys_out, NULL, NULL);
}

gl_status radix_sort_pairs(radix_sort_step step, const uint32_t *d_keys_in, uint32_t *d_keys_out,
                           const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                           const radix_sort_options *options) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_pairs", step, d_keys_in, d_keys_out, d_values_in,
                    d_values_out, 1, n, options));
  return radix_run_job(&job, d_keys_in, d_keys_out, d_values_in, d_values_out);
}

// The extension: the checks here, the bit flip and the sort in your radix_extension_i32/_f32.
gl_status radix_sort_keys_i32(radix_sort_step step, const int32_t *d_keys_in, int32_t *d_keys_out,
                              size_t n) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_keys_i32", step, d_keys_in, d_keys_out, NULL, NULL, 0, n,
                    NULL));
  if (n == 0) return GL_OK;
  return radix_extension_i32(&job, d_keys_in, d_keys_out);
}

gl_status radix_sort_keys_f32(radix_sort_step step, const float *d_keys_in, float *d_keys_out,
                              size_t n) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_keys_f32", step, d_keys_in, d_keys_out, NULL, NULL, 0, n,
                    NULL));
  if (n == 0) return GL_OK;
  return radix_extension_f32(&job, d_keys_in, d_keys_out);
}
