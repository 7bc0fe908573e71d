/* The hashing lab's CPU reference (hashing_reference.h). */
#include "hashing_reference.h"

#include <stdlib.h>

uint32_t hashing_ref_fmix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

/* The inverse of an odd number modulo 2^32, by Newton's iteration (each doubles the bits). */
static uint32_t inverse_odd(uint32_t a) {
  uint32_t x = a; /* right in the low 3 bits */
  for (int i = 0; i < 5; ++i) x *= 2u - a * x;
  return x;
}

uint32_t hashing_ref_unfmix32(uint32_t h) {
  h ^= h >> 16; /* a shift by half the width or more undoes itself */
  h *= inverse_odd(0xc2b2ae35u);
  h ^= (h >> 13) ^ (h >> 26);
  h *= inverse_odd(0x85ebca6bu);
  h ^= h >> 16;
  return h;
}

int hashing_ref_init(hashing_ref_table *table, size_t capacity, hashing_ref_home home) {
  table->capacity = capacity;
  table->home = home;
  table->keys = malloc(capacity * sizeof *table->keys);
  table->values = malloc(capacity * sizeof *table->values);
  if (table->keys == NULL || table->values == NULL) {
    hashing_ref_free(table);
    return -1;
  }
  for (size_t i = 0; i < capacity; ++i) {
    table->keys[i] = HASHING_REF_EMPTY;
    table->values[i] = HASHING_REF_NOT_FOUND;
  }
  return 0;
}

void hashing_ref_free(hashing_ref_table *table) {
  free(table->keys);
  free(table->values);
  table->keys = NULL;
  table->values = NULL;
  table->capacity = 0;
}

static size_t home_slot(const hashing_ref_table *table, uint32_t key) {
  uint32_t h = table->home == HASHING_REF_HOME_FMIX32 ? hashing_ref_fmix32(key) : key;
  return h % table->capacity;
}

int hashing_ref_insert(hashing_ref_table *table, uint32_t key, uint32_t value, uint64_t *probes) {
  size_t slot = home_slot(table, key);
  for (size_t probe = 1; probe <= table->capacity; ++probe) {
    if (table->keys[slot] == HASHING_REF_EMPTY) {
      table->keys[slot] = key;
      table->values[slot] = value;
      if (probes != NULL) *probes = probe;
      return 1;
    }
    if (table->keys[slot] == key) {
      if (probes != NULL) *probes = probe;
      return 0;
    }
    slot = slot + 1 == table->capacity ? 0 : slot + 1;
  }
  if (probes != NULL) *probes = table->capacity;
  return -1;
}

uint32_t hashing_ref_find(const hashing_ref_table *table, uint32_t key, uint64_t *probes) {
  size_t slot = home_slot(table, key);
  for (size_t probe = 1; probe <= table->capacity; ++probe) {
    if (table->keys[slot] == key) {
      if (probes != NULL) *probes = probe;
      return table->values[slot];
    }
    if (table->keys[slot] == HASHING_REF_EMPTY) {
      if (probes != NULL) *probes = probe;
      return HASHING_REF_NOT_FOUND;
    }
    slot = slot + 1 == table->capacity ? 0 : slot + 1;
  }
  if (probes != NULL) *probes = table->capacity;
  return HASHING_REF_NOT_FOUND;
}
