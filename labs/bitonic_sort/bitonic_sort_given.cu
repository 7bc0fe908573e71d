// The bitonic_sort lab: the given code. Given: do not edit; the grader always takes this file
// from the course. The API of bitonic_sort.h: the step names, the argument checks and the
// dispatch to the steps you write in labs/bitonic_sort/bitonic_sort.cu (declared in
// bitonic_sort_steps.h). Step 1, the CPU reference, is given in
// labs/bitonic_sort/bitonic_sort_reference.c. Nothing is allocated: every step sorts in place.
#include <cuda_runtime.h>
#include <stdint.h>

#include "bitonic_sort.h"
#include "bitonic_sort_steps.h"
#include "gpulabs/check.h"

enum {
  STEP2_DEFAULT_THREADS = 256,
  STEP3_DEFAULT_THREADS = 512, // tiles of 1024 keys
};

const char *bitonic_step_name(bitonic_step step) {
  switch (step) {
    case BITONIC_STEP_GLOBAL: return "2-global";
    case BITONIC_STEP_SHARED: return "3-shared";
    case BITONIC_STEP_REGISTERS: return "4-registers";
    case BITONIC_STEP_WINDOWS: return "5-windows";
  }
  return "unknown";
}

static gl_status check_arguments(const char *function, bitonic_step step, bitonic_order order,
                                 const uint32_t *d_keys, const uint32_t *d_values,
                                 int values_needed, size_t n, int block_size) {
  if (d_keys == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_keys is NULL", function);
  if (values_needed && d_values == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: d_values is NULL", function);
  }
  if (n > BITONIC_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds BITONIC_MAX_N = %zu", function, n,
                   (size_t)BITONIC_MAX_N);
  }
  if (step < BITONIC_FIRST_STEP || step > BITONIC_LAST_STEP) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d is not a step of the ladder (2 to 5)",
                   function, (int)step);
  }
  if (order != BITONIC_ASCENDING && order != BITONIC_DESCENDING) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: order %d is neither BITONIC_ASCENDING nor BITONIC_DESCENDING", function,
                   (int)order);
  }
  if (step == BITONIC_STEP_REGISTERS || step == BITONIC_STEP_WINDOWS) {
    if (block_size != 0) {
      return gl_fail(GL_ERR_INVALID_ARGUMENT,
                     "%s: block_size %d: step %d fixes its block shape at compile time, pass 0",
                     function, block_size, (int)step);
    }
  } else if (block_size != 0 &&
             (block_size < 32 || block_size > 1024 || (block_size & (block_size - 1)) != 0)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: block_size %d is not a power of two in [32, 1024]",
                   function, block_size);
  }
  return GL_OK;
}

static gl_status run_step(bitonic_step step, bitonic_order order, uint32_t *d_keys,
                          uint32_t *d_values, size_t n, int block_size) {
  if (n <= 1) return GL_OK; // nothing to compare (and no empty grid to launch)
  const int descending = order == BITONIC_DESCENDING;
  const unsigned count = (unsigned)n; // n <= BITONIC_MAX_N = 2^30 was checked
  switch (step) {
    case BITONIC_STEP_GLOBAL:
      return bitonic_step2(d_keys, d_values, count, descending,
                           block_size ? block_size : STEP2_DEFAULT_THREADS);
    case BITONIC_STEP_SHARED:
      return bitonic_step3(d_keys, d_values, count, descending,
                           block_size ? block_size : STEP3_DEFAULT_THREADS);
    case BITONIC_STEP_REGISTERS:
      return bitonic_step4(d_keys, d_values, count, descending);
    case BITONIC_STEP_WINDOWS:
      return bitonic_step5(d_keys, d_values, count, descending);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "bitonic_sort: step %d is not a step of the ladder",
                 (int)step);
}

gl_status bitonic_sort_keys(bitonic_step step, bitonic_order order, uint32_t *d_keys, size_t n,
                            int block_size) {
  GL_TRY(check_arguments("bitonic_sort_keys", step, order, d_keys, NULL, 0, n, block_size));
  return run_step(step, order, d_keys, NULL, n, block_size);
}

gl_status bitonic_sort_pairs(bitonic_step step, bitonic_order order, uint32_t *d_keys,
                             uint32_t *d_values, size_t n, int block_size) {
  GL_TRY(check_arguments("bitonic_sort_pairs", step, order, d_keys, d_values, 1, n, block_size));
  return run_step(step, order, d_keys, d_values, n, block_size);
}
