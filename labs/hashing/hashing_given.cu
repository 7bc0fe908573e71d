// The hashing lab: the given code. This file is given: the grader always takes it from the
// course, never from a submission.
//
// The API of hashing.h: the step names and capacities, the argument checks, the table and the
// counters (device memory kept between calls), the check for the reserved key, and the
// dispatch to your steps (labs/hashing/hashing.cu, as labs/hashing/hashing_steps.h declares
// them).
#include <cuda_runtime.h>
#include <math.h>

#include "gpulabs/check.h"
#include "hashing_steps.h"

const char *hashing_step_name(hashing_step step) {
  switch (step) {
    case HASHING_STEP_LINEAR: return "1-linear";
    case HASHING_STEP_PACKED: return "2-packed";
    case HASHING_STEP_COUNTED: return "3-counted";
    case HASHING_STEP_COOPERATIVE: return "4-cooperative";
    case HASHING_STEP_DOUBLE: return "5-double";
    case HASHING_STEP_COUNT: return "6-count";
  }
  return "unknown";
}

static int valid_step(hashing_step step) {
  return step >= HASHING_FIRST_STEP && step <= HASHING_LAST_STEP;
}

size_t hashing_capacity(hashing_step step, size_t n, double load_factor) {
  if (!valid_step(step) || !(load_factor > 0.0 && load_factor <= 1.0)) return 0;
  if (n > HASHING_MAX_N) return 0;
  double slots = ceil((double)n / load_factor);
  if (slots > (double)HASHING_MAX_CAPACITY) return 0;
  size_t capacity = (size_t)slots;
  if (step == HASHING_STEP_LINEAR) return capacity < 1 ? 1 : capacity;
  size_t pow2 = BUCKET_SLOTS;
  while (pow2 < capacity) pow2 *= 2;
  return pow2 <= HASHING_MAX_CAPACITY ? pow2 : 0;
}

// The table and the counters, kept between calls: cudaMalloc and cudaFree would cost more than
// a build. The table only grows; hashing_release() frees both.
static void *table = NULL;
static size_t table_bytes = 0;
static hashing_counters *counters = NULL;
// What the last successful build made: its step (0: none) and capacity.
static hashing_step built_step = (hashing_step)0;
static size_t built_capacity = 0;

void hashing_release(void) {
  if (table != NULL) cudaFree(table);
  if (counters != NULL) cudaFree(counters);
  table = NULL;
  counters = NULL;
  table_bytes = 0;
  built_step = (hashing_step)0;
  built_capacity = 0;
}

static gl_status reserve_table(size_t bytes) {
  if (counters == NULL) {
    cudaError_t err = cudaMalloc((void **)&counters, sizeof *counters);
    if (err != cudaSuccess) {
      counters = NULL;
      return gl_fail(GL_ERR_NO_MEMORY, "hashing: cannot allocate the counters: %s",
                     cudaGetErrorString(err));
    }
  }
  if (bytes > table_bytes) {
    if (table != NULL) LAB_CHECK(cudaFree(table));
    table = NULL;
    table_bytes = 0;
    cudaError_t err = cudaMalloc(&table, bytes);
    if (err != cudaSuccess) {
      table = NULL;
      return gl_fail(GL_ERR_NO_MEMORY, "hashing: cannot allocate a table of %zu bytes: %s",
                     bytes, cudaGetErrorString(err));
    }
    table_bytes = bytes;
  }
  return GL_OK;
}

// Records 1 + the first index of a reserved key among keys[0, n).
__global__ void find_reserved_key(const uint32_t *keys, size_t n, hashing_counters *c) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    if (keys[i] == HASHING_EMPTY_KEY) atomicMin(&c->first_reserved_key, (unsigned long long)i + 1);
  }
}

static unsigned int grid_for(size_t n, int block) {
  size_t blocks = (n + block - 1) / block;
  return blocks > 65535u * 8 ? 65535u * 8 : (unsigned int)blocks;
}

// Zeroes the counters (first_reserved_key: "none", all ones).
static gl_status reset_counters(void) {
  hashing_counters zero = {0, 0, 0, ~0ull};
  LAB_CHECK(cudaMemcpy(counters, &zero, sizeof zero, cudaMemcpyHostToDevice));
  return GL_OK;
}

static gl_status read_counters(hashing_counters *out) {
  LAB_CHECK(cudaMemcpy(out, counters, sizeof *out, cudaMemcpyDeviceToHost));
  return GL_OK;
}

static void give_stats(const hashing_counters *c, hashing_stats *stats) {
  if (stats == NULL) return;
  stats->probes = c->probes;
  stats->max_probes = c->max_probes;
  stats->reserved = 0;
}

