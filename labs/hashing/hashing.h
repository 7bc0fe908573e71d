/* The hashing lab's API: a GPU hash table with open addressing, 32-bit keys and values.
 *
 * Implemented by labs/hashing/hashing_given.cu (given), which calls the steps of
 * labs/hashing/hashing.cu (yours; solutions/hashing/hashing.cu is the same file filled in).
 * Pointers named d_* are device pointers.
 *
 * The table lives in the given code: hashing_build empties it (at the capacity it is given),
 * inserts n pairs with one step and keeps it; hashing_find looks keys up in it with the same
 * step. Its memory is kept between calls and only grows, so a timed call does no cudaMalloc.
 *
 * One key is reserved: HASHING_EMPTY_KEY marks an empty slot and cannot be inserted. A key
 * inserted several times keeps one entry, whose value is one of the values it was inserted
 * with (which one is not specified: the threads race for it); step 6's is their sum, modulo
 * 2^32. A find of an absent key answers
 * HASHING_NOT_FOUND (so a value equal to it cannot be told from "absent").
 */
#ifndef GPULABS_LAB_HASHING_H
#define GPULABS_LAB_HASHING_H

#include <stddef.h>
#include <stdint.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ladder, numbered as in the handout. */
typedef enum hashing_step {
  HASHING_STEP_LINEAR = 1,     /* one thread a key, linear probing: CAS the key, then store the
                                  value; home slot key % capacity */
  HASHING_STEP_PACKED = 2,     /* key and value in one 64-bit slot claimed by one CAS; murmur3's
                                  fmix32 hash; power-of-two capacity and a mask */
  HASHING_STEP_COUNTED = 3,    /* step 2 that counts its probes (hashing_stats) */
  HASHING_STEP_COOPERATIVE = 4, /* a tile of 4 threads a key: one 32-byte bucket a load, a
                                   ballot finds the key or an empty slot */
  HASHING_STEP_DOUBLE = 5,      /* step 4's buckets in the order of double hashing: a second
                                   hash sets each key's stride, so no cluster forms */
  HASHING_STEP_COUNT = 6        /* bonus: insert-or-add, step 5's table that sums the values of
                                   each key (a count by key when every value is 1) */
} hashing_step;

#define HASHING_FIRST_STEP HASHING_STEP_LINEAR
#define HASHING_LAST_STEP HASHING_STEP_COUNT

/* The reserved key (an empty slot), and what a find answers for an absent key. */
#define HASHING_EMPTY_KEY 0xFFFFFFFFu
#define HASHING_NOT_FOUND 0xFFFFFFFFu

/* The most keys one call takes, and the largest capacity (slots) of the table. */
#define HASHING_MAX_N ((size_t)1 << 30)
#define HASHING_MAX_CAPACITY ((size_t)1 << 31)

/* What a call's probing cost. Filled by step 3 only (the other steps leave both 0). A probe is
 * one slot looked at: a key found or placed in its home slot took 1, an absent key's find
 * counts the empty slot that ended it. */
typedef struct hashing_stats {
  unsigned long long probes; /* over all n keys of the call */
  unsigned int max_probes;   /* the most one key took */
  unsigned int reserved;     /* 0 */
} hashing_stats;

/* "1-linear", "2-packed", ...; "unknown" for a value outside the ladder. */
const char *hashing_step_name(hashing_step step);

/* The capacity `step` gives a table of n keys at a load factor of at most `load_factor` (in
 * (0, 1]): ceil(n / load_factor) for step 1, the power of two at or above it for the others,
 * at least 1 (step 1) or 4 slots. 0 for a bad argument or a capacity beyond the limit. */
size_t hashing_capacity(hashing_step step, size_t n, double load_factor);

/* Empties the table, makes it `capacity` slots (step 1: any capacity >= 1; steps 2-6: a power
 * of two >= 4; at most HASHING_MAX_CAPACITY) and inserts the n pairs (d_keys[i],
 * d_values[i]) with `step`. Returns GL_ERR_SIZE when a key found no empty slot (the table is
 * full), GL_ERR_INVALID_ARGUMENT when a key is HASHING_EMPTY_KEY; the table's contents are
 * then unspecified. `stats`, when not NULL, receives the probes of the inserts. Waits for the
 * GPU (it must, to tell whether the table overflowed). n == 0 makes an empty table. */
gl_status hashing_build(hashing_step step, const uint32_t *d_keys, const uint32_t *d_values,
                        size_t n, size_t capacity, hashing_stats *stats);

/* Looks up n keys in the table the last hashing_build made, which must have been made with
 * the same step: d_values_out[i] = the value of d_keys[i], or HASHING_NOT_FOUND. Nothing is
 * written past n. `stats`, when not NULL, receives the probes of the finds (the call then
 * waits for the GPU). */
gl_status hashing_find(hashing_step step, const uint32_t *d_keys, uint32_t *d_values_out,
                       size_t n, hashing_stats *stats);

/* Frees the table and the counters (the next build allocates again). Optional: the process's
 * exit frees them too. Not thread-safe: call the lab from one host thread at a time. */
void hashing_release(void);

#ifdef __cplusplus
}
#endif
#endif
