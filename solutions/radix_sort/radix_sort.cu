// The radix_sort lab: your kernels. LSD radix sort of uint32 keys and key-value pairs, from
// one-bit split passes to Onesweep's 8-bit digits with decoupled look-back.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/radix_sort/radix_sort.h         the API the tests call
//   labs/radix_sort/radix_sort_steps.h   what each step below must define, and what it is handed
//   labs/radix_sort/radix_sort_given.cu  argument checks, scratch memory, the dispatch to your steps
// Steps 2 and 3 call scan_exclusive() from your scan lab (labs/scan/scan.cu, also yours): a bug
// in your scan shows up here too.
//
// The handout, labs/radix_sort/README.md, explains each step. Do them in order, and run a step's
// tests as soon as it is written (here step 3):
//   ctest --test-dir build/student -L radix_sort -R 'RadixSortStep3\.' --output-on-failure
// Until you write a step, its function returns "not implemented" and launches nothing.
//
//   step 1 (the CPU reference) is given: labs/radix_sort/radix_sort_reference.c
//   step 2  2-split      radix_step2
//   step 3  3-digits     radix_step3
//   step 4  4-onesweep   radix_step4
//   step 5  5-onesweep-tuned  radix_step5 (a bonus: step 4 as fast as CUB)
//   then    extension    radix_extension_i32, radix_extension_f32: int32 and float keys
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "radix_sort_steps.h"
#include "scan.h"  // scan_exclusive, from your scan lab

// =============================================================================================
// Step 2: one bit per pass, with your scan
//
// For each pass p (bit job->begin_bit + p), from job->keys_from[p] to job->keys_to[p] (and the
// values, when job->with_values):
//   1. a kernel writes e[i] = 1 where the bit of key i is 0 (a "false" key), else 0;
//   2. scan_exclusive(e, f, n) from your scan lab gives f[i] = the falses before i (it may scan
//      in place);
//   3. a kernel moves key i to f[i] if it is false, else to i - f[i] + total_false, where
//      total_false = f[n - 1] + e[n - 1].
// The flags need n ints of scratch: radix_scratch(n * sizeof(int), ...).
// =============================================================================================

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

