// The radix sort lab, reference solution: LSD radix sort of uint32 keys (and key-value pairs).
//
//   step 2  one bit per pass: the seed's split (false flags, scan_exclusive, scatter)
//   step 3  4- or 8-bit digits: tile histograms, one scan of the digit-major table, local sort of
//           each tile in shared memory by 1-bit splits, coalesced scatter
//   step 4  8-bit digits, Onesweep style: one histogram kernel for every pass up front, then one
//           kernel per pass that ranks a tile with warp ballots, looks back over earlier tiles for
//           its digits' offsets (decoupled look-back) and scatters
//
// The host plumbing at the top (argument checks, scratch memory, which buffer each pass reads
// and writes) is given to students in the stub as well.
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

// e[i] = 1 where bit `bit` of the key is 0 (a "false" key, which goes first).
__global__ void split_flags_kernel(const uint32_t *keys, int *flags, size_t n, int bit) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = ((keys[i] >> bit) & 1u) == 0;
}

// false_before = exclusive scan of the flags. A false key goes to false_before[i]; a true key to
// i - false_before[i] + total_false (the trues keep their order after all the falses).
__global__ void split_scatter_kernel(const uint32_t *keys, uint32_t *keys_to,
                                     const uint32_t *values, uint32_t *values_to,
                                     const int *false_before, size_t n, int bit) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // The scan is exclusive, so the total needs the last flag as well.
  size_t total_false = (size_t)false_before[n - 1] + (((keys[n - 1] >> bit) & 1u) == 0);
  uint32_t key = keys[i];
  size_t f = (size_t)false_before[i];
  size_t to = ((key >> bit) & 1u) ? i - f + total_false : f;
  keys_to[to] = key;
  if (values != NULL) values_to[to] = values[i];
}

static gl_status sort_split(const sort_job *job) {
  size_t n = job->n;
  GL_TRY(reserve(&g_work, n * sizeof(int), "the split flags"));
  int *flags = (int *)g_work.ptr;
  unsigned int blocks = BLOCKS_FOR(n, BLOCK);
  for (int p = 0; p < job->pass_count; ++p) {
    int bit = job->begin_bit + p;
    split_flags_kernel<<<blocks, BLOCK>>>(job->keys_from[p], flags, n, bit);
    LAB_CHECK_LAUNCH();
    GL_TRY(scan_exclusive(flags, flags, n));  // in place: the flags become false_before
    split_scatter_kernel<<<blocks, BLOCK>>>(job->keys_from[p], job->keys_to[p],
                                            job->values_from[p], job->values_to[p], flags, n, bit);
    LAB_CHECK_LAUNCH();
  }
  return GL_OK;
}

// ---------------------------------------------------------------------------------------------
// Step 3: k-bit digits. Per pass: tile histograms -> scan of the digit-major table -> local sort
// of each tile in shared memory and a scatter of each digit's run to its place.
// ---------------------------------------------------------------------------------------------

#define DIGITS_ITEMS 8                       // keys per thread
#define DIGITS_TILE (BLOCK * DIGITS_ITEMS)  // 2048 keys per tile (one block)
#define MAX_RADIX 256

// table[d * tile_count + tile] = how many keys of the tile have digit d. Digit-major, so an
// exclusive scan of the whole table gives, for each (digit, tile), where that tile's keys of
// that digit start in the output: all smaller digits first, then this digit in tile order.
__global__ void tile_histogram_kernel(const uint32_t *keys, size_t n, int shift, int bits,
                                      unsigned int tile_count, int *table) {
  __shared__ int s_count[MAX_RADIX];
  int radix = 1 << bits;
  unsigned mask = (unsigned)radix - 1u;
  for (int d = threadIdx.x; d < radix; d += BLOCK) s_count[d] = 0;
  __syncthreads();
  size_t tile_start = (size_t)blockIdx.x * DIGITS_TILE;
  size_t tile_end = tile_start + DIGITS_TILE < n ? tile_start + DIGITS_TILE : n;
  for (size_t i = tile_start + threadIdx.x; i < tile_end; i += BLOCK) {
    atomicAdd(&s_count[digit_of(keys[i], shift, mask)], 1);
  }
  __syncthreads();
  for (int d = threadIdx.x; d < radix; d += BLOCK) {
    table[(size_t)d * tile_count + blockIdx.x] = s_count[d];
  }
}

