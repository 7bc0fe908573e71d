/* The scan lab, reference solution: exclusive and inclusive prefix sums of int.
 *
 * The first part of this file (argument checks, the scratch buffer, the dispatch) is the host
 * plumbing that labs/scan/scan.cu gives students unchanged; the steps below it are the
 * exercises. All sums are computed in unsigned int, so they wrap around like the CPU reference
 * instead of hitting signed overflow, which is undefined behaviour in C and CUDA C. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "gpulabs/check.h"
#include "scan.h"

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu
#define MAX_BLOCK_SIZE 1024

/* ------------------------------------------------------------------------------------------ */
/* Given plumbing                                                                             */
/* ------------------------------------------------------------------------------------------ */

const char *scan_step_name(scan_step step) {
  switch (step) {
    case SCAN_STEP_NAIVE: return "2-naive";
    case SCAN_STEP_BLELLOCH_GLOBAL: return "3-blelloch-global";
    case SCAN_STEP_BLELLOCH_SHARED: return "4-blelloch-shared";
    case SCAN_STEP_BLELLOCH_PADDED: return "5-blelloch-padded";
    case SCAN_STEP_WARP_SHUFFLE: return "6-warp-shuffle";
    case SCAN_STEP_SINGLE_PASS: return "7-single-pass";
  }
  return "unknown";
}

/* The defaults are the fastest block sizes of each step at n = 2^26 on an H100 (labbench). */
int scan_default_block_size(scan_step step) {
  switch (step) {
    case SCAN_STEP_NAIVE: return 256;
    case SCAN_STEP_BLELLOCH_GLOBAL: return 256;
    case SCAN_STEP_BLELLOCH_SHARED: return 128;
    case SCAN_STEP_BLELLOCH_PADDED: return 128;
    case SCAN_STEP_WARP_SHUFFLE: return 256;
    case SCAN_STEP_SINGLE_PASS: return 1024;
  }
  return 0;
}

/* Elements one block scans in steps 4-7 (its "tile"). */
#define SINGLE_PASS_VECTORS 4 /* int4 loads per thread in step 7 */
#define SINGLE_PASS_ITEMS (4 * SINGLE_PASS_VECTORS)

