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

gl_status hashing_step1_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               uint32_t *d_table_keys, uint32_t *d_table_values, size_t capacity,
                               hashing_counters *d_counters) {
  (void)d_keys, (void)d_values, (void)n, (void)d_table_keys, (void)d_table_values,
  (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 1 (1-linear): write the insert and find kernels (one thread a key), "
      "and launch them in hashing_step1_insert (labs/hashing/hashing.cu)");
}

gl_status hashing_step1_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const uint32_t *d_table_keys, const uint32_t *d_table_values,
                             size_t capacity, hashing_counters *d_counters) {
  (void)d_keys, (void)d_values_out, (void)n, (void)d_table_keys, (void)d_table_values,
  (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 1 (1-linear): write the insert and find kernels (one thread a key), "
      "and launch them in hashing_step1_find (labs/hashing/hashing.cu)");
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

gl_status hashing_step2_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters) {
  (void)d_keys, (void)d_values, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 2 (2-packed): write hash_fmix32 and the packed insert and find kernels, "
      "and launch them in hashing_step2_insert (labs/hashing/hashing.cu)");
}

gl_status hashing_step2_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  (void)d_keys, (void)d_values_out, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 2 (2-packed): write hash_fmix32 and the packed insert and find kernels, "
      "and launch them in hashing_step2_find (labs/hashing/hashing.cu)");
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

gl_status hashing_step3_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters) {
  (void)d_keys, (void)d_values, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 3 (3-counted): write the counting insert and find kernels, "
      "and launch them in hashing_step3_insert (labs/hashing/hashing.cu)");
}

gl_status hashing_step3_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  (void)d_keys, (void)d_values_out, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 3 (3-counted): write the counting insert and find kernels, "
      "and launch them in hashing_step3_find (labs/hashing/hashing.cu)");
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

gl_status hashing_step4_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters) {
  (void)d_keys, (void)d_values, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 4 (4-cooperative): write the cooperative insert and find kernels, "
      "and launch them in hashing_step4_insert (labs/hashing/hashing.cu)");
}

gl_status hashing_step4_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  (void)d_keys, (void)d_values_out, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 4 (4-cooperative): write the cooperative insert and find kernels, "
      "and launch them in hashing_step4_find (labs/hashing/hashing.cu)");
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
  (void)d_keys, (void)d_values, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 5 (5-double): walk step 4's buckets with a stride from a second hash, "
      "in hashing_step5_insert (labs/hashing/hashing.cu)");
}

gl_status hashing_step5_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  (void)d_keys, (void)d_values_out, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 5 (5-double): walk step 4's buckets with a stride from a second hash, "
      "in hashing_step5_find (labs/hashing/hashing.cu)");
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
  (void)d_keys, (void)d_values, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 6 (6-count): add each value to its key's entry, in hashing_step6_insert "
      "(labs/hashing/hashing.cu)");
}

gl_status hashing_step6_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters) {
  (void)d_keys, (void)d_values_out, (void)n, (void)d_table, (void)capacity, (void)d_counters;
  return gl_not_implemented(
      "hashing step 6 (6-count): its find is step 5's, called from hashing_step6_find "
      "(labs/hashing/hashing.cu)");
}