// Sorts one tile by its digit with `bits` 1-bit splits in shared memory (the split of step 2,
// with a block scan instead of a device scan), then writes each digit's run of keys to the
// place the scanned table gives. Consecutive threads write consecutive addresses of one run.
__global__ void tile_sort_scatter_kernel(const uint32_t *keys, uint32_t *keys_to,
                                         const uint32_t *values, uint32_t *values_to, size_t n,
                                         int shift, int bits, unsigned int tile_count,
                                         const int *table) {
  __shared__ __align__(16) uint32_t s_keys[DIGITS_TILE];
  __shared__ __align__(16) uint32_t s_values[DIGITS_TILE];
  __shared__ int s_warp_sums[WARPS];
  __shared__ int s_digit_first[MAX_RADIX];  // where each digit's run starts in the sorted tile
  __shared__ int s_digit_out[MAX_RADIX];    // where that run goes in the output
  const int t = threadIdx.x;
  const int with_values = values != NULL;
  const unsigned mask = (1u << bits) - 1u;
  size_t tile_start = (size_t)blockIdx.x * DIGITS_TILE;
  int tile_n = n - tile_start < DIGITS_TILE ? (int)(n - tile_start) : DIGITS_TILE;

  // Coalesced load into shared memory. Slots past the end get all-ones keys: they are "true"
  // in every split, so they stay behind every real key.
  #pragma unroll
  for (int j = 0; j < DIGITS_ITEMS; ++j) {
    int i = j * BLOCK + t;
    s_keys[i] = i < tile_n ? keys[tile_start + i] : 0xFFFFFFFFu;
    if (with_values) s_values[i] = i < tile_n ? values[tile_start + i] : 0u;
  }
  __syncthreads();

  // Each thread owns DIGITS_ITEMS consecutive slots (a blocked layout), read as two uint4.
  uint32_t key[DIGITS_ITEMS], value[DIGITS_ITEMS];
  const int first = t * DIGITS_ITEMS;
  #pragma unroll
  for (int j = 0; j < DIGITS_ITEMS; j += 4) {
    uint4 k4 = *(const uint4 *)&s_keys[first + j];
    key[j] = k4.x, key[j + 1] = k4.y, key[j + 2] = k4.z, key[j + 3] = k4.w;
    if (with_values) {
      uint4 v4 = *(const uint4 *)&s_values[first + j];
      value[j] = v4.x, value[j + 1] = v4.y, value[j + 2] = v4.z, value[j + 3] = v4.w;
    }
  }

  for (int bit = shift; bit < shift + bits; ++bit) {
    int my_false = 0;
    for (int j = 0; j < DIGITS_ITEMS; ++j) my_false += ((key[j] >> bit) & 1u) == 0;
    int total_false;
    // The barriers inside also separate the reads of s_keys above from the writes below.
    int false_before = block_exclusive_sum(my_false, &total_false, s_warp_sums);
    #pragma unroll
    for (int j = 0; j < DIGITS_ITEMS; ++j) {
      int i = first + j;
      int to;
      if ((key[j] >> bit) & 1u) {
        to = i - false_before + total_false;
      } else {
        to = false_before++;
      }
      s_keys[to] = key[j];
      if (with_values) s_values[to] = value[j];
    }
    __syncthreads();
    #pragma unroll
    for (int j = 0; j < DIGITS_ITEMS; j += 4) {
      uint4 k4 = *(const uint4 *)&s_keys[first + j];
      key[j] = k4.x, key[j + 1] = k4.y, key[j + 2] = k4.z, key[j + 3] = k4.w;
      if (with_values) {
        uint4 v4 = *(const uint4 *)&s_values[first + j];
        value[j] = v4.x, value[j + 1] = v4.y, value[j + 2] = v4.z, value[j + 3] = v4.w;
      }
    }
  }
  // s_keys now holds the tile sorted by digit (stable), padding at the end.
  for (int d = t; d <= (int)mask; d += BLOCK) {
    s_digit_out[d] = table[(size_t)d * tile_count + blockIdx.x];
  }
  for (int i = t; i < tile_n; i += BLOCK) {
    unsigned d = digit_of(s_keys[i], shift, mask);
    if (i == 0 || digit_of(s_keys[i - 1], shift, mask) != d) s_digit_first[d] = i;
  }
  __syncthreads();
  for (int i = t; i < tile_n; i += BLOCK) {
    uint32_t k = s_keys[i];
    unsigned d = digit_of(k, shift, mask);
    size_t to = (size_t)s_digit_out[d] + (size_t)(i - s_digit_first[d]);
    keys_to[to] = k;
    if (with_values) values_to[to] = s_values[i];
  }
}