static size_t tile_elements(scan_step step, int block_size) {
  switch (step) {
    case SCAN_STEP_BLELLOCH_SHARED:
    case SCAN_STEP_BLELLOCH_PADDED: return 2 * (size_t)block_size; /* two elements a thread */
    case SCAN_STEP_WARP_SHUFFLE: return (size_t)block_size;        /* one element a thread */
    case SCAN_STEP_SINGLE_PASS: return SINGLE_PASS_ITEMS * (size_t)block_size;
    default: return 0;
  }
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* The scratch buffer, kept between calls: cudaMalloc and cudaFree cost more than a whole scan of
 * a million elements (and cudaFree waits for the GPU), so a fast scan must not call them each
 * time. It only grows; scan_release_scratch() frees it. */
static void *scratch = NULL;
static size_t scratch_bytes = 0;

static gl_status reserve_scratch(size_t bytes, void **out) {
  if (bytes > scratch_bytes) {
    size_t rounded = (bytes + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1); /* whole MiB */
    if (scratch != NULL) LAB_CHECK(cudaFree(scratch));
    scratch = NULL;
    scratch_bytes = 0;
    cudaError_t err = cudaMalloc(&scratch, rounded);
    if (err != cudaSuccess) {
      cudaGetLastError(); /* an out-of-memory error is not sticky: leave no trace of it */
      return gl_fail(GL_ERR_NO_MEMORY, "scan: cannot allocate %zu bytes of scratch memory: %s",
                     rounded, cudaGetErrorString(err));
    }
    scratch_bytes = rounded;
  }
  *out = scratch;
  return GL_OK;
}

void scan_release_scratch(void) {
  if (scratch != NULL) cudaFree(scratch);
  scratch = NULL;
  scratch_bytes = 0;
}

static int is_valid_block_size(int block_size) {
  return block_size >= 32 && block_size <= MAX_BLOCK_SIZE && (block_size & (block_size - 1)) == 0;
}

/* The exercises, one per step (below). */
static gl_status run_naive(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size);
static gl_status run_blelloch_global(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                     int block_size);
static gl_status run_hierarchical(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                                  size_t n, int block_size);
static gl_status run_single_pass(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                 int block_size);

static gl_status dispatch(const char *caller, scan_step step, scan_kind kind, const int *d_in,
                          int *d_out, size_t n, int block_size) {
  if (step < SCAN_FIRST_STEP || step > SCAN_LAST_STEP) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d is not a step of the ladder (%d..%d)",
                   caller, (int)step, SCAN_FIRST_STEP, SCAN_LAST_STEP);
  }
  if (kind != SCAN_EXCLUSIVE && kind != SCAN_INCLUSIVE) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: kind %d is neither SCAN_EXCLUSIVE (0) nor SCAN_INCLUSIVE (1)", caller,
                   (int)kind);
  }
  if (block_size != 0 && !is_valid_block_size(block_size)) {
    return gl_fail(GL_ERR_INVALID_ARGUMENT,
                   "%s: block_size %d is not 0 (the step's default) or a power of two in [32, %d]",
                   caller, block_size, MAX_BLOCK_SIZE);
  }
  if (n > SCAN_MAX_N) {
    return gl_fail(GL_ERR_SIZE, "%s: n = %zu exceeds SCAN_MAX_N = %zu", caller, n, SCAN_MAX_N);
  }
  if (n == 0) return GL_OK; /* nothing to read or write: the pointers are not needed */
  if (d_in == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_in is NULL (n = %zu)", caller, n);
  if (d_out == NULL) return gl_fail(GL_ERR_NULL_POINTER, "%s: d_out is NULL (n = %zu)", caller, n);
  if (block_size == 0) block_size = scan_default_block_size(step);

  switch (step) {
    case SCAN_STEP_NAIVE: return run_naive(kind, d_in, d_out, n, block_size);
    case SCAN_STEP_BLELLOCH_GLOBAL: return run_blelloch_global(kind, d_in, d_out, n, block_size);
    case SCAN_STEP_BLELLOCH_SHARED:
    case SCAN_STEP_BLELLOCH_PADDED:
    case SCAN_STEP_WARP_SHUFFLE: return run_hierarchical(step, kind, d_in, d_out, n, block_size);
    case SCAN_STEP_SINGLE_PASS: return run_single_pass(kind, d_in, d_out, n, block_size);
  }
  return gl_fail(GL_ERR_INVALID_ARGUMENT, "%s: step %d", caller, (int)step); /* not reached */
}

gl_status scan_run(scan_step step, scan_kind kind, const int *d_in, int *d_out, size_t n,
                   int block_size) {
  return dispatch("scan_run", step, kind, d_in, d_out, n, block_size);
}

/* The step the later labs build on: the fastest one. */
#define SCAN_EXCLUSIVE_STEP SCAN_STEP_SINGLE_PASS

