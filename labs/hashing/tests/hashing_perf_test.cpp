// Performance tests of the hashing lab: the best step's inserts and finds at load factor 0.5,
// n = 2^26 distinct keys, against the GPU's own limits for random access measured in the same
// process (hashing_yardstick.h) and against the sort-based lookup:
//   insert_vs_cas    the yardstick's time for n random 4-byte atomicCAS (its table emptied first,
//                    as a build empties its slots) / the best step's hashing_build time
//   find_vs_gather   the yardstick's time for n random 8-byte gathers / the best step's
//                    hashing_find time (every key present)
//   find_vs_sorted   a binary search of n keys in CUB's sort of the pairs / the same find time
// Every call is sealed (grader/shim/sealed_timing.h): a build gets n keys nobody has seen
// (distinct, drawn on the GPU from the call's seed) and is checked by finding every key
// afterwards; a find gets the keys of a fresh table in an order drawn for the call, and its
// answers and the guard past them are checked against the values the draw gave. The table a
// find reads is the lab's: the find's draw builds it with the same step (untimed) before it
// draws the queries, the timed input, which the lab has not seen. The tests assert correctness
// only; the grader reads the ratios (GPULABS_METRIC lines) and scores them by the rubric.
#include <cstdint>
#include <string>
#include <vector>

#include "gltest.h"
#include "sealed_timing.h"

extern "C" {
#include "hashing.h"
#include "hashing_yardstick.h"
}

