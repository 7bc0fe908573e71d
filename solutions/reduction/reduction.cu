// The reduction lab: your kernels. Eight steps up the ladder of a parallel sum, from the
// textbook tree in shared memory to one launch of warp shuffles at CUB's speed.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/reduction/reduction.h          the API the tests call
//   labs/reduction/reduction_steps.h    what each step below must define, and what it is handed
//   labs/reduction/reduction_given.cu   argument checks, scratch memory, the dispatch to your steps
//
// The handout, labs/reduction/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L reduction -R 'ReductionStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1  1-interleaved-divergent   reduce1_interleaved_divergent, reduce_step1
//   step 2  2-interleaved-strided     reduce2_interleaved_strided, reduce_step2
//   step 3  3-sequential              reduce3_sequential, reduce_step3
//   step 4  4-first-add               reduce4_first_add, reduce_step4
//   step 5  5-unroll-last-warp        reduce5_unroll_last_warp, reduce_step5
//   step 6  6-complete-unroll         reduce6_complete_unroll, reduce_step6 and its switch
//   step 7  7-multiple-elements       reduce7_multiple_elements, reduce_step7 and its switch
//   step 8  8-warp-shuffle            reduce8_warp_shuffle, reduce_step8
#define GPULABS_EXERCISE_FILE
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "reduction_steps.h"

// =============================================================================================
// Step 1: interleaved addressing, divergent branch
//
// Steps 1-7 are each a kernel and the function that launches it, reduce_stepN. The given code
// calls reduce_stepN once per pass of the kernel decomposition (reduction_steps.h says how): each
// launch reduces its block's elements of in[0..n) and writes one partial sum per block,
// partials[blockIdx.x]. The first pass reads the int input, every later one the int64_t partial
// sums, so kernel and function are templates over the input type T; your code only ever needs
// (int64_t)in[i]. Sum in int64_t from the first addition on: the tests use values whose sum
// overflows 32 bits. Guard every load (any n), and compute global indices in size_t: n goes up
// to 2^32, so an int index overflows past 2^31 and an unsigned int one wraps around near 2^32
// (i + blockDim.x, i += stride). The kernels use the launch's dynamic shared memory:
//   extern __shared__ int64_t sdata[];
// and each reduce_stepN launches with the grid and the shared memory it is handed:
//   my_kernel<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
//   LAB_CHECK_LAUNCH();
//   return GL_OK;
//
// Step 1's kernel:
//   template <typename T>
//   __global__ void reduce1_interleaved_divergent(const T *in, int64_t *partials, size_t n)
// Load one element per thread into shared memory (0 past the end), then in rounds
// s = 1, 2, 4, ...: the threads whose index is a multiple of 2s add the element s to their
// right. __syncthreads() after the load and after every round. The grid has one block per
// block_size elements.
// =============================================================================================

// In round s, the threads whose index is a multiple of 2s add the element s to their right. The
// modulo is slow, and the threads that work are spread over every warp, so all warps stay busy
// for ever fewer useful threads.
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