gl_status scan_exclusive(const int *d_in, int *d_out, size_t n) {
  return dispatch("scan_exclusive", SCAN_EXCLUSIVE_STEP, SCAN_EXCLUSIVE, d_in, d_out, n, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Step 2: Hillis-Steele in global memory, one launch per level, double-buffered              */
/* ------------------------------------------------------------------------------------------ */

/* One level: dst[i] = x[i] + x[i - offset] (or x[i] when i < offset), where x is src, or src
 * shifted right by one with a 0 in front when `shift` is set (the first level of an exclusive
 * scan: the exclusive scan is the inclusive scan of the shifted input). */
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
naive_level_kernel(const int *src, int *dst, unsigned int n, unsigned int offset, int shift) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int value, earlier = 0;
  if (shift) {
    value = i >= 1 ? (unsigned int)src[i - 1] : 0u;
    if (i >= offset + 1) earlier = (unsigned int)src[i - offset - 1];
  } else {
    value = (unsigned int)src[i];
    if (i >= offset) earlier = (unsigned int)src[i - offset];
  }
  dst[i] = (int)(value + earlier);
}

static gl_status run_naive(scan_kind kind, const int *d_in, int *d_out, size_t n, int block_size) {
  /* Levels with offsets 1, 2, 4, ... < n; at least one launch, which for n == 1 only copies
   * (or, exclusive, writes the 0). */
  int launches = 0;
  while (((size_t)1 << launches) < n) ++launches;
  if (launches == 0) launches = 1;

  void *tmp_raw = NULL;
  GL_TRY(reserve_scratch(n * sizeof(int), &tmp_raw));
  int *tmp = (int *)tmp_raw;

  /* Levels alternate between d_out and tmp, ending in d_out. A level must never read and write
   * the same buffer (threads would read values other threads already overwrote), so when the
   * scan is in place and the first level would write d_out, the input is first copied aside. */
  const int *src = d_in;
  int first_writes_out = (launches - 1) % 2 == 0;
  if (d_in == d_out && first_writes_out) {
    LAB_CHECK(cudaMemcpyAsync(tmp, d_in, n * sizeof(int), cudaMemcpyDeviceToDevice, 0));
    src = tmp;
  }
  unsigned int grid = (unsigned int)ceil_div(n, (size_t)block_size);
  unsigned int offset = 1;
  for (int level = 0; level < launches; ++level) {
    int *dst = (launches - 1 - level) % 2 == 0 ? d_out : tmp;
    naive_level_kernel<<<grid, block_size>>>(src, dst, (unsigned int)n, offset,
                                             level == 0 && kind == SCAN_EXCLUSIVE);
    LAB_CHECK_LAUNCH();
    src = dst;
    offset <<= 1;
  }
  return GL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Step 3: Blelloch up-sweep/down-sweep in global memory, one launch per level                */
/* ------------------------------------------------------------------------------------------ */

/* The scan works in a scratch buffer of m elements, m the power of two >= n, holding the input
 * followed by zeros: the balanced tree needs a power of two, and padding with the identity
 * leaves the first n results unchanged. A level only visits the nodes whose subtree starts
 * below n (a subtree that lies wholly in the padding holds zeros and stays zero). Thread k
 * handles the k-th such node, so the active threads of a level are contiguous (no warp is
 * split between idle and busy threads as with the `k % stride == 0` form). */

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
pad_copy_kernel(const int *d_in, unsigned int *buf, unsigned int n, unsigned int m) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) buf[i] = i < n ? (unsigned int)d_in[i] : 0u;
}

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
up_sweep_kernel(unsigned int *buf, unsigned int nodes, unsigned int stride) {
  unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nodes) return;
  unsigned int right = k * stride + stride - 1;
  buf[right] += buf[right - stride / 2];
}

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
down_sweep_kernel(unsigned int *buf, unsigned int nodes, unsigned int stride) {
  unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nodes) return;
  unsigned int right = k * stride + stride - 1;
  unsigned int left = right - stride / 2;
  unsigned int left_sum = buf[left];
  buf[left] = buf[right];   /* the left child gets the parent's prefix */
  buf[right] += left_sum;   /* the right child gets the parent's prefix plus the left subtree */
}

/* Copies the exclusive result out; inclusive adds the element itself (read before the write of
 * the same index by the same thread, so in place is safe). */
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
finish_kernel(const unsigned int *buf, const int *d_in, int *d_out, unsigned int n, int inclusive) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int value = buf[i];
  if (inclusive) value += (unsigned int)d_in[i];
  d_out[i] = (int)value;
}

