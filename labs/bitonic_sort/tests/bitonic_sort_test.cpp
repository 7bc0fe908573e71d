// Correctness tests of the bitonic_sort lab: every step, block size, order and key shape, keys
// alone and key-value pairs. Labels: bitonic_sort;correctness;gpu.
//
// Names: BitonicSortStep<N>.* for step N (the rubric selects them by that pattern), and
// BitonicSortApi.* for argument checks (no points). Each case loops over its sizes, both orders
// and every key distribution; inputs are fresh seeded draws (replay with GPULABS_SEED).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "gltest.h"

#include "bitonic_sort.h"

namespace {

const gl_dist kDists[] = {GL_DIST_UNIFORM, GL_DIST_SORTED, GL_DIST_REVERSED, GL_DIST_ALL_EQUAL,
                          GL_DIST_FEW_UNIQUE};
const bitonic_order kOrders[] = {BITONIC_ASCENDING, BITONIC_DESCENDING};

// Words past n that the sort must never touch (it is in place and must not write padding).
const size_t kGuard = 64;

// The sizes a step is tested on: the standard ones up to 2^20, and the edges of its tile (the
// keys one block sorts in shared memory or registers) where the global layers begin.
std::vector<size_t> SizesAround(size_t tile) {
  std::vector<size_t> sizes = gl::StandardSizes((size_t)1 << 20);
  for (size_t n : {tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1, 4 * tile + 3}) {
    sizes.push_back(n);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// The tile of each step, from the handout: step 2 has none (its block edges are used),
// step 3 sorts 2 * block_size keys per block, steps 4 and 5 fixed shapes.
size_t TileOf(bitonic_step step, int block_size, bool pairs) {
  if (step == BITONIC_STEP_WINDOWS) {
    return pairs ? BITONIC_STEP5_BLOCK_PAIRS : BITONIC_STEP5_BLOCK_KEYS;
  }
  if (step == BITONIC_STEP_REGISTERS) {
    return 16 * (size_t)(pairs ? BITONIC_STEP4_THREADS_PAIRS : BITONIC_STEP4_THREADS_KEYS);
  }
  int threads = block_size != 0 ? block_size : (step == BITONIC_STEP_GLOBAL ? 256 : 512);
  return 2 * (size_t)threads;
}

// The expected order, by a byte-wise LSD radix sort (four counting passes): a comparison sort
// of every expected array would be most of these tests' CPU time.
std::vector<uint32_t> Sorted(std::vector<uint32_t> keys, bitonic_order order) {
  std::vector<uint32_t> other(keys.size());
  for (int shift = 0; shift < 32; shift += 8) {
    size_t start[257] = {0};
    for (uint32_t k : keys) ++start[((k >> shift) & 255u) + 1];
    for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
    for (uint32_t k : keys) other[start[(k >> shift) & 255u]++] = k;
    keys.swap(other);
  }
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  if (order == BITONIC_DESCENDING) std::reverse(keys.begin(), keys.end());
  return keys;
}

std::string Describe(bitonic_step step, int block_size, size_t n, bitonic_order order,
                     gl_dist dist) {
  return std::string("step ") + bitonic_step_name(step) + ", block_size " +
         std::to_string(block_size) + ", n = " + std::to_string(n) + ", " +
         (order == BITONIC_DESCENDING ? "descending" : "ascending") + ", " + gl_dist_name(dist) +
         " keys";
}

uint64_t Label(bitonic_step step, int block_size, size_t n, bitonic_order order, gl_dist dist,
               bool pairs) {
  return (((((uint64_t)step * 2048 + (uint64_t)block_size) * 4 + (uint64_t)order) * 8 +
           (uint64_t)dist) * 2 + (pairs ? 1 : 0)) * 0x100000000ull + n;
}

// The words past n must still hold the poison value.
::testing::AssertionResult GuardUntouched(const std::vector<uint32_t> &all, size_t n) {
  for (size_t i = n; i < all.size(); ++i) {
    if (all[i] != GL_POISON_U32) {
      return ::testing::AssertionFailure()
             << "index " << i << " past n = " << n << " was written (holds " << all[i]
             << "); the sort must stay inside d_keys[0 .. n-1]; seed 0x" << std::hex << gl::Seed();
    }
  }
  return ::testing::AssertionSuccess();
}

void CheckKeys(bitonic_step step, int block_size, size_t n, bitonic_order order, gl_dist dist) {
  SCOPED_TRACE(Describe(step, block_size, n, order, dist));
  std::vector<uint32_t> keys(n);
  gl_fill_u32(keys.data(), n, dist, gl::SeedFor(Label(step, block_size, n, order, dist, false)));
  gl::DeviceBuffer<uint32_t> d_keys(n + kGuard);
  gl::CopyToDevice(d_keys.get(), keys.data(), n * sizeof(uint32_t));
  GL_ASSERT_OK(bitonic_sort_keys(step, order, d_keys.get(), n, block_size));
  GL_ASSERT_DEVICE_OK("bitonic_sort_keys");
  std::vector<uint32_t> all = d_keys.Download();
  ASSERT_TRUE(GuardUntouched(all, n));
  all.resize(n);
  ASSERT_TRUE(gl::ArraysEqual(Sorted(keys, order), all));
}

// Values are the original indices: after the sort, looking each value up in the input must give
// back the key beside it, and the values must still be a permutation. No stability is asked for.
void CheckPairs(bitonic_step step, int block_size, size_t n, bitonic_order order, gl_dist dist) {
  SCOPED_TRACE(Describe(step, block_size, n, order, dist) + ", key-value pairs");
  std::vector<uint32_t> keys(n), values(n);
  gl_fill_u32(keys.data(), n, dist, gl::SeedFor(Label(step, block_size, n, order, dist, true)));
  std::iota(values.begin(), values.end(), 0u);
  gl::DeviceBuffer<uint32_t> d_keys(n + kGuard), d_values(n + kGuard);
  gl::CopyToDevice(d_keys.get(), keys.data(), n * sizeof(uint32_t));
  gl::CopyToDevice(d_values.get(), values.data(), n * sizeof(uint32_t));
  GL_ASSERT_OK(bitonic_sort_pairs(step, order, d_keys.get(), d_values.get(), n, block_size));
  GL_ASSERT_DEVICE_OK("bitonic_sort_pairs");
  std::vector<uint32_t> got_keys = d_keys.Download(), got_values = d_values.Download();
  ASSERT_TRUE(GuardUntouched(got_keys, n)) << " (keys)";
  ASSERT_TRUE(GuardUntouched(got_values, n)) << " (values)";
  got_keys.resize(n);
  got_values.resize(n);
  ASSERT_TRUE(gl::ArraysEqual(Sorted(keys, order), got_keys)) << " (keys)";
  std::vector<uint32_t> key_of_value(n);
  for (size_t i = 0; i < n; ++i) {
    key_of_value[i] = got_values[i] < n ? keys[got_values[i]] : ~got_keys[i];
  }
  ASSERT_TRUE(gl::ArraysEqual(got_keys, key_of_value))
      << " (a value no longer sits beside its key: 'expected' is the key at that index, 'got' "
         "the original key of the value there)";
  // Each of 0 .. n-1 exactly once (n values below n, none twice): no sort needed.
  std::vector<bool> seen(n, false);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = got_values[i];
    ASSERT_TRUE(v < n && !seen[v])
        << "values lost or duplicated: index " << i << " holds " << v
        << (v < n ? ", which an earlier index holds too" : ", not an index of the input")
        << "; seed 0x" << std::hex << gl::Seed();
    seen[v] = true;
  }
}

void SweepKeys(bitonic_step step, int block_size) {
  for (size_t n : SizesAround(TileOf(step, block_size, false))) {
    for (bitonic_order order : kOrders) {
      for (gl_dist dist : kDists) {
        CheckKeys(step, block_size, n, order, dist);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

void SweepPairs(bitonic_step step, int block_size) {
  for (size_t n : SizesAround(TileOf(step, block_size, true))) {
    for (bitonic_order order : kOrders) {
      for (gl_dist dist : kDists) {
        CheckPairs(step, block_size, n, order, dist);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// The large sizes of the fixed-shape steps (4 and 5): 2^24 keys ascending, then 2^24 - 5
// descending with few unique keys; pairs at 2^24 - 5.
void CheckLargeKeys(bitonic_step step) {
  CheckKeys(step, 0, gl::CapSize((size_t)1 << 24), BITONIC_ASCENDING, GL_DIST_UNIFORM);
  if (::testing::Test::HasFatalFailure()) return;
  CheckKeys(step, 0, gl::CapSize(((size_t)1 << 24) - 5), BITONIC_DESCENDING, GL_DIST_FEW_UNIQUE);
}
void CheckLargePairs(bitonic_step step) {
  CheckPairs(step, 0, gl::CapSize(((size_t)1 << 24) - 5), BITONIC_DESCENDING, GL_DIST_UNIFORM);
}

}  // namespace

class BitonicSortStep2 : public GpuTest {};
class BitonicSortStep3 : public GpuTest {};
class BitonicSortStep4 : public GpuTest {};
class BitonicSortStep5 : public GpuTest {};

// ---- Step 2: one launch per layer; every block size ----
TEST_F(BitonicSortStep2, KeysDefaultBlock) { SweepKeys(BITONIC_STEP_GLOBAL, 0); }
TEST_F(BitonicSortStep2, KeysBlock32) { SweepKeys(BITONIC_STEP_GLOBAL, 32); }
TEST_F(BitonicSortStep2, KeysBlock64) { SweepKeys(BITONIC_STEP_GLOBAL, 64); }
TEST_F(BitonicSortStep2, KeysBlock128) { SweepKeys(BITONIC_STEP_GLOBAL, 128); }
TEST_F(BitonicSortStep2, KeysBlock256) { SweepKeys(BITONIC_STEP_GLOBAL, 256); }
TEST_F(BitonicSortStep2, KeysBlock512) { SweepKeys(BITONIC_STEP_GLOBAL, 512); }
TEST_F(BitonicSortStep2, KeysBlock1024) { SweepKeys(BITONIC_STEP_GLOBAL, 1024); }
TEST_F(BitonicSortStep2, PairsBlock32) { SweepPairs(BITONIC_STEP_GLOBAL, 32); }
TEST_F(BitonicSortStep2, PairsBlock256) { SweepPairs(BITONIC_STEP_GLOBAL, 256); }
TEST_F(BitonicSortStep2, PairsBlock1024) { SweepPairs(BITONIC_STEP_GLOBAL, 1024); }

// ---- Step 3: shared-memory tiles of 2 * block_size keys; every block size ----
TEST_F(BitonicSortStep3, KeysDefaultBlock) { SweepKeys(BITONIC_STEP_SHARED, 0); }
TEST_F(BitonicSortStep3, KeysBlock32) { SweepKeys(BITONIC_STEP_SHARED, 32); }
TEST_F(BitonicSortStep3, KeysBlock64) { SweepKeys(BITONIC_STEP_SHARED, 64); }
TEST_F(BitonicSortStep3, KeysBlock128) { SweepKeys(BITONIC_STEP_SHARED, 128); }
TEST_F(BitonicSortStep3, KeysBlock256) { SweepKeys(BITONIC_STEP_SHARED, 256); }
TEST_F(BitonicSortStep3, KeysBlock512) { SweepKeys(BITONIC_STEP_SHARED, 512); }
TEST_F(BitonicSortStep3, KeysBlock1024) { SweepKeys(BITONIC_STEP_SHARED, 1024); }
TEST_F(BitonicSortStep3, PairsBlock32) { SweepPairs(BITONIC_STEP_SHARED, 32); }
TEST_F(BitonicSortStep3, PairsBlock64) { SweepPairs(BITONIC_STEP_SHARED, 64); }
TEST_F(BitonicSortStep3, PairsBlock128) { SweepPairs(BITONIC_STEP_SHARED, 128); }
TEST_F(BitonicSortStep3, PairsBlock256) { SweepPairs(BITONIC_STEP_SHARED, 256); }
TEST_F(BitonicSortStep3, PairsBlock512) { SweepPairs(BITONIC_STEP_SHARED, 512); }
TEST_F(BitonicSortStep3, PairsBlock1024) { SweepPairs(BITONIC_STEP_SHARED, 1024); }
TEST_F(BitonicSortStep3, LargeKeys) {
  CheckKeys(BITONIC_STEP_SHARED, 0, gl::CapSize((size_t)1 << 24), BITONIC_ASCENDING, GL_DIST_UNIFORM);
}

// ---- Step 4: registers and shuffles, fixed shapes ----
TEST_F(BitonicSortStep4, Keys) { SweepKeys(BITONIC_STEP_REGISTERS, 0); }
TEST_F(BitonicSortStep4, Pairs) { SweepPairs(BITONIC_STEP_REGISTERS, 0); }
TEST_F(BitonicSortStep4, LargeKeys) { CheckLargeKeys(BITONIC_STEP_REGISTERS); }
TEST_F(BitonicSortStep4, LargePairs) { CheckLargePairs(BITONIC_STEP_REGISTERS); }

// ---- Step 5 (bonus): windows of layers in blocks of 2^14 keys, fixed shapes ----
TEST_F(BitonicSortStep5, Keys) { SweepKeys(BITONIC_STEP_WINDOWS, 0); }
TEST_F(BitonicSortStep5, Pairs) { SweepPairs(BITONIC_STEP_WINDOWS, 0); }
// Every size whose network has a different number of windows, up to 2^20 (capped on the CPU
// backend): the plan changes shape with log2(n), and 2^k + 1 runs the network of 2^(k+1).
TEST_F(BitonicSortStep5, EveryPowerOfTwo) {
  std::vector<size_t> sizes;
  for (size_t k = 1; k <= 20; ++k) {
    for (size_t n : {((size_t)1 << k) - 1, ((size_t)1 << k) + 1}) {
      n = gl::CapSize(n);
      if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
    }
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    CheckKeys(BITONIC_STEP_WINDOWS, 0, sizes[i], i % 2 ? BITONIC_DESCENDING : BITONIC_ASCENDING,
              GL_DIST_UNIFORM);
    if (HasFatalFailure()) return;
  }
}
TEST_F(BitonicSortStep5, LargeKeys) { CheckLargeKeys(BITONIC_STEP_WINDOWS); }
TEST_F(BitonicSortStep5, LargePairs) { CheckLargePairs(BITONIC_STEP_WINDOWS); }

// ---- Argument checks (no points; they pass on the stub too) ----
TEST(BitonicSortApi, StepNames) {
  EXPECT_STREQ(bitonic_step_name(BITONIC_STEP_GLOBAL), "2-global");
  EXPECT_STREQ(bitonic_step_name(BITONIC_STEP_SHARED), "3-shared");
  EXPECT_STREQ(bitonic_step_name(BITONIC_STEP_REGISTERS), "4-registers");
  EXPECT_STREQ(bitonic_step_name(BITONIC_STEP_WINDOWS), "5-windows");
  EXPECT_STREQ(bitonic_step_name((bitonic_step)7), "unknown");
}

// These are rejected before any CUDA call, so they need no GPU (the pointer is never used).
TEST(BitonicSortApi, RejectsBadArguments) {
  uint32_t *fake = reinterpret_cast<uint32_t *>(0x1000);
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, bitonic_sort_keys(BITONIC_STEP_GLOBAL, BITONIC_ASCENDING, nullptr, 10, 0));
  EXPECT_NE(std::string(gl_last_error()).find("d_keys"), std::string::npos) << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, bitonic_sort_pairs(BITONIC_STEP_SHARED, BITONIC_ASCENDING, fake, nullptr, 10, 0));
  EXPECT_NE(std::string(gl_last_error()).find("d_values"), std::string::npos) << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_SIZE, bitonic_sort_keys(BITONIC_STEP_REGISTERS, BITONIC_ASCENDING, fake, BITONIC_MAX_N + 1, 0));
  EXPECT_NE(std::string(gl_last_error()).find("BITONIC_MAX_N"), std::string::npos) << gl_last_error();
  for (int bad : {-1, 16, 48, 100, 2048}) {
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, bitonic_sort_keys(BITONIC_STEP_GLOBAL, BITONIC_ASCENDING, fake, 10, bad));
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, bitonic_sort_pairs(BITONIC_STEP_SHARED, BITONIC_ASCENDING, fake, fake, 10, bad));
    EXPECT_NE(std::string(gl_last_error()).find("block_size"), std::string::npos) << gl_last_error();
  }
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, bitonic_sort_keys(BITONIC_STEP_REGISTERS, BITONIC_ASCENDING, fake, 10, 256));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, bitonic_sort_pairs(BITONIC_STEP_WINDOWS, BITONIC_ASCENDING, fake, fake, 10, 512));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, bitonic_sort_keys((bitonic_step)1, BITONIC_ASCENDING, fake, 10, 0));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, bitonic_sort_keys((bitonic_step)6, BITONIC_ASCENDING, fake, 10, 0));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, bitonic_sort_keys(BITONIC_STEP_GLOBAL, (bitonic_order)2, fake, 10, 0));
  EXPECT_NE(std::string(gl_last_error()).find("order"), std::string::npos) << gl_last_error();
}