// Each launch is checked at once, so that a bad configuration names its line.
template <typename T>
gl_status reduce_step1(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  reduce1_interleaved_divergent<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 2: interleaved addressing, strided index
//
//   template <typename T>
//   __global__ void reduce2_interleaved_strided(const T *in, int64_t *partials, size_t n)
// As step 1, but in round s thread tid works on element index = 2 * s * tid (when it is inside
// the block): no modulo, and the working threads are the first ones.
// =============================================================================================

// Thread tid works on element 2*s*tid, so the working threads are the first ones (whole warps
// retire early, no divergence inside a warp), but the threads of a warp now hit shared memory
// 2*s elements apart: bank conflicts.
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

template <typename T>
gl_status reduce_step2(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  reduce2_interleaved_strided<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 3: sequential addressing
//
//   template <typename T>
//   __global__ void reduce3_sequential(const T *in, int64_t *partials, size_t n)
// Rounds s = blockDim.x / 2, ..., 2, 1: thread tid < s adds element tid + s.
// =============================================================================================

// The active threads are the first s, and they read the contiguous upper half: consecutive
// threads, consecutive words, no bank conflicts. Half of the threads idle from the first round
// on, though, after doing nothing but one load.
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

template <typename T>
gl_status reduce_step3(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  reduce3_sequential<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 4: first add during the load
//
//   template <typename T>
//   __global__ void reduce4_first_add(const T *in, int64_t *partials, size_t n)
// A block covers 2 * blockDim.x elements: each thread loads two, blockDim.x apart, adds them,
// and stores the sum in shared memory; then step 3's rounds. From this step on the grid has one
// block per 2 * block_size elements.
// =============================================================================================

// Each block covers 2*blockDim.x elements and every thread adds two of them while loading, so
// no thread idles in the first round and half as many blocks are launched.
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

template <typename T>
gl_status reduce_step4(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  reduce4_first_add<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 5: unroll the last warp, correctly
//
//   template <typename T>
//   __global__ void reduce5_unroll_last_warp(const T *in, int64_t *partials, size_t n)
// Step 4 with the loop stopping at s = 64; then the first warp (tid < 32) does the last six
// rounds (+32 when the block has 64 threads or more, +16, +8, +4, +2, +1) with no
// __syncthreads. It needs __syncwarp() instead, between every read and the write that follows
// it, and between every write and the next read: the lanes of a warp do not run in lock-step.
// =============================================================================================

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

// Step 4 with the last warp unrolled: the loop and its __syncthreads stop at s = 64.
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

template <typename T>
gl_status reduce_step5(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  reduce5_unroll_last_warp<T><<<blocks, block_size, shared_bytes>>>(in, partials, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 6: complete unrolling
//
//   template <unsigned int BLOCK, typename T>
//   __global__ void reduce6_complete_unroll(const T *in, int64_t *partials, size_t n)
// Step 5 with every round written out under "if (BLOCK >= 1024)", "if (BLOCK >= 512)", ...:
// the compiler drops the rounds a block size does not need. reduce_step6 picks the
// instantiation with a switch on block_size (1024, 512, 256, 128, 64, 32).
// =============================================================================================

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

// Like step 5, two elements per thread, one block per 2*BLOCK.
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

template <typename T>
gl_status reduce_step6(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  // One instantiation per block size the lab allows, picked at run time.
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

// =============================================================================================
// Step 7: many elements per thread (algorithm cascading)
//
//   template <unsigned int BLOCK, typename T>
//   __global__ void reduce7_multiple_elements(const T *in, int64_t *partials, size_t n)
// Step 6, but the grid is smaller than the input (no more blocks than the GPU holds at once):
// each thread starts at blockIdx.x * 2 * BLOCK + tid and steps by gridDim.x * 2 * BLOCK until
// past n, adding two elements (BLOCK apart) per step into a register; then step 6's tree.
// reduce_step7 picks the instantiation with a switch on block_size, as step 6 does.
// =============================================================================================

// Algorithm cascading. The grid is only as large as the GPU can hold at once; each thread walks
// the input with a stride of the whole grid, adding into a register, and the tree runs once per
// block at the end instead of once per 2*BLOCK elements. Brent's theorem: O(n / p) sequential
// work per thread plus O(log p) tree depth.
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

template <typename T>
gl_status reduce_step7(const T *in, size_t n, int64_t *partials, unsigned int blocks,
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
// Step 8: warp shuffles, 16-byte loads, one launch
//
//   template <reduce_op OP, typename T, typename Acc, typename Out>
//   __global__ void reduce8_warp_shuffle(const T *in, size_t n, Acc *partials,
//                                        unsigned int *blocks_done, Out *result)
// The sum, min or max of int or float in one launch. Acc is int64_t for int sums and the element
// type otherwise; Out is int64_t for int, float for float.
// 1. Grid-stride over in[] in 16-byte vectors (vec4_of<T>::type: int4 or float4), combining
//    into a register with op_combine<OP, Acc>, starting from op_identity<OP, Acc>() (both given,
//    in reduction_steps.h). Vector loads need a 16-byte aligned address: load the elements
//    before the first 16-byte boundary of in, and those after the last whole vector, one by
//    one. Issue several vector loads before using the first.
// 2. Reduce each warp with __shfl_down_sync (offsets 16, 8, 4, 2, 1), then the warps' results
//    through a small shared array (at most 32) with one more warp reduction.
// 3. Finish in the same launch: thread 0 of each block writes partials[blockIdx.x], calls
//    __threadfence(), then takes a ticket with atomicAdd(blocks_done, 1). The block that draws
//    ticket gridDim.x - 1 is the last: it combines every partial (read them with __ldcg),
//    writes *result, and sets *blocks_done back to 0 for the next call.
// reduce_step8 launches it. The given helpers compute the grid (no more blocks than the GPU holds
// at once) and hand out the scratch memory:
//   const void *kernel = (const void *)reduce8_warp_shuffle<OP, T, Acc, Out>;
//   unsigned int blocks = 0;
//   GL_TRY(reduce_final_grid_blocks(kernel, block_size, n,
//                                   elements_each_thread_loads_per_loop_pass, &blocks));
//   void *partials = NULL;
//   unsigned int *blocks_done = NULL;
//   GL_TRY(reduce_final_scratch(blocks * sizeof(Acc), &partials, &blocks_done));
//   reduce8_warp_shuffle<OP, T, Acc, Out><<<blocks, block_size>>>(in, n, (Acc *)partials,
//                                                                 blocks_done, result);
//   LAB_CHECK_LAUNCH();
//   return GL_OK;
// =============================================================================================

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

// The final kernel. A grid no larger than the GPU holds at once walks the input in 16-byte
// vectors (the few elements before the first 16-byte boundary and after the last are loaded one
// by one), each thread combining into a register; then shuffles reduce each block. Instead of a
// second launch, the last block to finish combines the blocks' partial results: each block
// publishes its partial, makes it visible to the whole GPU (__threadfence) and only then takes a
// ticket from the counter; the block that draws the last ticket knows that every other partial
// is in memory. It also resets the counter for the next call.
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

template <reduce_op OP, typename T, typename Acc, typename Out>
gl_status reduce_step8(const T *in, size_t n, int block_size, Out *result) {
  // The grid, the scratch memory, the launch: for one operator, element type T, accumulator
  // Acc and result Out.
  const void *kernel = (const void *)reduce8_warp_shuffle<OP, T, Acc, Out>;
  unsigned int blocks = 0;
  GL_TRY(reduce_final_grid_blocks(kernel, block_size, n, 4 * FINAL_UNROLL, &blocks));
  void *partials = NULL;
  unsigned int *blocks_done = NULL;
  GL_TRY(reduce_final_scratch(blocks * sizeof(Acc), &partials, &blocks_done));
  reduce8_warp_shuffle<OP, T, Acc, Out>
      <<<blocks, block_size>>>(in, n, (Acc *)partials, blocks_done, result);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}
