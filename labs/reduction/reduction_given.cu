// The reduction lab: the given code. Given: read it if you like, do not change it; the grader
// always takes it from the course, never from a submission.
//
// It checks the arguments of every call, keeps the scratch memory, computes the grids, runs
// steps 1-7 again and again over the partial sums until one value is left (kernel
// decomposition), picks step 8's instantiation for the operator and type, and implements the API
// of reduction.h. The steps themselves are yours, in labs/reduction/reduction.cu;
// labs/reduction/reduction_steps.h says what each one is handed and must do.
#include <cuda_runtime.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "reduction.h"
#include "reduction_steps.h"

// ---- Device facts, read once per device --------------------------------------------------

#define REDUCE_MAX_DEVICES 16

typedef struct device_facts {
  int known;
  int sm_count;
  int max_threads_per_sm;
  int max_blocks_per_sm;
} device_facts;

static device_facts g_facts[REDUCE_MAX_DEVICES];

static gl_status current_device(int *device) {
  LAB_CHECK(cudaGetDevice(device));
  if (*device < 0 || *device >= REDUCE_MAX_DEVICES) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce: device %d is beyond the %d this lab supports",
                   *device, REDUCE_MAX_DEVICES);
  }
  return GL_OK;
}

static gl_status facts_of_current_device(const device_facts **facts) {
  int device = 0;
  GL_TRY(current_device(&device));
  device_facts *f = &g_facts[device];
  if (!f->known) {
    LAB_CHECK(cudaDeviceGetAttribute(&f->sm_count, cudaDevAttrMultiProcessorCount, device));
    LAB_CHECK(cudaDeviceGetAttribute(&f->max_threads_per_sm,
                                     cudaDevAttrMaxThreadsPerMultiProcessor, device));
    LAB_CHECK(cudaDeviceGetAttribute(&f->max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor,
                                     device));
    f->known = 1;
  }
  *facts = f;
  return GL_OK;
}

// ---- Scratch memory, kept between calls ------------------------------------------------------
// cudaMalloc and cudaFree cost tens of microseconds and cudaFree waits for the whole GPU: more
// than the final kernel itself takes for 2^24 elements. So the partial sums live in a buffer
// that only ever grows, one per device, and the final kernel's counter is allocated (and
// zeroed) once; the kernel leaves it at zero when it finishes.

typedef struct scratch_space {
  void *partials;
  size_t partial_bytes;
  unsigned int *blocks_done;
} scratch_space;

static scratch_space g_scratch[REDUCE_MAX_DEVICES];

static gl_status scratch_partials(size_t bytes, void **partials) {
  int device = 0;
  GL_TRY(current_device(&device));
  scratch_space *s = &g_scratch[device];
  if (s->partial_bytes < bytes) {
    if (s->partials != NULL) LAB_CHECK(cudaFree(s->partials));
    s->partials = NULL;
    s->partial_bytes = 0;
    LAB_CHECK(cudaMalloc(&s->partials, bytes));
    s->partial_bytes = bytes;
  }
  *partials = s->partials;
  return GL_OK;
}

gl_status reduce_final_scratch(size_t partial_bytes, void **partials,
                               unsigned int **blocks_done) {
  int device = 0;
  GL_TRY(current_device(&device));
  scratch_space *s = &g_scratch[device];
  if (s->blocks_done == NULL) {
    LAB_CHECK(cudaMalloc(&s->blocks_done, sizeof *s->blocks_done));
    LAB_CHECK(cudaMemset(s->blocks_done, 0, sizeof *s->blocks_done));
  }
  GL_TRY(scratch_partials(partial_bytes, partials));
  *blocks_done = s->blocks_done;
  return GL_OK;
}

extern "C" void reduce_free_scratch(void) {
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  for (int device = 0; device < REDUCE_MAX_DEVICES; ++device) {
    scratch_space *s = &g_scratch[device];
    if (s->partials == NULL && s->blocks_done == NULL) continue;
    if (cudaSetDevice(device) == cudaSuccess) {
      cudaFree(s->partials);
      cudaFree(s->blocks_done);
    }
    s->partials = NULL;
    s->partial_bytes = 0;
    s->blocks_done = NULL;
  }
  cudaSetDevice(current);
}

// ---- Grid sizes ----------------------------------------------------------------------------

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// Blocks the GPU can hold at once with block_size threads each (steps 7 and 8 launch no more).
static gl_status resident_blocks(int block_size, size_t *blocks) {
  const device_facts *f = NULL;
  GL_TRY(facts_of_current_device(&f));
  int per_sm = f->max_threads_per_sm / block_size;
  if (per_sm > f->max_blocks_per_sm) per_sm = f->max_blocks_per_sm;
  if (per_sm < 1) per_sm = 1;
  *blocks = (size_t)per_sm * (size_t)f->sm_count;
  return GL_OK;
}

