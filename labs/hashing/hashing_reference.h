/* The hashing lab's CPU reference: a sequential open-addressing table with the lab's meaning
 * (linear probing, insert-or-find, a reserved empty key), and murmur3's fmix32 with its
 * inverse, which the tests use to build keys that share a home slot. */
#ifndef GPULABS_HASHING_REFERENCE_H
#define GPULABS_HASHING_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HASHING_REF_EMPTY 0xFFFFFFFFu     /* the reserved key: an empty slot */
#define HASHING_REF_NOT_FOUND 0xFFFFFFFFu /* what a find of an absent key answers */

/* murmur3's 32-bit finalizer, and its inverse: hashing_ref_unfmix32(hashing_ref_fmix32(x)) == x. */
uint32_t hashing_ref_fmix32(uint32_t x);
uint32_t hashing_ref_unfmix32(uint32_t h);

/* Where a key's probing starts. */
typedef enum hashing_ref_home {
  HASHING_REF_HOME_MODULO = 0, /* key % capacity (the lab's step 1) */
  HASHING_REF_HOME_FMIX32 = 1  /* fmix32(key) % capacity (steps 2 and 3; capacity a power of two) */
} hashing_ref_home;

typedef struct hashing_ref_table {
  uint32_t *keys;   /* capacity keys, HASHING_REF_EMPTY where empty */
  uint32_t *values; /* capacity values */
  size_t capacity;
  hashing_ref_home home;
} hashing_ref_table;

/* An empty table of `capacity` >= 1 slots; 0 on success, -1 when memory runs out. */
int hashing_ref_init(hashing_ref_table *table, size_t capacity, hashing_ref_home home);
void hashing_ref_free(hashing_ref_table *table);

/* Inserts (key, value) unless the key is present (its entry then stays). Returns 1 when it
 * inserted, 0 when the key was present, -1 when no slot was free. *probes (when not NULL)
 * gets the slots looked at (capacity for a full table). */
int hashing_ref_insert(hashing_ref_table *table, uint32_t key, uint32_t value, uint64_t *probes);

/* The value of `key`, or HASHING_REF_NOT_FOUND; *probes (when not NULL) gets the slots looked
 * at, the empty slot that ends a miss included. */
uint32_t hashing_ref_find(const hashing_ref_table *table, uint32_t key, uint64_t *probes);

#ifdef __cplusplus
}
#endif
#endif