gl_status hashing_build(hashing_step step, const uint32_t *d_keys, const uint32_t *d_values,
                        size_t n, size_t capacity, hashing_stats *stats) {
  if (stats != NULL) stats->probes = 0, stats->max_probes = 0, stats->reserved = 0;
  if (!valid_step(step)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "hashing_build: step %d is not a step of the lab",
                   (int)step);
  }
  if (n > HASHING_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "hashing_build: n = %zu exceeds the limit %zu", n,
                   (size_t)HASHING_MAX_N);
  }
  if (capacity < 1 || capacity > HASHING_MAX_CAPACITY) {
    return gl_fail(GL_ERR_SIZE, "hashing_build: capacity %zu is not in [1, %zu]", capacity,
                   (size_t)HASHING_MAX_CAPACITY);
  }
  if (step != HASHING_STEP_LINEAR &&
      (capacity < BUCKET_SLOTS || (capacity & (capacity - 1)) != 0)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "hashing_build: step %s needs a capacity that is a power of two >= %d, not "
                   "%zu (hashing_capacity gives one)",
                   hashing_step_name(step), BUCKET_SLOTS, capacity);
  }
  if (n > 0 && (d_keys == NULL || d_values == NULL)) {
    return gl_fail(GL_ERR_NULL_POINTER, "hashing_build: d_keys or d_values is NULL with n = %zu",
                   n);
  }
  built_step = (hashing_step)0;
  GL_TRY(reserve_table(capacity * sizeof(unsigned long long)));
  LAB_CHECK(cudaMemset(table, 0xff, capacity * sizeof(unsigned long long)));
  GL_TRY(reset_counters());
  if (n > 0) {
    find_reserved_key<<<grid_for(n, 256), 256>>>(d_keys, n, counters);
    LAB_CHECK_LAUNCH();
    gl_given_kernel_launched();  // the step below must launch kernels of its own
    gl_status status = GL_OK;
    unsigned long long *slots = (unsigned long long *)table;
    switch (step) {
      case HASHING_STEP_LINEAR: {
        uint32_t *keys = (uint32_t *)table;
        status = hashing_step1_insert(d_keys, d_values, n, keys, keys + capacity, capacity,
                                      counters);
        break;
      }
      case HASHING_STEP_PACKED:
        status = hashing_step2_insert(d_keys, d_values, n, slots, capacity, counters);
        break;
      case HASHING_STEP_COUNTED:
        status = hashing_step3_insert(d_keys, d_values, n, slots, capacity, counters);
        break;
      case HASHING_STEP_COOPERATIVE:
        status = hashing_step4_insert(d_keys, d_values, n, slots, capacity, counters);
        break;
      case HASHING_STEP_DOUBLE:
        status = hashing_step5_insert(d_keys, d_values, n, slots, capacity, counters);
        break;
      case HASHING_STEP_COUNT:
        status = hashing_step6_insert(d_keys, d_values, n, slots, capacity, counters);
        break;
    }
    if (status != GL_OK) return status;
  }
  hashing_counters c;
  GL_TRY(read_counters(&c));
  if (c.first_reserved_key != ~0ull) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "hashing_build: d_keys[%llu] is 0x%08x, the reserved key that marks an empty "
                   "slot: it cannot be inserted",
                   c.first_reserved_key - 1, HASHING_EMPTY_KEY);
  }
  if (c.full != 0) {
    return gl_fail(GL_ERR_SIZE,
                   "hashing_build: the table is full: a key found no empty slot in all %zu "
                   "slots (n = %zu keys; more distinct keys than slots, or a step that gives up "
                   "too early)",
                   capacity, n);
  }
  give_stats(&c, stats);
  built_step = step;
  built_capacity = capacity;
  return GL_OK;
}

gl_status hashing_find(hashing_step step, const uint32_t *d_keys, uint32_t *d_values_out,
                       size_t n, hashing_stats *stats) {
  if (stats != NULL) stats->probes = 0, stats->max_probes = 0, stats->reserved = 0;
  if (!valid_step(step)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "hashing_find: step %d is not a step of the lab",
                   (int)step);
  }
  if (n > HASHING_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "hashing_find: n = %zu exceeds the limit %zu", n,
                   (size_t)HASHING_MAX_N);
  }
  if (built_step == 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "hashing_find: there is no table: call hashing_build first (its last call "
                   "failed, or the table was released)");
  }
  if (step != built_step) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "hashing_find: the table was built by step %s, so step %s cannot read it",
                   hashing_step_name(built_step), hashing_step_name(step));
  }
  if (n == 0) return GL_OK;
  if (d_keys == NULL || d_values_out == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER,
                   "hashing_find: d_keys or d_values_out is NULL with n = %zu", n);
  }
  if (stats != NULL) GL_TRY(reset_counters());
  const size_t capacity = built_capacity;
  const unsigned long long *slots = (const unsigned long long *)table;
  gl_status status = GL_OK;
  switch (step) {
    case HASHING_STEP_LINEAR: {
      const uint32_t *keys = (const uint32_t *)table;
      status = hashing_step1_find(d_keys, d_values_out, n, keys, keys + capacity, capacity,
                                  counters);
      break;
    }
    case HASHING_STEP_PACKED:
      status = hashing_step2_find(d_keys, d_values_out, n, slots, capacity, counters);
      break;
    case HASHING_STEP_COUNTED:
      status = hashing_step3_find(d_keys, d_values_out, n, slots, capacity, counters);
      break;
    case HASHING_STEP_COOPERATIVE:
      status = hashing_step4_find(d_keys, d_values_out, n, slots, capacity, counters);
      break;
    case HASHING_STEP_DOUBLE:
      status = hashing_step5_find(d_keys, d_values_out, n, slots, capacity, counters);
      break;
    case HASHING_STEP_COUNT:
      status = hashing_step6_find(d_keys, d_values_out, n, slots, capacity, counters);
      break;
  }
  if (status != GL_OK || stats == NULL) return status;
  hashing_counters c;
  GL_TRY(read_counters(&c));
  give_stats(&c, stats);
  return GL_OK;
}