// How many blocks one pass of a ladder step launches over m elements.
static gl_status ladder_blocks(reduce_step step, size_t m, int block_size, size_t *blocks) {
  size_t per_block = step <= REDUCE_STEP_SEQUENTIAL ? (size_t)block_size : 2 * (size_t)block_size;
  *blocks = ceil_div(m, per_block);
  if (step == REDUCE_STEP_MULTIPLE_ELEMENTS) {
    size_t most = 0;
    GL_TRY(resident_blocks(block_size, &most));
    if (*blocks > most) *blocks = most;
  }
  if (*blocks > (size_t)INT_MAX) {
    return gl_fail(GL_ERR_SIZE, "reduce step %d: %zu blocks exceed the grid limit", (int)step,
                   *blocks);
  }
  return GL_OK;
}

// The final kernel's grid: enough blocks for the work, at most what the GPU holds at once
// (as many as the occupancy calculator says fit on each SM, times the SMs). The occupancy is
// asked once per kernel and block size.
#define FINAL_OCCUPANCY_CACHE 64

typedef struct occupancy_entry {
  const void *kernel;
  int device;
  int block_size;
  int blocks_per_sm;
} occupancy_entry;

static occupancy_entry g_occupancy[FINAL_OCCUPANCY_CACHE];

gl_status reduce_final_grid_blocks(const void *kernel, int block_size, size_t n,
                                   size_t elements_per_thread, unsigned int *blocks) {
  int device = 0;
  GL_TRY(current_device(&device));
  int per_sm = 0;
  int slot = 0;
  for (; slot < FINAL_OCCUPANCY_CACHE && g_occupancy[slot].kernel != NULL; ++slot) {
    occupancy_entry *e = &g_occupancy[slot];
    if (e->kernel == kernel && e->device == device && e->block_size == block_size) {
      per_sm = e->blocks_per_sm;
      break;
    }
  }
  if (per_sm == 0) {
    LAB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block_size, 0));
    if (per_sm < 1) per_sm = 1;
    if (slot < FINAL_OCCUPANCY_CACHE) {
      occupancy_entry entry = {kernel, device, block_size, per_sm};
      g_occupancy[slot] = entry;
    }
  }
  const device_facts *f = NULL;
  GL_TRY(facts_of_current_device(&f));
  size_t most = (size_t)per_sm * (size_t)f->sm_count;
  size_t wanted = ceil_div(n, (size_t)block_size * elements_per_thread);
  if (wanted < 1) wanted = 1;
  *blocks = (unsigned int)(wanted < most ? wanted : most);
  return GL_OK;
}

// ---- One pass of a ladder step, and the repeated launches ------------------------------------

// The dynamic shared memory every ladder launch gets: one int64_t per thread, and at least 64,
// because the unrolled last warp (steps 5-7) has lanes 0-31 read up to index 63 even in a block
// of 32 (what those extra lanes compute is never used, but the reads must stay inside the
// array). ladder_pass hands it to each step as shared_bytes.
static size_t ladder_shared_bytes(int block_size) {
  return (size_t)(block_size < 64 ? 64 : block_size) * sizeof(int64_t);
}

