// GPU tests of the hashing lab: every step builds a table and finds keys in it, checked against
// the CPU reference (labs/hashing/hashing_reference.c) on fresh seeded keys.
//
// Names: HashingStep<N>.<case>, one suite a step (the rubric selects a step's tests by
// HashingStep<N>.*), HashingApi.* for the given argument checks (no points).
#include <algorithm>
#include <cstdint>
#include <climits>
#include <cstring>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gltest.h"

extern "C" {
#include "hashing.h"
#include "hashing_reference.h"
}

namespace {

// Output elements after n that a find must leave alone (they hold the poison value).
const size_t kGuard = 37;

std::string Hex(uint64_t x) {
  std::ostringstream s;
  s << "0x" << std::hex << x;
  return s.str();
}

std::string Where(hashing_step step, size_t n, size_t capacity) {
  return std::string("step ") + hashing_step_name(step) + ", n = " + std::to_string(n) +
         ", capacity = " + std::to_string(capacity) + ", seed " + Hex(gl::Seed());
}

// n distinct keys, none of them the reserved key, from `seed`.
std::vector<uint32_t> UniqueKeys(size_t n, uint64_t seed) {
  gl_rng rng;
  gl_rng_seed(&rng, seed);
  std::unordered_set<uint32_t> seen;
  seen.reserve(2 * n);
  std::vector<uint32_t> keys;
  keys.reserve(n);
  while (keys.size() < n) {
    const uint32_t key = (uint32_t)gl_rng_next(&rng);
    if (key != HASHING_EMPTY_KEY && seen.insert(key).second) keys.push_back(key);
  }
  return keys;
}

// n values, none of them HASHING_NOT_FOUND (so a found value is never taken for a miss).
std::vector<uint32_t> Values(size_t n, uint64_t seed) {
  gl_rng rng;
  gl_rng_seed(&rng, seed);
  std::vector<uint32_t> values(n);
  for (uint32_t &v : values) v = (uint32_t)gl_rng_below(&rng, HASHING_NOT_FOUND);
  return values;
}

// n keys not in `present` (and not the reserved key).
std::vector<uint32_t> AbsentKeys(size_t n, const std::vector<uint32_t> &present, uint64_t seed) {
  std::unordered_set<uint32_t> in(present.begin(), present.end());
  gl_rng rng;
  gl_rng_seed(&rng, seed);
  std::vector<uint32_t> keys;
  while (keys.size() < n) {
    const uint32_t key = (uint32_t)gl_rng_next(&rng);
    if (key != HASHING_EMPTY_KEY && in.count(key) == 0) keys.push_back(key);
  }
  return keys;
}

// Builds the table with `step` from host arrays; the build's status.
gl_status Build(hashing_step step, const std::vector<uint32_t> &keys,
                const std::vector<uint32_t> &values, size_t capacity,
                hashing_stats *stats = nullptr) {
  gl::DeviceBuffer<uint32_t> d_keys(keys), d_values(values);
  gl_clear_error();
  return hashing_build(step, d_keys.get(), d_values.get(), keys.size(), capacity, stats);
}

// Finds `queries` with `step` in a poisoned output of n + kGuard elements; checks the guard and
// returns the n answers in *got.
::testing::AssertionResult Find(hashing_step step, const std::vector<uint32_t> &queries,
                                std::vector<uint32_t> *got, hashing_stats *stats = nullptr) {
  const size_t n = queries.size();
  gl::DeviceBuffer<uint32_t> d_queries(queries), d_out(n + kGuard);
  d_out.Poison();
  gl_clear_error();
  const gl_status status = hashing_find(step, d_queries.get(), d_out.get(), n, stats);
  if (status != GL_OK) {
    return ::testing::AssertionFailure() << "hashing_find(" << hashing_step_name(step) << ", n = "
                                         << n << ") returned " << gl_status_name(status) << ": "
                                         << gl_last_error();
  }
  if (!gl::DeviceOk("hashing_find")) return ::testing::AssertionFailure() << "the GPU failed";
  *got = d_out.Download();
  for (size_t i = n; i < got->size(); ++i) {
    if ((*got)[i] != GL_POISON_U32) {
      return ::testing::AssertionFailure() << "hashing_find wrote past the end: element n + "
                                           << (i - n) << " (n = " << n << ") changed; seed "
                                           << Hex(gl::Seed());
    }
  }
  got->resize(n);
  if (d_queries.Download() != queries) {
    return ::testing::AssertionFailure() << "hashing_find changed its input keys";
  }
  return ::testing::AssertionSuccess();
}

// Checks finds against what was inserted: a present key answers one of the values it may answer
// (Inserted: one it was inserted with, or step 6's sum), the same one every time it is asked; an
// absent key HASHING_NOT_FOUND.
::testing::AssertionResult CheckAnswers(
    const std::vector<uint32_t> &queries, const std::vector<uint32_t> &got,
    const std::unordered_map<uint32_t, std::unordered_set<uint32_t>> &inserted,
    const std::string &where) {
  std::unordered_map<uint32_t, uint32_t> first;
  for (size_t i = 0; i < queries.size(); ++i) {
    const uint32_t key = queries[i];
    auto it = inserted.find(key);
    if (it == inserted.end()) {
      if (got[i] != HASHING_NOT_FOUND) {
        return ::testing::AssertionFailure()
               << "first mismatch at index " << i << ": key " << Hex(key) << " was never "
               << "inserted, yet the find answered " << Hex(got[i]) << " (not HASHING_NOT_FOUND); "
               << where;
      }
      continue;
    }
    if (it->second.count(got[i]) == 0) {
      return ::testing::AssertionFailure()
             << "first mismatch at index " << i << ": key " << Hex(key) << " answered "
             << Hex(got[i])
             << (where.find("6-count") != std::string::npos
                     ? ", which is not the sum of the values it was inserted with"
                     : ", which is not a value it was inserted with")
             << (got[i] == HASHING_NOT_FOUND ? " (HASHING_NOT_FOUND: the key was lost)" : "")
             << "; " << where;
    }
    auto f = first.emplace(key, got[i]);
    if (f.first->second != got[i]) {
      return ::testing::AssertionFailure()
             << "key " << Hex(key) << " answered " << Hex(f.first->second) << " and later "
             << Hex(got[i]) << " (index " << i << "): a key must keep one entry; " << where;
    }
  }
  return ::testing::AssertionSuccess();
}

// What each inserted key may answer: any value it was inserted with, or for step 6 (counting
// by key) only the sum of them, modulo 2^32.
std::unordered_map<uint32_t, std::unordered_set<uint32_t>> Inserted(
    hashing_step step, const std::vector<uint32_t> &keys, const std::vector<uint32_t> &values) {
  std::unordered_map<uint32_t, std::unordered_set<uint32_t>> map;
  map.reserve(keys.size());
  if (step == HASHING_STEP_COUNT) {
    std::unordered_map<uint32_t, uint32_t> sums;
    for (size_t i = 0; i < keys.size(); ++i) sums[keys[i]] += values[i];
    for (const auto &kv : sums) map[kv.first].insert(kv.second);
    return map;
  }
  for (size_t i = 0; i < keys.size(); ++i) map[keys[i]].insert(values[i]);
  return map;
}

// Builds a table of n unique keys at `load_factor`, then finds every key (in reverse order) and
// `misses` absent ones (n of them by default; in a full table each walks every slot).
void CheckUnique(hashing_step step, size_t n, double load_factor, uint64_t label,
                 size_t misses = SIZE_MAX) {
  const size_t capacity = hashing_capacity(step, n, load_factor);
  const std::string where = Where(step, n, capacity);
  SCOPED_TRACE(where);
  ASSERT_GT(capacity, 0u);
  const std::vector<uint32_t> keys = UniqueKeys(n, gl::SeedFor(3 * label));
  const std::vector<uint32_t> values = Values(n, gl::SeedFor(3 * label + 1));
  GL_ASSERT_OK(Build(step, keys, values, capacity));
  std::vector<uint32_t> queries(keys.rbegin(), keys.rend());
  const std::vector<uint32_t> absent =
      AbsentKeys(std::min(n, misses), keys, gl::SeedFor(3 * label + 2));
  queries.insert(queries.end(), absent.begin(), absent.end());
  std::vector<uint32_t> got;
  ASSERT_TRUE(Find(step, queries, &got));
  EXPECT_TRUE(CheckAnswers(queries, got, Inserted(step, keys, values), where));
}

void CheckSizes(hashing_step step) {
  for (size_t n : gl::StandardSizes(100003)) {
    CheckUnique(step, n, 0.5, ((uint64_t)step << 40) ^ n);
    if (::testing::Test::HasFailure()) return;
  }
}

void CheckLarge(hashing_step step) {
  for (size_t n : gl::CapSizes({((size_t)1 << 22) + 3})) {
    CheckUnique(step, n, 0.5, ((uint64_t)step << 40) ^ n ^ 0x1000);
  }
}

void CheckHighLoad(hashing_step step) {
  for (double load : {0.8, 0.95, 1.0}) {
    for (size_t n : gl::CapSizes({1000, 4096, 65536})) {
      // Steps 2-6 round the capacity up to a power of two: size n to fill it as asked.
      const size_t capacity = hashing_capacity(step, n, 1.0);
      const size_t m = (size_t)(load * (double)capacity);
      CheckUnique(step, m, load, ((uint64_t)step << 40) ^ m ^ ((uint64_t)(load * 100) << 32),
                  load < 1.0 ? SIZE_MAX : 16);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// n keys drawn from `distinct` keys (each inserted about n / distinct times with different
// values) into a table of exactly `distinct` slots: a key that took two slots overflows it.
void CheckDuplicates(hashing_step step, size_t n, size_t distinct, uint64_t label) {
  const std::string where = Where(step, n, distinct);
  SCOPED_TRACE(where);
  const std::vector<uint32_t> pool = UniqueKeys(distinct, gl::SeedFor(3 * label));
  gl_rng rng;
  gl_rng_seed(&rng, gl::SeedFor(3 * label + 1));
  std::vector<uint32_t> keys(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i] = i < distinct ? pool[i] : pool[gl_rng_below(&rng, distinct)];
  }
  const std::vector<uint32_t> values = Values(n, gl::SeedFor(3 * label + 2));
  GL_ASSERT_OK(Build(step, keys, values, distinct));
  std::vector<uint32_t> queries = keys;
  const std::vector<uint32_t> absent = AbsentKeys(64, pool, gl::SeedFor(3 * label + 3));
  queries.insert(queries.end(), absent.begin(), absent.end());
  std::vector<uint32_t> got;
  ASSERT_TRUE(Find(step, queries, &got));
  EXPECT_TRUE(CheckAnswers(queries, got, Inserted(step, keys, values), where));
}

// A key whose home slot (steps 2-6: whose hash modulo capacity) is `home`: the j-th of them.
uint32_t KeyAtHome(hashing_step step, size_t capacity, size_t home, size_t j) {
  const uint32_t h = (uint32_t)(home + j * capacity);
  return step == HASHING_STEP_LINEAR ? h : hashing_ref_unfmix32(h);
}

// `count` keys that all start probing at the same slot (or bucket), at the end of the table so
// that their run wraps around, plus a few spread keys; every one must be found.
void CheckCollisions(hashing_step step, size_t capacity, size_t count, uint64_t label) {
  const std::string where = Where(step, count, capacity);
  SCOPED_TRACE(where);
  std::vector<uint32_t> keys;
  for (size_t j = 0; keys.size() < count; ++j) {
    const uint32_t key = KeyAtHome(step, capacity, capacity - 2, j);
    if (key != HASHING_EMPTY_KEY) keys.push_back(key);
  }
  ASSERT_EQ(std::unordered_set<uint32_t>(keys.begin(), keys.end()).size(), count);
  const std::vector<uint32_t> values = Values(count, gl::SeedFor(label));
  GL_ASSERT_OK(Build(step, keys, values, capacity));
  std::vector<uint32_t> queries = keys;
  // Absent keys with the same home: each must walk the whole run to its end.
  for (size_t j = 0; queries.size() < 2 * count; ++j) {
    const uint32_t key = KeyAtHome(step, capacity, capacity - 2, count + 7 + j);
    if (key != HASHING_EMPTY_KEY) queries.push_back(key);
  }
  std::vector<uint32_t> got;
  ASSERT_TRUE(Find(step, queries, &got));
  EXPECT_TRUE(CheckAnswers(queries, got, Inserted(step, keys, values), where));
}

// More distinct keys than slots: an error that says the table is full, never a hang; and a
// table of exactly as many keys as slots (load 1) still works.
void CheckFull(hashing_step step) {
  for (size_t capacity : {(size_t)4, (size_t)64, (size_t)1024}) {
    const std::string where = Where(step, capacity + 1, capacity);
    SCOPED_TRACE(where);
    const uint64_t label = ((uint64_t)step << 40) ^ capacity;
    const std::vector<uint32_t> keys = UniqueKeys(capacity + 1, gl::SeedFor(2 * label));
    const std::vector<uint32_t> values = Values(capacity + 1, gl::SeedFor(2 * label + 1));
    const gl_status status = Build(step, keys, values, capacity);
    EXPECT_EQ(status, GL_ERR_SIZE) << "a table of " << capacity << " slots took "
                                   << capacity + 1 << " distinct keys: " << gl_status_name(status)
                                   << " " << gl_last_error();
    if (status == GL_ERR_SIZE) {
      EXPECT_NE(std::string(gl_last_error()).find("full"), std::string::npos) << gl_last_error();
    }
    // Four times too many keys, all with one home: also an error, and soon.
    std::vector<uint32_t> crowd;
    for (size_t j = 0; crowd.size() < 4 * capacity; ++j) {
      const uint32_t key = KeyAtHome(step, capacity, 1, j);
      if (key != HASHING_EMPTY_KEY) crowd.push_back(key);
    }
    EXPECT_EQ(Build(step, crowd, Values(crowd.size(), gl::SeedFor(2 * label + 2)), capacity),
              GL_ERR_SIZE) << gl_last_error();
    if (::testing::Test::HasFailure()) return;
    CheckUnique(step, capacity, 1.0, label ^ 0x5555, 16);
  }
}

// The reserved key is refused with a message naming its index, and nothing hangs.
void CheckReservedKey(hashing_step step) {
  std::vector<uint32_t> keys = UniqueKeys(1000, gl::SeedFor(((uint64_t)step << 40) ^ 77));
  keys[5] = HASHING_EMPTY_KEY;
  keys[900] = HASHING_EMPTY_KEY;
  const std::vector<uint32_t> values = Values(keys.size(), gl::SeedFor(78));
  const gl_status status = Build(step, keys, values, hashing_capacity(step, keys.size(), 0.5));
  ASSERT_EQ(status, GL_ERR_INVALID_ARGUMENT) << gl_status_name(status) << ": " << gl_last_error();
  EXPECT_NE(std::string(gl_last_error()).find("d_keys[5]"), std::string::npos) << gl_last_error();
  // A find of the reserved key in a good table answers HASHING_NOT_FOUND.
  keys[5] = keys[6] ^ 0x80000000u;
  keys[900] = keys[901] ^ 0x80000000u;
  const std::vector<uint32_t> unique_keys = UniqueKeys(1000, gl::SeedFor(79));
  GL_ASSERT_OK(Build(step, unique_keys, values, hashing_capacity(step, 1000, 0.5)));
  std::vector<uint32_t> got;
  ASSERT_TRUE(Find(step, {HASHING_EMPTY_KEY, unique_keys[3], HASHING_EMPTY_KEY}, &got));
  EXPECT_EQ(got, (std::vector<uint32_t>{HASHING_NOT_FOUND, values[3], HASHING_NOT_FOUND}));
}

}  // namespace

#define HASHING_STEP_TESTS(Suite, step)                                                     \
  class Suite : public GpuTest {};                                                          \
  TEST_F(Suite, UniqueKeysEverySize) { CheckSizes(step); }                                  \
  TEST_F(Suite, UniqueKeysLarge) { CheckLarge(step); }                                      \
  TEST_F(Suite, HighLoadFactors) { CheckHighLoad(step); }                                   \
  TEST_F(Suite, HeavyDuplicates) {                                                          \
    for (size_t n : gl::CapSizes({1024, 16384, (size_t)1 << 20})) {                         \
      CheckDuplicates(step, n, 1024, ((uint64_t)step << 40) ^ n);                           \
      if (HasFailure()) return;                                                             \
    }                                                                                       \
    CheckDuplicates(step, gl::CapSize(100000), 4, ((uint64_t)step << 40) ^ 4);              \
  }                                                                                         \
  TEST_F(Suite, KeysSharingAHomeSlot) {                                                     \
    CheckCollisions(step, 1024, 300, ((uint64_t)step << 40) ^ 300);                         \
    CheckCollisions(step, 64, 60, ((uint64_t)step << 40) ^ 60);                             \
  }                                                                                         \
  TEST_F(Suite, FullTableIsAnError) { CheckFull(step); }                                    \
  TEST_F(Suite, RejectsTheReservedKey) { CheckReservedKey(step); }

HASHING_STEP_TESTS(HashingStep1, HASHING_STEP_LINEAR)
HASHING_STEP_TESTS(HashingStep2, HASHING_STEP_PACKED)
HASHING_STEP_TESTS(HashingStep3, HASHING_STEP_COUNTED)
HASHING_STEP_TESTS(HashingStep4, HASHING_STEP_COOPERATIVE)
HASHING_STEP_TESTS(HashingStep5, HASHING_STEP_DOUBLE)
HASHING_STEP_TESTS(HashingStep6, HASHING_STEP_COUNT)

namespace {

// Step 3's probe counts against the reference's. Linear probing puts the same set of slots to
// use in any insertion order, and the total displacement of the keys does not depend on the
// order either; so, for unique keys, the total probes of the inserts, of the finds of present
// keys and of absent keys, and the longest miss, are exact whatever order the GPU took.
void CheckProbeCounts(size_t n, double load_factor, uint64_t label) {
  const hashing_step step = HASHING_STEP_COUNTED;
  const size_t capacity = hashing_capacity(step, n, load_factor);
  const std::string where = Where(step, n, capacity);
  SCOPED_TRACE(where);
  const std::vector<uint32_t> keys = UniqueKeys(n, gl::SeedFor(3 * label));
  const std::vector<uint32_t> values = Values(n, gl::SeedFor(3 * label + 1));
  const std::vector<uint32_t> absent = AbsentKeys(n, keys, gl::SeedFor(3 * label + 2));
  hashing_ref_table ref;
  ASSERT_EQ(hashing_ref_init(&ref, capacity, HASHING_REF_HOME_FMIX32), 0);
  uint64_t insert_probes = 0, hit_probes = 0, miss_probes = 0, longest_miss = 0, p = 0;
  for (size_t i = 0; i < n; ++i) {
    hashing_ref_insert(&ref, keys[i], values[i], &p);
    insert_probes += p;
  }
  for (size_t i = 0; i < n; ++i) {
    hashing_ref_find(&ref, keys[i], &p);
    hit_probes += p;
    hashing_ref_find(&ref, absent[i], &p);
    miss_probes += p;
    longest_miss = std::max(longest_miss, p);
  }
  hashing_ref_free(&ref);

  hashing_stats stats = {~0ull, ~0u, ~0u};
  GL_ASSERT_OK(Build(step, keys, values, capacity, &stats));
  EXPECT_EQ(stats.probes, insert_probes) << "the inserts' probes";
  EXPECT_GE(stats.max_probes, 1u);
  EXPECT_LE((uint64_t)stats.max_probes * n, capacity * n);
  EXPECT_GE((uint64_t)stats.max_probes * n, stats.probes);
  std::vector<uint32_t> got;
  stats = {~0ull, ~0u, ~0u};
  ASSERT_TRUE(Find(step, keys, &got, &stats));
  EXPECT_EQ(stats.probes, hit_probes) << "the finds' probes (present keys)";
  EXPECT_GE((uint64_t)stats.max_probes * n, stats.probes);
  stats = {~0ull, ~0u, ~0u};
  ASSERT_TRUE(Find(step, absent, &got, &stats));
  EXPECT_EQ(stats.probes, miss_probes) << "the finds' probes (absent keys)";
  EXPECT_EQ(stats.max_probes, longest_miss) << "the longest miss";
}

}  // namespace

TEST_F(HashingStep3, CountsProbes) {
  for (double load : {0.5, 0.9}) {
    for (size_t n : gl::CapSizes({1, 33, 1000, 100003, (size_t)1 << 20})) {
      CheckProbeCounts(n, load, ((uint64_t)(load * 100) << 40) ^ n);
      if (HasFailure()) return;
    }
  }
}

class HashingApi : public GpuTest {};

TEST_F(HashingApi, NamesTheSteps) {
  EXPECT_STREQ(hashing_step_name(HASHING_STEP_LINEAR), "1-linear");
  EXPECT_STREQ(hashing_step_name(HASHING_STEP_PACKED), "2-packed");
  EXPECT_STREQ(hashing_step_name(HASHING_STEP_COUNTED), "3-counted");
  EXPECT_STREQ(hashing_step_name(HASHING_STEP_COOPERATIVE), "4-cooperative");
  EXPECT_STREQ(hashing_step_name(HASHING_STEP_DOUBLE), "5-double");
  EXPECT_STREQ(hashing_step_name(HASHING_STEP_COUNT), "6-count");
  EXPECT_STREQ(hashing_step_name((hashing_step)0), "unknown");
}

TEST_F(HashingApi, ChoosesCapacities) {
  EXPECT_EQ(hashing_capacity(HASHING_STEP_LINEAR, 1000, 0.5), 2000u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_LINEAR, 1000, 0.3), 3334u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_LINEAR, 0, 0.5), 1u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_PACKED, 1000, 0.5), 2048u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_COOPERATIVE, 1024, 1.0), 1024u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_COOPERATIVE, 1, 1.0), 4u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_DOUBLE, 1025, 1.0), 2048u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_PACKED, 1000, 0.0), 0u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_PACKED, 1000, 1.5), 0u);
  EXPECT_EQ(hashing_capacity((hashing_step)9, 1000, 0.5), 0u);
  EXPECT_EQ(hashing_capacity(HASHING_STEP_PACKED, HASHING_MAX_N + 1, 0.5), 0u);
}

