// The bitonic_sort lab: your file. Fill in the kernels and launch loops of steps 2, 3 and 4
// (docs/labs/bitonic_sort.md walks through each). Step 1, the CPU reference, is given in
// common/src/reference/bitonic_sort.c: read bitonic_ref_sort_iterative first, it is the loop
// every step below parallelises.
//
// The network (the "flip" form, which sorts any n with no padding buffer): for each size
// 2, 4, ..., next_pow2(n), layers with strides size/2, ..., 1. On the first layer of a size,
// position lo meets its mirror lo ^ (size - 1); on the others it meets lo + stride. The
// comparator sends the smaller key to the lower position (the larger when descending) and never
// exchanges equal keys. A comparator whose upper position is >= n is skipped.
//
// Given: the argument checks, bitonic_step_name and the dispatch at the bottom. Each step
// returns gl_not_implemented(...) until you write it: replace that return with your code.
#include <cuda_runtime.h>
#include <stdint.h>

#include "bitonic_sort.h"
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
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d is not a step of the ladder (2, 3 or 4)",
                   function, (int)step);
  }
  if (order != BITONIC_ASCENDING && order != BITONIC_DESCENDING) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: order %d is neither BITONIC_ASCENDING nor BITONIC_DESCENDING", function,
                   (int)order);
  }
  if (step == BITONIC_STEP_REGISTERS) {
    if (block_size != 0) {
      return gl_fail(GL_ERR_INVALID_ARGUMENT,
                     "%s: block_size %d: step 4 fixes its block shape at compile time, pass 0",
                     function, block_size);
    }
  } else if (block_size != 0 &&
             (block_size < 32 || block_size > 1024 || (block_size & (block_size - 1)) != 0)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: block_size %d is not a power of two in [32, 1024]",
                   function, block_size);
  }
  return GL_OK;
}

// ---------------------------------------------------------------------------------------------
// Step 2: one launch per (size, stride) layer, in global memory
// ---------------------------------------------------------------------------------------------

// TODO(step 2): one layer of the network. Thread c owns comparator c: its lower position is
// lo = 2 * c - (c & (stride - 1)) (the seed's pos), its upper position the mirror
// lo ^ (size - 1) on the first layer of a size (stride == size / 2), else lo + stride.
// Skip the comparator when the upper position is >= n. values may be NULL (keys only).
__global__ void bitonic_global_layer(uint32_t *keys, uint32_t *values, unsigned n, unsigned size,
                                     unsigned stride, int descending) {
  // your code here
}

static gl_status sort_step2(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                            int threads) {
  // TODO(step 2): for size = 2, 4, ..., next_pow2(n) and stride = size/2, ..., 1, launch
  // bitonic_global_layer with next_pow2(n) / 2 threads in blocks of `threads`, and check each
  // launch with LAB_CHECK_LAUNCH().
  (void)keys, (void)values, (void)n, (void)descending, (void)threads;
  return gl_not_implemented(
      "bitonic_sort step 2 (2-global): write bitonic_global_layer and its (size, stride) launch "
      "loop in labs/bitonic_sort/bitonic_sort.cu");
}

// ---------------------------------------------------------------------------------------------
// Step 3: shared memory
// ---------------------------------------------------------------------------------------------

// TODO(step 3): the seed's bitonicSortShared. Each block loads a tile of 2 * blockDim.x keys
// (and values) into dynamic shared memory (positions past n get a sentinel that the comparator
// never moves: UINT32_MAX ascending, 0 descending), runs every size up to the tile and every
// stride with one comparator per thread per layer and a __syncthreads() before each layer, and
// writes back the positions below n.
__global__ void bitonic_shared_sort_tiles(uint32_t *keys, uint32_t *values, unsigned n,
                                          int descending) {
  // your code here
}

// TODO(step 3): for a size larger than the tile, the layers whose stride is below the tile
// (tile/2, ..., 1: none of them is a mirror layer), in shared memory as above.
__global__ void bitonic_shared_merge(uint32_t *keys, uint32_t *values, unsigned n,
                                     int descending) {
  // your code here
}

static gl_status sort_step3(uint32_t *keys, uint32_t *values, unsigned n, int descending,
                            int threads) {
  // TODO(step 3): sort the tiles; then for each size from 2 * tile to next_pow2(n): one
  // global layer (step 2's kernel) per stride >= tile, then one bitonic_shared_merge.
  (void)keys, (void)values, (void)n, (void)descending, (void)threads;
  return gl_not_implemented(
      "bitonic_sort step 3 (3-shared): write bitonic_shared_sort_tiles, bitonic_shared_merge and "
      "their launch loop in labs/bitonic_sort/bitonic_sort.cu");
}

// ---------------------------------------------------------------------------------------------
// Step 4: registers, warp shuffles, several global strides per pass
// ---------------------------------------------------------------------------------------------

// TODO(step 4): the fast form (the handout's step 4 section). Suggested kernels:
//   - sort tiles of BITONIC_STEP4_THREADS_KEYS x 16 keys: each thread holds 16 keys in a register
//     array (fully unrolled loops, constant indices), strides inside a thread are register
//     compares, strides inside a warp are __shfl_xor_sync, larger strides go through one
//     shared-memory exchange into a layout where they are register compares again;
//   - for sizes beyond the tile: global passes that each do several strides at once (a thread
//     loads 2^K keys spaced by the smallest stride of the pass), then one tile merge like the
//     tile sort's last size.
// Pairs may use BITONIC_STEP4_THREADS_PAIRS threads to keep the shared memory under 48 KB.
static gl_status sort_step4(uint32_t *keys, uint32_t *values, unsigned n, int descending) {
  (void)keys, (void)values, (void)n, (void)descending;
  return gl_not_implemented(
      "bitonic_sort step 4 (4-registers): write the register, shuffle and fused global kernels "
      "and their launch loop in labs/bitonic_sort/bitonic_sort.cu");
}

// ---------------------------------------------------------------------------------------------
// The API (given)
// ---------------------------------------------------------------------------------------------

static gl_status run_step(bitonic_step step, bitonic_order order, uint32_t *d_keys,
                          uint32_t *d_values, size_t n, int block_size) {
  if (n <= 1) return GL_OK; // nothing to compare (and no empty grid to launch)
  const int descending = order == BITONIC_DESCENDING;
  const unsigned count = (unsigned)n; // n <= BITONIC_MAX_N = 2^30 was checked
  gl_status status = GL_ERR_INVALID_ARGUMENT;
  switch (step) {
    case BITONIC_STEP_GLOBAL:
      status = sort_step2(d_keys, d_values, count, descending,
                          block_size ? block_size : STEP2_DEFAULT_THREADS);
      break;
    case BITONIC_STEP_SHARED:
      status = sort_step3(d_keys, d_values, count, descending,
                          block_size ? block_size : STEP3_DEFAULT_THREADS);
      break;
    case BITONIC_STEP_REGISTERS:
      status = sort_step4(d_keys, d_values, count, descending);
      break;
  }
  return status;
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