template <typename T>
static gl_status ladder_pass(reduce_step step, const T *in, size_t m, int64_t *out,
                             unsigned int blocks, int block_size) {
  size_t shared = ladder_shared_bytes(block_size);
  switch (step) {
    case REDUCE_STEP_INTERLEAVED_DIVERGENT:
      return reduce_step1(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_INTERLEAVED_STRIDED:
      return reduce_step2(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_SEQUENTIAL: return reduce_step3(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_FIRST_ADD: return reduce_step4(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_UNROLL_LAST_WARP: return reduce_step5(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_COMPLETE_UNROLL: return reduce_step6(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_MULTIPLE_ELEMENTS:
      return reduce_step7(in, m, out, blocks, block_size, shared);
    default: break;
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce: step %d has no ladder pass", (int)step);
}

// Kernel decomposition: the kernel boundary is the only barrier across all blocks, so each
// pass reduces its input to one value per block, and the next launch reduces those, until a
// pass needs a single block; that one writes the result. Two buffers take turns holding the
// partial sums (a pass cannot overwrite the array it is still reading).
static gl_status ladder_sum(reduce_step step, const int *d_in, size_t n, int block_size,
                            int64_t *d_sum) {
  if (n == 0) {
    LAB_CHECK(cudaMemsetAsync(d_sum, 0, sizeof *d_sum, 0));
    return GL_OK;
  }
  size_t first = 0, second = 0;
  GL_TRY(ladder_blocks(step, n, block_size, &first));
  if (first > 1) GL_TRY(ladder_blocks(step, first, block_size, &second));
  int64_t *buffers[2] = {NULL, NULL};
  if (first > 1) {
    void *scratch = NULL;
    GL_TRY(scratch_partials((first + second) * sizeof(int64_t), &scratch));
    buffers[0] = (int64_t *)scratch;
    buffers[1] = buffers[0] + first;
  }

  size_t blocks = first;
  int64_t *out = blocks == 1 ? d_sum : buffers[0];
  GL_TRY(ladder_pass(step, d_in, n, out, (unsigned int)blocks, block_size));
  int turn = 0;
  while (blocks > 1) {
    const int64_t *in = out;
    size_t m = blocks;
    GL_TRY(ladder_blocks(step, m, block_size, &blocks));
    turn ^= 1;
    out = blocks == 1 ? d_sum : buffers[turn];
    GL_TRY(ladder_pass(step, in, m, out, (unsigned int)blocks, block_size));
  }
  return GL_OK;
}

// ---- Step 8: the final kernel's instantiation for each operator and type ----------------------

static gl_status final_int(reduce_op op, const int *in, size_t n, int block_size,
                           int64_t *result) {
  switch (op) {
    case REDUCE_SUM: return reduce_step8<REDUCE_SUM, int, int64_t>(in, n, block_size, result);
    case REDUCE_MIN: return reduce_step8<REDUCE_MIN, int, int>(in, n, block_size, result);
    case REDUCE_MAX: return reduce_step8<REDUCE_MAX, int, int>(in, n, block_size, result);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce_int: unknown op %d", (int)op);
}

static gl_status final_float(reduce_op op, const float *in, size_t n, int block_size,
                             float *result) {
  switch (op) {
    case REDUCE_SUM: return reduce_step8<REDUCE_SUM, float, float>(in, n, block_size, result);
    case REDUCE_MIN: return reduce_step8<REDUCE_MIN, float, float>(in, n, block_size, result);
    case REDUCE_MAX: return reduce_step8<REDUCE_MAX, float, float>(in, n, block_size, result);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce_float: unknown op %d", (int)op);
}

// ---- Argument checks and the public API --------------------------------------------------------

extern "C" const char *reduce_step_name(reduce_step step) {
  switch (step) {
    case REDUCE_STEP_INTERLEAVED_DIVERGENT: return "1-interleaved-divergent";
    case REDUCE_STEP_INTERLEAVED_STRIDED: return "2-interleaved-strided";
    case REDUCE_STEP_SEQUENTIAL: return "3-sequential";
    case REDUCE_STEP_FIRST_ADD: return "4-first-add";
    case REDUCE_STEP_UNROLL_LAST_WARP: return "5-unroll-last-warp";
    case REDUCE_STEP_COMPLETE_UNROLL: return "6-complete-unroll";
    case REDUCE_STEP_MULTIPLE_ELEMENTS: return "7-multiple-elements";
    case REDUCE_STEP_WARP_SHUFFLE: return "8-warp-shuffle";
  }
  return "unknown";
}

extern "C" const char *reduce_op_name(reduce_op op) {
  switch (op) {
    case REDUCE_SUM: return "sum";
    case REDUCE_MIN: return "min";
    case REDUCE_MAX: return "max";
  }
  return "unknown";
}

// The checks every entry point shares; block_size 0 becomes the default.
static gl_status check_arguments(const char *fn, const void *d_in, size_t n, int *block_size,
                                 const void *d_result) {
  if (d_result == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: the result pointer is NULL", fn);
  if (n > 0 && d_in == NULL) {
    return gl_fail(GL_ERR_NULL_POINTER, "%s: d_in is NULL but n = %zu", fn, n);
  }
  if (n > REDUCE_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds REDUCE_MAX_N = %zu", fn, n,
                   (size_t)REDUCE_MAX_N);
  }
  if (*block_size == 0) *block_size = REDUCE_DEFAULT_BLOCK;
  int b = *block_size;
  if (b < REDUCE_MIN_BLOCK || b > REDUCE_MAX_BLOCK || (b & (b - 1)) != 0) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: block_size %d is not a power of two in [%d, %d]",
                   fn, b, REDUCE_MIN_BLOCK, REDUCE_MAX_BLOCK);
  }
  return GL_OK;
}

static int valid_op(reduce_op op) {
  return op == REDUCE_SUM || op == REDUCE_MIN || op == REDUCE_MAX;
}

extern "C" gl_status reduce_sum_int(reduce_step step, const int *d_in, size_t n, int block_size,
                                    int64_t *d_sum) {
  if (step < REDUCE_FIRST_STEP || step > REDUCE_LAST_STEP) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce_sum_int: step %d is not in [%d, %d]",
                   (int)step, REDUCE_FIRST_STEP, REDUCE_LAST_STEP);
  }
  GL_TRY(check_arguments("reduce_sum_int", d_in, n, &block_size, d_sum));
  if (step == REDUCE_STEP_WARP_SHUFFLE) return final_int(REDUCE_SUM, d_in, n, block_size, d_sum);
  return ladder_sum(step, d_in, n, block_size, d_sum);
}

extern "C" gl_status reduce_int(reduce_op op, const int *d_in, size_t n, int block_size,
                                int64_t *d_result) {
  if (!valid_op(op)) return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce_int: unknown op %d", (int)op);
  GL_TRY(check_arguments("reduce_int", d_in, n, &block_size, d_result));
  return final_int(op, d_in, n, block_size, d_result);
}

extern "C" gl_status reduce_float(reduce_op op, const float *d_in, size_t n, int block_size,
                                  float *d_result) {
  if (!valid_op(op)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce_float: unknown op %d", (int)op);
  }
  GL_TRY(check_arguments("reduce_float", d_in, n, &block_size, d_result));
  return final_float(op, d_in, n, block_size, d_result);
}
