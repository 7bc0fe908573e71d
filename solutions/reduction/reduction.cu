// The reduction lab, reference solution: the eight steps of the ladder and the final kernel.
//
// The file has the same layout as the stub (labs/reduction/reduction.cu):
//   part 1  the kernels of steps 1-7 and the launch of each (the exercises)
//   part 2  the final kernel, step 8, for every operator and type (the last exercise)
//   part 3  the host plumbing the stub gives: argument checks, cached scratch memory, the
//           repeated launches that finish steps 1-7 (kernel decomposition), the public API.
//
// Steps 1-7 reduce one block's share of the input to one partial sum per block; the host
// then launches the same kernel on the partial sums, and again, until one value is left. The
// first launch reads the int input and every later one reads the int64_t partial sums, so
// each kernel is a template over its input type T. Sums accumulate in int64_t from the first
// addition on: an int sum of a few elements can already overflow 32 bits.
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "reduction.h"

// (Given.) The dynamic shared memory every ladder launch gets: one int64_t per thread, and at
// least 64, because the unrolled last warp (steps 5-7) has lanes 0-31 read up to index 63 even
// in a block of 32 (what those extra lanes compute is never used, but the reads must stay
// inside the array). The plumbing passes it to each launch as shared_bytes.
static size_t ladder_shared_bytes(int block_size) {
  return (size_t)(block_size < 64 ? 64 : block_size) * sizeof(int64_t);
}

// =============================================================================================
// Part 1: the ladder, steps 1-7. Each kernel reduces its block's elements of in[0..n) and
// writes one partial sum per block: partials[blockIdx.x].
// =============================================================================================