static gl_status sort_digits(const sort_job *job) {
  size_t n = job->n;
  unsigned int tile_count = BLOCKS_FOR(n, DIGITS_TILE);
  size_t table_len = ((size_t)1 << job->digit_bits) * tile_count;
  GL_TRY(reserve(&g_work, table_len * sizeof(int), "the digit table"));
  int *table = (int *)g_work.ptr;
  for (int p = 0; p < job->pass_count; ++p) {
    int shift = job->begin_bit + p * job->digit_bits;
    int bits = job->end_bit - shift < job->digit_bits ? job->end_bit - shift : job->digit_bits;
    size_t pass_table_len = ((size_t)1 << bits) * tile_count;
    tile_histogram_kernel<<<tile_count, BLOCK>>>(job->keys_from[p], n, shift, bits, tile_count,
                                                 table);
    LAB_CHECK_LAUNCH();
    GL_TRY(scan_exclusive(table, table, pass_table_len));
    tile_sort_scatter_kernel<<<tile_count, BLOCK>>>(job->keys_from[p], job->keys_to[p],
                                                    job->values_from[p], job->values_to[p], n,
                                                    shift, bits, tile_count, table);
    LAB_CHECK_LAUNCH();
  }
  return GL_OK;
}

// ---------------------------------------------------------------------------------------------
// Step 4: Onesweep. One histogram kernel counts the digits of every pass at once (the keys are
// the same set in every pass, only their order changes). Then each pass is one kernel: a block
// takes the next tile, ranks its keys with warp ballots, publishes its digit counts, adds up the
// counts of all earlier tiles by looking back at their published status, and scatters.
// ---------------------------------------------------------------------------------------------

#define ONESWEEP_ITEMS 16                        // keys per thread
#define ONESWEEP_WARP_KEYS (32 * ONESWEEP_ITEMS)   // 512 consecutive keys per warp
#define ONESWEEP_TILE (BLOCK * ONESWEEP_ITEMS)     // 4096 keys per tile
#define ONESWEEP_RADIX 256                        // 8-bit digits: one thread per digit
#define ONESWEEP_MAX_PASSES 4

// A tile's status word for one digit: two flag bits over a 30-bit count.
#define STATUS_EMPTY 0u                 // nothing published yet
#define STATUS_AGGREGATE (1u << 30)     // the count of this tile alone
#define STATUS_PREFIX (2u << 30)        // the count of this tile and every earlier one
#define STATUS_FLAGS (3u << 30)
#define STATUS_COUNT (~STATUS_FLAGS)