gl_status radix_step2(const sort_job *job) {
  size_t n = job->n;
  void *scratch;
  GL_TRY(radix_scratch(n * sizeof(int), "the split flags", &scratch));
  int *flags = (int *)scratch;
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

// =============================================================================================
// Step 3: k-bit digits, tiles, and a local sort in shared memory
//
// job->digit_bits is 4 or 8. For each pass, with the keys cut into tiles of a few thousand (one
// block each):
//   1. a kernel counts each tile's digits into table[digit * tile_count + tile];
//   2. scan_exclusive over the whole table: each entry becomes the output position of that
//      tile's first key with that digit (digit-major order puts all smaller digits first);
//   3. a kernel sorts its tile by the digit in shared memory (digit_bits 1-bit splits, each
//      with block_exclusive_sum), finds where each digit's run starts in the sorted tile, and
//      writes key i of the sorted tile to table[digit][tile] + (i - run start).
// The table is the step's scratch (radix_scratch). The last pass may have fewer bits than
// digit_bits (bit ranges such as [0, 12)).
// =============================================================================================

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

gl_status radix_step3(const sort_job *job) {
  size_t n = job->n;
  unsigned int tile_count = BLOCKS_FOR(n, DIGITS_TILE);
  size_t table_len = ((size_t)1 << job->digit_bits) * tile_count;
  void *scratch;
  GL_TRY(radix_scratch(table_len * sizeof(int), "the digit table", &scratch));
  int *table = (int *)scratch;
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

// =============================================================================================
// Step 4: Onesweep - one histogram, one kernel per pass
//
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
// Status words and tile counters live in the step's scratch (radix_scratch) and must start at
// zero in every call (cudaMemsetAsync).
// =============================================================================================

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

gl_status radix_step4(const sort_job *job) {
  size_t n = job->n;
  unsigned int tile_count = BLOCKS_FOR(n, ONESWEEP_TILE);
  // Work layout (uint32 words): digit starts, then what must start at zero: the histogram,
  // one tile counter per pass, the tile status words of every pass.
  size_t starts_len = ONESWEEP_MAX_PASSES * ONESWEEP_RADIX;
  size_t hist_len = ONESWEEP_MAX_PASSES * ONESWEEP_RADIX;
  size_t counters_len = ONESWEEP_RADIX;  // a whole row keeps the status words aligned
  size_t status_len = (size_t)job->pass_count * tile_count * ONESWEEP_RADIX;
  size_t zeroed_len = hist_len + counters_len + status_len;
  void *scratch;
  GL_TRY(radix_scratch((starts_len + zeroed_len) * sizeof(unsigned int), "the tile status",
                       &scratch));
  unsigned int *digit_start = (unsigned int *)scratch;
  unsigned int *hist = digit_start + starts_len;
  unsigned int *counters = hist + hist_len;
  unsigned int *status = counters + counters_len;
  LAB_CHECK(cudaMemsetAsync(hist, 0, zeroed_len * sizeof(unsigned int)));

  int sm_count;
  GL_TRY(radix_sm_count(&sm_count));
  unsigned int hist_blocks = BLOCKS_FOR(n, (size_t)BLOCK * 16);
  if (hist_blocks > (unsigned int)sm_count * 4) hist_blocks = (unsigned int)sm_count * 4;
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

// =============================================================================================
// Step 5: Onesweep tuned - step 4 at the speed of memory
//
// Step 4's algorithm, arranged the way CUB's own sort arranges it (Adinets and Merrill 2022).
// Up front, one kernel counts every pass's digits with 16-byte loads; the last of its blocks to
// finish (it draws the last ticket from a counter) scans the counts into digit starts and clears
// them for the next call. Then one kernel per pass, each block a tile of threads * items keys
// (about 7,000), which:
//   1. takes its tile number from a counter and loads its keys warp-striped (round j, lane l of
//      warp w holds key w * 32 * items + 32 * j + l of the tile), the values too, at once, so
//      that their loads overlap the ranking. The last tile pads with all-ones keys: the largest
//      digit, and later than every real key, so they sort to the end of the tile, unwritten;
//   2. counts its digits per warp (shared atomicAdd) before ranking anything, turns the counts
//      into each warp's first slot per digit in the sorted tile, and publishes the tile's counts
//      at once, so that later tiles never wait for this one's ranking (early counts);
//   3. ranks each key: the lanes with its digit are found by one ballot per digit bit (pairs)
//      or by each lane setting its bit in a shared word per digit (keys alone: fewer
//      instructions where the kernel is short of them), and the highest of them adds the group
//      to the warp's slot counter. A rank is now the key's slot in the
//      sorted tile: key and value go straight to shared memory, and no rank is kept;
//   4. looks back over earlier tiles, several status words per read, and publishes its prefix;
//   5. writes the sorted tile out: slot i, digit d, goes to d's start in the output + earlier
//      tiles' keys of d + (i - d's first slot), so consecutive threads write consecutive
//      addresses of one digit's run.
// Status words are 64 bits: the launch's number (its epoch) over the flags and the count. A word
// stamped by another launch reads as empty, so no call clears them; nor the counters, whose
// values the host keeps count of. All of it lives in radix_kept_scratch, zeroed once when new:
// a sort is 5 launches and no memset.
//
// Pitfalls: ranking in any order but the input's (the pass kernel loads 4 bytes per lane: with
// 16-byte loads a lane would hold four neighbours and rank them after other lanes' keys);
// writing the padding slots out (past the end of the output); a ballot in a branch some lanes
// skip; the epoch checked in one read and the count taken from another; an epoch incremented in
// the launch's arguments (the CPU backend evaluates them once per thread); 16-byte loads from
// an array that does not start on a 16-byte boundary.
// =============================================================================================

// The knobs (a benchmark may build other values with -D). The pass kernel needs a thread per
// digit: RADIX5_THREADS is a multiple of 32, 256 or more.
#ifndef RADIX5_THREADS
#define RADIX5_THREADS 384
#endif
#ifndef RADIX5_KEY_ITEMS
#define RADIX5_KEY_ITEMS 20  // keys per thread when sorting keys alone
#endif
#ifndef RADIX5_PAIR_ITEMS
#define RADIX5_PAIR_ITEMS 16  // keys per thread when sorting pairs: values take registers too
#endif
// How a lane finds the lanes with its digit: 0 ballots, 1 __match_any_sync, 2 atomicOr into a
// shared word per digit; and the status words a look-back reads at once. Each kind of sort has
// its own, the faster on an H100: keys alone with atomicOr and 2 words, pairs (whose values
// take registers) with ballots and 1 word. Compare them on another GPU with -D and labbench.
#ifndef RADIX5_KEY_RANK
#define RADIX5_KEY_RANK 2
#endif
#ifndef RADIX5_PAIR_RANK
#define RADIX5_PAIR_RANK 0
#endif
#ifndef RADIX5_KEY_LOOKBACK
#define RADIX5_KEY_LOOKBACK 2
#endif
#ifndef RADIX5_PAIR_LOOKBACK
#define RADIX5_PAIR_LOOKBACK 1
#endif
// Blocks per SM the pass kernel's registers must leave room for (__launch_bounds__): 2 blocks
// of 384 threads allow 80 registers a thread, and the compiler might otherwise take 88.
#ifndef RADIX5_KEY_MIN_BLOCKS
#define RADIX5_KEY_MIN_BLOCKS 2
#endif
#ifndef RADIX5_PAIR_MIN_BLOCKS
#define RADIX5_PAIR_MIN_BLOCKS 2
#endif

#define RADIX5_WARPS (RADIX5_THREADS / 32)
static_assert(RADIX5_THREADS % 32 == 0 && RADIX5_THREADS >= 256 && RADIX5_THREADS <= 1024,
              "the pass kernel needs whole warps and a thread per digit");
#define RADIX5_RADIX 256
#define RADIX5_MAX_PASSES 4

// A status word: epoch (bits 63-32), flags (31-30), count (29-0).
#define RADIX5_AGGREGATE (1ull << 30)  // the count of this tile alone
#define RADIX5_PREFIX (2ull << 30)     // the count of this tile and every earlier one
#define RADIX5_COUNT 0x3FFFFFFFu

// hist[p * 256 + d] += keys with digit d in pass p; the last block scans hist into digit_start
// and zeroes it. Keys [0, head) and the tail are read one by one, the rest as uint4.
__global__ void __launch_bounds__(BLOCK)
    radix5_histogram_kernel(const uint32_t *keys, unsigned n, unsigned head, int begin_bit,
                            int end_bit, int pass_count, unsigned *hist, unsigned *digit_start,
                            unsigned *ticket, unsigned ticket_base) {
  __shared__ unsigned s_hist[RADIX5_MAX_PASSES * RADIX5_RADIX];
  __shared__ int s_warp_sums[WARPS];
  __shared__ int s_last;
  const int t = threadIdx.x;
  for (int i = t; i < RADIX5_MAX_PASSES * RADIX5_RADIX; i += BLOCK) s_hist[i] = 0;
  int shift[RADIX5_MAX_PASSES];
  unsigned mask[RADIX5_MAX_PASSES];
  #pragma unroll
  for (int p = 0; p < RADIX5_MAX_PASSES; ++p) {
    shift[p] = p < pass_count ? begin_bit + 8 * p : 0;
    int bits = end_bit - shift[p] < 8 ? end_bit - shift[p] : 8;
    mask[p] = (1u << bits) - 1u;
  }
  __syncthreads();

  const unsigned quads = (n - head) / 4;
  const uint4 *body = (const uint4 *)(keys + head);
  const unsigned stride = gridDim.x * BLOCK;
  unsigned q = blockIdx.x * BLOCK + t;
  // Four uint4 loads in flight per thread before any is counted.
  for (; q + 3 * stride < quads; q += 4 * stride) {
    uint4 v[4];
    #pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = body[q + u * stride];
    #pragma unroll
    for (int u = 0; u < 4; ++u) {
      #pragma unroll
      for (int p = 0; p < RADIX5_MAX_PASSES; ++p) {
        if (p >= pass_count) break;
        unsigned *h = s_hist + p * RADIX5_RADIX;
        atomicAdd(&h[(v[u].x >> shift[p]) & mask[p]], 1u);
        atomicAdd(&h[(v[u].y >> shift[p]) & mask[p]], 1u);
        atomicAdd(&h[(v[u].z >> shift[p]) & mask[p]], 1u);
        atomicAdd(&h[(v[u].w >> shift[p]) & mask[p]], 1u);
      }
    }
  }
  for (; q < quads; q += stride) {
    uint4 v = body[q];
    #pragma unroll
    for (int p = 0; p < RADIX5_MAX_PASSES; ++p) {
      if (p >= pass_count) break;
      unsigned *h = s_hist + p * RADIX5_RADIX;
      atomicAdd(&h[(v.x >> shift[p]) & mask[p]], 1u);
      atomicAdd(&h[(v.y >> shift[p]) & mask[p]], 1u);
      atomicAdd(&h[(v.z >> shift[p]) & mask[p]], 1u);
      atomicAdd(&h[(v.w >> shift[p]) & mask[p]], 1u);
    }
  }
  // The unaligned head and the tail: fewer than 8 keys, taken by block 0.
  if (blockIdx.x == 0) {
    unsigned loose = head + (n - head) % 4;
    if ((unsigned)t < loose) {
      uint32_t key = keys[t < (int)head ? t : n - (loose - t)];
      for (int p = 0; p < pass_count; ++p) {
        atomicAdd(&s_hist[p * RADIX5_RADIX + ((key >> shift[p]) & mask[p])], 1u);
      }
    }
  }
  __syncthreads();
  for (int i = t; i < pass_count * RADIX5_RADIX; i += BLOCK) {
    if (s_hist[i] != 0) atomicAdd(&hist[i], s_hist[i]);
  }
  // The last block to finish sees every block's counts: each made them visible before its ticket.
  __threadfence();
  __syncthreads();
  if (t == 0) s_last = atomicAdd(ticket, 1u) - ticket_base == gridDim.x - 1;
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  for (int p = 0; p < pass_count; ++p) {
    unsigned count = __ldcg(&hist[p * RADIX5_RADIX + t]);  // BLOCK == 256: thread t, digit t
    int total;
    digit_start[p * RADIX5_RADIX + t] =
        (unsigned)block_exclusive_sum((int)count, &total, s_warp_sums);
    hist[p * RADIX5_RADIX + t] = 0;  // ready for the next call
  }
}

// The lanes of the warp whose digit is d (every lane of the warp calls it).
template <int RANK>
__device__ __forceinline__ unsigned radix5_peers(unsigned d, unsigned *s_peers) {
  if (RANK == 1) return __match_any_sync(FULL_MASK, d);
  if (RANK == 2) {
    atomicOr(&s_peers[d], 1u << (threadIdx.x & 31));
    __syncwarp();
    return s_peers[d];  // the caller's leader clears it once every lane has read it
  }
  unsigned peers = FULL_MASK;
  #pragma unroll
  for (int b = 0; b < 8; ++b) {  // 8 ballots whatever the pass's bits: missing bits are 0
    unsigned bit = (d >> b) & 1u;
    unsigned set = __ballot_sync(FULL_MASK, bit);
    peers &= bit ? set : ~set;
  }
  return peers;
}

// Keys of digit `digit` in the tiles before `tile`, from their status words: the nearest first,
// WORDS words per read, until a word that carries a prefix.
template <int WORDS>
__device__ unsigned radix5_look_back(const unsigned long long *status, unsigned tile, int digit,
                                     unsigned epoch) {
  const volatile unsigned long long *words = status + digit;  // tile k's word: words[k * 256]
  unsigned sum = 0;
  int k = (int)tile - 1;  // the nearest tile not added yet
  for (;;) {
    unsigned long long word[WORDS];
    #pragma unroll
    for (int u = 0; u < WORDS; ++u) {
      word[u] = k - u >= 0 ? words[(size_t)(k - u) * RADIX5_RADIX] : 0ull;
    }
    #pragma unroll
    for (int u = 0; u < WORDS; ++u) {
      if ((unsigned)(word[u] >> 32) != epoch) break;  // not published in this launch: read again
      sum += (unsigned)word[u] & RADIX5_COUNT;
      if (word[u] & RADIX5_PREFIX) return sum;  // tile 0 always carries one
      --k;
    }
  }
}

// One pass over one tile of RADIX5_THREADS * ITEMS keys (the comment above the step says how).
// Dynamic shared memory: the sorted tile's keys, then (pairs) its values.
template <int ITEMS, bool WITH_VALUES>
__global__ void
__launch_bounds__(RADIX5_THREADS, WITH_VALUES ? RADIX5_PAIR_MIN_BLOCKS : RADIX5_KEY_MIN_BLOCKS)
    radix5_pass_kernel(const uint32_t *keys, uint32_t *keys_to, const uint32_t *values,
                       uint32_t *values_to, unsigned n, int shift, unsigned mask,
                       const unsigned *digit_start, unsigned long long *status,
                       unsigned *tile_counter, unsigned tile_base, unsigned epoch) {
  const unsigned TILE = RADIX5_THREADS * ITEMS;
  constexpr int RANK = WITH_VALUES ? RADIX5_PAIR_RANK : RADIX5_KEY_RANK;
  constexpr int PEER_WARPS = RANK == 2 ? RADIX5_WARPS : 1;
  extern __shared__ __align__(16) uint32_t s_sorted[];
  // Per warp and digit: its keys of the digit, then the slot of its next one in the sorted tile.
  __shared__ unsigned s_slot[RADIX5_WARPS][RADIX5_RADIX];
  __shared__ unsigned s_peers[PEER_WARPS][RADIX5_RADIX];  // atomicOr ranking only
  __shared__ unsigned s_out[RADIX5_RADIX];  // output index of sorted slot i of digit d, minus i
  __shared__ unsigned s_scan[8];            // the digit scan's warp sums (256 digits, 8 warps)
  __shared__ unsigned s_tile;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;

  if (t == 0) s_tile = atomicAdd(tile_counter, 1u) - tile_base;
  for (int i = t; i < RADIX5_WARPS * RADIX5_RADIX; i += RADIX5_THREADS) {
    s_slot[i / RADIX5_RADIX][i % RADIX5_RADIX] = 0;
    if (RANK == 2) s_peers[i / RADIX5_RADIX][i % RADIX5_RADIX] = 0;
  }
  __syncthreads();
  const unsigned tile = s_tile;
  const unsigned tile_start = tile * TILE;
  const unsigned tile_n = n - tile_start < TILE ? n - tile_start : TILE;
  const unsigned first = tile_start + warp * 32 * ITEMS + lane;  // this lane's key of round 0
  uint32_t key[ITEMS], value[ITEMS];
  if (tile_n == TILE) {
    #pragma unroll
    for (int j = 0; j < ITEMS; ++j) key[j] = keys[first + 32 * j];
    #pragma unroll
    for (int j = 0; j < ITEMS; ++j) value[j] = WITH_VALUES ? values[first + 32 * j] : 0u;
  } else {
    #pragma unroll
    for (int j = 0; j < ITEMS; ++j) key[j] = first + 32 * j < n ? keys[first + 32 * j] : ~0u;
    #pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      value[j] = WITH_VALUES && first + 32 * j < n ? values[first + 32 * j] : 0u;
    }
  }

  // Early counts: the warp's keys of each digit, padding included (it is digit `mask`).
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) atomicAdd(&s_slot[warp][(key[j] >> shift) & mask], 1u);
  __syncthreads();

  // Thread t < 256 speaks for digit t: the warps' counts become their first slots...
  unsigned count = 0, tile_first = 0, start = 0;
  if (t < RADIX5_RADIX) {
    start = digit_start[t];  // needed at the end: loaded now, its latency hidden by the ranking
    #pragma unroll
    for (int w = 0; w < RADIX5_WARPS; ++w) {
      unsigned c = s_slot[w][t];
      s_slot[w][t] = count;
      count += c;
    }
    // ...and the tile's count is published before any ranking. (Padding included: only the
    // last tile has any, and no tile reads the last tile's words.)
    ((volatile unsigned long long *)status)[(size_t)tile * RADIX5_RADIX + t] =
        (unsigned long long)epoch << 32 | (tile == 0 ? RADIX5_PREFIX : RADIX5_AGGREGATE) | count;
    // Where digit t's run starts in the sorted tile: an exclusive scan over the digits.
    unsigned inclusive = count;
    #pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      unsigned other = __shfl_up_sync(FULL_MASK, inclusive, d);
      if (lane >= d) inclusive += other;
    }
    if (lane == 31) s_scan[warp] = inclusive;
    tile_first = inclusive - count;
  }
  __syncthreads();
  if (t < RADIX5_RADIX) {
    for (int w = 0; w < warp; ++w) tile_first += s_scan[w];
    #pragma unroll
    for (int w = 0; w < RADIX5_WARPS; ++w) s_slot[w][t] += tile_first;
  }
  __syncthreads();

  // Rank in input order, round by round; each key goes straight to its slot.
  const unsigned lanes_below = (1u << lane) - 1u;
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    unsigned d = (key[j] >> shift) & mask;
    unsigned peers = radix5_peers<RANK>(d, s_peers[RANK == 2 ? warp : 0]);
    int leader = 31 - __clz(peers);
    unsigned slot = 0;
    if (lane == leader) slot = atomicAdd(&s_slot[warp][d], (unsigned)__popc(peers));
    slot = __shfl_sync(FULL_MASK, slot, leader) + __popc(peers & lanes_below);
    if (RANK == 2) {
      if (lane == leader) s_peers[warp][d] = 0;  // every lane has read it (the shuffle waited)
      __syncwarp();
    }
    s_sorted[slot] = key[j];
    if (WITH_VALUES) s_sorted[TILE + slot] = value[j];
  }

  // Look back, publish the prefix, and find where each digit's run goes in the output.
  if (t < RADIX5_RADIX) {
    unsigned earlier = 0;
    if (tile > 0) {
      earlier = radix5_look_back<WITH_VALUES ? RADIX5_PAIR_LOOKBACK : RADIX5_KEY_LOOKBACK>(
          status, tile, t, epoch);
      ((volatile unsigned long long *)status)[(size_t)tile * RADIX5_RADIX + t] =
          (unsigned long long)epoch << 32 | RADIX5_PREFIX | (earlier + count);
    }
    // Unsigned arithmetic wraps, but the sum lands in [0, n) for every slot of the run.
    s_out[t] = start + earlier - tile_first;
  }
  __syncthreads();

  // Slot i of the sorted tile to the output; the padding (the last slots) stays behind.
  #pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    unsigned i = j * RADIX5_THREADS + t;
    if (i < tile_n) {
      uint32_t k = s_sorted[i];
      unsigned to = s_out[(k >> shift) & mask] + i;
      keys_to[to] = k;
      if (WITH_VALUES) values_to[to] = s_sorted[TILE + i];
    }
  }
}

