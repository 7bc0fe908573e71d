// End to end on the course itself, on the CPU backend: a submission made of the solutions with
// two faults, each of which must cost its own items only. Its reduction.cu calls _exit in step
// 8 (the audit takes step 8 and the performance item), and its scan.cu has a syntax error (the
// scan lab loses everything; compaction, graded with the reference scan, keeps its step
// points). One grade, three labs, built in a copy of this course: the slowest of the grader's
// tests (minutes).
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

// The line after the rule that closes step `step`'s banner block in `text`.
size_t AfterBanner(const std::string &text, const std::string &step) {
  size_t banner = text.find("\n// Step " + step + ":");
  if (banner == std::string::npos) return banner;
  size_t rule = text.find("\n// ====", banner + 1);
  return rule == std::string::npos ? rule : text.find('\n', rule + 1) + 1;
}

}  // namespace

TEST(GraderCourseEndToEnd, TheAuditAndTheReferenceScanOnTheCpuBackend) {
  char pattern[] = "/tmp/grader-course-e2e-XXXXXX";
  std::string tmp = mkdtemp(pattern);
  std::string course = std::string(GRADER_TEST_DATA) + "/../../..";
  std::string reduction = ReadText(course + "/solutions/reduction/reduction.cu");
  std::string scan = ReadText(course + "/solutions/scan/scan.cu");
  std::string compaction = ReadText(course + "/solutions/compaction/compaction.cu");
  ASSERT_FALSE(reduction.empty() || scan.empty() || compaction.empty())
      << "this test needs the course's solutions/";
  size_t at = AfterBanner(reduction, "8");
  ASSERT_NE(at, std::string::npos) << "no step 8 banner in solutions/reduction/reduction.cu";
  // A line of step 8 that leaves the process; the macro hides the call from the text.
  std::string leave = "#include <unistd.h>\n#define LEAVE(c) _exit(c)\n"
                      "void audit_e2e_leave(int code) { if (code == 12345) LEAVE(code); }\n";
  reduction.insert(at, leave);
  int leave_line = 1;
  for (size_t i = 0; i < at; i++) leave_line += reduction[i] == '\n';
  leave_line += 2;
  std::string submission = tmp + "/alice";
  WriteText(submission + "/labs/reduction/reduction.cu", reduction);
  WriteText(submission + "/labs/scan/scan.cu", scan + "\nint broken( {\n");
  WriteText(submission + "/labs/compaction/compaction.cu", compaction);

  // Small sizes and no AddressSanitizer keep the CPU backend quick; the audit of objects built
  // with it is tested on small files (grader_audit_test.cpp).
  std::string log = tmp + "/grade.log";
  std::string command = std::string("'") + GRADE_EXE + "' --course '" + course +
                        "' --lab reduction --lab scan --lab compaction --jobs 2 --quiet"
                        " --cmake-arg -DLAB_BACKEND=sim --cmake-arg -DGPULABS_SIM_SANITIZE=OFF"
                        " --cmake-arg -DGPULABS_SIM_MAX_N=4099 --work-dir '" + tmp + "/work' --out '" +
                        tmp + "/out' '" + submission + "' >'" + log + "' 2>&1";
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadText(log);
  std::map<std::string, Item> items = ReadItems(tmp + "/out");

  // reduction: steps 1-7 earn their points; step 8's two items and the perf item do not.
  std::string finding = "forbidden symbol _exit in labs/reduction/reduction.cu line " +
                        std::to_string(leave_line) + " (step 8)";
  for (const char *id : {"1-interleaved-divergent", "4-first-add", "7-multiple-elements"}) {
    EXPECT_EQ(items[std::string("reduction ") + id].result, "passed") << id << ": "
                                                                      << items[std::string("reduction ") + id].why;
  }
  for (const char *id : {"8-warp-shuffle", "8-operators-and-types", "final-vs-cub"}) {
    const Item &item = items[std::string("reduction ") + id];
    EXPECT_EQ(item.result, "failed") << id;
    EXPECT_EQ(item.score, "0") << id;
    EXPECT_EQ(item.why.rfind(finding + ": 8-warp-shuffle, 8-operators-and-types and final-vs-cub "
                                       "earn nothing", 0), 0u)
        << id << ": " << item.why;
  }
  // scan: nothing built, nothing earned.
  EXPECT_EQ(items["scan 2-naive"].result, "failed");
  EXPECT_NE(items["scan 2-naive"].why.find("the lab did not build"), std::string::npos);
  // compaction: graded with the reference scan, its steps earn their points.
  for (const char *id : {"2-map-scan-scatter", "3-split", "5-single-pass"}) {
    const Item &item = items[std::string("compaction ") + id];
    EXPECT_EQ(item.result, "passed") << id << ": " << item.why;
    EXPECT_NE(item.why.find("graded with the reference scan"), std::string::npos) << item.why;
  }
  std::string summary = ReadText(tmp + "/out/summary.md");
  EXPECT_NE(summary.find("graded with the reference scan: your scan did not build, and the scan "
                         "lab alone loses points for it"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find(finding), std::string::npos);
  // The lab code ran in its sealed worker, and the report says how it was sealed.
  EXPECT_NE(summary.find("The lab worker's sandbox: no_new_privs"), std::string::npos) << summary;
  // The build tree goes back to the student's own scan.
  std::string cache = ReadText(tmp + "/work/build/CMakeCache.txt");
  EXPECT_NE(cache.find("GPULABS_REFERENCE_LABS:STRING=\n"), std::string::npos);
  if (!HasFailure()) std::system(("rm -rf '" + tmp + "'").c_str());
}