static gl_status run_blelloch_global(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                     int block_size) {
  size_t m = 1;
  while (m < n) m <<= 1; /* n <= 2^30, so m <= 2^30 */
  void *buf_raw = NULL;
  GL_TRY(reserve_scratch(m * sizeof(unsigned int), &buf_raw));
  unsigned int *buf = (unsigned int *)buf_raw;

  pad_copy_kernel<<<(unsigned int)ceil_div(m, block_size), block_size>>>(
      d_in, buf, (unsigned int)n, (unsigned int)m);
  LAB_CHECK_LAUNCH();
  for (size_t stride = 2; stride <= m; stride <<= 1) {
    size_t nodes = ceil_div(n, stride);
    up_sweep_kernel<<<(unsigned int)ceil_div(nodes, block_size), block_size>>>(
        buf, (unsigned int)nodes, (unsigned int)stride);
    LAB_CHECK_LAUNCH();
  }
  /* The root holds the total; the exclusive scan starts from the identity. */
  LAB_CHECK(cudaMemsetAsync(buf + (m - 1), 0, sizeof(unsigned int), 0));
  for (size_t stride = m; stride >= 2; stride >>= 1) {
    size_t nodes = ceil_div(n, stride);
    down_sweep_kernel<<<(unsigned int)ceil_div(nodes, block_size), block_size>>>(
        buf, (unsigned int)nodes, (unsigned int)stride);
    LAB_CHECK_LAUNCH();
  }
  finish_kernel<<<(unsigned int)ceil_div(n, block_size), block_size>>>(
      buf, d_in, d_out, (unsigned int)n, kind == SCAN_INCLUSIVE);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Steps 4 and 5: Blelloch per block in shared memory (5: with padding against bank           */
/* conflicts); the hierarchy across blocks is shared with step 6                              */
/* ------------------------------------------------------------------------------------------ */

/* Shared memory has 32 banks of 4 bytes. The tree's strided indices (offset * (2t + 1) - 1)
 * make the threads of a warp hit few banks; one spare word after every 32 spreads them. */
static __device__ __forceinline__ unsigned int tile_slot(unsigned int i, int padded) {
  return padded ? i + (i >> 5) : i;
}

/* One block scans a tile of 2 * blockDim.x elements: thread t loads elements t and t + B (so a
 * warp's loads are coalesced), the tree is built and swept in shared memory, the tile's total is
 * written to block_sums[blockIdx.x] (when block_sums is not NULL). */
static __device__ __forceinline__ void blelloch_tile(const int *d_in, int *d_out, unsigned int n,
                                                     int *block_sums, int inclusive, int padded) {
  extern __shared__ unsigned int tree[];
  const unsigned int t = threadIdx.x;
  const unsigned int half = blockDim.x;
  const unsigned int size = 2 * half;
  const unsigned int base = blockIdx.x * size;

  unsigned int a = base + t < n ? (unsigned int)d_in[base + t] : 0u;
  unsigned int b = base + half + t < n ? (unsigned int)d_in[base + half + t] : 0u;
  tree[tile_slot(t, padded)] = a;
  tree[tile_slot(half + t, padded)] = b;

  /* Up-sweep (reduce): after the level with `active` nodes, each node holds its subtree's sum. */
  unsigned int offset = 1;
  for (unsigned int active = half; active > 0; active >>= 1) {
    __syncthreads();
    if (t < active) {
      unsigned int left = offset * (2 * t + 1) - 1;
      unsigned int right = offset * (2 * t + 2) - 1;
      tree[tile_slot(right, padded)] += tree[tile_slot(left, padded)];
    }
    offset <<= 1;
  }
  /* Thread 0 wrote the root in the last level, so it may read it without a barrier. */
  if (t == 0) {
    if (block_sums != NULL) block_sums[blockIdx.x] = (int)tree[tile_slot(size - 1, padded)];
    tree[tile_slot(size - 1, padded)] = 0;
  }
  /* Down-sweep: each node passes its prefix to its left child, and prefix + left sum to its
   * right child. */
  for (unsigned int active = 1; active < size; active <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < active) {
      unsigned int left = offset * (2 * t + 1) - 1;
      unsigned int right = offset * (2 * t + 2) - 1;
      unsigned int left_sum = tree[tile_slot(left, padded)];
      tree[tile_slot(left, padded)] = tree[tile_slot(right, padded)];
      tree[tile_slot(right, padded)] += left_sum;
    }
  }
  __syncthreads();
  if (base + t < n) d_out[base + t] = (int)(tree[tile_slot(t, padded)] + (inclusive ? a : 0u));
  if (base + half + t < n) {
    d_out[base + half + t] = (int)(tree[tile_slot(half + t, padded)] + (inclusive ? b : 0u));
  }
}

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
blelloch_shared_kernel(const int *d_in, int *d_out, unsigned int n, int *block_sums, int inclusive) {
  blelloch_tile(d_in, d_out, n, block_sums, inclusive, 0);
}

__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
blelloch_padded_kernel(const int *d_in, int *d_out, unsigned int n, int *block_sums, int inclusive) {
  blelloch_tile(d_in, d_out, n, block_sums, inclusive, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Step 6: warp-shuffle scan in a block                                                       */
/* ------------------------------------------------------------------------------------------ */

/* Inclusive scan across the 32 lanes of a warp (Hillis-Steele on registers). Every lane must
 * call it: __shfl_up_sync names all 32 lanes. */
static __device__ __forceinline__ unsigned int warp_inclusive_scan(unsigned int value,
                                                                   unsigned int lane) {
#pragma unroll
  for (unsigned int delta = 1; delta < WARP_SIZE; delta <<= 1) {
    unsigned int below = __shfl_up_sync(FULL_MASK, value, delta);
    if (lane >= delta) value += below;
  }
  return value;
}

static __device__ __forceinline__ unsigned int warp_sum(unsigned int value) {
#pragma unroll
  for (unsigned int delta = WARP_SIZE / 2; delta > 0; delta >>= 1) {
    value += __shfl_xor_sync(FULL_MASK, value, delta);
  }
  return value;
}

/* One element a thread, a tile of blockDim.x elements: scan inside each warp, scan the warp
 * totals in warp 0, add each warp's offset. */
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
warp_shuffle_kernel(const int *d_in, int *d_out, unsigned int n, int *block_sums, int inclusive) {
  __shared__ unsigned int warp_offsets[MAX_BLOCK_SIZE / WARP_SIZE];
  const unsigned int lane = threadIdx.x % WARP_SIZE;
  const unsigned int warp = threadIdx.x / WARP_SIZE;
  const unsigned int warps = blockDim.x / WARP_SIZE;
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

  unsigned int x = i < n ? (unsigned int)d_in[i] : 0u;
  unsigned int scan = warp_inclusive_scan(x, lane);
  if (lane == WARP_SIZE - 1) warp_offsets[warp] = scan; /* the warp's total, for now */
  __syncthreads();
  if (warp == 0) {
    unsigned int total = lane < warps ? warp_offsets[lane] : 0u;
    unsigned int prefix = warp_inclusive_scan(total, lane);
    if (lane < warps) warp_offsets[lane] = prefix - total; /* each lane rewrites its own slot */
    if (lane == WARP_SIZE - 1 && block_sums != NULL) block_sums[blockIdx.x] = (int)prefix;
  }
  __syncthreads();
  if (i < n) d_out[i] = (int)(warp_offsets[warp] + scan - (inclusive ? 0u : x));
}

/* ------------------------------------------------------------------------------------------ */
/* The hierarchy of steps 4-6: scan the tiles, scan the tile totals (recursively), add back   */
/* ------------------------------------------------------------------------------------------ */

/* data[i] += offsets[tile of i], skipping tile 0 (its offset is 0). */
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
add_block_offsets_kernel(int *data, const int *offsets, unsigned int n, unsigned int tile) {
  const unsigned int which = blockIdx.x + 1;
  const unsigned int offset = (unsigned int)offsets[which];
  const unsigned int base = which * tile;
  for (unsigned int i = threadIdx.x; i < tile; i += blockDim.x) {
    if (base + i < n) data[base + i] = (int)((unsigned int)data[base + i] + offset);
  }
}

static gl_status launch_block_scan(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                                   size_t n, int block_size, int *d_block_sums) {
  unsigned int grid = (unsigned int)ceil_div(n, tile_elements(step, block_size));
  int inclusive = kind == SCAN_INCLUSIVE;
  size_t tree_words = 2 * (size_t)block_size;
  switch (step) {
    case SCAN_STEP_BLELLOCH_SHARED:
      blelloch_shared_kernel<<<grid, block_size, tree_words * sizeof(unsigned int)>>>(
          d_in, d_out, (unsigned int)n, d_block_sums, inclusive);
      break;
    case SCAN_STEP_BLELLOCH_PADDED:
      blelloch_padded_kernel<<<grid, block_size,
                               (tree_words + tree_words / 32) * sizeof(unsigned int)>>>(
          d_in, d_out, (unsigned int)n, d_block_sums, inclusive);
      break;
    case SCAN_STEP_WARP_SHUFFLE:
      warp_shuffle_kernel<<<grid, block_size>>>(d_in, d_out, (unsigned int)n, d_block_sums,
                                                inclusive);
      break;
    default:
      return gl_fail(GL_ERR_INVALID_ARGUMENT, "launch_block_scan: step %d has no block scan",
                     (int)step);
  }
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

/* Scans n elements with `levels` of tiles. d_sums holds the tile totals of this level, followed
 * by the space of the levels below it. */
static gl_status scan_levels(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                             size_t n, int block_size, int *d_sums) {
  size_t tile = tile_elements(step, block_size);
  size_t tiles = ceil_div(n, tile);
  if (tiles == 1) return launch_block_scan(step, kind, d_in, d_out, n, block_size, NULL);
  GL_TRY(launch_block_scan(step, kind, d_in, d_out, n, block_size, d_sums));
  /* The exclusive scan of the tile totals is each tile's offset; it runs in place. */
  GL_TRY(scan_levels(step, SCAN_EXCLUSIVE, d_sums, d_sums, tiles, block_size, d_sums + tiles));
  add_block_offsets_kernel<<<(unsigned int)(tiles - 1), block_size>>>(d_out, d_sums,
                                                                      (unsigned int)n,
                                                                      (unsigned int)tile);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

static gl_status run_hierarchical(scan_step step, scan_kind kind, const int *d_in, int *d_out,
                                  size_t n, int block_size) {
  /* Room for the tile totals of every level: n/tile + n/tile^2 + ... */
  size_t tile = tile_elements(step, block_size);
  size_t sum_words = 0;
  for (size_t count = ceil_div(n, tile); count > 1; count = ceil_div(count, tile)) {
    sum_words += count;
  }
  int *d_sums = NULL;
  if (sum_words > 0) {
    void *raw = NULL;
    GL_TRY(reserve_scratch(sum_words * sizeof(int), &raw));
    d_sums = (int *)raw;
  }
  return scan_levels(step, kind, d_in, d_out, n, block_size, d_sums);
}

/* ------------------------------------------------------------------------------------------ */
/* Step 7: single pass with decoupled look-back (Merrill & Garland)                           */
/* ------------------------------------------------------------------------------------------ */

/* Each tile publishes one 64-bit status word: the flag in the high half, a 32-bit sum in the
 * low half. Flag and sum travel in one aligned 64-bit store and load, so a reader can never see
 * a new flag with an old sum (with two separate words it would need a __threadfence() between
 * writing the sum and the flag, and a matching order on the reading side). */
#define TILE_EMPTY 0ull     /* nothing published yet (the memset at each call) */
#define TILE_AGGREGATE 1ull /* the sum holds this tile's own total */
#define TILE_PREFIX 2ull    /* the sum holds the total of this tile and all tiles before it */

static __device__ __forceinline__ unsigned long long status_word(unsigned long long flag,
                                                                 unsigned int sum) {
  return (flag << 32) | sum;
}

/* Volatile: every poll goes to L2 (the point of coherence), never to a stale L1 copy. */
static __device__ __forceinline__ void publish(unsigned long long *status, unsigned int tile,
                                               unsigned long long word) {
  *(volatile unsigned long long *)&status[tile] = word;
}

/* Run by all 32 lanes of one warp: the sum of all tiles before `tile`. Lane k looks at tile
 * (window - k); the warp waits until every tile of the window has published something, then
 * adds up to the nearest tile holding a full prefix, or all 32 aggregates and moves the window
 * back. Tiles before `tile` have already started (tile numbers are handed out in the order
 * blocks start), so the wait always ends. */
static __device__ unsigned int look_back(unsigned long long *status, unsigned int tile,
                                         unsigned int lane) {
  const volatile unsigned long long *seen = status;
  unsigned int exclusive = 0;
  int window = (int)tile - 1;
  for (;;) {
    int predecessor = window - (int)lane;
    /* Before tile 0 there is nothing: read it as a prefix of 0. */
    unsigned long long word =
        predecessor >= 0 ? seen[predecessor] : status_word(TILE_PREFIX, 0u);
    while (__any_sync(FULL_MASK, (word >> 32) == TILE_EMPTY)) {
      if ((word >> 32) == TILE_EMPTY) word = seen[predecessor];
    }
    unsigned int prefix_lanes = __ballot_sync(FULL_MASK, (word >> 32) == TILE_PREFIX);
    unsigned int sum = (unsigned int)word;
    if (prefix_lanes != 0) {
      unsigned int nearest = (unsigned int)__ffs(prefix_lanes) - 1; /* lowest lane = nearest tile */
      if (lane > nearest) sum = 0;                                  /* already inside its prefix */
      return exclusive + warp_sum(sum);
    }
    exclusive += warp_sum(sum);
    window -= WARP_SIZE;
  }
}

/* A block scans a tile of 16 * blockDim.x elements. Warp w owns 512 consecutive elements and
 * reads them in 4 rounds of 128: in round r lane l holds elements r*128 + 4l .. r*128 + 4l + 3,
 * one 16-byte load, so each round is one fully coalesced 512-byte access. A round is scanned
 * with one warp scan of the lanes' 4-element sums; `carry` chains the rounds. */
__global__ void __launch_bounds__(MAX_BLOCK_SIZE)
single_pass_kernel(const int *d_in, int *d_out, unsigned int n, unsigned long long *status,
                   unsigned int *tile_counter, int inclusive, int vector_ok) {
  __shared__ unsigned int warp_offsets[MAX_BLOCK_SIZE / WARP_SIZE];
  __shared__ unsigned int tile_shared, tile_prefix_shared;
  const unsigned int lane = threadIdx.x % WARP_SIZE;
  const unsigned int warp = threadIdx.x / WARP_SIZE;
  const unsigned int warps = blockDim.x / WARP_SIZE;
  const unsigned int warp_items = WARP_SIZE * SINGLE_PASS_ITEMS;

  /* Tile numbers come from a counter, not blockIdx.x: CUDA does not promise to start blocks in
   * index order, and a block waiting for a tile whose block has not started could wait forever
   * while it holds the SM that block needs. */
  if (threadIdx.x == 0) tile_shared = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned int tile = tile_shared;
  const unsigned int warp_base = tile * (blockDim.x * SINGLE_PASS_ITEMS) + warp * warp_items;
  const int full = vector_ok && warp_base + warp_items <= n;

  unsigned int v[SINGLE_PASS_VECTORS][4];
  if (full) {
#pragma unroll
    for (int r = 0; r < SINGLE_PASS_VECTORS; ++r) {
      /* __ldcs/__stcs: streaming accesses, each byte is touched once (evict first from L2). */
      int4 q = __ldcs((const int4 *)(d_in + warp_base + r * 4 * WARP_SIZE) + lane);
      v[r][0] = (unsigned int)q.x, v[r][1] = (unsigned int)q.y;
      v[r][2] = (unsigned int)q.z, v[r][3] = (unsigned int)q.w;
    }
  } else {
#pragma unroll
    for (int r = 0; r < SINGLE_PASS_VECTORS; ++r) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        unsigned int i = warp_base + r * 4 * WARP_SIZE + 4 * lane + j;
        v[r][j] = i < n ? (unsigned int)d_in[i] : 0u;
      }
    }
  }

  /* Scan the warp's 512 elements: in-thread scans, then one warp scan per round. */
  unsigned int carry = 0;
#pragma unroll
  for (int r = 0; r < SINGLE_PASS_VECTORS; ++r) {
    unsigned int x0 = v[r][0], x1 = x0 + v[r][1], x2 = x1 + v[r][2], x3 = x2 + v[r][3];
    unsigned int lanes_incl = warp_inclusive_scan(x3, lane);
    unsigned int before = carry + lanes_incl - x3; /* everything before this lane's 4 elements */
    if (inclusive) {
      v[r][0] = before + x0, v[r][1] = before + x1, v[r][2] = before + x2, v[r][3] = before + x3;
    } else {
      v[r][0] = before, v[r][1] = before + x0, v[r][2] = before + x1, v[r][3] = before + x2;
    }
    carry += __shfl_sync(FULL_MASK, lanes_incl, WARP_SIZE - 1);
  }
  if (lane == 0) warp_offsets[warp] = carry; /* the warp's total, for now */
  __syncthreads();

  if (warp == 0) {
    unsigned int total = lane < warps ? warp_offsets[lane] : 0u;
    unsigned int prefix = warp_inclusive_scan(total, lane);
    if (lane < warps) warp_offsets[lane] = prefix - total;
    unsigned int aggregate = __shfl_sync(FULL_MASK, prefix, WARP_SIZE - 1);
    if (tile == 0) {
      if (lane == 0) {
        publish(status, 0, status_word(TILE_PREFIX, aggregate));
        tile_prefix_shared = 0;
      }
    } else {
      /* Publish the aggregate at once so later tiles need not wait for our look-back. */
      if (lane == 0) publish(status, tile, status_word(TILE_AGGREGATE, aggregate));
      unsigned int exclusive = look_back(status, tile, lane);
      if (lane == 0) {
        publish(status, tile, status_word(TILE_PREFIX, exclusive + aggregate));
        tile_prefix_shared = exclusive;
      }
    }
  }
  __syncthreads();

  const unsigned int offset = tile_prefix_shared + warp_offsets[warp];
  if (full) {
#pragma unroll
    for (int r = 0; r < SINGLE_PASS_VECTORS; ++r) {
      int4 q = make_int4((int)(v[r][0] + offset), (int)(v[r][1] + offset),
                         (int)(v[r][2] + offset), (int)(v[r][3] + offset));
      __stcs((int4 *)(d_out + warp_base + r * 4 * WARP_SIZE) + lane, q);
    }
  } else {
#pragma unroll
    for (int r = 0; r < SINGLE_PASS_VECTORS; ++r) {
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        unsigned int i = warp_base + r * 4 * WARP_SIZE + 4 * lane + j;
        if (i < n) d_out[i] = (int)(v[r][j] + offset);
      }
    }
  }
}

static gl_status run_single_pass(scan_kind kind, const int *d_in, int *d_out, size_t n,
                                 int block_size) {
  size_t tiles = ceil_div(n, tile_elements(SCAN_STEP_SINGLE_PASS, block_size));
  /* Scratch: the tile counter (padded to 8 bytes), then one status word per tile. Both start
   * at zero on every call: the counter at tile 0, every tile TILE_EMPTY. */
  size_t bytes = (1 + tiles) * sizeof(unsigned long long);
  void *raw = NULL;
  GL_TRY(reserve_scratch(bytes, &raw));
  LAB_CHECK(cudaMemsetAsync(raw, 0, bytes, 0));
  unsigned int *tile_counter = (unsigned int *)raw;
  unsigned long long *status = (unsigned long long *)raw + 1;
  /* 16-byte loads and stores need 16-byte aligned arrays (cudaMalloc gives 256). */
  int vector_ok = ((uintptr_t)d_in % 16 == 0) && ((uintptr_t)d_out % 16 == 0);
  single_pass_kernel<<<(unsigned int)tiles, block_size>>>(d_in, d_out, (unsigned int)n, status,
                                                           tile_counter, kind == SCAN_INCLUSIVE,
                                                           vector_ok);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}
