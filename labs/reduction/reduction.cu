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

template <typename T>
gl_status reduce_step1(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 1 (1-interleaved-divergent): write "
                            "reduce1_interleaved_divergent in labs/reduction/reduction.cu");
}

// =============================================================================================
// Step 2: interleaved addressing, strided index
//
//   template <typename T>
//   __global__ void reduce2_interleaved_strided(const T *in, int64_t *partials, size_t n)
// As step 1, but in round s thread tid works on element index = 2 * s * tid (when it is inside
// the block): no modulo, and the working threads are the first ones.
// =============================================================================================

template <typename T>
gl_status reduce_step2(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 2 (2-interleaved-strided): write "
                            "reduce2_interleaved_strided in labs/reduction/reduction.cu");
}

// =============================================================================================
// Step 3: sequential addressing
//
//   template <typename T>
//   __global__ void reduce3_sequential(const T *in, int64_t *partials, size_t n)
// Rounds s = blockDim.x / 2, ..., 2, 1: thread tid < s adds element tid + s.
// =============================================================================================

template <typename T>
gl_status reduce_step3(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 3 (3-sequential): write reduce3_sequential in "
                            "labs/reduction/reduction.cu");
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

template <typename T>
gl_status reduce_step4(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 4 (4-first-add): write reduce4_first_add in "
                            "labs/reduction/reduction.cu");
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

template <typename T>
gl_status reduce_step5(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 5 (5-unroll-last-warp): write "
                            "reduce5_unroll_last_warp in labs/reduction/reduction.cu");
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

template <typename T>
gl_status reduce_step6(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 6 (6-complete-unroll): write "
                            "reduce6_complete_unroll in labs/reduction/reduction.cu");
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

template <typename T>
gl_status reduce_step7(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes) {
  (void)in, (void)n, (void)partials, (void)blocks, (void)block_size, (void)shared_bytes;
  return gl_not_implemented("reduction step 7 (7-multiple-elements): write "
                            "reduce7_multiple_elements in labs/reduction/reduction.cu");
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

template <reduce_op OP, typename T, typename Acc, typename Out>
gl_status reduce_step8(const T *in, size_t n, int block_size, Out *result) {
  (void)in, (void)n, (void)block_size, (void)result;
  return gl_not_implemented("reduction step 8 (8-warp-shuffle): write reduce8_warp_shuffle in "
                            "labs/reduction/reduction.cu");
}
