// The hashing lab: your kernels. A GPU hash table with open addressing, built up in five steps:
// linear probing with one thread a key, one CAS a pair, counted probes, cooperative probing,
// double hashing; and a bonus step, counting by key.
//
// This file is yours: the exercises, step by step, and nothing else. The rest of the lab is
// given, and the grader always takes it from the course, never from a submission:
//   labs/hashing/hashing.h          the API the tests call
//   labs/hashing/hashing_steps.h    what each step below must define, the table's layout
//   labs/hashing/hashing_given.cu   argument checks, the table and counters, the dispatch
//
// The handout, labs/hashing/README.md, explains each step. Run a step's tests as soon as it is
// written, e.g.
//   ctest --test-dir build/student -L hashing -R 'HashingStep2\.' --output-on-failure
// Until you write a step, its functions return "not implemented" and launch nothing.
//
//   step 1  1-linear       hashing_step1_insert, hashing_step1_find
//   step 2  2-packed       hash_fmix32, hashing_step2_insert, hashing_step2_find
//   step 3  3-counted      hashing_step3_insert, hashing_step3_find
//   step 4  4-cooperative  hashing_step4_insert, hashing_step4_find
//   step 5  5-double       hashing_step5_insert, hashing_step5_find
//   step 6  6-count        hashing_step6_insert, hashing_step6_find    (bonus)
#include <cuda_runtime.h>

#include "gpulabs/check.h"
#include "hashing_steps.h"

// =============================================================================================
// Step 1: linear probing, one thread a key
//
// Write an insert kernel and a find kernel, one thread a key (a grid-stride loop over i < n).
// Insert: start at the home slot key % capacity; atomicCAS the slot's key from
// HASHING_EMPTY_KEY to yours. The old word says what happened: empty (you own the slot: store
// the value), your key (a duplicate: its entry stays as it is), another key (try the next
// slot, wrapping around at capacity). Find: walk the same way until the key (its value) or an
// empty slot (HASHING_NOT_FOUND).
// - Stop after `capacity` slots: a full table must set d_counters->full, never hang.
// - capacity is any number here, so compute the next slot with a compare, not a mask.
// - Between the CAS and the value store another thread may read the slot: harmless here,
//   because finds run in a later launch than the inserts. Step 2 removes the gap.
// =============================================================================================

// Threads a block, and at most this many blocks: the grid-stride loops do the rest.
#define BLOCK 256
#define MAX_BLOCKS (65535u * 8)

static unsigned int blocks_for(size_t threads) {
  size_t blocks = (threads + BLOCK - 1) / BLOCK;
  return blocks > MAX_BLOCKS ? MAX_BLOCKS : (unsigned int)blocks;
}

__global__ void linear_insert(const uint32_t *keys, const uint32_t *values, size_t n,
                              uint32_t *table_keys, uint32_t *table_values, size_t capacity,
                              hashing_counters *counters) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t key = keys[i];
    size_t slot = key % capacity;
    size_t probe = 0;
    for (; probe < capacity; ++probe) {
      const uint32_t old = atomicCAS(&table_keys[slot], HASHING_EMPTY_KEY, key);
      if (old == HASHING_EMPTY_KEY) {
        table_values[slot] = values[i];
        break;
      }
      if (old == key) break;
      slot = slot + 1 == capacity ? 0 : slot + 1;
    }
    if (probe == capacity) counters->full = 1;
  }
}

__global__ void linear_find(const uint32_t *keys, uint32_t *values_out, size_t n,
                            const uint32_t *table_keys, const uint32_t *table_values,
                            size_t capacity) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    const uint32_t key = keys[i];
    size_t slot = key % capacity;
    uint32_t value = HASHING_NOT_FOUND;
    for (size_t probe = 0; probe < capacity; ++probe) {
      const uint32_t there = table_keys[slot];
      if (there == key) {
        value = table_values[slot];
        break;
      }
      if (there == HASHING_EMPTY_KEY) break;
      slot = slot + 1 == capacity ? 0 : slot + 1;
    }
    values_out[i] = value;
  }
}

