// End to end: the grade program on a fake course (grader/tests/data/fake-course), which has the
// shape of gpulabs as far as the grader can see but runs on any CPU. Its stub fails in every
// way a lab can (a wrong result, a hang, a crash, a missing test), its "GPU" tests pass or skip
// as the environment says, and a submission comes with a tampered test and rubric.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gltest.h"
#include "grader_test_files.h"

namespace {

using namespace grader_test;

class GraderEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-e2e-test-XXXXXX";
    tmp_ = mkdtemp(pattern);
    course_ = std::string(GRADER_TEST_DATA) + "/fake-course";
  }
  void TearDown() override { std::system(("rm -rf '" + tmp_ + "'").c_str()); }

  // Runs grade with these arguments; returns its exit status. Its output goes to a log, shown
  // when a check fails. The fake course is configured for the given LAB_BACKEND whatever the
  // backend of this build (the grade program passes its own build's settings on, and a later
  // -D wins).
  int Grade(const std::string &args, const std::string &backend = "cuda") {
    log_ = tmp_ + "/grade.log";
    std::string command = std::string("'") + GRADE_EXE + "' --course '" + course_ +
                          "' --lab reduction --jobs 2 --quiet --cmake-arg -DLAB_BACKEND=" +
                          backend + " " + args + " >'" + log_ + "' 2>&1";
    int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string Log() { return ReadText(log_); }

  std::string tmp_, course_, log_;
};

const char *kGoodLab =
    "#include \"reduction.h\"\n"
    "int fake_add(int a, int b) { return a + b; }\n"
    "int fake_mul(int a, int b) { return a * b; }\n"
    "int fake_wait(void) { return 0; }\n"
    "int fake_touch(int *cell) { return *cell; }\n"
    "double fake_speed(void) { return 0.75; }\n";

// The stub's items, each failed in its own way, as a grade wrote them to `out`: however its tests
// ran (one process a test case, or shards), the verdicts are the same.
void ExpectStubVerdicts(const std::string &out, const std::string &log) {
  std::map<std::string, Item> items = ReadItems(out, "reduction");
  ASSERT_EQ(items.size(), 6u) << log;
  for (const auto &entry : items) {
    EXPECT_EQ(entry.second.result, "failed") << entry.first << ": " << entry.second.why;
    EXPECT_EQ(entry.second.score, "0") << entry.first;
  }
  EXPECT_NE(items["1-add"].why.find("FakeStep1.Adds: Expected equality of these values: "
                                    "fake_add(2, 3) Which is: -1 5"),
            std::string::npos)
      << items["1-add"].why;
  EXPECT_NE(items["1-add"].why.find("(and 1 more failing tests)"), std::string::npos);
  EXPECT_EQ(items["3-wait"].why.rfind("FakeStep3.Returns: timeout: stopped by CTest after ", 0), 0u)
      << items["3-wait"].why;
  EXPECT_EQ(items["4-touch"].why.rfind("FakeStep4.Touches: crashed: the test program ended with a "
                                       "segmentation fault (SIGSEGV)", 0),
            0u)
      << items["4-touch"].why;
  EXPECT_NE(items["5-renamed"].why.find("no test matches 'FakeStep5.*'"), std::string::npos);
  EXPECT_NE(items["speed"].why.find("FakePerf.Speed: "), std::string::npos) << items["speed"].why;
}

}  // namespace

TEST_F(GraderEndToEnd, TheStubsFailEachInItsOwnWayAndWithoutAGpuAreNotScored) {
  ASSERT_EQ(Grade("--build-dir '" + tmp_ + "/build' --out '" + tmp_ + "/out'"), 0) << Log();
  ExpectStubVerdicts(tmp_ + "/out", Log());
  std::map<std::string, Item> items = ReadItems(tmp_ + "/out", "reduction");
  EXPECT_EQ(items["3-wait"].why.rfind("FakeStep3.Returns: timeout: stopped by CTest after 4 s", 0), 0u)
      << items["3-wait"].why;
  std::string json = ReadText(tmp_ + "/out/results.json");
  EXPECT_NE(json.find("\"gpu\": {\"present\": true"), std::string::npos);
  EXPECT_NE(json.find("\"max_score\": 100,"), std::string::npos);
  for (const char *log : {"reduction-build.log", "correctness.xml", "correctness.log",
                          "reduction-performance.xml", "gpu-probe.xml"}) {
    EXPECT_EQ(access((tmp_ + "/out/logs/" + log).c_str(), R_OK), 0) << log;
  }

  // The same build without a "GPU": the GPU tests skip and their items are not scored; the
  // step that matches no test still earns nothing.
  setenv("FAKE_COURSE_NO_GPU", "1", 1);
  int status = Grade("--build-dir '" + tmp_ + "/build' --out '" + tmp_ + "/out-no-gpu'");
  unsetenv("FAKE_COURSE_NO_GPU");
  ASSERT_EQ(status, 0) << Log();
  items = ReadItems(tmp_ + "/out-no-gpu", "reduction");
  for (const char *id : {"1-add", "2-mul", "3-wait", "4-touch", "speed"}) {
    EXPECT_EQ(items[id].result, "not run") << id << ": " << items[id].why;
    EXPECT_EQ(items[id].score, "") << id;
  }
  EXPECT_EQ(items["5-renamed"].result, "failed");
  json = ReadText(tmp_ + "/out-no-gpu/results.json");
  EXPECT_NE(json.find("\"gpu\": {\"present\": false, \"name\": null, \"reason\": \"no CUDA device "
                      "(cudaErrorNoDevice: fake)\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"not_scored_points\": 90"), std::string::npos);
}

