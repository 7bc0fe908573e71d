// The radix sort lab: LSD radix sort of uint32 keys (and key-value pairs). Your file.
//
//   step 2  one bit per pass: the seed's split (false flags, scan_exclusive, scatter)
//   step 3  4- or 8-bit digits: tile histograms, one scan of the digit-major table, local sort of
//           each tile in shared memory, coalesced scatter
//   step 4  8-bit digits, Onesweep style: one histogram kernel for every pass up front, then one
//           kernel per pass that ranks a tile, looks back over earlier tiles for its digits'
//           offsets (decoupled look-back) and scatters
//   extension: int32 and float keys through an order-preserving bit flip
//
// Given (keep it, or change it if you know why): the argument checks, the scratch memory kept
// between calls, the pass plan (which buffer each pass reads and writes), the block-wide scan
// from the scan lab, and the public functions at the bottom. Yours: the kernels and the host
// function of each step (sort_split, sort_digits, sort_onesweep) and of the extension. The
// handout, docs/labs/radix_sort.md, walks through each of them.
#include "radix_sort.h"

#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "scan.h"

// ---------------------------------------------------------------------------------------------
// Given plumbing: scratch memory, argument checks, the pass plan
// ---------------------------------------------------------------------------------------------

// Device memory kept between calls: grows when a call needs more, freed by radix_sort_release().
typedef struct scratch_buffer {
  void *ptr;
  size_t bytes;
} scratch_buffer;

static scratch_buffer g_tmp_keys;   // the second buffer the passes ping-pong with
static scratch_buffer g_tmp_values; // the same for the values
static scratch_buffer g_work;       // each step's own tables (flags, histograms, tile status)

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
  scratch_buffer *all[] = {&g_tmp_keys, &g_tmp_values, &g_work};
  for (int i = 0; i < 3; ++i) {
    if (all[i]->ptr != NULL) LAB_CHECK(cudaFree(all[i]->ptr));
    all[i]->ptr = NULL;
    all[i]->bytes = 0;
  }
  return GL_OK;
}

#define RADIX_MAX_PASSES 32

// One sort call, checked and planned: what each pass reads and writes.
typedef struct sort_job {
  const char *fn;  // the public function, for messages
  radix_sort_step step;
  size_t n;
  int begin_bit, end_bit, digit_bits;
  int pass_count;  // ceil((end_bit - begin_bit) / digit_bits)
  int with_values;
  // Pass p reads keys_from[p] (values_from[p]) and writes keys_to[p] (values_to[p]). The passes
  // alternate between the caller's output and a scratch buffer, arranged so that the last pass
  // writes the output.
  const uint32_t *keys_from[RADIX_MAX_PASSES];
  uint32_t *keys_to[RADIX_MAX_PASSES];
  const uint32_t *values_from[RADIX_MAX_PASSES];
  uint32_t *values_to[RADIX_MAX_PASSES];
} sort_job;

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
                   "step 4: 8; 0 picks the default)",
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

// Grid sizes: every kernel of this file runs blocks of 256 threads (8 warps).
#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xFFFFFFFFu

// Blocks (or tiles) needed to cover `items` at `per_block` each.
#define BLOCKS_FOR(items, per_block) \
  ((unsigned int)(((size_t)(items) + (size_t)(per_block) - 1) / (size_t)(per_block)))

// ---------------------------------------------------------------------------------------------
// Block-wide building blocks (the scan lab's warp-shuffle scan)
// ---------------------------------------------------------------------------------------------

__device__ int warp_inclusive_sum(int x) {
  int lane = threadIdx.x & 31;
  for (int offset = 1; offset < 32; offset <<= 1) {
    int y = __shfl_up_sync(FULL_MASK, x, offset);
    if (lane >= offset) x += y;
  }
  return x;
}

// Exclusive prefix sum of one int per thread over a block of BLOCK threads; *total gets the sum
// of all. Every thread of the block must call it (it has barriers). s_warp_sums: WARPS ints of
// shared memory, free again when the function returns.
__device__ int block_exclusive_sum(int x, int *total, int *s_warp_sums) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int inclusive = warp_inclusive_sum(x);
  if (lane == 31) s_warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    int sum = lane < WARPS ? s_warp_sums[lane] : 0;
    sum = warp_inclusive_sum(sum);
    if (lane < WARPS) s_warp_sums[lane] = sum;
  }
  __syncthreads();
  int warps_before = warp > 0 ? s_warp_sums[warp - 1] : 0;
  *total = s_warp_sums[WARPS - 1];
  __syncthreads();  // the next call may overwrite s_warp_sums
  return warps_before + inclusive - x;
}

__device__ unsigned digit_of(uint32_t key, int shift, unsigned mask) {
  return (key >> shift) & mask;
}

// ---------------------------------------------------------------------------------------------
// Step 2: one bit per pass, the seed's split with the scan lab's scan_exclusive
// ---------------------------------------------------------------------------------------------

// For each pass p (bit job->begin_bit + p), from job->keys_from[p] to job->keys_to[p] (and the
// values, when job->with_values):
//   1. a kernel writes e[i] = 1 where the bit of key i is 0 (a "false" key), else 0;
//   2. scan_exclusive(e, f, n) from your scan lab gives f[i] = the falses before i;
//   3. a kernel moves key i to f[i] if it is false, else to i - f[i] + total_false, where
//      total_false = f[n - 1] + e[n - 1].
// The flags need n ints of scratch: reserve(&g_work, ...).
static gl_status sort_split(const sort_job *job) {
  (void)job;
  return gl_not_implemented(
      "radix_sort step 2 (2-split): write the flag and scatter kernels and the pass loop of "
      "sort_split in labs/radix_sort/radix_sort.cu");
}

