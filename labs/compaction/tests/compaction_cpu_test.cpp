// Tests of the compaction lab's CPU reference (step 1): known answers, the thesis's worked split
// example, edge cases, and the two CPU compactions against each other on random inputs.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "compaction_reference.h"
}

namespace {

const double kKeepRatios[] = {0.0, 0.01, 0.5, 0.99, 1.0};

// Values the rule keeps with probability `ratio`: for GL_KEEP_NONZERO, zeros and non-zeros; for
// GL_KEEP_BELOW, uniform values and a threshold at that quantile (returned in *threshold).
std::vector<int> MakeValues(size_t n, double ratio, gl_keep_rule rule, uint64_t label,
                            int *threshold) {
  std::vector<int> values(n);
  const int lo = -(1 << 20), hi = (1 << 20) - 1;
  gl_fill_int(values.data(), n, lo, hi, GL_DIST_UNIFORM, gl::SeedFor(label));
  if (rule == GL_KEEP_NONZERO) {
    std::vector<int> flags(n);
    gl_fill_flags(flags.data(), n, ratio, gl::SeedFor(label + 1));
    for (size_t i = 0; i < n; ++i) values[i] = flags[i] ? (values[i] == 0 ? 1 : values[i]) : 0;
    *threshold = 0;
  } else {
    *threshold = lo + (int)(ratio * ((double)hi - lo + 1));
  }
  return values;
}

std::string Describe(size_t n, double ratio, gl_keep_rule rule, int threshold) {
  return "n = " + std::to_string(n) + ", keep ratio " + std::to_string(ratio) + ", rule " +
         (rule == GL_KEEP_NONZERO ? "nonzero" : "below " + std::to_string(threshold));
}

}  // namespace

TEST(CompactionCpu, KeepRules) {
  EXPECT_EQ(gl_ref_keeps(GL_KEEP_NONZERO, 123, 0), 0);
  EXPECT_EQ(gl_ref_keeps(GL_KEEP_NONZERO, 123, -7), 1);
  EXPECT_EQ(gl_ref_keeps(GL_KEEP_NONZERO, 0, INT_MIN), 1);
  EXPECT_EQ(gl_ref_keeps(GL_KEEP_BELOW, 5, 4), 1);
  EXPECT_EQ(gl_ref_keeps(GL_KEEP_BELOW, 5, 5), 0);
  EXPECT_EQ(gl_ref_keeps(GL_KEEP_BELOW, INT_MIN, INT_MIN), 0) << "nothing is below INT_MIN";
  EXPECT_EQ(gl_ref_keeps(GL_KEEP_BELOW, INT_MAX, INT_MAX - 1), 1);
}