// A submission's build runs each test program as a few processes of many test cases (shards,
// grader/README.md "How the tests run"). With one shard, the stub's hang ends the process in
// the middle: the hung case fails with CTest's timeout, and the crash case after it, which the
// process never reached, runs alone and fails as it does alone.
TEST_F(GraderEndToEnd, AStubInOneShardFailsEachTestAsItFailsAlone) {
  std::string carol = tmp_ + "/carol";
  WriteText(carol + "/labs/reduction/reduction.c",
            ReadText(course_ + "/labs/reduction/reduction.c") + "/* carol */\n");
  ASSERT_EQ(Grade("--cmake-arg -DGPULABS_GRADER_SHARDS=1 --work-dir '" + tmp_ + "/work' --out '" +
                  tmp_ + "/out-carol' '" + carol + "'"),
            0)
      << Log();
  ExpectStubVerdicts(tmp_ + "/out-carol", Log());
  // The shard ran, and the case it never reached ran alone.
  std::string junit = ReadText(tmp_ + "/out-carol/logs/correctness.xml");
  EXPECT_NE(junit.find("shard-test_reduction-0-of-1"), std::string::npos);
  std::string rest = ReadText(tmp_ + "/out-carol/logs/reduction-correctness.xml.rest.xml");
  EXPECT_NE(rest.find("FakeStep4.Touches"), std::string::npos) << rest.substr(0, 600);
  EXPECT_EQ(rest.find("FakeStep1.Adds"), std::string::npos);
  // CTest names the parameterized case "Fake/FakeParam.Adds/One  # GetParam() = 1": run alone
  // by that name.
  EXPECT_NE(rest.find("Fake/FakeParam.Adds/One"), std::string::npos) << rest.substr(0, 600);

  // Three shards: the hang ends the first after FakeStep1.Adds; the other two reach every other
  // case, the parameterized one included, so nothing runs again alone.
  ASSERT_EQ(Grade("--cmake-arg -DGPULABS_GRADER_SHARDS=3 --work-dir '" + tmp_ + "/work3' --out '" +
                  tmp_ + "/out-carol3' '" + carol + "'"),
            0)
      << Log();
  junit = ReadText(tmp_ + "/out-carol3/logs/correctness.xml");
  EXPECT_NE(junit.find("[ RUN      ] Fake/FakeParam.Adds/One"), std::string::npos);
  EXPECT_FALSE(Exists(tmp_ + "/out-carol3/logs/reduction-correctness.xml.rest.xml"))
      << ReadText(tmp_ + "/out-carol3/logs/reduction-correctness.xml.rest.xml").substr(0, 600);
  ExpectStubVerdicts(tmp_ + "/out-carol3", Log());
}