// ---------------------------------------------------------------------------------------------
// Step 3: k-bit digits (job->digit_bits is 4 or 8). Per pass: tile histograms -> scan of the
// digit-major table -> local sort of each tile in shared memory and a scatter of each digit's
// run to its place.
// ---------------------------------------------------------------------------------------------

// For each pass, with the keys cut into tiles of a few thousand (one block each):
//   1. a kernel counts each tile's digits into table[digit * tile_count + tile];
//   2. scan_exclusive over the whole table: each entry becomes the output position of that
//      tile's first key with that digit (digit-major order puts all smaller digits first);
//   3. a kernel sorts its tile by the digit in shared memory (digit_bits 1-bit splits, each
//      with block_exclusive_sum), finds where each digit's run starts in the sorted tile, and
//      writes key i of the sorted tile to table[digit][tile] + (i - run start).
// The last pass may have fewer bits than digit_bits (bit ranges such as [0, 12)).
static gl_status sort_digits(const sort_job *job) {
  (void)job;
  return gl_not_implemented(
      "radix_sort step 3 (3-digits): write the tile histogram and tile sort-and-scatter "
      "kernels and the pass loop of sort_digits in labs/radix_sort/radix_sort.cu");
}

// ---------------------------------------------------------------------------------------------
// Step 4: Onesweep. One histogram kernel counts the digits of every pass at once, then each
// pass is one kernel: rank a tile, publish its digit counts, look back, scatter.
// ---------------------------------------------------------------------------------------------

// Up front: one kernel counts the 8-bit digits of all passes (the set of keys never changes,
// only its order), and an exclusive scan of each pass's 256 counts gives each digit's start.
// Then per pass, one kernel; each block:
//   1. takes the next tile number from a global counter (atomicAdd), so that every earlier
//      tile belongs to a block that has already started;
//   2. ranks its keys: for each key, how many keys of the tile with the same digit come
//      before it (warp ballots find the lanes with the same digit);
//   3. publishes its per-digit counts in a status word per (tile, digit) with a flag, then
//      walks back over earlier tiles' words, adding counts until one carries a prefix, and
//      publishes its own inclusive prefix;
//   4. orders the tile by digit in shared memory and writes each digit's run to
//      digit start + earlier tiles' count + position in the run.
// Status words and tile counters must start at zero in every call (cudaMemsetAsync).
static gl_status sort_onesweep(const sort_job *job) {
  (void)job;
  return gl_not_implemented(
      "radix_sort step 4 (4-onesweep): write the histogram, offsets and pass kernels and "
      "sort_onesweep in labs/radix_sort/radix_sort.cu");
}

// ---------------------------------------------------------------------------------------------
// The public API (given)
// ---------------------------------------------------------------------------------------------

const char *radix_sort_step_name(radix_sort_step step) {
  switch (step) {
    case RADIX_STEP_SPLIT: return "2-split";
    case RADIX_STEP_DIGITS: return "3-digits";
    case RADIX_STEP_ONESWEEP: return "4-onesweep";
  }
  return "unknown";
}

static gl_status run_job(sort_job *job, const uint32_t *keys_in, uint32_t *keys_out,
                         const uint32_t *values_in, uint32_t *values_out) {
  if (job->n == 0) return GL_OK;
  GL_TRY(plan_passes(job, keys_in, keys_out, values_in, values_out));
  switch (job->step) {
    case RADIX_STEP_SPLIT: return sort_split(job);
    case RADIX_STEP_DIGITS: return sort_digits(job);
    case RADIX_STEP_ONESWEEP: return sort_onesweep(job);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: unknown step %d", job->fn, (int)job->step);
}

gl_status radix_sort_keys(radix_sort_step step, const uint32_t *d_keys_in, uint32_t *d_keys_out,
                          size_t n, const radix_sort_options *options) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_keys", step, d_keys_in, d_keys_out, NULL, NULL, 0, n,
                    options));
  return run_job(&job, d_keys_in, d_keys_out, NULL, NULL);
}

gl_status radix_sort_pairs(radix_sort_step step, const uint32_t *d_keys_in, uint32_t *d_keys_out,
                           const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                           const radix_sort_options *options) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_pairs", step, d_keys_in, d_keys_out, d_values_in,
                    d_values_out, 1, n, options));
  return run_job(&job, d_keys_in, d_keys_out, d_values_in, d_values_out);
}

// ---------------------------------------------------------------------------------------------
// Extension: signed and float keys through an order-preserving bit flip
// ---------------------------------------------------------------------------------------------

// Map each key to a uint32 whose unsigned order is the key's order, write the mapped keys to
// the output, sort the output in place with run_job(&job, bits, bits, NULL, NULL), and map
// them back. int32: think of where the sign bit puts negative numbers. float: the same, but a
// negative float's bits grow as the number falls.
gl_status radix_sort_keys_i32(radix_sort_step step, const int32_t *d_keys_in, int32_t *d_keys_out,
                              size_t n) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_keys_i32", step, d_keys_in, d_keys_out, NULL, NULL, 0, n,
                    NULL));
  if (n == 0) return GL_OK;
  return gl_not_implemented(
      "radix_sort extension (int32 keys): write the flip kernels and radix_sort_keys_i32 in "
      "labs/radix_sort/radix_sort.cu");
}

gl_status radix_sort_keys_f32(radix_sort_step step, const float *d_keys_in, float *d_keys_out,
                              size_t n) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_keys_f32", step, d_keys_in, d_keys_out, NULL, NULL, 0, n,
                    NULL));
  if (n == 0) return GL_OK;
  return gl_not_implemented(
      "radix_sort extension (float keys): write the flip kernels and radix_sort_keys_f32 in "
      "labs/radix_sort/radix_sort.cu");
}