// hist[p * 256 + d] += how many keys have digit d in pass p.
__global__ void onesweep_histogram_kernel(const uint32_t *keys, size_t n, int begin_bit,
                                          int end_bit, int pass_count, unsigned int *hist) {
  __shared__ unsigned int s_hist[ONESWEEP_MAX_PASSES][ONESWEEP_RADIX];
  for (int i = threadIdx.x; i < ONESWEEP_MAX_PASSES * ONESWEEP_RADIX; i += BLOCK) {
    s_hist[i / ONESWEEP_RADIX][i % ONESWEEP_RADIX] = 0;
  }
  __syncthreads();
  const size_t stride = (size_t)gridDim.x * BLOCK;
  // Four keys per thread per round, loaded before they are counted, to keep loads in flight.
  for (size_t base = (size_t)blockIdx.x * BLOCK + threadIdx.x; base < n; base += 4 * stride) {
    uint32_t key[4];
    #pragma unroll
    for (int j = 0; j < 4; ++j) {
      size_t i = base + j * stride;
      key[j] = i < n ? keys[i] : 0;
    }
    #pragma unroll
    for (int j = 0; j < 4; ++j) {
      if (base + j * stride >= n) break;
      for (int p = 0; p < pass_count; ++p) {
        int shift = begin_bit + 8 * p;
        int bits = end_bit - shift < 8 ? end_bit - shift : 8;
        atomicAdd(&s_hist[p][digit_of(key[j], shift, (1u << bits) - 1u)], 1u);
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < pass_count * ONESWEEP_RADIX; i += BLOCK) {
    unsigned int count = s_hist[i / ONESWEEP_RADIX][i % ONESWEEP_RADIX];
    if (count != 0) atomicAdd(&hist[i], count);
  }
}

// digit_start[p * 256 + d] = where digit d starts in the output of pass p (block p scans pass p).
__global__ void onesweep_offsets_kernel(const unsigned int *hist, unsigned int *digit_start) {
  __shared__ int s_warp_sums[WARPS];
  int i = blockIdx.x * ONESWEEP_RADIX + threadIdx.x;
  int total;
  digit_start[i] = (unsigned int)block_exclusive_sum((int)hist[i], &total, s_warp_sums);
}

// Rank of each key among the keys of its warp with the same digit, counting earlier rounds:
// the lanes holding one digit find each other with one ballot per digit bit (peers), the
// highest of them adds the group's size to the warp's counter for that digit.
__device__ void onesweep_rank_warp(const uint32_t *key, unsigned *rank, int valid_count, int shift,
                                   int bits, unsigned *s_my_warp_count) {
  const int lane = threadIdx.x & 31;
  const unsigned lanes_below = (1u << lane) - 1u;
  const unsigned mask = (1u << bits) - 1u;
  #pragma unroll
  for (int j = 0; j < ONESWEEP_ITEMS; ++j) {
    int valid = j * 32 + lane < valid_count;
    unsigned d = digit_of(key[j], shift, mask);
    unsigned peers = __ballot_sync(FULL_MASK, valid);
    for (int b = 0; b < bits; ++b) {
      unsigned set = __ballot_sync(FULL_MASK, (d >> b) & 1u);
      peers &= ((d >> b) & 1u) ? set : ~set;
    }
    int leader = valid ? 31 - __clz(peers) : lane;
    unsigned before = 0;
    // Only one lane per digit touches the counter, so no atomic is needed within the round.
    if (valid && lane == leader) {
      before = s_my_warp_count[d];
      s_my_warp_count[d] = before + __popc(peers);
    }
    before = __shfl_sync(FULL_MASK, before, leader);
    rank[j] = before + __popc(peers & lanes_below);
    __syncwarp();  // this round's counter updates are seen by the next round
  }
}

__global__ void __launch_bounds__(BLOCK)
    onesweep_pass_kernel(const uint32_t *keys, uint32_t *keys_to, const uint32_t *values,
                         uint32_t *values_to, size_t n, int shift, int bits,
                         const unsigned int *digit_start, unsigned int *status,
                         unsigned int *tile_counter) {
  // Dynamic shared memory: the tile's keys in sorted order, then (pairs) its values.
  extern __shared__ __align__(16) uint32_t s_tile[];
  __shared__ unsigned s_warp_count[WARPS][ONESWEEP_RADIX];  // per warp: keys of each digit
  __shared__ unsigned s_digit_first[ONESWEEP_RADIX];       // digit's run start in the tile
  __shared__ unsigned s_out_base[ONESWEEP_RADIX];          // output index minus run start
  __shared__ int s_warp_sums[WARPS];
  __shared__ unsigned int s_tile_index;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int with_values = values != NULL;
  const unsigned mask = (1u << bits) - 1u;

  // Tiles are numbered in the order blocks start, so every earlier tile belongs to a block
  // that is running or done: the look-back below never waits for a block that cannot run.
  if (t == 0) s_tile_index = atomicAdd(tile_counter, 1u);
  for (int w = 0; w < WARPS; ++w) s_warp_count[w][t] = 0;
  __syncthreads();
  const unsigned int tile = s_tile_index;
  const size_t tile_start = (size_t)tile * ONESWEEP_TILE;
  const int tile_n = n - tile_start < ONESWEEP_TILE ? (int)(n - tile_start) : ONESWEEP_TILE;
  // Warp-striped: warp w holds the tile's keys [w * 512, (w + 1) * 512), round j lane l holds
  // key w * 512 + j * 32 + l. Loads are coalesced and ranks follow the input order.
  const int warp_first = warp * ONESWEEP_WARP_KEYS;
  const int warp_valid = tile_n - warp_first;  // may be <= 0 in the last tile
  uint32_t key[ONESWEEP_ITEMS], value[ONESWEEP_ITEMS];
  unsigned rank[ONESWEEP_ITEMS];
  #pragma unroll
  for (int j = 0; j < ONESWEEP_ITEMS; ++j) {
    int i = j * 32 + lane;
    key[j] = i < warp_valid ? keys[tile_start + warp_first + i] : 0u;
  }
  if (with_values) {
    #pragma unroll
    for (int j = 0; j < ONESWEEP_ITEMS; ++j) {
      int i = j * 32 + lane;
      value[j] = i < warp_valid ? values[tile_start + warp_first + i] : 0u;
    }
  }
  onesweep_rank_warp(key, rank, warp_valid, shift, bits, s_warp_count[warp]);
  __syncthreads();

  // From here thread t speaks for digit t: turn the per-warp counts into per-warp offsets.
  unsigned tile_count_t = 0;
  for (int w = 0; w < WARPS; ++w) {
    unsigned c = s_warp_count[w][t];
    s_warp_count[w][t] = tile_count_t;
    tile_count_t += c;
  }
  // Publish this tile's count at once, so that later tiles can look past us.
  volatile unsigned int *my_status = status + (size_t)tile * ONESWEEP_RADIX + t;
  *my_status = (tile == 0 ? STATUS_PREFIX : STATUS_AGGREGATE) | tile_count_t;
  int tile_total;
  s_digit_first[t] = (unsigned)block_exclusive_sum((int)tile_count_t, &tile_total, s_warp_sums);

  // Decoupled look-back: add earlier tiles' counts of digit t until one that carries a prefix.
  unsigned earlier = 0;
  if (tile > 0) {
    unsigned int other = tile - 1;
    for (;;) {
      unsigned word = ((volatile unsigned int *)status)[(size_t)other * ONESWEEP_RADIX + t];
      unsigned flags = word & STATUS_FLAGS;
      if (flags == STATUS_EMPTY) continue;  // that tile has not counted yet: ask again
      earlier += word & STATUS_COUNT;
      if (flags == STATUS_PREFIX) break;
      --other;
    }
    *my_status = STATUS_PREFIX | (earlier + tile_count_t);
  }
  // Unsigned arithmetic wraps, but base + i lands in [0, n) for every i of this digit's run.
  s_out_base[t] = digit_start[t] + earlier - s_digit_first[t];
  __syncthreads();

  // Put the keys in tile order (by digit, stable) in shared memory...
  #pragma unroll
  for (int j = 0; j < ONESWEEP_ITEMS; ++j) {
    if (j * 32 + lane < warp_valid) {
      unsigned d = digit_of(key[j], shift, mask);
      rank[j] += s_digit_first[d] + s_warp_count[warp][d];
      s_tile[rank[j]] = key[j];
      if (with_values) s_tile[ONESWEEP_TILE + rank[j]] = value[j];
    }
  }
  __syncthreads();
  // ...and write them out: each digit's run is contiguous in the output as well.
  #pragma unroll
  for (int j = 0; j < ONESWEEP_ITEMS; ++j) {
    int i = j * BLOCK + t;
    if (i < tile_n) {
      uint32_t k = s_tile[i];
      size_t to = s_out_base[digit_of(k, shift, mask)] + (unsigned)i;
      keys_to[to] = k;
      if (with_values) values_to[to] = s_tile[ONESWEEP_TILE + i];
    }
  }
}

static int g_sm_count = 0;

static gl_status sort_onesweep(const sort_job *job) {
  size_t n = job->n;
  unsigned int tile_count = BLOCKS_FOR(n, ONESWEEP_TILE);
  // Work layout (uint32 words): digit starts, then what must start at zero: the histogram,
  // one tile counter per pass, the tile status words of every pass.
  size_t starts_len = ONESWEEP_MAX_PASSES * ONESWEEP_RADIX;
  size_t hist_len = ONESWEEP_MAX_PASSES * ONESWEEP_RADIX;
  size_t counters_len = ONESWEEP_RADIX;  // a whole row keeps the status words aligned
  size_t status_len = (size_t)job->pass_count * tile_count * ONESWEEP_RADIX;
  size_t zeroed_len = hist_len + counters_len + status_len;
  GL_TRY(reserve(&g_work, (starts_len + zeroed_len) * sizeof(unsigned int), "the tile status"));
  unsigned int *digit_start = (unsigned int *)g_work.ptr;
  unsigned int *hist = digit_start + starts_len;
  unsigned int *counters = hist + hist_len;
  unsigned int *status = counters + counters_len;
  LAB_CHECK(cudaMemsetAsync(hist, 0, zeroed_len * sizeof(unsigned int)));

  if (g_sm_count == 0) {
    int device = 0;
    LAB_CHECK(cudaGetDevice(&device));
    LAB_CHECK(cudaDeviceGetAttribute(&g_sm_count, cudaDevAttrMultiProcessorCount, device));
  }
  unsigned int hist_blocks = BLOCKS_FOR(n, (size_t)BLOCK * 16);
  if (hist_blocks > (unsigned int)g_sm_count * 4) hist_blocks = (unsigned int)g_sm_count * 4;
  onesweep_histogram_kernel<<<hist_blocks, BLOCK>>>(job->keys_from[0], n, job->begin_bit,
                                                    job->end_bit, job->pass_count, hist);
  LAB_CHECK_LAUNCH();
  onesweep_offsets_kernel<<<job->pass_count, ONESWEEP_RADIX>>>(hist, digit_start);
  LAB_CHECK_LAUNCH();

  size_t shared_bytes = (job->with_values ? 2 : 1) * ONESWEEP_TILE * sizeof(uint32_t);
  for (int p = 0; p < job->pass_count; ++p) {
    int shift = job->begin_bit + 8 * p;
    int bits = job->end_bit - shift < 8 ? job->end_bit - shift : 8;
    onesweep_pass_kernel<<<tile_count, BLOCK, shared_bytes>>>(
        job->keys_from[p], job->keys_to[p], job->values_from[p], job->values_to[p], n, shift,
        bits, digit_start + p * ONESWEEP_RADIX, status + (size_t)p * tile_count * ONESWEEP_RADIX,
        counters + p);
    LAB_CHECK_LAUNCH();
  }
  return GL_OK;
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

// int32: flipping the sign bit puts negatives (now 0x0...) below non-negatives (now 0x8...).
__global__ void flip_i32_kernel(const int32_t *keys, uint32_t *bits, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) bits[i] = (uint32_t)keys[i] ^ 0x80000000u;
}

__global__ void unflip_i32_kernel(const uint32_t *bits, int32_t *keys, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = (int32_t)(bits[i] ^ 0x80000000u);
}

// float: a negative float's bits grow as the number falls, so negatives get every bit flipped;
// non-negatives get only the sign bit set, which lifts them above all negatives.
__global__ void flip_f32_kernel(const float *keys, uint32_t *bits, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    uint32_t b = __float_as_uint(keys[i]);
    bits[i] = b ^ ((b & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u);
  }
}

__global__ void unflip_f32_kernel(const uint32_t *bits, float *keys, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    uint32_t b = bits[i];
    keys[i] = __uint_as_float(b ^ ((b & 0x80000000u) ? 0x80000000u : 0xFFFFFFFFu));
  }
}

// Flip into the output, sort the output in place, flip back.
gl_status radix_sort_keys_i32(radix_sort_step step, const int32_t *d_keys_in, int32_t *d_keys_out,
                              size_t n) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_keys_i32", step, d_keys_in, d_keys_out, NULL, NULL, 0, n,
                    NULL));
  if (n == 0) return GL_OK;
  uint32_t *bits = (uint32_t *)d_keys_out;
  unsigned int blocks = BLOCKS_FOR(n, BLOCK);
  flip_i32_kernel<<<blocks, BLOCK>>>(d_keys_in, bits, n);
  LAB_CHECK_LAUNCH();
  GL_TRY(run_job(&job, bits, bits, NULL, NULL));
  unflip_i32_kernel<<<blocks, BLOCK>>>(bits, d_keys_out, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status radix_sort_keys_f32(radix_sort_step step, const float *d_keys_in, float *d_keys_out,
                              size_t n) {
  sort_job job;
  GL_TRY(check_call(&job, "radix_sort_keys_f32", step, d_keys_in, d_keys_out, NULL, NULL, 0, n,
                    NULL));
  if (n == 0) return GL_OK;
  uint32_t *bits = (uint32_t *)d_keys_out;
  unsigned int blocks = BLOCKS_FOR(n, BLOCK);
  flip_f32_kernel<<<blocks, BLOCK>>>(d_keys_in, bits, n);
  LAB_CHECK_LAUNCH();
  GL_TRY(run_job(&job, bits, bits, NULL, NULL));
  unflip_f32_kernel<<<blocks, BLOCK>>>(bits, d_keys_out, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}
