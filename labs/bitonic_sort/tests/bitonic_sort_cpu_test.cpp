// Tests of the bitonic_sort lab's CPU reference (step 1): the seed's recursive program and the
// iterative flip-form network the GPU steps run. Labels: bitonic_sort;correctness;cpu.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "bitonic_sort_reference.h"
}

namespace {

const gl_dist kDists[] = {GL_DIST_UNIFORM, GL_DIST_SORTED, GL_DIST_REVERSED, GL_DIST_ALL_EQUAL,
                          GL_DIST_FEW_UNIQUE};

std::vector<uint32_t> Sorted(std::vector<uint32_t> keys, int descending) {
  if (descending) {
    std::sort(keys.begin(), keys.end(), std::greater<uint32_t>());
  } else {
    std::sort(keys.begin(), keys.end());
  }
  return keys;
}

std::string Case(size_t n, int descending, gl_dist dist) {
  return "n = " + std::to_string(n) + (descending ? ", descending, " : ", ascending, ") +
         gl_dist_name(dist) + " keys";
}

// Keys that include both sentinels, so a padding key ties with real ones.
std::vector<uint32_t> KeysWithSentinels(size_t n, uint64_t seed) {
  std::vector<uint32_t> keys(n);
  gl_fill_u32(keys.data(), n, GL_DIST_UNIFORM, seed);
  for (size_t i = 0; i < n; i += 3) keys[i] = (i % 2 == 0) ? UINT32_MAX : 0u;
  return keys;
}

}  // namespace

TEST(BitonicSortCpu, NextPow2AndLayerCounts) {
  EXPECT_EQ(bitonic_ref_next_pow2(0), 1u);
  EXPECT_EQ(bitonic_ref_next_pow2(1), 1u);
  EXPECT_EQ(bitonic_ref_next_pow2(2), 2u);
  EXPECT_EQ(bitonic_ref_next_pow2(3), 4u);
  EXPECT_EQ(bitonic_ref_next_pow2(1025), 2048u);
  EXPECT_EQ(bitonic_ref_next_pow2((size_t)1 << 30), (size_t)1 << 30);
  EXPECT_EQ(bitonic_ref_layer_count(0), 0u);
  EXPECT_EQ(bitonic_ref_layer_count(1), 0u);
  EXPECT_EQ(bitonic_ref_layer_count(2), 1u);
  EXPECT_EQ(bitonic_ref_layer_count(8), 6u);
  EXPECT_EQ(bitonic_ref_layer_count((size_t)1 << 24), 300u) << "24 * 25 / 2 launches in step 2";
}

TEST(BitonicSortCpu, ComparatorCountsMatchTheNetwork) {
  EXPECT_EQ(bitonic_ref_comparator_count(0), 0u);
  EXPECT_EQ(bitonic_ref_comparator_count(1), 0u);
  EXPECT_EQ(bitonic_ref_comparator_count(2), 1u);
  // Three keys: the virtual fourth position removes every comparator that touches it, leaving
  // the optimal 3-comparator network (0,1) (1,2) (0,1).
  EXPECT_EQ(bitonic_ref_comparator_count(3), 3u);
  EXPECT_EQ(bitonic_ref_comparator_count(8), 24u) << "the 8-wire figure of the handout";
  for (unsigned k = 1; k <= 12; ++k) {
    uint64_t n = (uint64_t)1 << k;
    EXPECT_EQ(bitonic_ref_comparator_count((size_t)n), n / 2 * k * (k + 1) / 2) << "n = 2^" << k;
  }
  // Fewer comparators than the padded power of two, never more.
  EXPECT_LT(bitonic_ref_comparator_count(1025), bitonic_ref_comparator_count(2048));
}

TEST(BitonicSortCpu, SeedExampleFourDescendingNumbers) {
  // The seed's small network sorts a > b > c > d into ascending order.
  std::vector<uint32_t> keys = {40, 30, 20, 10};
  GL_ASSERT_OK(bitonic_ref_sort_recursive(keys.data(), keys.size(), 0));
  EXPECT_EQ(keys, (std::vector<uint32_t>{10, 20, 30, 40}));
  keys = {40, 30, 20, 10};
  bitonic_ref_sort_iterative(keys.data(), nullptr, keys.size(), 0);
  EXPECT_EQ(keys, (std::vector<uint32_t>{10, 20, 30, 40}));
  std::vector<uint32_t> eight = {3, 7, 4, 8, 6, 2, 1, 5};
  bitonic_ref_sort_iterative(eight.data(), nullptr, eight.size(), 1);
  EXPECT_EQ(eight, (std::vector<uint32_t>{8, 7, 6, 5, 4, 3, 2, 1}));
}

TEST(BitonicSortCpu, RecursiveSortsPowersOfTwo) {
  for (unsigned k = 0; k <= 16; ++k) {
    size_t n = (size_t)1 << k;
    for (int descending = 0; descending <= 1; ++descending) {
      for (gl_dist dist : kDists) {
        std::vector<uint32_t> keys(n);
        gl_fill_u32(keys.data(), n, dist, gl::SeedFor(1000 * k + 10 * descending + dist));
        std::vector<uint32_t> expected = Sorted(keys, descending);
        GL_ASSERT_OK(bitonic_ref_sort_recursive(keys.data(), n, descending));
        ASSERT_TRUE(gl::ArraysEqual(expected, keys)) << Case(n, descending, dist);
      }
    }
  }
}

