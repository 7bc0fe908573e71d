// The reduction lab: what the given code and your steps agree on. Given: read it, do not change it.
//
// labs/reduction/reduction_given.cu checks the arguments of every call, keeps the scratch memory,
// computes the grids and calls the steps declared here; labs/reduction/reduction.cu (yours)
// defines them. Each step returns GL_OK once its launch is queued, or the error of the launch
// (LAB_CHECK_LAUNCH() in gpulabs/check.h does that).
//
// Steps 1-7 are templates over the input type T: the given code calls each with int (the
// caller's input) and int64_t (the partial sums of the previous pass). Step 8 is a template over
// the operator and types; the given code calls the six combinations listed below. The explicit
// instantiations after each part's declarations are definitions in your file (which defines
// GPULABS_EXERCISE_FILE before it includes this header) and declarations everywhere else.
#ifndef GPULABS_LAB_REDUCTION_STEPS_H
#define GPULABS_LAB_REDUCTION_STEPS_H

#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"
#include "reduction.h"

// ---- Steps 1-7: the ladder ------------------------------------------------------------------
//
// How the given code runs a ladder step (kernel decomposition): it calls the step on the input,
// whose launch reduces each block's share to one partial sum per block, partials[blockIdx.x];
// then it calls the step again on those partial sums, and again, until one block is enough,
// whose partial is the result. The first call reads the caller's int input, every later one the
// int64_t partial sums, so each step is a template over its input type T.
//
// Each step is handed, already checked:
//   in            T input, n elements (device memory); n >= 1 (the given code answers n = 0
//                 itself and calls no step)
//   partials      where the launch writes its blocks' sums, one int64_t per block (device memory)
//   blocks        the grid to launch:
//                   steps 1-3: one block per block_size elements, ceil(n / block_size)
//                   steps 4-6: one block per 2 * block_size elements
//                   step 7:    as steps 4-6, but no more than the GPU holds at once
//   block_size    the threads per block: a power of two in [REDUCE_MIN_BLOCK, REDUCE_MAX_BLOCK]
//   shared_bytes  the dynamic shared memory to launch with: one int64_t per thread, and at least
//                 64 of them, because the unrolled last warp (steps 5-7) has lanes 0-31 read up
//                 to index 63 even in a block of 32 (step 1's notes show how a kernel declares it)
// Each must launch its kernel once, <<<blocks, block_size, shared_bytes>>>, on in[0..n).
template <typename T>
gl_status reduce_step1(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes);
template <typename T>
gl_status reduce_step2(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes);
template <typename T>
gl_status reduce_step3(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes);
template <typename T>
gl_status reduce_step4(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes);
template <typename T>
gl_status reduce_step5(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes);
// Step 6 and step 7 also pick the kernel's instantiation for block_size (a switch).
template <typename T>
gl_status reduce_step6(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes);
template <typename T>
gl_status reduce_step7(const T *in, size_t n, int64_t *partials, unsigned int blocks,
                       int block_size, size_t shared_bytes);

#ifdef GPULABS_EXERCISE_FILE
template gl_status reduce_step1<int>(const int *, size_t, int64_t *, unsigned int, int, size_t);
template gl_status reduce_step1<int64_t>(const int64_t *, size_t, int64_t *, unsigned int, int,
                                         size_t);
template gl_status reduce_step2<int>(const int *, size_t, int64_t *, unsigned int, int, size_t);
template gl_status reduce_step2<int64_t>(const int64_t *, size_t, int64_t *, unsigned int, int,
                                         size_t);
template gl_status reduce_step3<int>(const int *, size_t, int64_t *, unsigned int, int, size_t);
template gl_status reduce_step3<int64_t>(const int64_t *, size_t, int64_t *, unsigned int, int,
                                         size_t);
template gl_status reduce_step4<int>(const int *, size_t, int64_t *, unsigned int, int, size_t);
template gl_status reduce_step4<int64_t>(const int64_t *, size_t, int64_t *, unsigned int, int,
                                         size_t);
template gl_status reduce_step5<int>(const int *, size_t, int64_t *, unsigned int, int, size_t);
template gl_status reduce_step5<int64_t>(const int64_t *, size_t, int64_t *, unsigned int, int,
                                         size_t);
template gl_status reduce_step6<int>(const int *, size_t, int64_t *, unsigned int, int, size_t);
template gl_status reduce_step6<int64_t>(const int64_t *, size_t, int64_t *, unsigned int, int,
                                         size_t);
template gl_status reduce_step7<int>(const int *, size_t, int64_t *, unsigned int, int, size_t);
template gl_status reduce_step7<int64_t>(const int64_t *, size_t, int64_t *, unsigned int, int,
                                         size_t);
#else
extern template gl_status reduce_step1<int>(const int *, size_t, int64_t *, unsigned int, int,
                                            size_t);
extern template gl_status reduce_step1<int64_t>(const int64_t *, size_t, int64_t *,
                                                unsigned int, int, size_t);
extern template gl_status reduce_step2<int>(const int *, size_t, int64_t *, unsigned int, int,
                                            size_t);