gl_status hashing_step1_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               uint32_t *d_table_keys, uint32_t *d_table_values, size_t capacity,
                               hashing_counters *d_counters) {
  linear_insert<<<blocks_for(n), BLOCK>>>(d_keys, d_values, n, d_table_keys, d_table_values,
                                          capacity, d_counters);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status hashing_step1_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const uint32_t *d_table_keys, const uint32_t *d_table_values,
                             size_t capacity, hashing_counters *d_counters) {
  (void)d_counters;
  linear_find<<<blocks_for(n), BLOCK>>>(d_keys, d_values_out, n, d_table_keys, d_table_values,
                                        capacity);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 2: one CAS a pair, a real hash, a mask
//
// Write hash_fmix32, murmur3's finalizer: h ^= h >> 16; h *= 0x85ebca6b; h ^= h >> 13;
// h *= 0xc2b2ae35; h ^= h >> 16. The home slot is hash_fmix32(key) & (capacity - 1) (capacity
// is a power of two). A slot is one 64-bit word, pack_pair(key, value): claim it with one
// 64-bit atomicCAS from EMPTY_PAIR, so no reader ever sees a key without its value.
// - Read the slot first and CAS only an empty one: most slots you pass are taken, and a load
//   costs less than an atomic. A stale "empty" only costs a CAS that fails; a slot never turns
//   empty again during a build.
// - A failed CAS hands back the pair that won: if its key is yours, you are done.
// =============================================================================================

__device__ __forceinline__ uint32_t hash_fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// Inserts one pair; returns the slots it looked at, or 0 when the table is full. (Step 3
// counts what it returns; step 2 only tells full from done.)
__device__ __forceinline__ size_t packed_insert_one(uint32_t key, uint32_t value,
                                                    unsigned long long *table, size_t capacity) {
  const size_t mask = capacity - 1;
  const unsigned long long pair = pack_pair(key, value);
  size_t slot = hash_fmix32(key) & mask;
  for (size_t probe = 1; probe <= capacity; ++probe) {
    unsigned long long there = table[slot];
    if (there == EMPTY_PAIR) {
      there = atomicCAS(&table[slot], EMPTY_PAIR, pair);
      if (there == EMPTY_PAIR) return probe;
    }
    if (pair_key(there) == key) return probe;
    slot = (slot + 1) & mask;
  }
  return 0;
}

// Finds one key: its value or HASHING_NOT_FOUND, and the slots it looked at in *probes.
__device__ __forceinline__ uint32_t packed_find_one(uint32_t key,
                                                    const unsigned long long *table,
                                                    size_t capacity, size_t *probes) {
  const size_t mask = capacity - 1;
  size_t slot = hash_fmix32(key) & mask;
  for (size_t probe = 1; probe <= capacity; ++probe) {
    const unsigned long long there = table[slot];
    if (pair_key(there) == key) {
      *probes = probe;
      return pair_value(there);
    }
    if (there == EMPTY_PAIR) {
      *probes = probe;
      return HASHING_NOT_FOUND;
    }
    slot = (slot + 1) & mask;
  }
  *probes = capacity;
  return HASHING_NOT_FOUND;
}

__global__ void packed_insert(const uint32_t *keys, const uint32_t *values, size_t n,
                              unsigned long long *table, size_t capacity,
                              hashing_counters *counters) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    if (packed_insert_one(keys[i], values[i], table, capacity) == 0) counters->full = 1;
  }
}

__global__ void packed_find(const uint32_t *keys, uint32_t *values_out, size_t n,
                            const unsigned long long *table, size_t capacity) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    size_t probes = 0;
    values_out[i] = packed_find_one(keys[i], table, capacity, &probes);
  }
}

gl_status hashing_step2_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters) {
  packed_insert<<<blocks_for(n), BLOCK>>>(d_keys, d_values, n, d_table, capacity, d_counters);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status hashing_step2_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  (void)d_counters;
  packed_find<<<blocks_for(n), BLOCK>>>(d_keys, d_values_out, n, d_table, capacity);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 3: counting probes
//
// Step 2's kernels, and each key's probes (slots looked at: 1 for a key in its home slot; an
// absent key's find counts the empty slot that ended it) added to d_counters->probes, the
// largest kept in d_counters->max_probes. These numbers are what the handout's load-factor
// sweep plots.
// - One atomicAdd a key would cost as much as the probing: sum in the thread over its grid-
//   stride loop, then over the warp (__shfl_xor_sync; __reduce_add_sync takes 32-bit values only,
//   from sm_80 on), and let one lane a warp do the atomics.
// - Every lane of the warp must reach the warp reduction: no early return from the kernel.
// - A full table's key counts capacity probes; it still sets d_counters->full.
// =============================================================================================

// Adds a warp's probes to the counters: called by every lane of every warp (BLOCK is a multiple
// of WARP_SIZE, and no thread returns early).
__device__ __forceinline__ void add_probes(unsigned long long probes, unsigned int most,
                                           hashing_counters *counters) {
  // Five butterfly steps leave the warp's sum and maximum in every lane (__reduce_add_sync
  // would take 32-bit values only, and only from sm_80 on).
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    probes += __shfl_xor_sync(FULL_MASK, probes, offset);
    const unsigned int other = __shfl_xor_sync(FULL_MASK, most, offset);
    most = other > most ? other : most;
  }
  if ((threadIdx.x & (WARP_SIZE - 1)) == 0) {
    if (probes != 0) atomicAdd(&counters->probes, probes);
    if (most != 0) atomicMax(&counters->max_probes, most);
  }
}