TEST(CompactionCpu, KnownAnswers) {
  const std::vector<int> in = {0, 5, 0, -3, 7, 0, 0, 1};
  std::vector<int> out(in.size(), -99), flags(in.size()), offsets(in.size());

  ASSERT_EQ(gl_ref_compact_loop(in.data(), in.size(), GL_KEEP_NONZERO, 0, out.data()), 4u);
  EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + 4), (std::vector<int>{5, -3, 7, 1}));

  std::fill(out.begin(), out.end(), -99);
  ASSERT_EQ(gl_ref_compact_scan(in.data(), in.size(), GL_KEEP_NONZERO, 0, out.data(),
                                flags.data(), offsets.data()),
            4u);
  EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + 4), (std::vector<int>{5, -3, 7, 1}));
  EXPECT_EQ(flags, (std::vector<int>{0, 1, 0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(offsets, (std::vector<int>{0, 0, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(out[4], -99) << "the scan version must write only out[0, count)";

  std::fill(out.begin(), out.end(), -99);
  ASSERT_EQ(gl_ref_compact_loop(in.data(), in.size(), GL_KEEP_BELOW, 1, out.data()), 5u);
  EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + 5), (std::vector<int>{0, 0, -3, 0, 0}));

  ASSERT_EQ(gl_ref_split(in.data(), in.size(), GL_KEEP_NONZERO, 0, out.data()), 4u);
  EXPECT_EQ(out, (std::vector<int>{5, -3, 7, 1, 0, 0, 0, 0}));
  ASSERT_EQ(gl_ref_split(in.data(), in.size(), GL_KEEP_BELOW, 1, out.data()), 5u);
  EXPECT_EQ(out, (std::vector<int>{0, 0, -3, 0, 0, 5, 7, 1}));
}

// The kd-tree example of the thesis: triangles t0..t5 with sides r l r l l r (l = 1) go to
// t1 t3 t4 t0 t2 t5, through prefix = exclusive scan of the sides, nf = 3,
// right = i - prefix + nf and address = side ? prefix : right.
TEST(CompactionCpu, WorkedSplitExampleFromTheThesis) {
  const std::vector<int> side = {0, 1, 0, 1, 1, 0};
  std::vector<int> prefix(6), address(6);
  ASSERT_EQ(gl_ref_split_addresses(side.data(), side.size(), prefix.data(), address.data()), 3u);
  EXPECT_EQ(prefix, (std::vector<int>{0, 0, 1, 1, 2, 3}));
  EXPECT_EQ(address, (std::vector<int>{3, 0, 4, 1, 2, 5}));
  std::vector<int> right(6);
  for (size_t i = 0; i < 6; ++i) right[i] = (int)i - prefix[i] + 3;
  EXPECT_EQ(right, (std::vector<int>{3, 4, 4, 5, 5, 5}));

  const std::vector<int> triangle = {0, 1, 2, 3, 4, 5};
  std::vector<int> side_out(6), triangle_out(6);
  ASSERT_EQ(gl_ref_split_pairs(side.data(), triangle.data(), 6, GL_KEEP_NONZERO, 0,
                               side_out.data(), triangle_out.data()),
            3u);
  EXPECT_EQ(triangle_out, (std::vector<int>{1, 3, 4, 0, 2, 5}));
  EXPECT_EQ(side_out, (std::vector<int>{1, 1, 1, 0, 0, 0}));
}

TEST(CompactionCpu, EmptyAndSingleElement) {
  EXPECT_EQ(gl_ref_compact_loop(nullptr, 0, GL_KEEP_NONZERO, 0, nullptr), 0u);
  EXPECT_EQ(gl_ref_compact_scan(nullptr, 0, GL_KEEP_NONZERO, 0, nullptr, nullptr, nullptr), 0u);
  EXPECT_EQ(gl_ref_split(nullptr, 0, GL_KEEP_BELOW, 3, nullptr), 0u);
  EXPECT_EQ(gl_ref_split_addresses(nullptr, 0, nullptr, nullptr), 0u);
  EXPECT_EQ(gl_ref_split_pairs(nullptr, nullptr, 0, GL_KEEP_NONZERO, 0, nullptr, nullptr), 0u);

  int kept = 42, dropped = 0, out = -1, flag = -1, offset = -1;
  EXPECT_EQ(gl_ref_compact_loop(&kept, 1, GL_KEEP_NONZERO, 0, &out), 1u);
  EXPECT_EQ(out, 42);
  out = -1;
  EXPECT_EQ(gl_ref_compact_scan(&dropped, 1, GL_KEEP_NONZERO, 0, &out, &flag, &offset), 0u);
  EXPECT_EQ(out, -1) << "nothing kept: nothing written";
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(offset, 0);
}

TEST(CompactionCpu, ThresholdExtremes) {
  const std::vector<int> in = {INT_MIN, -1, 0, 1, INT_MAX};
  std::vector<int> out(in.size());
  EXPECT_EQ(gl_ref_compact_loop(in.data(), in.size(), GL_KEEP_BELOW, INT_MIN, out.data()), 0u);
  EXPECT_EQ(gl_ref_compact_loop(in.data(), in.size(), GL_KEEP_BELOW, INT_MAX, out.data()), 4u);
  EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + 4), (std::vector<int>{INT_MIN, -1, 0, 1}));
  EXPECT_EQ(gl_ref_compact_loop(in.data(), in.size(), GL_KEEP_NONZERO, 0, out.data()), 4u);
  EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + 4),
            (std::vector<int>{INT_MIN, -1, 1, INT_MAX}));
}

