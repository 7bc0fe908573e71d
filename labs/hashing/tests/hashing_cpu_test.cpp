// CPU tests of the hashing lab's reference: fmix32 and its inverse, insert-or-find, linear
// probing with wrap-around, a full table, probe counts.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

extern "C" {
#include "hashing_reference.h"
}

TEST(HashingReference, Fmix32IsMurmur3sFinalizer) {
  EXPECT_EQ(hashing_ref_fmix32(0), 0u);
  // Worked by hand from the five operations.
  uint32_t x = 1;
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  EXPECT_EQ(hashing_ref_fmix32(1), x);
  EXPECT_EQ(hashing_ref_fmix32(1), 0x514e28b7u);
}

TEST(HashingReference, Unfmix32UndoesFmix32) {
  uint32_t x = 12345;
  for (int i = 0; i < 100000; ++i) {
    ASSERT_EQ(hashing_ref_unfmix32(hashing_ref_fmix32(x)), x) << "x = " << x;
    ASSERT_EQ(hashing_ref_fmix32(hashing_ref_unfmix32(x)), x) << "x = " << x;
    x = x * 2654435761u + 0x9e3779b9u;
  }
  EXPECT_EQ(hashing_ref_unfmix32(hashing_ref_fmix32(0xFFFFFFFFu)), 0xFFFFFFFFu);
}

TEST(HashingReference, InsertsOrFinds) {
  hashing_ref_table t;
  ASSERT_EQ(hashing_ref_init(&t, 10, HASHING_REF_HOME_MODULO), 0);
  uint64_t probes = 0;
  EXPECT_EQ(hashing_ref_insert(&t, 3, 30, &probes), 1);
  EXPECT_EQ(probes, 1u);
  EXPECT_EQ(hashing_ref_insert(&t, 13, 130, &probes), 1); // home 3 is taken: slot 4
  EXPECT_EQ(probes, 2u);
  EXPECT_EQ(hashing_ref_insert(&t, 3, 31, &probes), 0); // present: keeps 30
  EXPECT_EQ(probes, 1u);
  EXPECT_EQ(hashing_ref_find(&t, 3, &probes), 30u);
  EXPECT_EQ(hashing_ref_find(&t, 13, &probes), 130u);
  EXPECT_EQ(probes, 2u);
  EXPECT_EQ(hashing_ref_find(&t, 23, &probes), HASHING_REF_NOT_FOUND); // slots 3, 4, 5
  EXPECT_EQ(probes, 3u);
  EXPECT_EQ(hashing_ref_find(&t, HASHING_REF_EMPTY, &probes), HASHING_REF_NOT_FOUND);
  hashing_ref_free(&t);
}

TEST(HashingReference, WrapsAroundAndFills) {
  hashing_ref_table t;
  ASSERT_EQ(hashing_ref_init(&t, 4, HASHING_REF_HOME_MODULO), 0);
  uint64_t probes = 0;
  EXPECT_EQ(hashing_ref_insert(&t, 3, 1, &probes), 1);
  EXPECT_EQ(hashing_ref_insert(&t, 7, 2, &probes), 1); // 3 taken: wraps to 0
  EXPECT_EQ(probes, 2u);
  EXPECT_EQ(t.keys[0], 7u);
  EXPECT_EQ(hashing_ref_insert(&t, 11, 3, &probes), 1);
  EXPECT_EQ(hashing_ref_insert(&t, 15, 4, &probes), 1);
  EXPECT_EQ(probes, 4u);
  EXPECT_EQ(hashing_ref_insert(&t, 19, 5, &probes), -1);
  EXPECT_EQ(probes, 4u);
  EXPECT_EQ(hashing_ref_insert(&t, 15, 6, &probes), 0); // present even when full
  EXPECT_EQ(hashing_ref_find(&t, 19, &probes), HASHING_REF_NOT_FOUND);
  EXPECT_EQ(probes, 4u);
  EXPECT_EQ(hashing_ref_find(&t, 15, &probes), 4u);
  hashing_ref_free(&t);
}

TEST(HashingReference, HashedHomeSlots) {
  hashing_ref_table t;
  ASSERT_EQ(hashing_ref_init(&t, 1024, HASHING_REF_HOME_FMIX32), 0);
  // Keys built from the inverse share home slot 17 and take slots 17, 18, 19, ...
  for (uint32_t j = 0; j < 5; ++j) {
    uint64_t probes = 0;
    const uint32_t key = hashing_ref_unfmix32(17 + j * 1024);
    EXPECT_EQ(hashing_ref_insert(&t, key, j, &probes), 1);
    EXPECT_EQ(probes, j + 1);
    EXPECT_EQ(t.keys[17 + j], key);
  }
  hashing_ref_free(&t);
}

TEST(HashingReference, TotalProbesDoNotDependOnOrder) {
  // The property step 3's tests rest on: linear probing's total displacement is the same in any
  // insertion order.
  std::vector<uint32_t> keys;
  for (uint32_t i = 0; i < 900; ++i) keys.push_back(hashing_ref_fmix32(i * 7919u + 1));
  uint64_t totals[2] = {0, 0};
  for (int order = 0; order < 2; ++order) {
    hashing_ref_table t;
    ASSERT_EQ(hashing_ref_init(&t, 1000, HASHING_REF_HOME_MODULO), 0);
    for (size_t i = 0; i < keys.size(); ++i) {
      uint64_t probes = 0;
      const uint32_t key = order == 0 ? keys[i] : keys[keys.size() - 1 - i];
      ASSERT_EQ(hashing_ref_insert(&t, key, 0, &probes), 1);
      totals[order] += probes;
    }
    hashing_ref_free(&t);
  }
  EXPECT_EQ(totals[0], totals[1]);
}
