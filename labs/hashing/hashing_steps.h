// The hashing lab: the contract between the given code (labs/hashing/hashing_given.cu) and
// your exercises (labs/hashing/hashing.cu).
//
// This file is given: the grader always takes it from the course. It declares the two
// functions (insert, find) each step of hashing.cu defines, the layout of the table and the
// counters they share with the given code.
//
// hashing_given.cu checks the arguments, empties the table and the counters, and calls the
// step's function. So every function here is handed: n in [1, HASHING_MAX_N]; d_keys,
// d_values / d_values_out not NULL; a table of `capacity` slots (step 1: any capacity >= 1;
// steps 2-6: a power of two >= BUCKET_SLOTS); d_counters, zero before a build or a find. Each
// returns GL_OK after launching its kernels on the default stream (no need to wait for them),
// or the failure of a launch (LAB_CHECK_LAUNCH). Probe at most `capacity` slots a key: a key
// that finds no empty slot in all of them sets d_counters->full and gives up (never loop
// forever). A key equal to HASHING_EMPTY_KEY must not hang either (the given code rejects the
// build after it ran).
#ifndef GPULABS_LAB_HASHING_STEPS_H
#define GPULABS_LAB_HASHING_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"
#include "hashing.h"

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu // every lane of a warp, for the *_sync warp functions

// Steps 4-6: a bucket is BUCKET_SLOTS consecutive 8-byte slots (32 bytes, one sector), probed by a
// tile of BUCKET_SLOTS consecutive lanes of a warp, lane r of the tile looking at slot r.
#define BUCKET_SLOTS 4

// The empty slot of steps 2-6: both halves HASHING_EMPTY_KEY (the given code fills the table
// with 0xff bytes, which also makes every slot of step 1 empty).
#define EMPTY_PAIR 0xffffffffffffffffull

// Steps 2-6 keep a pair in one 64-bit slot: the key in the low half, the value in the high.
static __host__ __device__ inline unsigned long long pack_pair(uint32_t key, uint32_t value) {
  return ((unsigned long long)value << 32) | key;
}
static __host__ __device__ inline uint32_t pair_key(unsigned long long pair) {
  return (uint32_t)pair;
}
static __host__ __device__ inline uint32_t pair_value(unsigned long long pair) {
  return (uint32_t)(pair >> 32);
}

// What the steps report back to the given code; zero before each call.
typedef struct hashing_counters {
  unsigned long long probes; // step 3: slots looked at, over all keys of the call
  unsigned int max_probes;   // step 3: the most slots one key looked at
  unsigned int full;         // any step: non-zero when a key found no empty slot
  unsigned long long first_reserved_key; // given: 1 + the first index of HASHING_EMPTY_KEY
} hashing_counters;

#ifdef __cplusplus
extern "C" {
#endif

// Step 1: one thread a key, linear probing from the home slot key % capacity. The table is two
// arrays of `capacity` words, d_table_keys (HASHING_EMPTY_KEY where empty) and d_table_values.
// Insert: claim a slot's key with atomicCAS, then store the value; a key already present keeps
// its entry. Find: d_values_out[i] = the value of d_keys[i], or HASHING_NOT_FOUND.
gl_status hashing_step1_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               uint32_t *d_table_keys, uint32_t *d_table_values, size_t capacity,
                               hashing_counters *d_counters);
gl_status hashing_step1_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const uint32_t *d_table_keys, const uint32_t *d_table_values,
                             size_t capacity, hashing_counters *d_counters);

// Steps 2, 3 and 4 (and 5, below): the table is `capacity` 64-bit slots d_table (pack_pair; EMPTY_PAIR where
// empty), capacity a power of two; home slot (step 4: home bucket) from murmur3's fmix32 hash.
// Same meaning as step 1. Step 3 also adds every key's probes to d_counters->probes and keeps
// the largest in d_counters->max_probes.
gl_status hashing_step2_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters);
gl_status hashing_step2_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters);
gl_status hashing_step3_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters);
gl_status hashing_step3_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters);
gl_status hashing_step4_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters);
gl_status hashing_step4_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters);

// Step 5: step 4's table, tiles and buckets; the buckets a key visits are its home bucket and
// then every `stride`-th one, the stride odd and taken from a second hash of the key (so a
// walk of capacity / BUCKET_SLOTS buckets visits each once).
gl_status hashing_step5_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters);
gl_status hashing_step5_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters);

// Step 6 (bonus): step 5's table and walk; an insert adds its value to the key's entry (which
// it makes with the value 0 when the key is new), so a key's value is the sum of its values
// modulo 2^32. Its find is step 5's.
gl_status hashing_step6_insert(const uint32_t *d_keys, const uint32_t *d_values, size_t n,
                               unsigned long long *d_table, size_t capacity,
                               hashing_counters *d_counters);
gl_status hashing_step6_find(const uint32_t *d_keys, uint32_t *d_values_out, size_t n,
                             const unsigned long long *d_table, size_t capacity,
                             hashing_counters *d_counters);

#ifdef __cplusplus
}
#endif
#endif