namespace {

using gl::sealed_detail::Printf;
using gl::sealed_detail::SeedText;

const size_t kN = gl::CapSize((size_t)1 << 26);
const double kLoad = 0.5;
const int kWarmup = 2, kReps = 5;
const double kGiveUp = 2.0;  // a step whose warm-ups take twice the best so far is not timed on

const hashing_step kSteps[] = {HASHING_STEP_LINEAR, HASHING_STEP_PACKED, HASHING_STEP_COUNTED,
                               HASHING_STEP_COOPERATIVE, HASHING_STEP_DOUBLE};

std::string Ms(double ms) { return Printf("%.4f", ms); }

// What every call's draw makes: n fresh distinct keys with their values (value i for key i),
// and queries for a find with the values expected.
struct HashInputs {
  gl::DeviceBuffer<uint32_t> keys, values, queries, expected;
  HashInputs() : keys(kN), values(kN), queries(kN), expected(kN, gl::kPrivate) {}
  gl_status DrawKeys(uint64_t seed) {
    return hashing_yardstick_draw(keys.get(), values.get(), nullptr, kN, seed);
  }
  gl_status DrawQueries(uint64_t seed) {
    return hashing_yardstick_queries(keys.get(), queries.get(), expected.get(), kN,
                                     seed ^ 0x9e3779b97f4a7c15ull);
  }
};

gl::SealedOutput Answers(const gl::DeviceBuffer<uint32_t> &out, const HashInputs &in) {
  gl::SealedOutput o;
  o.what = "the values found";
  o.device = out.get();
  o.bytes = out.size() * sizeof(uint32_t);
  o.is_signed = false;
  o.expected = in.expected.get();
  o.count = kN;
  return o;
}

// After a build: every key of the table found with its value (untimed).
std::string CheckTable(hashing_step step, HashInputs &in, gl::DeviceBuffer<uint32_t> &out,
                       uint64_t seed) {
  if (in.DrawQueries(seed) != GL_OK) return std::string("drawing queries: ") + gl_last_error();
  out.Poison();
  if (hashing_find(step, in.queries.get(), out.get(), kN, nullptr) != GL_OK) {
    return std::string("finding the keys after the build: ") + gl_last_error();
  }
  gl_sealed_mismatch m;
  if (gl_sealed_compare(in.expected.get(), out.get(), kN, 0, 4, &m) != GL_OK) {
    return std::string("comparing: ") + gl_last_error();
  }
  if (m.count == 0) return "";
  return Printf("after the build, hashing_find's answer %llu was 0x%08llx, not 0x%08llx (the "
                    "value the key was inserted with); %s", m.first, m.got, m.want,
                    SeedText().c_str());
}

class HashingPerf : public GpuTest {
 protected:
  void TearDown() override {
    hashing_release();
    hashing_yardstick_release();
  }
};

TEST_F(HashingPerf, InsertsAndFindsAgainstTheGpusLimits) {
  HashInputs in;
  gl::DeviceBuffer<uint32_t> out(gl::WithGuard<uint32_t>(kN));
  gl::DeviceBuffer<uint32_t> yard_out(gl::WithGuard<uint32_t>(kN), gl::kPrivate);
  // The limits' table: 2n words of 8 bytes (1 GiB at n = 2^26), far past any L2, as the lab's
  // table at load 0.5.
  size_t slots = 1;
  while (slots < 2 * kN) slots *= 2;
  GL_ASSERT_OK(hashing_yardstick_prepare(slots));

  // The limits.
  gl::SealedSide cas;
  cas.name = "random atomicCAS";
  cas.yardstick = true;
  cas.draw = [&](uint64_t seed) { return in.DrawKeys(seed); };
  cas.run = [&]() { return hashing_yardstick_cas(in.keys.get(), kN); };
  double cas_ms = 0;
  ASSERT_TRUE(gl::TimeSealed(cas, kWarmup, kReps, &cas_ms));
  gl::SealedSide gather;
  gather.name = "random 8-byte gathers";
  gather.yardstick = true;
  gather.draw = [&](uint64_t seed) { return in.DrawKeys(seed); };
  gather.run = [&]() { return hashing_yardstick_gather(in.keys.get(), yard_out.get(), kN); };
  double gather_ms = 0;
  ASSERT_TRUE(gl::TimeSealed(gather, kWarmup, kReps, &gather_ms));
  gl::SealedSide sorted;
  sorted.name = "binary search in CUB's sort";
  sorted.yardstick = true;
  sorted.draw = [&](uint64_t seed) {
    GL_TRY(in.DrawKeys(seed));
    GL_TRY(hashing_yardstick_sort_build(in.keys.get(), in.values.get(), kN));
    return in.DrawQueries(seed);
  };
  sorted.run = [&]() {
    return hashing_yardstick_sorted_find(in.queries.get(), yard_out.get(), kN);
  };
  sorted.outputs.push_back(Answers(yard_out, in));
  double sorted_ms = 0;
  ASSERT_TRUE(gl::TimeSealed(sorted, kWarmup, kReps, &sorted_ms));

  // The lab's builds: every step written, the fastest counts.
  std::vector<gl::SealedSide> builds, finds;
  for (hashing_step step : kSteps) {
    const size_t capacity = hashing_capacity(step, kN, kLoad);
    ASSERT_NE(capacity, 0u) << "hashing_capacity(" << hashing_step_name(step) << ")";
    gl::SealedSide b;
    b.name = std::string("hashing_build ") + hashing_step_name(step);
    b.draw = [&](uint64_t seed) { return in.DrawKeys(seed); };
    b.run = [&, step, capacity]() {
      return hashing_build(step, in.keys.get(), in.values.get(), kN, capacity, nullptr);
    };
    b.host_check = [&, step]() { return CheckTable(step, in, out, gl::Seed() ^ (uint64_t)step); };
    b.floor_bytes = 8.0 * (double)kN;  // each key and value read once
    builds.push_back(b);
  }
  gl::SealedFastest built;
  ASSERT_TRUE(gl::TimeFastest(builds, kWarmup, kReps, kGiveUp, &built));
  if (built.best < 0) {
    GTEST_FAIL() << "no step of hashing_build is written yet:" << built.not_written;
  }

  // The finds of the steps that build, on tables of fresh keys.
  std::vector<size_t> which;
  for (size_t i = 0; i < builds.size(); ++i) {
    if (built.ms[i] <= 0) continue;
    const hashing_step step = kSteps[i];
    const size_t capacity = hashing_capacity(step, kN, kLoad);
    gl::SealedSide f;
    f.name = std::string("hashing_find ") + hashing_step_name(step);
    f.draw = [&, step, capacity](uint64_t seed) {
      GL_TRY(in.DrawKeys(seed));
      GL_TRY(hashing_build(step, in.keys.get(), in.values.get(), kN, capacity, nullptr));
      return in.DrawQueries(seed);
    };
    f.run = [&, step]() { return hashing_find(step, in.queries.get(), out.get(), kN, nullptr); };
    f.outputs.push_back(Answers(out, in));
    f.floor_bytes = 8.0 * (double)kN;  // each query read, each answer written
    finds.push_back(f);
    which.push_back(i);
  }
  gl::SealedFastest found;
  ASSERT_TRUE(gl::TimeFastest(finds, kWarmup, kReps, kGiveUp, &found));
  ASSERT_GE(found.best, 0) << "no step's find is written:" << found.not_written;

  std::string steps;
  for (size_t i = 0; i < builds.size(); ++i) {
    steps += Printf(" %s_build_ms=%s", hashing_step_name(kSteps[i]), Ms(built.ms[i]).c_str());
  }
  for (size_t k = 0; k < finds.size(); ++k) {
    steps += Printf(" %s_find_ms=%s", hashing_step_name(kSteps[which[k]]),
                        Ms(found.ms[k]).c_str());
  }
  const double giga = (double)kN / 1e6;  // keys per ms -> G/s
  const std::string detail = Printf(
      "n=%zu load=%.2f best_build=%s %s ms (%.2f G/s) best_find=%s %s ms (%.2f G/s) "
      "cas=%s ms (%.2f G/s) gather=%s ms (%.2f G/s) sorted_find=%s ms (%.2f G/s);",
      kN, kLoad, hashing_step_name(kSteps[built.best]), Ms(built.best_ms).c_str(),
      giga / built.best_ms, hashing_step_name(kSteps[which[found.best]]),
      Ms(found.best_ms).c_str(), giga / found.best_ms, Ms(cas_ms).c_str(), giga / cas_ms,
      Ms(gather_ms).c_str(), giga / gather_ms, Ms(sorted_ms).c_str(), giga / sorted_ms);
  gl::ReportRatio("insert_vs_cas", cas_ms / built.best_ms, detail + steps);
  gl::ReportRatio("find_vs_gather", gather_ms / found.best_ms, detail);
  gl::ReportRatio("find_vs_sorted", sorted_ms / found.best_ms, detail);
}

}  // namespace