TEST_F(GraderEndToEnd, ASubmissionIsGradedInAPristineCopyOfTheCourse) {
  std::string alice = tmp_ + "/alice";
  WriteText(alice + "/labs/reduction/reduction.c", kGoodLab);
  // Tampering that must change nothing: a test that adds step 5 and passes everything, and a
  // rubric worth more.
  WriteText(alice + "/tests/reduction_test.cpp",
            "#include <gtest/gtest.h>\nTEST(FakeStep5, Free) { SUCCEED(); }\n");
  WriteText(alice + "/labs/reduction/reduction.rubric",
            "files tests/reduction_test.cpp\nstep 1-add 1000 FakeStep1.*\n");
  // And the lab's given code, edited: never used, and the report says so.
  WriteText(alice + "/labs/reduction/reduction.h", "#error alice's own API\n");
  std::string common = "--work-dir '" + tmp_ + "/work' ";
  ASSERT_EQ(Grade(common + "--out '" + tmp_ + "/out-alice' '" + alice + "'"), 0) << Log();
  std::map<std::string, Item> items = ReadItems(tmp_ + "/out-alice", "reduction");
  ASSERT_EQ(items.size(), 6u) << Log();
  for (const char *id : {"1-add", "2-mul", "3-wait", "4-touch"}) {
    EXPECT_EQ(items[id].result, "passed") << id << ": " << items[id].why;
    EXPECT_EQ(items[id].score, "10") << id;
  }
  EXPECT_EQ(items["5-renamed"].result, "failed") << "the submission's own test was not used";
  EXPECT_EQ(items["speed"].result, "partial");
  EXPECT_EQ(items["speed"].score, "25") << "ratio 0.75 between floor 0.5 and target 1.0";
  EXPECT_EQ(items["speed"].ratio, "0.75");
  EXPECT_EQ(ReadText(tmp_ + "/work/src/tests/reduction_test.cpp"),
            ReadText(course_ + "/tests/reduction_test.cpp"));
  std::string json = ReadText(tmp_ + "/out-alice/results.json");
  EXPECT_NE(json.find("\"files_taken\": [\"labs/reduction/reduction.c\"]"), std::string::npos);
  EXPECT_NE(json.find("\"score\": 65,"), std::string::npos) << json.substr(0, 200);
  EXPECT_NE(json.find("labs/reduction/reduction.h in the submission differs from the course's and "
                      "was not used: the given code is always the course's"),
            std::string::npos)
      << json.substr(0, 1500);
  EXPECT_NE(json.find("\"files_ignored\": [\"labs/reduction/reduction.h\"]"), std::string::npos);
  EXPECT_EQ(ReadText(tmp_ + "/work/src/labs/reduction/reduction.h"),
            ReadText(course_ + "/labs/reduction/reduction.h"));

  // A submission that does not compile: every item 0, and the compiler's error shown.
  std::string bob = tmp_ + "/bob";
  WriteText(bob + "/reduction.c", std::string(kGoodLab) + "int broken(void) { return }\n");
  ASSERT_EQ(Grade(common + "--out '" + tmp_ + "/out-bob' '" + bob + "'"), 0) << Log();
  items = ReadItems(tmp_ + "/out-bob", "reduction");
  for (const auto &entry : items) {
    EXPECT_EQ(entry.second.result, "failed") << entry.first;
    EXPECT_EQ(entry.second.why.rfind("the lab did not build: labs/reduction/reduction.c:7", 0), 0u)
        << entry.second.why;
  }
  EXPECT_NE(ReadText(tmp_ + "/out-bob/summary.md").find("found as reduction.c"), std::string::npos);
}

TEST_F(GraderEndToEnd, OnTheCpuBackendStepsAreCheckedAndPerformanceIsNotScored) {
  std::string alice = tmp_ + "/alice";
  WriteText(alice + "/labs/reduction/reduction.c", kGoodLab);
  ASSERT_EQ(Grade("--work-dir '" + tmp_ + "/work' --out '" + tmp_ + "/out' '" + alice + "'", "sim"),
            0)
      << Log();
  std::map<std::string, Item> items = ReadItems(tmp_ + "/out", "reduction");
  ASSERT_EQ(items.size(), 6u) << Log();
  for (const char *id : {"1-add", "2-mul", "3-wait", "4-touch"}) {
    EXPECT_EQ(items[id].result, "passed") << id << ": " << items[id].why;
    EXPECT_EQ(items[id].score, "10") << id;
  }
  // The fake speed test would pass with a ratio, but a ratio measured on the CPU means nothing.
  EXPECT_EQ(items["speed"].result, "not run") << items["speed"].why;
  EXPECT_EQ(items["speed"].score, "");
  EXPECT_NE(items["speed"].why.find("performance is measured on a GPU only"), std::string::npos)
      << items["speed"].why;
  std::string json = ReadText(tmp_ + "/out/results.json");
  EXPECT_NE(json.find("CPU backend (LAB_BACKEND=sim)"), std::string::npos) << json.substr(0, 400);
  EXPECT_NE(json.find("checked on the CPU backend"), std::string::npos);
  EXPECT_NE(json.find("\"backend\": \"sim\""), std::string::npos);
  EXPECT_EQ(access((tmp_ + "/out/logs/reduction-performance.xml").c_str(), F_OK), -1)
      << "no performance test should have run on the CPU backend";
}
