// Tests of how the grader reads CTest's results and works out each test's verdict and why
// (grader/src/verdict.c), on fixtures made from real CTest runs (data/fixture-project/regen.sh).
// The XML reader underneath has its own tests (grader_xml_test.cpp).
#include <fstream>
#include <sstream>
#include <string>

#include "gltest.h"

extern "C" {
#include "verdict.h"
}

namespace {

std::string ReadData(const std::string &name) {
  std::ifstream in(std::string(GRADER_TEST_DATA) + "/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The fixture's tests, read as the grader reads them.
class FixtureResults : public ::testing::Test {
 protected:
  void SetUp() override {
    tests_init(&tests_);
    std::string xml = ReadData("ctest-fixture.xml");
    ASSERT_FALSE(xml.empty()) << "missing fixture " << GRADER_TEST_DATA << "/ctest-fixture.xml";
    char err[256];
    ASSERT_EQ(junit_read(xml.data(), xml.size(), &tests_, err, sizeof err), 0) << err;
    ctest_log_apply(ReadData("ctest-fixture.log").c_str(), &tests_);
    tests_classify(&tests_);
  }
  void TearDown() override { tests_free(&tests_); }

  const test_result &Get(const char *name) {
    const test_result *t = tests_find(&tests_, name);
    EXPECT_NE(t, nullptr) << name;
    static test_result empty = {};
    return t ? *t : empty;
  }
  static std::string Reason(const test_result &t) { return t.reason ? t.reason : ""; }

  test_list tests_;
};

}  // namespace

TEST(GraderJunit, AnEmptyRunHasNoTests) {
  test_list tests;
  tests_init(&tests);
  std::string xml = ReadData("ctest-empty.xml");
  char err[256];
  ASSERT_EQ(junit_read(xml.data(), xml.size(), &tests, err, sizeof err), 0) << err;
  EXPECT_EQ(tests.count, 0u);
  tests_free(&tests);
}

TEST(GraderJunit, RefusesAFileThatIsNotJunit) {
  test_list tests;
  tests_init(&tests);
  char err[256];
  std::string xml = "<html><body/></html>";
  EXPECT_EQ(junit_read(xml.data(), xml.size(), &tests, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("not <testsuite>"), std::string::npos) << err;
  std::string cut = ReadData("ctest-fixture.xml").substr(0, 2000);
  EXPECT_EQ(junit_read(cut.data(), cut.size(), &tests, err, sizeof err), -1)
      << "a JUnit file cut short (CTest killed while writing) is an error, not an empty run";
  tests_free(&tests);
}

TEST_F(FixtureResults, ReadsEveryTestCase) {
  EXPECT_EQ(tests_.count, 12u);
  EXPECT_EQ(Get("Fixture.Passes").status, TEST_PASSED);
  EXPECT_EQ(Get("Fixture.Passes").reason, nullptr);
  EXPECT_GT(Get("Fixture.Passes").seconds, 0.0);
  EXPECT_NE(std::string(Get("Fixture.Passes").output).find("[       OK ] Fixture.Passes"),
            std::string::npos);
}

TEST_F(FixtureResults, AMismatchGivesTheComparisonMessage) {
  const test_result &t = Get("Fixture.FailsWithAMismatch");
  EXPECT_EQ(t.status, TEST_FAILED);
  EXPECT_EQ(Reason(t),
            "first mismatch at index 2 of n = 4: expected 3, got 7; seed 0x5eed1234 - n = 4, "
            "block size 256");
  ASSERT_NE(t.excerpt, nullptr);
  EXPECT_NE(std::string(t.excerpt).find("GPULABS_SEED=0x5eed1234 ctest"), std::string::npos)
      << "the excerpt keeps the replay command: " << t.excerpt;
}

TEST_F(FixtureResults, AStubSaysNotImplemented) {
  EXPECT_EQ(Reason(Get("Fixture.NotImplemented")),
            "not implemented: reduction step 3 (sequential): write reduce_sequential in "
            "labs/reduction/reduction.cu");
}

TEST_F(FixtureResults, ACudaErrorIsNamed) {
  EXPECT_EQ(Reason(Get("Fixture.CudaError")),
            "the GPU reported cudaErrorIllegalAddress (an illegal memory access was encountered) "
            "after reduce(step 3, n = 1025); seed 0x1234");
}

TEST_F(FixtureResults, TheWatchdogAndCTestTimeoutsAreTimeouts) {
  std::string watchdog = Reason(Get("Fixture.HangsUntilTheWatchdog"));
  EXPECT_EQ(watchdog.rfind("timeout: the test did not finish in time: a kernel may be hung", 0), 0u)
      << watchdog;
  const test_result &killed = Get("Fixture.HangsUntilCTestKillsIt");
  EXPECT_STREQ(killed.ctest_status, "Timeout");
  EXPECT_EQ(Reason(killed).rfind("timeout: stopped by CTest after 5 s", 0), 0u) << Reason(killed);
}

TEST_F(FixtureResults, CrashesNameTheSignalAndTheLastOutput) {
  const test_result &segv = Get("Fixture.Segfaults");
  EXPECT_STREQ(segv.ctest_status, "SEGFAULT");
  EXPECT_EQ(Reason(segv).rfind("crashed: the test program ended with a segmentation fault (SIGSEGV)", 0),
            0u)
      << Reason(segv);
  const test_result &aborted = Get("Fixture.Aborts");
  EXPECT_EQ(Reason(aborted),
            "crashed: the test program ended with abort() (SIGABRT); last output: gpulabs test "
            "helper: cudaMalloc (test buffer) failed: out of memory (cudaErrorMemoryAllocation)");
}

TEST_F(FixtureResults, AProgramThatExitsInTheMiddleOfATestFails) {
  // CTest saw exit status 0 and called it passed; Google Test never printed its OK line.
  const test_result &t = Get("Fixture.ExitsEarly");
  EXPECT_EQ(t.status, TEST_FAILED);
  EXPECT_NE(Reason(t).find("ended before the test finished"), std::string::npos) << Reason(t);
}

TEST_F(FixtureResults, ASkipKeepsItsMessage) {
  const test_result &t = Get("Fixture.SkipsWithoutAGpu");
  EXPECT_EQ(t.status, TEST_SKIPPED);
  EXPECT_EQ(Reason(t), "no CUDA device (cudaErrorNoDevice: no CUDA-capable device is detected)");
}

TEST_F(FixtureResults, MetricsAreReadFromTheOutput) {
  const test_result &t = Get("Fixture.ReportsAMetric");
  EXPECT_EQ(t.status, TEST_PASSED);
  ASSERT_EQ(t.n_metrics, 1u);
  EXPECT_STREQ(t.metrics[0].name, "final_vs_cub");
  EXPECT_DOUBLE_EQ(t.metrics[0].ratio, 0.7312);
  EXPECT_STREQ(t.metrics[0].detail, "student 0.1306 ms, CUB 0.0955 ms, n = 67108864");
  EXPECT_EQ(Get("Fixture.Passes").n_metrics, 0u);
}

TEST_F(FixtureResults, SpecialCharactersSurviveTheRoundTrip) {
  const test_result &t = Get("Fixture.PrintsSpecialCharacters");
  EXPECT_NE(std::string(t.output).find("<tag> & \"quotes\" 'apostrophes' [NON-XML-CHAR-0x1] "
                                       "control, caf\xC3\xA9 and a bad byte [NON-UTF-8-BYTE-0xFF]"),
            std::string::npos)
      << t.output;
  EXPECT_EQ(Reason(t), "a < b && c > d");
}

TEST_F(FixtureResults, ClassifyingTwiceGivesTheSameResult) {
  tests_classify(&tests_);
  EXPECT_EQ(Get("Fixture.ReportsAMetric").n_metrics, 1u);
  EXPECT_EQ(Get("Fixture.ExitsEarly").status, TEST_FAILED);
}

TEST(GraderJunit, ReadsTheConsoleListsOfFailedAndSkippedTests) {
  test_list tests;
  tests_init(&tests);
  std::string xml =
      "<testsuite><testcase name=\"A.b/1\" status=\"fail\"/>"
      "<testcase name=\"C.d\" status=\"notrun\"><skipped message=\"Unable to find executable\"/>"
      "</testcase><testcase name=\"E.f\" status=\"disabled\"/></testsuite>";
  char err[256];
  ASSERT_EQ(junit_read(xml.data(), xml.size(), &tests, err, sizeof err), 0) << err;
  ctest_log_apply(
      "The following tests FAILED:\n"
      "\t  1 - A.b/1 (ILLEGAL)\n"
      "\t  2 - C.d (Not Run)\n"
      "Errors while running CTest\n"
      "\t  9 - Not.listed (SEGFAULT)\n",
      &tests);
  tests_classify(&tests);
  EXPECT_STREQ(tests.items[0].ctest_status, "ILLEGAL");
  EXPECT_EQ(std::string(tests.items[0].reason),
            "crashed: the test program ended with an illegal instruction (SIGILL)");
  EXPECT_EQ(tests.items[1].status, TEST_NOT_RUN);
  EXPECT_STREQ(tests.items[1].ctest_status, "Not Run");
  EXPECT_EQ(tests.items[2].status, TEST_NOT_RUN);
  EXPECT_EQ(std::string(tests.items[2].reason), "CTest did not run it (Disabled)");
  tests_free(&tests);
}

TEST(GraderJunit, ReadsCMake4ListsWithLabelsAfterTheStatus) {
  // CMake 4's ctest ends each line of its lists with the test's labels.
  test_list tests;
  tests_init(&tests);
  std::string xml =
      "<testsuite><testcase name=\"Fake.Hangs\" status=\"fail\"/>"
      "<testcase name=\"Fake.Crashes/2\" status=\"fail\"/>"
      "<testcase name=\"Fake.Fails\" status=\"fail\"/></testsuite>";
  char err[256];
  ASSERT_EQ(junit_read(xml.data(), xml.size(), &tests, err, sizeof err), 0) << err;
  ctest_log_apply(
      "The following tests FAILED:\n"
      "\t  3 - Fake.Hangs (Timeout)                        correctness gpu reduction\n"
      "\t  4 - Fake.Crashes/2 (SEGFAULT)                   correctness gpu reduction\n"
      "\t  5 - Fake.Fails (Failed)\n"
      "Errors while running CTest\n",
      &tests);
  tests_classify(&tests);
  EXPECT_STREQ(tests.items[0].ctest_status, "Timeout");
  EXPECT_EQ(std::string(tests.items[0].reason).rfind("timeout: stopped by CTest", 0), 0u)
      << tests.items[0].reason;
  EXPECT_STREQ(tests.items[1].ctest_status, "SEGFAULT");
  EXPECT_EQ(std::string(tests.items[1].reason),
            "crashed: the test program ended with a segmentation fault (SIGSEGV)");
  EXPECT_STREQ(tests.items[2].ctest_status, "Failed");
  tests_free(&tests);
}

TEST(GraderJunit, ACrashBehindCMakesTestLauncherIsStillACrash) {
  // Some CMake 4 releases run each Google Test case through LaunchTest.cmake, which turns a
  // segmentation fault into "Failed" and a CMake error (seen with CMake 4.4.3 on Ubuntu 24.04).
  test_list tests;
  tests_init(&tests);
  std::string xml =
      "<testsuite><testcase name=\"FakeStep4.Touches\" status=\"fail\">"
      "<failure message=\"Failed\"/><system-out>[ gpulabs  ] seed 0x1 (set GPULABS_SEED to replay)\n"
      "Note: Google Test filter = FakeStep4.Touches\n[ RUN      ] FakeStep4.Touches\n"
      "touching the cell\n"
      "CMake Error at /opt/cmake/share/cmake-4.4/Modules/GoogleTest/LaunchTest.cmake:34 "
      "(cmake_language):\n"
      "  cmake_language EXIT requires one integral argument, got \"Segmentation\n"
      "  fault\"\n\n\n</system-out></testcase></testsuite>";
  char err[256];
  ASSERT_EQ(junit_read(xml.data(), xml.size(), &tests, err, sizeof err), 0) << err;
  ctest_log_apply("The following tests FAILED:\n"
                  "\t  6 - FakeStep4.Touches (Failed)      correctness gpu reduction\n",
                  &tests);
  tests_classify(&tests);
  EXPECT_EQ(std::string(tests.items[0].reason),
            "crashed: the test program ended with a segmentation fault (SIGSEGV); last output: "
            "touching the cell");
  tests_free(&tests);
}

TEST(GraderJunit, APassedTestWhoseOutputCTestCutShortStaysPassed) {
  // CTest keeps the head of a long output and drops the rest, Google Test's OK line with it.
  test_list tests;
  tests_init(&tests);
  std::string xml =
      "<testsuite><testcase name=\"A.b\" status=\"run\"><system-out>[ RUN      ] A.b\nline\n"
      "...\n[This part of the test output was removed since it exceeds the threshold of 65536 "
      "bytes.]\n</system-out></testcase></testsuite>";
  char err[256];
  ASSERT_EQ(junit_read(xml.data(), xml.size(), &tests, err, sizeof err), 0) << err;
  tests_classify(&tests);
  EXPECT_EQ(tests.items[0].status, TEST_PASSED);
  tests_free(&tests);
}

TEST(GraderJunit, TestCasesForgedInTheOutputStayText) {
  // Lab code that prints JUnit markup: CTest escapes it, so it stays in the output and adds no
  // test case, whatever it claims.
  test_list tests;
  tests_init(&tests);
  std::string xml =
      "<testsuite><testcase name=\"ReductionStep3.Sum\" status=\"fail\"><failure message=\"\"/>"
      "<system-out>[ RUN      ] ReductionStep3.Sum\n"
      "&lt;/system-out&gt;&lt;/testcase&gt;&lt;testcase name=\"ReductionStep3.Sum\" "
      "status=\"run\"&gt;&lt;system-out&gt;[       OK ] ReductionStep3.Sum\n"
      "]]&gt;&lt;/system-out&gt;&lt;/testcase&gt;&lt;testcase name=\"ReductionStep9.Free\" "
      "status=\"run\"/&gt;\n"
      "</system-out></testcase></testsuite>";
  char err[256];
  ASSERT_EQ(junit_read(xml.data(), xml.size(), &tests, err, sizeof err), 0) << err;
  ASSERT_EQ(tests.count, 1u);
  EXPECT_STREQ(tests.items[0].name, "ReductionStep3.Sum");
  EXPECT_EQ(tests.items[0].status, TEST_FAILED);
  EXPECT_NE(std::string(tests.items[0].output).find("<testcase name=\"ReductionStep9.Free\""),
            std::string::npos)
      << tests.items[0].output;
  EXPECT_EQ(tests_find(&tests, "ReductionStep9.Free"), nullptr);
  tests_free(&tests);
}

TEST(GraderJunit, AFileThatIsNotWellFormedIsAnErrorNeverAGuess) {
  // A NUL byte (never written by CTest, which replaces control characters) and markup that
  // does not close: the whole file is refused, so no test can be lost or invented.
  test_list tests;
  tests_init(&tests);
  char err[256];
  std::string with_nul("<testsuite><testcase name=\"A.b\" status=\"run\"><system-out>x\0y"
                       "</system-out></testcase></testsuite>",
                       96);
  ASSERT_EQ(with_nul.size(), 96u) << "the NUL byte is part of the text";
  EXPECT_EQ(junit_read(with_nul.data(), with_nul.size(), &tests, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("line 1:"), std::string::npos) << err;
  std::string unclosed = "<testsuite><testcase name=\"A.b\" status=\"run\">";
  EXPECT_EQ(junit_read(unclosed.data(), unclosed.size(), &tests, err, sizeof err), -1);
  EXPECT_EQ(tests.count, 0u);
  tests_free(&tests);
}

// The grader's shards (GPULABS_GRADER_SHARDS): one process ran several test cases, and each case
// gets its own verdict and its own part of the output, as if CTest had run it alone.
namespace {

test_result Shard(const char *output, const char *ctest_status = nullptr, double seconds = 9) {
  test_result shard = {};
  shard.name = const_cast<char *>("shard-test_scan-1-of-4");
  shard.status = ctest_status ? TEST_FAILED : TEST_PASSED;
  shard.output = const_cast<char *>(output);
  shard.ctest_status = const_cast<char *>(ctest_status);
  shard.seconds = seconds;
  return shard;
}

const char kShardBanner[] =
    "[ gpulabs  ] seed 0x1234 (set GPULABS_SEED to replay)\n"
    "Note: This is test shard 2 of 4.\n"
    "[==========] Running 4 tests from 2 test suites.\n"
    "[----------] Global test environment set-up.\n"
    "[----------] 3 tests from ScanStep2\n";

}  // namespace

TEST(GraderShards, EachTestCaseGetsItsVerdictItsTimeAndItsOutput) {
  std::string out = std::string(kShardBanner) +
                    "[ RUN      ] ScanStep2.Block32\n"
                    "[ gpulabs  ] lab worker 12, sandbox: seccomp\n"
                    "[       OK ] ScanStep2.Block32 (348 ms)\n"
                    "[ RUN      ] ScanStep2.Block512\n"
                    "scan_test.cpp:40: Failure\n"
                    "Value of: gl::ArraysEqual(want, got)\n"
                    "  Actual: false (index 7 differs: expected 3, got 4)\n"
                    "Expected: true\n"
                    "[  FAILED  ] ScanStep2.Block512 (12 ms)\n"
                    "[ gpulabs  ] ScanStep2.Block512 failed with seed 0x1234; replay it with:\n"
                    "[ RUN      ] ScanStep2.NoGpu\n"
                    "scan_test.cpp:50: Skipped\n"
                    "needs a GPU\n"
                    "[  SKIPPED ] ScanStep2.NoGpu (0 ms)\n"
                    "[----------] 3 tests from ScanStep2 (360 ms total)\n"
                    "[ RUN      ] ScanStep3.Basic\n"
                    "[lab worker] [       OK ] ScanStep3.Other (1 ms)\n"
                    "[       OK ] ScanStep3.Basic (2000 ms)\n"
                    "[==========] 4 tests from 2 test suites ran. (2400 ms total)\n"
                    "[  PASSED  ] 2 tests.\n"
                    "[  FAILED  ] 1 test, listed below:\n"
                    "[  FAILED  ] ScanStep2.Block512\n";
  test_result shard = Shard(out.c_str(), "Failed");
  test_list cases;
  tests_init(&cases);
  EXPECT_EQ(gtest_split_shard(&shard, &cases), 1);
  tests_classify(&cases);
  ASSERT_EQ(cases.count, 4u);
  const test_result *ok = tests_find(&cases, "ScanStep2.Block32");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->status, TEST_PASSED);
  EXPECT_NEAR(ok->seconds, 0.348, 1e-9);
  EXPECT_NE(std::string(ok->output).find("[ gpulabs  ] seed 0x1234"), std::string::npos);
  EXPECT_NE(std::string(ok->output).find("lab worker 12, sandbox"), std::string::npos);
  EXPECT_EQ(std::string(ok->output).find("Block512"), std::string::npos);
  const test_result *bad = tests_find(&cases, "ScanStep2.Block512");
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->status, TEST_FAILED);
  EXPECT_EQ(bad->ctest_status, nullptr);  // the shard's own status is no crash of this case
  EXPECT_EQ(std::string(bad->reason), "index 7 differs: expected 3, got 4");
  EXPECT_NE(std::string(bad->output).find("replay it with"), std::string::npos);
  const test_result *skipped = tests_find(&cases, "ScanStep2.NoGpu");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(skipped->status, TEST_SKIPPED);
  EXPECT_EQ(std::string(skipped->reason), "needs a GPU");
  // A line the lab worker printed cannot end another test case: it is prefixed.
  const test_result *last = tests_find(&cases, "ScanStep3.Basic");
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->status, TEST_PASSED);
  EXPECT_NEAR(last->seconds, 2.0, 1e-9);
  EXPECT_EQ(tests_find(&cases, "ScanStep3.Other"), nullptr);
  tests_free(&cases);
}

TEST(GraderShards, TheCaseAProcessEndedInFailsWithTheShardsStatusAndTheRestAreMissing) {
  std::string out = std::string(kShardBanner) +
                    "[ RUN      ] ScanStep2.Block32\n"
                    "[       OK ] ScanStep2.Block32 (348 ms)\n"
                    "[ RUN      ] ScanStep2.Block512\n"
                    "about to launch\n";
  test_result shard = Shard(out.c_str(), "SEGFAULT", 5);
  test_list cases;
  tests_init(&cases);
  EXPECT_EQ(gtest_split_shard(&shard, &cases), 0);  // cases after it never ran: run them alone
  tests_classify(&cases);
  ASSERT_EQ(cases.count, 2u);
  const test_result *crashed = tests_find(&cases, "ScanStep2.Block512");
  ASSERT_NE(crashed, nullptr);
  EXPECT_EQ(crashed->status, TEST_FAILED);
  EXPECT_NE(std::string(crashed->reason).find("segmentation fault"), std::string::npos)
      << crashed->reason;
  EXPECT_NE(std::string(crashed->reason).find("about to launch"), std::string::npos);
  tests_free(&cases);
}

TEST(GraderShards, TheWatchdogNamesTheHungCase) {
  std::string out = std::string(kShardBanner) +
                    "[ RUN      ] ScanStep2.Block32\n"
                    "\n[  TIMEOUT ] ScanStep2.Block32 did not finish in time: a kernel may be hung\n";
  test_result shard = Shard(out.c_str(), "Failed", 30);
  test_list cases;
  tests_init(&cases);
  EXPECT_EQ(gtest_split_shard(&shard, &cases), 0);
  tests_classify(&cases);
  ASSERT_EQ(cases.count, 1u);
  EXPECT_EQ(cases.items[0].status, TEST_FAILED);
  EXPECT_NE(std::string(cases.items[0].reason).find("timeout"), std::string::npos);
  tests_free(&cases);
}

TEST(GraderShards, AProgramThatNeverStartedATestLeavesThemAllToRunAlone) {
  test_result shard = Shard("error while loading shared libraries: libcudart.so.13\n", "Failed");
  test_list cases;
  tests_init(&cases);
  EXPECT_EQ(gtest_split_shard(&shard, &cases), 0);
  EXPECT_EQ(cases.count, 0u);
  tests_free(&cases);
}