// Step 1a and step 1b must agree everywhere; the scan's scratch must hold the map and the scan.
TEST(CompactionCpu, LoopAndScanAgreeOnRandomInputs) {
  uint64_t label = 100;
  for (size_t n : gl::StandardSizes((size_t)1 << 20)) {
    for (double ratio : kKeepRatios) {
      for (gl_keep_rule rule : {GL_KEEP_NONZERO, GL_KEEP_BELOW}) {
        int threshold = 0;
        std::vector<int> in = MakeValues(n, ratio, rule, label += 2, &threshold);
        SCOPED_TRACE(Describe(n, ratio, rule, threshold));
        std::vector<int> by_loop(n, GL_POISON_I32), by_scan(n, GL_POISON_I32), flags(n), offsets(n);
        size_t count = gl_ref_compact_loop(in.data(), n, rule, threshold, by_loop.data());
        ASSERT_EQ(gl_ref_compact_scan(in.data(), n, rule, threshold, by_scan.data(), flags.data(),
                                      offsets.data()),
                  count);
        ASSERT_TRUE(gl::ArraysEqual(by_loop, by_scan));
        size_t expected_count = 0;
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(flags[i], gl_ref_keeps(rule, threshold, in[i])) << "flag " << i;
          ASSERT_EQ(offsets[i], (int)expected_count) << "offset " << i;
          expected_count += (size_t)flags[i];
        }
        ASSERT_EQ(count, expected_count);
        if (ratio == 0.0) {
          ASSERT_EQ(count, 0u);
        }
        if (ratio == 1.0) {
          ASSERT_EQ(count, n);
        }
        for (size_t i = count; i < n; ++i) ASSERT_EQ(by_loop[i], GL_POISON_I32) << "index " << i;
      }
    }
  }
}

// The split is the compaction of the kept elements followed by the compaction of the others.
TEST(CompactionCpu, SplitIsTwoStableCompactions) {
  uint64_t label = 5000;
  for (size_t n : gl::StandardSizes((size_t)1 << 20)) {
    for (double ratio : kKeepRatios) {
      for (gl_keep_rule rule : {GL_KEEP_NONZERO, GL_KEEP_BELOW}) {
        int threshold = 0;
        std::vector<int> in = MakeValues(n, ratio, rule, label += 2, &threshold);
        SCOPED_TRACE(Describe(n, ratio, rule, threshold));
        std::vector<int> expected;
        for (int x : in) {
          if (gl_ref_keeps(rule, threshold, x)) expected.push_back(x);
        }
        size_t kept = expected.size();
        for (int x : in) {
          if (!gl_ref_keeps(rule, threshold, x)) expected.push_back(x);
        }
        std::vector<int> out(n, GL_POISON_I32);
        ASSERT_EQ(gl_ref_split(in.data(), n, rule, threshold, out.data()), kept);
        ASSERT_TRUE(gl::ArraysEqual(expected, out));

        // Pairs: values are the input positions, so both halves must come out increasing.
        std::vector<int> positions(n), keys_out(n), positions_out(n);
        for (size_t i = 0; i < n; ++i) positions[i] = (int)i;
        ASSERT_EQ(gl_ref_split_pairs(in.data(), positions.data(), n, rule, threshold,
                                     keys_out.data(), positions_out.data()),
                  kept);
        ASSERT_TRUE(gl::ArraysEqual(expected, keys_out));
        for (size_t j = 0; j < n; ++j) {
          ASSERT_EQ(keys_out[j], in[(size_t)positions_out[j]]) << "value " << j << " left its key";
          if (j > 0 && j != kept) {
            ASSERT_LT(positions_out[j - 1], positions_out[j]) << "unstable at " << j;
          }
        }

        // The thesis's addresses give the same split.
        std::vector<int> side(n), prefix(n), address(n), by_address(n);
        for (size_t i = 0; i < n; ++i) side[i] = gl_ref_keeps(rule, threshold, in[i]);
        ASSERT_EQ(gl_ref_split_addresses(side.data(), n, prefix.data(), address.data()), kept);
        for (size_t i = 0; i < n; ++i) by_address[(size_t)address[i]] = in[i];
        ASSERT_TRUE(gl::ArraysEqual(expected, by_address));
      }
    }
  }
}