// Host state of the kept scratch: how many tile numbers and tickets the counters have handed
// out, the last launch's epoch, and the bytes zeroed (all of it, when new).
static unsigned g_radix5_tiles, g_radix5_tickets, g_radix5_epoch;
static size_t g_radix5_bytes;

template <int ITEMS, bool WITH_VALUES>
static gl_status radix5_sort(const sort_job *job) {
  const unsigned n = (unsigned)job->n;  // RADIX_MAX_N < 2^30
  const unsigned tile = RADIX5_THREADS * ITEMS;
  const unsigned tile_count = BLOCKS_FOR(n, tile);
  // Kept scratch (32-bit words): 2 counters (padded to 256), hist and digit starts of every
  // pass, then the 64-bit status words. Its layout never depends on n, so nothing moves when a
  // call needs less than the last.
  const size_t head_words = RADIX5_RADIX + 2 * RADIX5_MAX_PASSES * RADIX5_RADIX;
  const size_t bytes = head_words * 4 + (size_t)tile_count * RADIX5_RADIX * 8;
  void *scratch;
  int fresh;
  GL_TRY(radix_kept_scratch(bytes, "the step 5 tables", &scratch, &fresh));
  if (fresh) g_radix5_bytes = 0;
  if (bytes > g_radix5_bytes) g_radix5_bytes = bytes;
  // Zero it when new, and before epochs would wrap (an old word could then read as current).
  if (fresh || g_radix5_epoch > 0xFFFFFFF0u) {
    LAB_CHECK(cudaMemsetAsync(scratch, 0, g_radix5_bytes));
    g_radix5_tiles = g_radix5_tickets = g_radix5_epoch = 0;
  }
  unsigned *counters = (unsigned *)scratch;  // [0] tickets, [1] tile numbers
  unsigned *hist = counters + RADIX5_RADIX;
  unsigned *digit_start = hist + RADIX5_MAX_PASSES * RADIX5_RADIX;
  unsigned long long *status =
      (unsigned long long *)(digit_start + RADIX5_MAX_PASSES * RADIX5_RADIX);

  int sm_count;
  GL_TRY(radix_sm_count(&sm_count));
  const uint32_t *keys = job->keys_from[0];
  // The keys before the first 16-byte boundary (a caller may pass d + 1).
  unsigned head = (unsigned)((16 - ((uintptr_t)keys & 15)) & 15) / 4;
  if (head > n) head = n;
  unsigned hist_blocks = BLOCKS_FOR((n - head) / 4, BLOCK * 4);
  if (hist_blocks > (unsigned)sm_count * 8) hist_blocks = (unsigned)sm_count * 8;
  if (hist_blocks == 0) hist_blocks = 1;
  radix5_histogram_kernel<<<hist_blocks, BLOCK>>>(keys, n, head, job->begin_bit, job->end_bit,
                                                  job->pass_count, hist, digit_start, counters,
                                                  g_radix5_tickets);
  LAB_CHECK_LAUNCH();
  g_radix5_tickets += hist_blocks;

  const size_t shared_bytes = (WITH_VALUES ? 2 : 1) * (size_t)tile * sizeof(uint32_t);
  // Above 48 KiB of dynamic shared memory a kernel must ask for it.
  LAB_CHECK(cudaFuncSetAttribute(radix5_pass_kernel<ITEMS, WITH_VALUES>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes));
  for (int p = 0; p < job->pass_count; ++p) {
    int shift = job->begin_bit + 8 * p;
    int bits = job->end_bit - shift < 8 ? job->end_bit - shift : 8;
    unsigned epoch = ++g_radix5_epoch;
    radix5_pass_kernel<ITEMS, WITH_VALUES><<<tile_count, RADIX5_THREADS, shared_bytes>>>(
        job->keys_from[p], job->keys_to[p], job->values_from[p], job->values_to[p], n, shift,
        (1u << bits) - 1u, digit_start + p * RADIX5_RADIX, status, counters + 1, g_radix5_tiles,
        epoch);
    LAB_CHECK_LAUNCH();
    g_radix5_tiles += tile_count;
  }
  return GL_OK;
}