class BitonicSortApiGpu : public GpuTest {};

// n = 0 touches nothing; n = 1 leaves the one pair as it was.
TEST_F(BitonicSortApiGpu, EmptyAndSingleElement) {
  for (int s = BITONIC_FIRST_STEP; s <= BITONIC_LAST_STEP; ++s) {
    bitonic_step step = (bitonic_step)s;
    gl::DeviceBuffer<uint32_t> keys(kGuard), values(kGuard);
    GL_ASSERT_OK(bitonic_sort_keys(step, BITONIC_ASCENDING, keys.get(), 0, 0));
    GL_ASSERT_OK(bitonic_sort_pairs(step, BITONIC_DESCENDING, keys.get(), values.get(), 0, 0));
    GL_ASSERT_DEVICE_OK("an empty sort");
    ASSERT_TRUE(GuardUntouched(keys.Download(), 0));
    ASSERT_TRUE(GuardUntouched(values.Download(), 0));
    std::vector<uint32_t> one = {42}, seven = {7};
    gl::CopyToDevice(keys.get(), one.data(), sizeof(uint32_t));
    gl::CopyToDevice(values.get(), seven.data(), sizeof(uint32_t));
    GL_ASSERT_OK(bitonic_sort_pairs(step, BITONIC_ASCENDING, keys.get(), values.get(), 1, 0));
    GL_ASSERT_DEVICE_OK("a sort of one pair");
    std::vector<uint32_t> k = keys.Download(), v = values.Download();
    EXPECT_EQ(k[0], 42u) << bitonic_step_name(step);
    EXPECT_EQ(v[0], 7u) << bitonic_step_name(step);
    ASSERT_TRUE(GuardUntouched(k, 1));
  }
}
