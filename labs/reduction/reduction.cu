// The reduction lab: your kernels go here.
//
// The file has three parts:
//   part 1  the kernels of steps 1-7 and the launch of each: the exercises of the ladder
//   part 2  the final kernel, step 8, for every operator and type: the last exercise
//   part 3  the host plumbing, given: argument checks, cached scratch memory, and the repeated
//           launches that finish steps 1-7 (kernel decomposition), the public API
// The handout (docs/labs/reduction.md) explains each step; do them in order, and run a step's
// tests as soon as it is written:
//   ctest --test-dir build/student -L reduction -R 'ReductionStep3\.' --output-on-failure
//
// How steps 1-7 are run (part 3 does it for you): each launch reduces its input to one partial
// sum per block, partials[blockIdx.x]; the host then launches the same kernel on the partial
// sums, and again, until one block is enough, whose partial is the result. The first launch
// reads the int input, every later one the int64_t partial sums, so each kernel is a template
// over its input type T; your code only ever needs (int64_t)in[i]. Sum in int64_t from the
// first addition on: the tests use values whose sum overflows 32 bits.
//
// Until you write a step, its launch returns "not implemented" and nothing is launched.
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "reduction.h"

// (Given.) The dynamic shared memory every ladder launch gets: one int64_t per thread, and at
// least 64, because the unrolled last warp (steps 5-7) has lanes 0-31 read up to index 63 even
// in a block of 32 (what those extra lanes compute is never used, but the reads must stay
// inside the array). The plumbing passes it to each launch as shared_bytes; in a kernel:
//   extern __shared__ int64_t sdata[];
static size_t ladder_shared_bytes(int block_size) {
  return (size_t)(block_size < 64 ? 64 : block_size) * sizeof(int64_t);
}

// =============================================================================================
// Part 1: the ladder, steps 1-7. Each kernel reduces its block's elements of in[0..n) (any n:
// guard every load) and writes one partial sum per block, partials[blockIdx.x]. Compute
// global indices in size_t: n goes up to 2^32, so an int index overflows past 2^31 and an
// unsigned int one wraps around near 2^32 (i + blockDim.x, i += stride).
//
// Each launch_stepN below is called with the grid the plumbing computed for the step:
//   steps 1-3: one block per block_size elements
//   steps 4-6: one block per 2 * block_size elements
//   step 7:    one block per 2 * block_size elements, but no more than the GPU holds at once
// To do a step: write its kernel, then replace the body of its launch with
//   my_kernel<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
//   LAB_CHECK_LAUNCH();
//   return GL_OK;
// =============================================================================================

// Step 1: interleaved addressing with a divergent branch.
//   template <typename T>
//   __global__ void reduce1_interleaved_divergent(const T *in, int64_t *partials, size_t n)
// Load one element per thread into shared memory (0 past the end), then in rounds
// s = 1, 2, 4, ...: the threads whose index is a multiple of 2s add the element s to their
// right. __syncthreads() after the load and after every round.
template <typename T>
static gl_status launch_step1(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 1 (1-interleaved-divergent): write "
                            "reduce1_interleaved_divergent in labs/reduction/reduction.cu");
}

// Step 2: interleaved addressing with a strided index.
//   template <typename T>
//   __global__ void reduce2_interleaved_strided(const T *in, int64_t *partials, size_t n)
// As step 1, but in round s thread tid works on element index = 2 * s * tid (when it is inside
// the block): no modulo, and the working threads are the first ones.
template <typename T>
static gl_status launch_step2(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 2 (2-interleaved-strided): write "
                            "reduce2_interleaved_strided in labs/reduction/reduction.cu");
}

// Step 3: sequential addressing.
//   template <typename T>
//   __global__ void reduce3_sequential(const T *in, int64_t *partials, size_t n)
// Rounds s = blockDim.x / 2, ..., 2, 1: thread tid < s adds element tid + s.
template <typename T>
static gl_status launch_step3(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 3 (3-sequential): write reduce3_sequential in "
                            "labs/reduction/reduction.cu");
}

// Step 4: first add during the load.
//   template <typename T>
//   __global__ void reduce4_first_add(const T *in, int64_t *partials, size_t n)
// A block covers 2 * blockDim.x elements: each thread loads two, blockDim.x apart, adds them,
// and stores the sum in shared memory; then step 3's rounds.
template <typename T>
static gl_status launch_step4(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 4 (4-first-add): write reduce4_first_add in "
                            "labs/reduction/reduction.cu");
}