gl_status radix_step5(const sort_job *job) {
  if (job->with_values) return radix5_sort<RADIX5_PAIR_ITEMS, true>(job);
  return radix5_sort<RADIX5_KEY_ITEMS, false>(job);
}

// =============================================================================================
// Extension: signed and float keys
//
// Map each key to a uint32 whose unsigned order is the key's order, write the mapped keys to
// the output, sort the output in place with radix_run_job(job, bits, bits, NULL, NULL), and map
// them back. int32: think of where the sign bit puts negative numbers. float: the same, but a
// negative float's bits grow as the number falls.
// =============================================================================================

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
gl_status radix_extension_i32(sort_job *job, const int32_t *keys_in, int32_t *keys_out) {
  size_t n = job->n;
  uint32_t *bits = (uint32_t *)keys_out;
  unsigned int blocks = BLOCKS_FOR(n, BLOCK);
  flip_i32_kernel<<<blocks, BLOCK>>>(keys_in, bits, n);
  LAB_CHECK_LAUNCH();
  GL_TRY(radix_run_job(job, bits, bits, NULL, NULL));
  unflip_i32_kernel<<<blocks, BLOCK>>>(bits, keys_out, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status radix_extension_f32(sort_job *job, const float *keys_in, float *keys_out) {
  size_t n = job->n;
  uint32_t *bits = (uint32_t *)keys_out;
  unsigned int blocks = BLOCKS_FOR(n, BLOCK);
  flip_f32_kernel<<<blocks, BLOCK>>>(keys_in, bits, n);
  LAB_CHECK_LAUNCH();
  GL_TRY(radix_run_job(job, bits, bits, NULL, NULL));
  unflip_f32_kernel<<<blocks, BLOCK>>>(bits, keys_out, n);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}