TEST_F(HashingApi, RejectsBadArguments) {
  gl::DeviceBuffer<uint32_t> d(8);
  const hashing_step s = HASHING_STEP_PACKED;
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, hashing_build(s, nullptr, d.get(), 4, 16, nullptr));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, hashing_build(s, d.get(), nullptr, 4, 16, nullptr));
  GL_EXPECT_STATUS(GL_ERR_SIZE, hashing_build(s, d.get(), d.get(), HASHING_MAX_N + 1, 16, nullptr));
  GL_EXPECT_STATUS(GL_ERR_SIZE, hashing_build(s, d.get(), d.get(), 4, 0, nullptr));
  GL_EXPECT_STATUS(GL_ERR_SIZE,
                   hashing_build(s, d.get(), d.get(), 4, HASHING_MAX_CAPACITY * 2, nullptr));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, hashing_build(s, d.get(), d.get(), 4, 24, nullptr));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, hashing_build(s, d.get(), d.get(), 1, 2, nullptr));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   hashing_build((hashing_step)0, d.get(), d.get(), 4, 16, nullptr));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   hashing_find((hashing_step)7, d.get(), d.get(), 4, nullptr));
  // An empty table of any step needs no step code: the find checks follow.
  GL_EXPECT_OK(hashing_build(s, nullptr, nullptr, 0, 16, nullptr));
  GL_EXPECT_OK(hashing_find(s, nullptr, nullptr, 0, nullptr));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, hashing_find(s, nullptr, d.get(), 4, nullptr));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, hashing_find(s, d.get(), nullptr, 4, nullptr));
  GL_EXPECT_STATUS(GL_ERR_SIZE, hashing_find(s, d.get(), d.get(), HASHING_MAX_N + 1, nullptr));
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   hashing_find(HASHING_STEP_LINEAR, d.get(), d.get(), 4, nullptr));
  EXPECT_NE(std::string(gl_last_error()).find("built by step 2-packed"), std::string::npos)
      << gl_last_error();
  hashing_release();
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT, hashing_find(s, d.get(), d.get(), 4, nullptr));
  EXPECT_NE(std::string(gl_last_error()).find("hashing_build first"), std::string::npos)
      << gl_last_error();
}