// Step 5: the last warp unrolled.
//   template <typename T>
//   __global__ void reduce5_unroll_last_warp(const T *in, int64_t *partials, size_t n)
// Step 4 with the loop stopping at s = 64; then the first warp (tid < 32) does the last six
// rounds (+32 when the block has 64 threads or more, +16, +8, +4, +2, +1) with no
// __syncthreads. It needs __syncwarp() instead, between every read and the write that follows
// it, and between every write and the next read: the lanes of a warp do not run in lock-step.
template <typename T>
static gl_status launch_step5(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 5 (5-unroll-last-warp): write "
                            "reduce5_unroll_last_warp in labs/reduction/reduction.cu");
}

// Step 6: complete unrolling, the block size a template parameter.
//   template <unsigned int BLOCK, typename T>
//   __global__ void reduce6_complete_unroll(const T *in, int64_t *partials, size_t n)
// Step 5 with every round written out under "if (BLOCK >= 1024)", "if (BLOCK >= 512)", ...:
// the compiler drops the rounds a block size does not need. The launch picks the
// instantiation with a switch on block_size (1024, 512, 256, 128, 64, 32).
template <typename T>
static gl_status launch_step6(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 6 (6-complete-unroll): write "
                            "reduce6_complete_unroll in labs/reduction/reduction.cu");
}

// Step 7: multiple elements per thread.
//   template <unsigned int BLOCK, typename T>
//   __global__ void reduce7_multiple_elements(const T *in, int64_t *partials, size_t n)
// Step 6, but the grid is smaller than the input: each thread starts at
// blockIdx.x * 2 * BLOCK + tid and steps by gridDim.x * 2 * BLOCK until past n, adding two
// elements (BLOCK apart) per step into a register; then step 6's tree.
template <typename T>
static gl_status launch_step7(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 7 (7-multiple-elements): write "
                            "reduce7_multiple_elements in labs/reduction/reduction.cu");
}

// =============================================================================================
// Part 2: the final kernel, step 8: sum, min or max of int or float in one launch.
// =============================================================================================

// (Given.) What each operator does to two values, and the value that changes nothing (the identity,
// also the result for n = 0). Acc is the accumulator type: int64_t for int sums, the element
// type otherwise.
template <typename T>
struct type_limits;
template <>
struct type_limits<int> {
  static __device__ int lowest() { return INT_MIN; }
  static __device__ int highest() { return INT_MAX; }
};
template <>
struct type_limits<float> {
  static __device__ float lowest() { return -INFINITY; }
  static __device__ float highest() { return INFINITY; }
};

template <reduce_op OP, typename Acc>
__device__ __forceinline__ Acc op_identity() {
  if constexpr (OP == REDUCE_SUM) {
    return (Acc)0;
  } else if constexpr (OP == REDUCE_MIN) {
    return type_limits<Acc>::highest();
  } else {
    return type_limits<Acc>::lowest();
  }
}

template <reduce_op OP, typename Acc>
__device__ __forceinline__ Acc op_combine(Acc a, Acc b) {
  if constexpr (OP == REDUCE_SUM) {
    return a + b;
  } else if constexpr (OP == REDUCE_MIN) {
    return b < a ? b : a;
  } else {
    return b > a ? b : a;
  }
}

// The 16-byte vector of four elements that one load brings in.
template <typename T>
struct vec4_of;
template <>
struct vec4_of<int> {
  typedef int4 type;
};
template <>
struct vec4_of<float> {
  typedef float4 type;
};

// Step 8: warp shuffles, 16-byte loads, one launch.
//   template <reduce_op OP, typename T, typename Acc, typename Out>
//   __global__ void reduce8_warp_shuffle(const T *in, size_t n, Acc *partials,
//                                        unsigned int *blocks_done, Out *result)
// 1. Grid-stride over in[] in 16-byte vectors (vec4_of<T>::type: int4 or float4), combining
//    into a register with op_combine<OP, Acc>, starting from op_identity<OP, Acc>(). Vector
//    loads need a 16-byte aligned address: load the elements before the first 16-byte boundary
//    of in, and those after the last whole vector, one by one. Issue several vector loads
//    before using the first.
// 2. Reduce each warp with __shfl_down_sync (offsets 16, 8, 4, 2, 1), then the warps' results
//    through a small shared array (at most 32) with one more warp reduction.
// 3. Finish in the same launch: thread 0 of each block writes partials[blockIdx.x], calls
//    __threadfence(), then takes a ticket with atomicAdd(blocks_done, 1). The block that draws
//    ticket gridDim.x - 1 is the last: it combines every partial (read them with __ldcg),
//    writes *result, and sets *blocks_done back to 0 for the next call.
// Acc is int64_t for int sums and the element type otherwise; Out is int64_t for int, float
// for float.