extern template gl_status reduce_step2<int64_t>(const int64_t *, size_t, int64_t *,
                                                unsigned int, int, size_t);
extern template gl_status reduce_step3<int>(const int *, size_t, int64_t *, unsigned int, int,
                                            size_t);
extern template gl_status reduce_step3<int64_t>(const int64_t *, size_t, int64_t *,
                                                unsigned int, int, size_t);
extern template gl_status reduce_step4<int>(const int *, size_t, int64_t *, unsigned int, int,
                                            size_t);
extern template gl_status reduce_step4<int64_t>(const int64_t *, size_t, int64_t *,
                                                unsigned int, int, size_t);
extern template gl_status reduce_step5<int>(const int *, size_t, int64_t *, unsigned int, int,
                                            size_t);
extern template gl_status reduce_step5<int64_t>(const int64_t *, size_t, int64_t *,
                                                unsigned int, int, size_t);
extern template gl_status reduce_step6<int>(const int *, size_t, int64_t *, unsigned int, int,
                                            size_t);
extern template gl_status reduce_step6<int64_t>(const int64_t *, size_t, int64_t *,
                                                unsigned int, int, size_t);
extern template gl_status reduce_step7<int>(const int *, size_t, int64_t *, unsigned int, int,
                                            size_t);
extern template gl_status reduce_step7<int64_t>(const int64_t *, size_t, int64_t *,
                                                unsigned int, int, size_t);
#endif

// ---- Step 8: the final kernel ----------------------------------------------------------------
//
// The sum, min or max of in[0..n) in one launch, written to *result (device memory). OP is the
// operator, T the element type (int or float), Acc the type to combine in (int64_t for an int
// sum, T otherwise), Out the result's type (int64_t for int, float for float). Handed, already
// checked: n from 0 to REDUCE_MAX_N (for n = 0 it must write the operator's identity, and in may
// be NULL), in aligned to its element type but not to 16 bytes, block_size a power of two in
// [REDUCE_MIN_BLOCK, REDUCE_MAX_BLOCK]. The grid and the scratch memory are the step's to ask
// for, from the two given helpers below.
template <reduce_op OP, typename T, typename Acc, typename Out>
gl_status reduce_step8(const T *in, size_t n, int block_size, Out *result);

#ifdef GPULABS_EXERCISE_FILE
template gl_status reduce_step8<REDUCE_SUM, int, int64_t, int64_t>(const int *, size_t, int,
                                                                   int64_t *);
template gl_status reduce_step8<REDUCE_MIN, int, int, int64_t>(const int *, size_t, int,
                                                               int64_t *);
template gl_status reduce_step8<REDUCE_MAX, int, int, int64_t>(const int *, size_t, int,
                                                               int64_t *);
template gl_status reduce_step8<REDUCE_SUM, float, float, float>(const float *, size_t, int,
                                                                 float *);
template gl_status reduce_step8<REDUCE_MIN, float, float, float>(const float *, size_t, int,
                                                                 float *);
template gl_status reduce_step8<REDUCE_MAX, float, float, float>(const float *, size_t, int,
                                                                 float *);
#else
extern template gl_status reduce_step8<REDUCE_SUM, int, int64_t, int64_t>(const int *, size_t,
                                                                          int, int64_t *);
extern template gl_status reduce_step8<REDUCE_MIN, int, int, int64_t>(const int *, size_t, int,
                                                                      int64_t *);
extern template gl_status reduce_step8<REDUCE_MAX, int, int, int64_t>(const int *, size_t, int,
                                                                      int64_t *);
extern template gl_status reduce_step8<REDUCE_SUM, float, float, float>(const float *, size_t,
                                                                        int, float *);
extern template gl_status reduce_step8<REDUCE_MIN, float, float, float>(const float *, size_t,
                                                                        int, float *);
extern template gl_status reduce_step8<REDUCE_MAX, float, float, float>(const float *, size_t,
                                                                        int, float *);
#endif

// Given (labs/reduction/reduction_given.cu): the final kernel's grid. Enough blocks of
// block_size threads for n elements at elements_per_thread each, but no more than the GPU holds
// at once of this kernel (the occupancy calculator, asked once per kernel and block size); at
// least 1. kernel is the instantiation to launch, cast to const void *.
gl_status reduce_final_grid_blocks(const void *kernel, int block_size, size_t n,
                                   size_t elements_per_thread, unsigned int *blocks);

// Given (labs/reduction/reduction_given.cu): the final kernel's scratch memory, kept between
// calls. partials: at least partial_bytes of device memory for the blocks' results.
// blocks_done: a device counter that is 0 when it is handed out; the kernel must leave it at 0.
gl_status reduce_final_scratch(size_t partial_bytes, void **partials,
                               unsigned int **blocks_done);

// Given: what each operator does to two values, and the value that changes nothing (the
// identity, also the result for n = 0). Acc is the type combined in.
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

// Given: the 16-byte vector of four elements that one load brings in (int4, float4).
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

#endif