__global__ void counted_insert(const uint32_t *keys, const uint32_t *values, size_t n,
                               unsigned long long *table, size_t capacity,
                               hashing_counters *counters) {
  unsigned long long probes = 0;
  unsigned int most = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    size_t p = packed_insert_one(keys[i], values[i], table, capacity);
    if (p == 0) {
      counters->full = 1;
      p = capacity;
    }
    probes += p;
    if (p > most) most = (unsigned int)p;
  }
  add_probes(probes, most, counters);
}

__global__ void counted_find(const uint32_t *keys, uint32_t *values_out, size_t n,
                             const unsigned long long *table, size_t capacity,
                             hashing_counters *counters) {
  unsigned long long probes = 0;
  unsigned int most = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    size_t p = 0;
    values_out[i] = packed_find_one(keys[i], table, capacity, &p);
    probes += p;
    if (p > most) most = (unsigned int)p;
  }
  add_probes(probes, most, counters);
}

gl_status hashing_step3_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters) {
  counted_insert<<<blocks_for(n), BLOCK>>>(d_keys, d_values, n, d_table, capacity, d_counters);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status hashing_step3_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  counted_find<<<blocks_for(n), BLOCK>>>(d_keys, d_values_out, n, d_table, capacity,
                                         d_counters);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 4: cooperative probing
//
// A tile of BUCKET_SLOTS (4) consecutive lanes takes one key: the table is read as buckets of
// 4 slots (32 bytes, one memory sector), lane r of the tile loading slot r of the bucket, so one
// load brings a whole bucket. A ballot over the tile's lanes (mask: the tile's 4 bits of the
// warp) says at once whether the key is there or where the first empty slot is; one lane
// CASes that slot, and __shfl_sync tells the others how it went (lost: look at the same bucket
// again). The home bucket is hash_fmix32(key) & (capacity / BUCKET_SLOTS - 1); the next bucket
// follows, wrapping around.
// - Every lane of a tile must take the same branches: decide on ballot and shuffle results,
//   which all 4 lanes share, and let all 4 walk the grid-stride loop together (a tile's
//   index, not a thread's).
// - Launch 4 threads a key; a block of BLOCK threads holds BLOCK / 4 tiles.
// - Give up after capacity / BUCKET_SLOTS buckets (full), as before.
// =============================================================================================

// The stride of a key's walk over the buckets: 1 here; step 5 (below) passes double_hashing = 1
// and walks with a stride from a second hash, odd so that the walk visits every bucket.
__device__ __forceinline__ size_t walk_stride(uint32_t key, size_t buckets, int double_hashing) {
  if (!double_hashing) return 1;
  return (hash_fmix32(key ^ 0x9e3779b9u) & (buckets - 1)) | 1;
}

__global__ void cooperative_insert(const uint32_t *keys, const uint32_t *values, size_t n,
                                   unsigned long long *table, size_t capacity,
                                   hashing_counters *counters, int double_hashing,
                                   int add_values) {
  const unsigned int lane = threadIdx.x & (WARP_SIZE - 1);
  const unsigned int rank = lane & (BUCKET_SLOTS - 1);
  const unsigned int tile_mask = ((1u << BUCKET_SLOTS) - 1) << (lane - rank);
  const size_t buckets = capacity / BUCKET_SLOTS;
  const size_t tiles = (size_t)gridDim.x * (blockDim.x / BUCKET_SLOTS);
  for (size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / BUCKET_SLOTS; i < n;
       i += tiles) {
    const uint32_t key = keys[i];
    const unsigned long long pair = pack_pair(key, add_values ? 0 : values[i]);
    const unsigned long long addend = (unsigned long long)values[i] << 32; // step 6's
    const size_t stride = walk_stride(key, buckets, double_hashing);
    size_t bucket = hash_fmix32(key) & (buckets - 1);
    size_t seen = 0;
    while (seen < buckets) {
      unsigned long long *slot = &table[bucket * BUCKET_SLOTS + rank];
      const unsigned long long there = *slot;
      const unsigned int hit = __ballot_sync(tile_mask, pair_key(there) == key);
      if (hit != 0) {
        if (add_values && lane == (unsigned int)__ffs(hit) - 1) atomicAdd(slot, addend);
        break;
      }
      const unsigned int empty = __ballot_sync(tile_mask, there == EMPTY_PAIR);
      if (empty != 0) {
        const unsigned int leader = __ffs(empty) - 1;
        unsigned long long old = 0;
        if (lane == leader) old = atomicCAS(slot, EMPTY_PAIR, pair);
        old = __shfl_sync(tile_mask, old, leader);
        if (old == EMPTY_PAIR || pair_key(old) == key) {
          if (add_values && lane == leader) atomicAdd(slot, addend);
          break;
        }
        continue; // lost the race for that slot: look at the same bucket again
      }
      bucket = (bucket + stride) & (buckets - 1);
      ++seen;
    }
    if (seen == buckets && rank == 0) counters->full = 1;
  }
}

__global__ void cooperative_find(const uint32_t *keys, uint32_t *values_out, size_t n,
                                 const unsigned long long *table, size_t capacity,
                                 int double_hashing) {
  const unsigned int lane = threadIdx.x & (WARP_SIZE - 1);
  const unsigned int rank = lane & (BUCKET_SLOTS - 1);
  const unsigned int tile_mask = ((1u << BUCKET_SLOTS) - 1) << (lane - rank);
  const size_t buckets = capacity / BUCKET_SLOTS;
  const size_t tiles = (size_t)gridDim.x * (blockDim.x / BUCKET_SLOTS);
  for (size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / BUCKET_SLOTS; i < n;
       i += tiles) {
    const uint32_t key = keys[i];
    const size_t stride = walk_stride(key, buckets, double_hashing);
    size_t bucket = hash_fmix32(key) & (buckets - 1);
    uint32_t value = HASHING_NOT_FOUND;
    for (size_t seen = 0; seen < buckets; ++seen) {
      const unsigned long long there = table[bucket * BUCKET_SLOTS + rank];
      const unsigned int hit = __ballot_sync(tile_mask, pair_key(there) == key);
      if (hit != 0) {
        value = __shfl_sync(tile_mask, pair_value(there), __ffs(hit) - 1);
        break;
      }
      if (__ballot_sync(tile_mask, there == EMPTY_PAIR) != 0) break;
      bucket = (bucket + stride) & (buckets - 1);
    }
    if (rank == 0) values_out[i] = value;
  }
}

gl_status hashing_step4_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters) {
  cooperative_insert<<<blocks_for(n * BUCKET_SLOTS), BLOCK>>>(d_keys, d_values, n, d_table,
                                                              capacity, d_counters, 0, 0);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status hashing_step4_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  (void)d_counters;
  cooperative_find<<<blocks_for(n * BUCKET_SLOTS), BLOCK>>>(d_keys, d_values_out, n, d_table,
                                                            capacity, 0);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 5: double hashing
//
// Step 4 walks to the next bucket, so the keys that share a home bucket and those of the
// buckets after it pile up in one run (a cluster): at load 0.9 a miss walks through dozens of
// full buckets. Walk instead with a stride of the key's own, from a second hash: bucket,
// bucket + stride, bucket + 2 * stride, ... (modulo the number of buckets). Two keys of one home
// bucket then part at once, and a miss ends at the first bucket with an empty slot, a few
// buckets on, even at load 0.9.
// - The stride: hash_fmix32(key ^ 0x9e3779b9u), masked to the number of buckets, with its
//   lowest bit set. An odd stride and a power-of-two number of buckets share no factor, so the
//   walk visits every bucket once in capacity / BUCKET_SLOTS steps (an even one would come back
//   to its start early, and a table with room would look full).
// - Everything else is step 4's: the tile, the ballots, the CAS, the full table.
// =============================================================================================

gl_status hashing_step5_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters) {
  cooperative_insert<<<blocks_for(n * BUCKET_SLOTS), BLOCK>>>(d_keys, d_values, n, d_table,
                                                              capacity, d_counters, 1, 0);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status hashing_step5_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  (void)d_counters;
  cooperative_find<<<blocks_for(n * BUCKET_SLOTS), BLOCK>>>(d_keys, d_values_out, n, d_table,
                                                            capacity, 1);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

// =============================================================================================
// Step 6 (bonus): counting by key
//
// Insert-or-add: a key's value becomes the sum of the values it was inserted with (modulo 2^32;
// with values of 1, how many times it came). Walk as in step 5; a new key claims its slot with
// pack_pair(key, 0), and then, whether the key was new or found, one lane adds the value to the
// slot's value half: atomicAdd on the 64-bit slot of (unsigned long long)value << 32 (what
// carries out of the top half is dropped, which is the modulo). The find is step 5's.
// - Claim with 0, not with the value: every insert then adds exactly once, the first included.
// =============================================================================================

gl_status hashing_step6_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters) {
  cooperative_insert<<<blocks_for(n * BUCKET_SLOTS), BLOCK>>>(d_keys, d_values, n, d_table,
                                                              capacity, d_counters, 1, 1);
  LAB_CHECK_LAUNCH();
  return GL_OK;
}

gl_status hashing_step6_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  return hashing_step5_find(d_keys, d_values_out, n, d_table, capacity, d_counters);
}