// Step 1: interleaved addressing with a divergent branch. In round s, the threads whose index
// is a multiple of 2s add the element s to their right. The modulo is slow, and the threads
// that work are spread over every warp, so all warps stay busy for ever fewer useful threads.
template <typename T>
__global__ void reduce1_interleaved_divergent(const T *in, int64_t *partials, size_t n) {
  extern __shared__ int64_t sdata[];
  unsigned int tid = threadIdx.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? (int64_t)in[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// Step 2: interleaved addressing with a strided index. Thread tid works on element 2*s*tid, so
// the working threads are the first ones (whole warps retire early, no divergence inside a
// warp), but the threads of a warp now hit shared memory 2*s elements apart: bank conflicts.
template <typename T>
__global__ void reduce2_interleaved_strided(const T *in, int64_t *partials, size_t n) {
  extern __shared__ int64_t sdata[];
  unsigned int tid = threadIdx.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? (int64_t)in[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// Step 3: sequential addressing. The active threads are the first s, and they read the
// contiguous upper half: consecutive threads, consecutive words, no bank conflicts. Half of
// the threads idle from the first round on, though, after doing nothing but one load.
template <typename T>
__global__ void reduce3_sequential(const T *in, int64_t *partials, size_t n) {
  extern __shared__ int64_t sdata[];
  unsigned int tid = threadIdx.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? (int64_t)in[i] : 0;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// Step 4: first add during the load. Each block covers 2*blockDim.x elements and every thread
// adds two of them while loading, so no thread idles in the first round and half as many
// blocks are launched.
template <typename T>
__global__ void reduce4_first_add(const T *in, int64_t *partials, size_t n) {
  extern __shared__ int64_t sdata[];
  unsigned int tid = threadIdx.x;
  size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
  int64_t sum = i < n ? (int64_t)in[i] : 0;
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

// The last six rounds, done by the first warp alone (tid < 32), which needs no __syncthreads.
// It does need __syncwarp: since Volta the threads of a warp are scheduled independently, so
// a lane may write sdata[tid] before its neighbour has read it. Each round therefore reads
// into a register, waits for the whole warp, writes, and waits again. (The old form,
// "volatile int *sdata; sdata[tid] += sdata[tid + 16]; ..." with no barrier, assumed the warp
// runs in lock-step, which no CUDA version has promised since 9.0.)
__device__ __forceinline__ int64_t last_warp_reduce(int64_t *sdata, unsigned int tid,
                                                    unsigned int block_size) {
  int64_t v = sdata[tid];
  if (block_size >= 64) {
    v += sdata[tid + 32];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
  }
  for (unsigned int offset = 16; offset > 0; offset >>= 1) {
    v += sdata[tid + offset];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
  }
  return v; // lane 0 holds the block's sum
}

// Step 5: step 4 with the last warp unrolled: the loop and its __syncthreads stop at s = 64.
template <typename T>
__global__ void reduce5_unroll_last_warp(const T *in, int64_t *partials, size_t n) {
  extern __shared__ int64_t sdata[];
  unsigned int tid = threadIdx.x;
  size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
  int64_t sum = i < n ? (int64_t)in[i] : 0;
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    int64_t block_sum = last_warp_reduce(sdata, tid, blockDim.x);
    if (tid == 0) partials[blockIdx.x] = block_sum;
  }
}

// Steps 6 and 7 know the block size at compile time (a template parameter), so every round is
// unrolled, and rounds that a small block does not need disappear: no loop counter, no
// comparisons at run time. The last warp is the same as step 5's with the branches resolved.
template <unsigned int BLOCK>
__device__ __forceinline__ int64_t block_reduce_unrolled(int64_t *sdata, unsigned int tid) {
  if (BLOCK >= 1024) {
    if (tid < 512) sdata[tid] += sdata[tid + 512];
    __syncthreads();
  }
  if (BLOCK >= 512) {
    if (tid < 256) sdata[tid] += sdata[tid + 256];
    __syncthreads();
  }
  if (BLOCK >= 256) {
    if (tid < 128) sdata[tid] += sdata[tid + 128];
    __syncthreads();
  }
  if (BLOCK >= 128) {
    if (tid < 64) sdata[tid] += sdata[tid + 64];
    __syncthreads();
  }
  int64_t v = 0;
  if (tid < 32) {
    v = sdata[tid];
    if (BLOCK >= 64) {
      v += sdata[tid + 32];
      __syncwarp();
      sdata[tid] = v;
      __syncwarp();
    }
#pragma unroll
    for (unsigned int offset = 16; offset > 0; offset >>= 1) {
      v += sdata[tid + offset];
      __syncwarp();
      sdata[tid] = v;
      __syncwarp();
    }
  }
  return v; // thread 0 holds the block's sum
}

// Step 6: complete unrolling. Like step 5, two elements per thread, one block per 2*BLOCK.
template <unsigned int BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK) reduce6_complete_unroll(const T *in, int64_t *partials,
                                                                 size_t n) {
  extern __shared__ int64_t sdata[];
  unsigned int tid = threadIdx.x;
  size_t i = (size_t)blockIdx.x * (2 * BLOCK) + tid;
  int64_t sum = i < n ? (int64_t)in[i] : 0;
  if (i + BLOCK < n) sum += in[i + BLOCK];
  sdata[tid] = sum;
  __syncthreads();
  int64_t block_sum = block_reduce_unrolled<BLOCK>(sdata, tid);
  if (tid == 0) partials[blockIdx.x] = block_sum;
}

// Step 7: multiple elements per thread (algorithm cascading). The grid is only as large as the
// GPU can hold at once; each thread walks the input with a stride of the whole grid, adding
// into a register, and the tree runs once per block at the end instead of once per 2*BLOCK
// elements. Brent's theorem: O(n / p) sequential work per thread plus O(log p) tree depth.
template <unsigned int BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK) reduce7_multiple_elements(const T *in,
                                                                    int64_t *partials, size_t n) {
  extern __shared__ int64_t sdata[];
  unsigned int tid = threadIdx.x;
  size_t grid_stride = (size_t)gridDim.x * (2 * BLOCK);
  int64_t sum = 0;
  for (size_t i = (size_t)blockIdx.x * (2 * BLOCK) + tid; i < n; i += grid_stride) {
    sum += in[i];
    if (i + BLOCK < n) sum += in[i + BLOCK];
  }
  sdata[tid] = sum;
  __syncthreads();
  int64_t block_sum = block_reduce_unrolled<BLOCK>(sdata, tid);
  if (tid == 0) partials[blockIdx.x] = block_sum;
}

// The launches. blocks is what the plumbing (part 3) computed for the step; each launch is
// checked at once so that a bad configuration names its line.
template <typename T>
static gl_status launch_step1(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  reduce1_interleaved_divergent<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

template <typename T>
static gl_status launch_step2(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  reduce2_interleaved_strided<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

template <typename T>
static gl_status launch_step3(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  reduce3_sequential<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

template <typename T>
static gl_status launch_step4(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  reduce4_first_add<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

template <typename T>
static gl_status launch_step5(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  reduce5_unroll_last_warp<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// The launch switch: one instantiation per block size the lab allows, picked at run time.
template <typename T>
static gl_status launch_step6(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  void (*kernel)(const T *, int64_t *, size_t) = NULL;
  switch (block_size) {
    case 1024: kernel = reduce6_complete_unroll<1024, T>; break;
    case 512: kernel = reduce6_complete_unroll<512, T>; break;
    case 256: kernel = reduce6_complete_unroll<256, T>; break;
    case 128: kernel = reduce6_complete_unroll<128, T>; break;
    case 64: kernel = reduce6_complete_unroll<64, T>; break;
    case 32: kernel = reduce6_complete_unroll<32, T>; break;
    default:
      return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce step 6: no kernel for block_size %d",
                     block_size);
  }
  kernel<<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

template <typename T>
static gl_status launch_step7(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                              int block_size, size_t shared_bytes) {
  void (*kernel)(const T *, int64_t *, size_t) = NULL;
  switch (block_size) {
    case 1024: kernel = reduce7_multiple_elements<1024, T>; break;
    case 512: kernel = reduce7_multiple_elements<512, T>; break;
    case 256: kernel = reduce7_multiple_elements<256, T>; break;
    case 128: kernel = reduce7_multiple_elements<128, T>; break;
    case 64: kernel = reduce7_multiple_elements<64, T>; break;
    case 32: kernel = reduce7_multiple_elements<32, T>; break;
    default:
      return gl_fail(GL_ERR_INVALID_ARGUMENT, "reduce step 7: no kernel for block_size %d",
                     block_size);
  }
  kernel<<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Part 2: the final kernel, step 8: sum, min or max of int or float in one launch.
// =============================================================================================

// What each operator does to two values, and the value that changes nothing (the identity,
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

// Combines the four elements of a vector: in pairs, so a float sum's rounding chain stays short.
template <reduce_op OP, typename Acc, typename V>
__device__ __forceinline__ Acc combine_vec4(V v) {
  Acc low = op_combine<OP, Acc>((Acc)v.x, (Acc)v.y);
  Acc high = op_combine<OP, Acc>((Acc)v.z, (Acc)v.w);
  return op_combine<OP, Acc>(low, high);
}

// A warp's 32 values combined with shuffles: registers only, no shared memory, no barrier
// beyond the one each __shfl_down_sync implies for the lanes in its mask (all 32). Lane 0
// ends with the result.
template <reduce_op OP, typename Acc>
__device__ __forceinline__ Acc warp_reduce(Acc v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = op_combine<OP, Acc>(v, __shfl_down_sync(0xffffffffu, v, offset));
  }
  return v;
}

// A block's values: each warp reduces its own, lane 0 of each warp leaves the result in shared
// memory, and the first warp reduces those (at most 32). Thread 0 ends with the result. Every
// thread of the block must call it (it holds a __syncthreads).
template <reduce_op OP, typename Acc>
__device__ __forceinline__ Acc block_reduce(Acc v) {
  __shared__ Acc warp_results[32];
  unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_reduce<OP, Acc>(v);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_results[lane] : op_identity<OP, Acc>();
    v = warp_reduce<OP, Acc>(v);
  }
  return v;
}

// Each 16-byte vector load is worth four element loads, and several of them are issued before
// the first is used, so enough bytes are in flight to keep the memory system busy.
#define FINAL_UNROLL 4

// Step 8: the final kernel. A grid no larger than the GPU holds at once walks the input in
// 16-byte vectors (the few elements before the first 16-byte boundary and after the last are
// loaded one by one), each thread combining into a register; then shuffles reduce each block.
// Instead of a second launch, the last block to finish combines the blocks' partial results:
// each block publishes its partial, makes it visible to the whole GPU (__threadfence) and only
// then takes a ticket from the counter; the block that draws the last ticket knows that every
// other partial is in memory. It also resets the counter for the next call.
template <reduce_op OP, typename T, typename Acc, typename Out>
__global__ void __launch_bounds__(1024)
    reduce8_warp_shuffle(const T *__restrict__ in, size_t n, Acc *partials,
                         unsigned int *blocks_done, Out *result) {
  typedef typename vec4_of<T>::type V;
  size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  size_t threads = (size_t)gridDim.x * blockDim.x;

  // in + head is the first 16-byte boundary (in itself is at least 4-byte aligned).
  size_t head = ((16 - ((uintptr_t)in & 15)) & 15) / sizeof(T);
  if (head > n) head = n;
  size_t vec_count = (n - head) / 4;
  size_t tail = head + vec_count * 4;

  Acc acc = op_identity<OP, Acc>();
  if (thread < head) acc = op_combine<OP, Acc>(acc, (Acc)in[thread]);
  if (tail + thread < n) acc = op_combine<OP, Acc>(acc, (Acc)in[tail + thread]);

  const V *vin = (const V *)(in + head);
  size_t i = thread;
  for (; i + (FINAL_UNROLL - 1) * threads < vec_count; i += FINAL_UNROLL * threads) {
    V v[FINAL_UNROLL];
#pragma unroll
    for (int k = 0; k < FINAL_UNROLL; ++k) v[k] = vin[i + k * threads];
#pragma unroll
    for (int k = 0; k < FINAL_UNROLL; ++k) {
      acc = op_combine<OP, Acc>(acc, combine_vec4<OP, Acc>(v[k]));
    }
  }
  for (; i < vec_count; i += threads) acc = op_combine<OP, Acc>(acc, combine_vec4<OP, Acc>(vin[i]));

  acc = block_reduce<OP, Acc>(acc);

  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = acc;
    __threadfence(); // the partial is visible to every block before the ticket is taken
    unsigned int ticket = atomicAdd(blocks_done, 1u);
    is_last_block = ticket == gridDim.x - 1;
    if (is_last_block) __threadfence(); // and the others' partials are seen after it
  }
  __syncthreads();
  if (is_last_block) {
    Acc total = op_identity<OP, Acc>();
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      total = op_combine<OP, Acc>(total, __ldcg(&partials[b])); // from L2, never a stale L1
    }
    total = block_reduce<OP, Acc>(total);
    if (threadIdx.x == 0) {
      *result = (Out)total;
      *blocks_done = 0;
    }
  }
}

// Forward declarations of the plumbing in part 3 that the final launch uses.
static gl_status final_grid_blocks(const void *kernel, int block_size, size_t n,
                                   size_t elements_per_thread, unsigned int *blocks);
static gl_status final_scratch(size_t partial_bytes, void **partials, unsigned int **blocks_done);

// Launches the final kernel for one operator, element type T, accumulator Acc and result Out.
template <reduce_op OP, typename T, typename Acc, typename Out>
static gl_status launch_final(const T *in, size_t n, int block_size, Out *result) {
  const void *kernel = (const void *)reduce8_warp_shuffle<OP, T, Acc, Out>;
  unsigned int blocks = 0;
  GL_TRY(final_grid_blocks(kernel, block_size, n, 4 * FINAL_UNROLL, &blocks));
  void *partials = NULL;
  unsigned int *blocks_done = NULL;
  GL_TRY(final_scratch(blocks * sizeof(Acc), &partials, &blocks_done));
  reduce8_warp_shuffle<OP, T, Acc, Out>
      <<<blocks, block_size>>>(in, n, (Acc *)partials, blocks_done, result);
  LAB_CHECK_LAUNCH();
  return GL_OK;
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
// Part 3: the host plumbing (given in the stub as it is here).
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

static gl_status final_scratch(size_t partial_bytes, void **partials,
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

static gl_status final_grid_blocks(const void *kernel, int block_size, size_t n,
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