// Forward declarations of the plumbing in part 3 that the final launch uses.
static gl_status final_grid_blocks(const void *kernel, int block_size, size_t n,
                                   size_t elements_per_thread, unsigned int *blocks);
static gl_status final_scratch(size_t partial_bytes, void **partials, unsigned int **blocks_done);

// Launches the final kernel. To do it: compute the grid with the given helper (it caps the grid
// at what the GPU holds at once), get the scratch memory, launch, check:
//   const void *kernel = (const void *)reduce8_warp_shuffle<OP, T, Acc, Out>;
//   unsigned int blocks = 0;
//   GL_TRY(final_grid_blocks(kernel, block_size, n, elements_each_thread_loads_per_loop_pass,
//                            &blocks));
//   void *partials = NULL;
//   unsigned int *blocks_done = NULL;
//   GL_TRY(final_scratch(blocks * sizeof(Acc), &partials, &blocks_done));
//   reduce8_warp_shuffle<OP, T, Acc, Out><<<blocks, block_size>>>(in, n, (Acc *)partials,
//                                                                 blocks_done, result);
//   LAB_CHECK_LAUNCH();
//   return GL_OK;
template <reduce_op OP, typename T, typename Acc, typename Out>
static gl_status launch_final(const T *in, size_t n, int block_size, Out *result) {
  (void)in, (void)n, (void)block_size, (void)result;
  return gl_not_implemented("reduction step 8 (8-warp-shuffle): write reduce8_warp_shuffle in "
                            "labs/reduction/reduction.cu");
}

static gl_status final_int(reduce_op op, const int *in, size_t n, int block_size,
                           int64_t *result) {
  switch (op) {
    case REDUCE_SUM: return launch_final<REDUCE_SUM, int, int64_t>(in, n, block_size, result);
    case REDUCE_MIN: return launch_final<REDUCE_MIN, int, int>(in, n, block_size, result);
    case REDUCE_MAX: return launch_final<REDUCE_MAX, int, int>(in, n, block_size, result);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce_int: unknown op %d", (int)op);
}

static gl_status final_float(reduce_op op, const float *in, size_t n, int block_size,
                             float *result) {
  switch (op) {
    case REDUCE_SUM: return launch_final<REDUCE_SUM, float, float>(in, n, block_size, result);
    case REDUCE_MIN: return launch_final<REDUCE_MIN, float, float>(in, n, block_size, result);
    case REDUCE_MAX: return launch_final<REDUCE_MAX, float, float>(in, n, block_size, result);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce_float: unknown op %d", (int)op);
}

// =============================================================================================
// Part 3: the host plumbing, given: you need not change anything below.
// =============================================================================================

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

[[maybe_unused]] static gl_status final_scratch(size_t partial_bytes, void **partials,
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

[[maybe_unused]] static gl_status final_grid_blocks(const void *kernel, int block_size,
                                                    size_t n, size_t elements_per_thread,
                                                    unsigned int *blocks) {
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

template <typename T>
static gl_status ladder_pass(reduce_step step, const T *in, size_t m, int64_t *out,
                             unsigned int blocks, int block_size) {
  size_t shared = ladder_shared_bytes(block_size);
  switch (step) {
    case REDUCE_STEP_INTERLEAVED_DIVERGENT:
      return launch_step1(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_INTERLEAVED_STRIDED:
      return launch_step2(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_SEQUENTIAL: return launch_step3(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_FIRST_ADD: return launch_step4(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_UNROLL_LAST_WARP: return launch_step5(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_COMPLETE_UNROLL: return launch_step6(in, m, out, blocks, block_size, shared);
    case REDUCE_STEP_MULTIPLE_ELEMENTS:
      return launch_step7(in, m, out, blocks, block_size, shared);
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
