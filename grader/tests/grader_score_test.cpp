// Tests of the grader's scoring rules (grader/src/score.c; the rules are in
// grader/rubric/README.md).
#include <cmath>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "score.h"
}

namespace {

// A list of test results built by hand, as CTest's would be.
class Results {
 public:
  Results() { tests_init(&tests_); }
  ~Results() { tests_free(&tests_); }
  Results(const Results &) = delete;
  Results &operator=(const Results &) = delete;

  Results &Add(const char *name, test_status status, const char *reason = nullptr) {
    if (tests_.count == tests_.cap) {
      tests_.cap = tests_.cap ? tests_.cap * 2 : 8;
      tests_.items = static_cast<test_result *>(xrealloc(tests_.items, tests_.cap * sizeof(test_result)));
    }
    test_result *t = &tests_.items[tests_.count++];
    *t = test_result{};
    t->name = xstrdup(name);
    t->status = status;
    t->seconds = 0.25;
    t->output = xstrdup("");
    t->reason = reason ? xstrdup(reason) : nullptr;
    t->excerpt = status == TEST_FAILED ? xstrdup("file.cpp:1: Failure\nthe excerpt\n") : nullptr;
    return *this;
  }
  Results &Metric(const char *name, double ratio) {
    test_result *t = &tests_.items[tests_.count - 1];
    t->metrics = static_cast<metric *>(xrealloc(t->metrics, (t->n_metrics + 1) * sizeof(metric)));
    t->metrics[t->n_metrics++] = metric{xstrdup(name), ratio, xstrdup("student 1 ms, CUB 0.9 ms")};
    return *this;
  }
  const test_list *get() const { return &tests_; }

 private:
  test_list tests_;
};

rubric_item Step(const char *id, double points, const char *tests) {
  rubric_item item{};
  item.kind = ITEM_STEP;
  item.id = const_cast<char *>(id);
  item.points = points;
  item.tests = const_cast<char *>(tests);
  item.source = const_cast<char *>("test.rubric:1");
  return item;
}

rubric_item Perf(double points, double target, double floor_ratio) {
  rubric_item item = Step("final-vs-cub", points, "ReductionPerf.*");
  item.kind = ITEM_PERF;
  item.metric = const_cast<char *>("final_vs_cub");
  item.target = target;
  item.floor = floor_ratio;
  return item;
}

// Scores one item and keeps the result for the checks.
struct Scored {
  item_result r;
  Scored(const rubric_item &item, const Results &results, score_context ctx) {
    score_item(&item, results.get(), &ctx, &r);
  }
  ~Scored() { item_result_free(&r); }
  Scored(const Scored &) = delete;
  Scored &operator=(const Scored &) = delete;
  std::string reason() const { return r.reason ? r.reason : ""; }
  std::string detail() const { return r.detail ? r.detail : ""; }
};

const score_context kGpu = {1, 0};
const score_context kNoGpu = {0, 0};
const score_context kCpuBackend = {0, 1};

}  // namespace