TEST(BitonicSortCpu, RecursivePadsOtherSizes) {
  for (size_t n : gl::StandardSizes(100003)) {
    for (int descending = 0; descending <= 1; ++descending) {
      std::vector<uint32_t> keys = KeysWithSentinels(n, gl::SeedFor(2 * n + descending));
      std::vector<uint32_t> expected = Sorted(keys, descending);
      GL_ASSERT_OK(bitonic_ref_sort_recursive(keys.data(), n, descending));
      ASSERT_TRUE(gl::ArraysEqual(expected, keys))
          << "n = " << n << (descending ? ", descending" : ", ascending")
          << ", keys include 0 and UINT32_MAX";
    }
  }
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, bitonic_ref_sort_recursive(nullptr, 5, 0));
  GL_EXPECT_OK(bitonic_ref_sort_recursive(nullptr, 0, 0));
}

TEST(BitonicSortCpu, IterativeSortsAnySize) {
  std::vector<size_t> sizes = gl::StandardSizes(100003);
  sizes.push_back(5000);  // between powers of two, far from both
  for (size_t n : sizes) {
    for (int descending = 0; descending <= 1; ++descending) {
      for (gl_dist dist : kDists) {
        std::vector<uint32_t> keys(n);
        gl_fill_u32(keys.data(), n, dist, gl::SeedFor(7 * n + 3 * descending + dist));
        std::vector<uint32_t> expected = Sorted(keys, descending);
        bitonic_ref_sort_iterative(keys.data(), nullptr, n, descending);
        ASSERT_TRUE(gl::ArraysEqual(expected, keys)) << Case(n, descending, dist);
      }
    }
  }
  for (int descending = 0; descending <= 1; ++descending) {
    const size_t n = ((size_t)1 << 20) + 3;
    std::vector<uint32_t> keys = KeysWithSentinels(n, gl::SeedFor(99 + descending));
    std::vector<uint32_t> expected = Sorted(keys, descending);
    bitonic_ref_sort_iterative(keys.data(), nullptr, n, descending);
    ASSERT_TRUE(gl::ArraysEqual(expected, keys)) << "n = 2^20 + 3, keys include 0 and UINT32_MAX";
  }
}

// The 0-1 principle: a comparator network that sorts every sequence of 0s and 1s sorts every
// sequence. Trying all 2^n binary inputs therefore proves the iterative network (with its
// skipped comparators past n) correct for each of these n, not only for the inputs drawn.
TEST(BitonicSortCpu, ZeroOnePrincipleProvesTheNetworkUpTo16) {
  for (size_t n = 1; n <= 16; ++n) {
    std::vector<uint32_t> keys(n);
    for (int descending = 0; descending <= 1; ++descending) {
      for (uint32_t bits = 0; bits < (1u << n); ++bits) {
        for (size_t i = 0; i < n; ++i) keys[i] = (bits >> i) & 1u;
        bitonic_ref_sort_iterative(keys.data(), nullptr, n, descending);
        size_t ones = (size_t)__builtin_popcount(bits);
        for (size_t i = 0; i < n; ++i) {
          uint32_t want = descending ? (i < ones ? 1u : 0u) : (i < n - ones ? 0u : 1u);
          ASSERT_EQ(keys[i], want) << "n = " << n << ", input bits 0x" << std::hex << bits
                                   << std::dec << ", index " << i
                                   << (descending ? ", descending" : ", ascending");
        }
      }
    }
  }
}

TEST(BitonicSortCpu, IterativePairsKeepTheirPairing) {
  std::vector<size_t> sizes = gl::StandardSizes(65537);
  for (size_t n : sizes) {
    for (int descending = 0; descending <= 1; ++descending) {
      for (gl_dist dist : kDists) {
        std::vector<uint32_t> keys(n), values(n);
        gl_fill_u32(keys.data(), n, dist, gl::SeedFor(11 * n + 5 * descending + dist));
        std::iota(values.begin(), values.end(), 0u);
        const std::vector<uint32_t> original = keys;
        bitonic_ref_sort_iterative(keys.data(), values.data(), n, descending);
        ASSERT_TRUE(gl::ArraysEqual(Sorted(original, descending), keys)) << Case(n, descending, dist);
        // Each value is the original index of its key: looking it up must give the key back.
        std::vector<uint32_t> looked_up(n);
        for (size_t i = 0; i < n; ++i) looked_up[i] = values[i] < n ? original[values[i]] : ~keys[i];
        ASSERT_TRUE(gl::ArraysEqual(keys, looked_up))
            << "a value was separated from its key; " << Case(n, descending, dist);
        std::vector<uint32_t> sorted_values = values, identity(n);
        std::sort(sorted_values.begin(), sorted_values.end());
        std::iota(identity.begin(), identity.end(), 0u);
        ASSERT_TRUE(gl::ArraysEqual(identity, sorted_values))
            << "values lost or duplicated; " << Case(n, descending, dist);
        if (dist == GL_DIST_ALL_EQUAL) {
          // Strict comparisons: equal keys are never exchanged, so nothing moves at all.
          ASSERT_TRUE(gl::ArraysEqual(identity, values)) << "equal keys were exchanged; " << Case(n, descending, dist);
        }
      }
    }
  }
}

TEST(BitonicSortCpu, RecursiveAndIterativeAgree) {
  for (size_t n : {(size_t)1 << 10, (size_t)1000, (size_t)4099}) {
    std::vector<uint32_t> a(n);
    gl_fill_u32(a.data(), n, GL_DIST_FEW_UNIQUE, gl::SeedFor(n));
    std::vector<uint32_t> b = a;
    GL_ASSERT_OK(bitonic_ref_sort_recursive(a.data(), n, 1));
    bitonic_ref_sort_iterative(b.data(), nullptr, n, 1);
    ASSERT_TRUE(gl::ArraysEqual(a, b)) << "n = " << n;
  }
}
