// Tests of the grade program's command line (grader/src/main.c, getopt_long): every option of
// grader/README.md and `grade --help`, its messages for bad usage (exit status 2), and the forms
// getopt_long adds (--opt=value, "--" before a submission named like an option). None of these
// runs a build.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gltest.h"

namespace {

struct Outcome {
  int status;
  std::string output;  // stdout and stderr together
};

class GraderOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-options-test-XXXXXX";
    tmp_ = mkdtemp(pattern);
  }
  void TearDown() override { std::system(("rm -rf '" + tmp_ + "'").c_str()); }

  Outcome Grade(const std::string &args) {
    std::string log = tmp_ + "/grade.log";
    std::string command = std::string("cd '") + tmp_ + "' && '" + GRADE_EXE + "' " + args +
                          " >'" + log + "' 2>&1";
    int status = std::system(command.c_str());
    std::ifstream in(log, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return Outcome{WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
  }

  std::string tmp_;
};

}  // namespace

TEST_F(GraderOptions, HelpNamesEveryOption) {
  for (const char *help : {"--help", "-h"}) {
    Outcome run = Grade(help);
    EXPECT_EQ(run.status, 0) << help;
    EXPECT_EQ(run.output.rfind("usage: grade [options] [SUBMISSION_DIR]", 0), 0u) << run.output;
    for (const char *option : {"--out DIR", "--build-dir DIR", "--work-dir DIR", "--lab LAB",
                               "--jobs N", "--course DIR", "--cmake-arg ARG", "--quiet",
                               "--batch DIR", "--export-release DIR", "--help"}) {
      EXPECT_NE(run.output.find(option), std::string::npos) << option;
    }
  }
  EXPECT_EQ(Grade("--out x --help").status, 0) << "--help wins wherever it stands";
}

TEST_F(GraderOptions, BadUsageExitsWithTwoAndSaysWhy) {
  struct Case {
    const char *args;
    const char *message;
  } cases[] = {
      {"--out", "grade: --out needs a value"},
      {"--cmake-arg", "grade: --cmake-arg needs a value"},
      {"--bogus", "grade: unknown or ambiguous option --bogus (see grade --help)"},
      {"--c x", "grade: unknown or ambiguous option --c "},
      {"-x", "grade: unknown option -x (see grade --help)"},
      {"--quiet=yes", "grade: --quiet takes no value"},
      {"--lab nope", "grade: no lab named 'nope' (the labs: "},
      {"--lab=nope", "grade: no lab named 'nope'"},
      {"--jobs 0", "grade: --jobs takes a number from 1 to 1024, not '0'"},
      {"--jobs=4x", "not '4x'"},
      {"a b", "grade: one submission at a time ('a' and 'b'); use --batch"},
      {"a -- b", "grade: one submission at a time ('a' and 'b')"},
      {"--course /nonexistent/course", "grade: the course folder /nonexistent/course does not exist"},
      {"--out o --batch . alice", "grade: --batch grades a folder of submissions"},
      {"--out o --quiet /nonexistent/alice", "grade: the submission /nonexistent/alice is not a folder"},
      {"/nonexistent/alice --out o --quiet", "grade: the submission /nonexistent/alice is not a folder"},
      {"--out o -- --quiet", "grade: the submission --quiet is not a folder"},
  };
  for (const Case &c : cases) {
    Outcome run = Grade(c.args);
    EXPECT_EQ(run.status, 2) << c.args << ": " << run.output;
    EXPECT_NE(run.output.find(c.message), std::string::npos) << c.args << ": " << run.output;
  }
}

TEST_F(GraderOptions, ValuesMayFollowAnEqualsSign) {
  // --export-release copies a course without building anything: here the small fake course.
  std::string course = std::string(GRADER_TEST_DATA) + "/fake-course";
  Outcome run = Grade("--course='" + course + "' --export-release='" + tmp_ + "/release'");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("student release in " + tmp_ + "/release"), std::string::npos)
      << run.output;
  EXPECT_EQ(access((tmp_ + "/release/labs/reduction/reduction.rubric").c_str(), R_OK), 0);
  run = Grade("--export-release '" + tmp_ + "/release2' --course '" + course + "'");
  ASSERT_EQ(run.status, 0) << "and the usual form, options in any order: " << run.output;
}