TEST(GraderScore, PerfPointsAreLinearBetweenFloorAndTarget) {
  rubric_item perf = Perf(20, 0.9, 0.5);
  EXPECT_DOUBLE_EQ(perf_points(&perf, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(perf_points(&perf, 0.5), 0.0) << "nothing at the floor";
  EXPECT_DOUBLE_EQ(perf_points(&perf, 0.6), 5.0);
  EXPECT_DOUBLE_EQ(perf_points(&perf, 0.7), 10.0);
  EXPECT_DOUBLE_EQ(perf_points(&perf, 0.9), 20.0) << "full points at the target";
  EXPECT_DOUBLE_EQ(perf_points(&perf, 3.0), 20.0) << "never more than the item's points";
  EXPECT_DOUBLE_EQ(perf_points(&perf, 0.7312), 11.56) << "rounded to 0.01";
  EXPECT_DOUBLE_EQ(perf_points(&perf, NAN), 0.0);
  EXPECT_DOUBLE_EQ(perf_points(&perf, INFINITY), 0.0);
  rubric_item from_zero = Perf(10, 1.0, 0.0);
  EXPECT_DOUBLE_EQ(perf_points(&from_zero, 0.25), 2.5);
}

TEST(GraderScore, AStepEarnsItsPointsWhenAllOfItsTestsPass) {
  Results results;
  results.Add("ReductionStep3.Sum/32", TEST_PASSED)
      .Add("ReductionStep3.Sum/1024", TEST_PASSED)
      .Add("ReductionStep4.Sum/32", TEST_FAILED, "not implemented: step 4");
  Scored s(Step("3-sequential", 10, "ReductionStep3.*"), results, kGpu);
  EXPECT_EQ(s.r.state, ITEM_PASSED);
  EXPECT_DOUBLE_EQ(s.r.score, 10.0);
  EXPECT_EQ(s.r.reason, nullptr);
  EXPECT_EQ(s.r.n_tests, 2u) << "step 4's test is not step 3's";
  EXPECT_NE(s.detail().find("passed   ReductionStep3.Sum/1024"), std::string::npos) << s.detail();
}

TEST(GraderScore, OneFailingTestCostsTheWholeStepAndSaysWhy) {
  Results results;
  results.Add("ReductionStep3.Sum/32", TEST_PASSED)
      .Add("ReductionStep3.Sum/33", TEST_FAILED, "first mismatch at index 32 of n = 33")
      .Add("ReductionStep3.Sum/1025", TEST_FAILED, "first mismatch at index 1024 of n = 1025");
  Scored s(Step("3-sequential", 10, "ReductionStep3.*"), results, kGpu);
  EXPECT_EQ(s.r.state, ITEM_FAILED);
  EXPECT_DOUBLE_EQ(s.r.score, 0.0);
  EXPECT_EQ(s.reason(),
            "ReductionStep3.Sum/33: first mismatch at index 32 of n = 33 (and 1 more failing tests)");
  EXPECT_EQ(s.r.n_failed, 2u);
  EXPECT_NE(s.detail().find("the excerpt"), std::string::npos)
      << "the detail shows the first failure's output: " << s.detail();
}

TEST(GraderScore, AStepThatMatchesNoTestEarnsNothing) {
  Results results;
  results.Add("ReductionStep3.Sum/32", TEST_PASSED);
  Scored s(Step("9-renamed", 10, "ReductionStep9.*"), results, kGpu);
  EXPECT_EQ(s.r.state, ITEM_FAILED);
  EXPECT_DOUBLE_EQ(s.r.score, 0.0);
  EXPECT_NE(s.reason().find("no test matches 'ReductionStep9.*'"), std::string::npos) << s.reason();
}

TEST(GraderScore, WithoutAGpuSkippedTestsLeaveTheItemNotScored) {
  Results results;
  results.Add("ReductionStep3.Sum/32", TEST_SKIPPED, "no CUDA device (cudaErrorNoDevice)")
      .Add("ReductionStep3.Sum/64", TEST_SKIPPED, "no CUDA device (cudaErrorNoDevice)");
  Scored s(Step("3-sequential", 10, "ReductionStep3.*"), results, kNoGpu);
  EXPECT_EQ(s.r.state, ITEM_NOT_RUN) << "neither zero nor full marks";
  EXPECT_DOUBLE_EQ(s.r.score, 0.0);
  EXPECT_EQ(s.reason(), "not run: needs a GPU (2 of 2 tests skipped)");
}

TEST(GraderScore, AFailureThatShowsWithoutAGpuStillCosts) {
  // A CPU test of the step failed: that is known without a GPU.
  Results results;
  results.Add("ReductionStep3.Sum/32", TEST_SKIPPED, "no CUDA device")
      .Add("ReductionStep3.CpuCheck", TEST_FAILED, "first mismatch at index 0");
  Scored s(Step("3-sequential", 10, "ReductionStep3.*"), results, kNoGpu);
  EXPECT_EQ(s.r.state, ITEM_FAILED);
}

TEST(GraderScore, ASkipOnAMachineWithAGpuLeavesTheItemNotScoredAndSaysWhy) {
  // A test may skip on a GPU for want of memory: no points either way, and the reason shows.
  Results results;
  results.Add("ReductionHuge.EveryStep", TEST_SKIPPED, "needs 8196 MiB of free GPU memory");
  Scored s(Step("n-near-2^32", 8, "ReductionHuge.*"), results, kGpu);
  EXPECT_EQ(s.r.state, ITEM_NOT_RUN);
  EXPECT_EQ(s.reason(), "not run: ReductionHuge.EveryStep skipped on this GPU (needs 8196 MiB of "
                        "free GPU memory)");
  Results mixed;
  mixed.Add("ReductionStep3.Sum/32", TEST_SKIPPED, "x").Add("ReductionStep3.Sum/64", TEST_FAILED, "y");
  Scored f(Step("3-sequential", 10, "ReductionStep3.*"), mixed, kGpu);
  EXPECT_EQ(f.r.state, ITEM_FAILED) << "a failure decides, whatever else skipped";
}

TEST(GraderScore, ATestCTestCouldNotRunLeavesTheItemNotScored) {
  Results results;
  results.Add("ReductionStep3.Sum/32", TEST_NOT_RUN, "CTest did not run it (Disabled)");
  Scored s(Step("3-sequential", 10, "ReductionStep3.*"), results, kGpu);
  EXPECT_EQ(s.r.state, ITEM_NOT_RUN);
  EXPECT_EQ(s.reason(), "not run: ReductionStep3.Sum/32: CTest did not run it (Disabled)");
}

TEST(GraderScore, OnTheCpuBackendStepsAreScoredWithANote) {
  Results results;
  results.Add("ReductionStep3.Sum/32", TEST_PASSED);
  Scored s(Step("3-sequential", 10, "ReductionStep3.*"), results, kCpuBackend);
  EXPECT_EQ(s.r.state, ITEM_PASSED);
  EXPECT_DOUBLE_EQ(s.r.score, 10.0);
  ASSERT_NE(s.r.note, nullptr);
  EXPECT_STREQ(s.r.note, "checked on the CPU backend");
}

TEST(GraderScore, OnTheCpuBackendPerformanceIsNotRun) {
  Results results;
  results.Add("ReductionPerf.FinalVsCub", TEST_PASSED).Metric("final_vs_cub", 2.0);
  Scored s(Perf(20, 0.9, 0.5), results, kCpuBackend);
  EXPECT_EQ(s.r.state, ITEM_NOT_RUN);
  EXPECT_NE(s.reason().find("performance is measured on a GPU only"), std::string::npos);
}

TEST(GraderScore, APerfItemScoresItsRatio) {
  struct Case {
    double ratio;
    item_state state;
    double score;
  } cases[] = {{0.95, ITEM_PASSED, 20}, {0.9, ITEM_PASSED, 20}, {0.7, ITEM_PARTIAL, 10},
               {0.5, ITEM_FAILED, 0},   {0.1, ITEM_FAILED, 0}};
  for (const Case &c : cases) {
    Results results;
    results.Add("ReductionPerf.FinalVsCub", TEST_PASSED).Metric("final_vs_cub", c.ratio);
    Scored s(Perf(20, 0.9, 0.5), results, kGpu);
    EXPECT_EQ(s.r.state, c.state) << c.ratio;
    EXPECT_DOUBLE_EQ(s.r.score, c.score) << c.ratio;
    EXPECT_DOUBLE_EQ(s.r.ratio, c.ratio);
  }
  Results results;
  results.Add("ReductionPerf.FinalVsCub", TEST_PASSED).Metric("final_vs_cub", 0.7);
  Scored s(Perf(20, 0.9, 0.5), results, kGpu);
  EXPECT_EQ(s.reason(), "ratio 0.70 is below the target 0.90 (floor 0.50): 10.00 of 20 points");
  EXPECT_NE(s.detail().find("ratio 0.700 (target 0.90, floor 0.50): student 1 ms, CUB 0.9 ms"),
            std::string::npos)
      << s.detail();
}

TEST(GraderScore, APerfItemNeedsItsTestsToPassAndItsMetricOnce) {
  {
    Results results;
    results.Add("ReductionPerf.FinalVsCub", TEST_FAILED, "first mismatch at index 7");
    Scored s(Perf(20, 0.9, 0.5), results, kGpu);
    EXPECT_EQ(s.r.state, ITEM_FAILED) << "a fast wrong answer earns nothing";
    EXPECT_TRUE(std::isnan(s.r.ratio));
  }
  {
    Results results;
    results.Add("ReductionPerf.FinalVsCub", TEST_PASSED).Metric("other_metric", 1.0);
    Scored s(Perf(20, 0.9, 0.5), results, kGpu);
    EXPECT_EQ(s.r.state, ITEM_FAILED);
    EXPECT_EQ(s.reason(), "the tests passed but none reported the metric final_vs_cub");
  }
  {
    // Lab code that prints a metric line of its own.
    Results results;
    results.Add("ReductionPerf.FinalVsCub", TEST_PASSED)
        .Metric("final_vs_cub", 50.0)
        .Metric("final_vs_cub", 0.6);
    Scored s(Perf(20, 0.9, 0.5), results, kGpu);
    EXPECT_EQ(s.r.state, ITEM_FAILED);
    EXPECT_NE(s.reason().find("reported 2 times"), std::string::npos) << s.reason();
  }
  {
    Results results;
    results.Add("ReductionPerf.FinalVsCub", TEST_SKIPPED, "no CUDA device");
    Scored s(Perf(20, 0.9, 0.5), results, kNoGpu);
    EXPECT_EQ(s.r.state, ITEM_NOT_RUN);
  }
  {
    Results results;
    results.Add("ReductionPerf.FinalVsCub", TEST_PASSED).Metric("final_vs_cub", -1.0);
    Scored s(Perf(20, 0.9, 0.5), results, kGpu);
    EXPECT_EQ(s.r.state, ITEM_FAILED);
    EXPECT_EQ(s.reason(), "the metric final_vs_cub has no valid ratio");
  }
}

TEST(GraderScore, ABuildErrorCostsEveryItem) {
  rubric_item step = Step("3-sequential", 10, "ReductionStep3.*");
  item_result r;
  score_item_lost(&step, "the lab did not build: reduction.cu(12): error: x",
                  "The lab did not build, so none of its tests ran.\n", &r);
  EXPECT_EQ(r.state, ITEM_FAILED);
  EXPECT_DOUBLE_EQ(r.score, 0.0);
  EXPECT_STREQ(r.reason, "the lab did not build: reduction.cu(12): error: x");
  EXPECT_STREQ(r.detail, "The lab did not build, so none of its tests ran.\n");
  item_result_free(&r);
}
