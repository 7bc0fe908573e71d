// Tests of how the grader takes a submission (grader/src/submission.c): only the files a rubric
// names are laid over a pristine copy of the course, so a tampered test, rubric, CMake file or
// given code in a submission changes nothing (and changed given code is reported); the copy is
// kept in sync file by file; the student release leaves out what students must not see.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gltest.h"
#include "grader_test_files.h"

extern "C" {
#include "submission.h"
}

namespace {

using namespace grader_test;

std::string Joined(const strlist &list) {
  std::string text;
  for (size_t i = 0; i < list.count; i++) text += std::string(i ? "|" : "") + list.items[i];
  return text;
}

// A small course, a submission and a work folder, in a temporary folder.
class SubmissionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-submission-test-XXXXXX";
    root_ = mkdtemp(pattern);
    course_ = root_ + "/course";
    sub_ = root_ + "/alice";
    work_ = root_ + "/work/src";
    WriteText(course_ + "/CMakeLists.txt", "project(course)\n");
    WriteText(course_ + "/labs/demo/demo.cu", "// the stub\n");
    WriteText(course_ + "/labs/demo/demo.h", "// the API\n");
    WriteText(course_ + "/labs/demo/tests/demo_test.cpp", "// the real test\n");
    WriteText(course_ + "/labs/demo/demo.rubric", "files labs/demo/demo.cu\n");
    WriteText(course_ + "/grader/private/demo_private_test.cpp", "// hidden\n");
    WriteText(course_ + "/grader/selftest/run.sh", "#!/bin/sh\n");
    WriteText(course_ + "/solutions/demo/demo.cu", "// the solution\n");
    WriteText(course_ + "/build/student/CMakeCache.txt", "x\n");
    WriteText(course_ + "/labs/demo/build-mine/CMakeCache.txt", "x\n");
    WriteText(course_ + "/labs/demo/build-mine/big.o", "junk\n");
    WriteText(course_ + "/grade-out/results.json", "{}\n");
    WriteText(course_ + "/.git/HEAD", "ref\n");
    WriteText(course_ + "/.gitignore", "/build/\n");
    chmod((course_ + "/grader/selftest/run.sh").c_str(), 0755);

    // The submission: a copy of the course with the student's file, and tampering.
    WriteText(sub_ + "/labs/demo/demo.cu", "// alice's kernel\n");
    WriteText(sub_ + "/labs/demo/demo.h", "// alice changed the API\n");
    WriteText(sub_ + "/labs/demo/tests/demo_test.cpp", "TEST(Demo, X) { SUCCEED(); }  // tampered\n");
    WriteText(sub_ + "/labs/demo/demo.rubric", "files labs/demo/tests/demo_test.cpp\n");
    WriteText(sub_ + "/CMakeLists.txt", "project(tampered)\n");
    sl_init(&patterns_);
    sl_push(&patterns_, "labs/demo/demo.cu");
    sl_init(&taken_);
    sl_init(&missing_);
    sl_init(&rejected_);
    overlay_init(&ov_);
    copy_rules_init(&rules_);
    copy_rules_for_grading(&rules_);
  }
  void TearDown() override {
    sl_free(&patterns_);
    sl_free(&taken_);
    sl_free(&missing_);
    sl_free(&rejected_);
    overlay_free(&ov_);
    copy_rules_free(&rules_);
    std::system(("rm -rf '" + root_ + "'").c_str());
  }

  void Collect(const std::string &submission) {
    submission_collect(submission.c_str(), &patterns_, &ov_, &taken_, &missing_, &rejected_);
  }
  sync_stats Sync(const std::string &dst) {
    sync_stats stats{};
    strbuf err;
    sb_init(&err);
    EXPECT_EQ(tree_sync(course_.c_str(), dst.c_str(), &rules_, &ov_, &stats, &err), 0) << err.data;
    sb_free(&err);
    return stats;
  }

  std::string root_, course_, sub_, work_;
  strlist patterns_, taken_, missing_, rejected_;
  overlay ov_;
  copy_rules rules_;
};

}  // namespace

TEST_F(SubmissionTest, OnlyTheRubricsFilesAreTakenAndATamperedTestIsIgnored) {
  Collect(sub_);
  EXPECT_EQ(Joined(taken_), "labs/demo/demo.cu");
  EXPECT_EQ(missing_.count, 0u);
  EXPECT_EQ(rejected_.count, 0u);
  Sync(work_);
  EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.cu"), "// alice's kernel\n");
  EXPECT_EQ(ReadText(work_ + "/labs/demo/tests/demo_test.cpp"), "// the real test\n")
      << "the submission's edited test must not reach the copy";
  EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.rubric"), "files labs/demo/demo.cu\n");
  EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.h"), "// the API\n");
  EXPECT_EQ(ReadText(work_ + "/CMakeLists.txt"), "project(course)\n");
  EXPECT_EQ(ReadText(work_ + "/.gitignore"), "/build/\n");
  EXPECT_FALSE(Exists(work_ + "/build")) << "build trees are not copied";
  EXPECT_FALSE(Exists(work_ + "/labs/demo/build-mine")) << "wherever they are";
  EXPECT_FALSE(Exists(work_ + "/grade-out"));
  EXPECT_FALSE(Exists(work_ + "/.git"));
  EXPECT_TRUE(Exists(work_ + "/solutions/demo/demo.cu")) << "an instructor's grade keeps solutions/";
  EXPECT_TRUE(Exists(work_ + "/" TREE_MARKER));
  struct stat st;
  ASSERT_EQ(stat((work_ + "/grader/selftest/run.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u) << "modes are copied";
}

TEST_F(SubmissionTest, AMissingFileKeepsTheStubAndIsReported) {
  std::string empty = root_ + "/bob";
  WriteText(empty + "/README", "I forgot my code\n");
  Collect(empty);
  EXPECT_EQ(taken_.count, 0u);
  EXPECT_EQ(Joined(missing_), "labs/demo/demo.cu");
  Sync(work_);
  EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.cu"), "// the stub\n");
}

TEST_F(SubmissionTest, AFileTwoLabsNameIsLaidOverOnceAndTakenForBoth) {
  // compaction's rubric names the student's scan.cu as well as its own file.
  WriteText(course_ + "/labs/scan/scan.cu", "// scan stub\n");
  WriteText(sub_ + "/labs/scan/scan.cu", "// alice's scan\n");
  strlist scan_files, compaction_files, scan_taken;
  sl_init(&scan_files);
  sl_init(&compaction_files);
  sl_init(&scan_taken);
  sl_push(&scan_files, "labs/scan/scan.cu");
  sl_push(&compaction_files, "labs/demo/demo.cu");
  sl_push(&compaction_files, "labs/scan/scan.cu");
  submission_collect(sub_.c_str(), &scan_files, &ov_, &scan_taken, &missing_, &rejected_);
  submission_collect(sub_.c_str(), &compaction_files, &ov_, &taken_, &missing_, &rejected_);
  EXPECT_EQ(Joined(scan_taken), "labs/scan/scan.cu");
  EXPECT_EQ(Joined(taken_), "labs/demo/demo.cu|labs/scan/scan.cu");
  EXPECT_EQ(ov_.rel.count, 2u);
  Sync(work_);
  EXPECT_EQ(ReadText(work_ + "/labs/scan/scan.cu"), "// alice's scan\n");
  sl_free(&scan_files);
  sl_free(&compaction_files);
  sl_free(&scan_taken);
}

TEST_F(SubmissionTest, ALabsFolderOrLooseFilesWorkToo) {
  std::string labs_only = root_ + "/carol";
  WriteText(labs_only + "/demo/demo.cu", "// carol\n");
  Collect(labs_only);
  EXPECT_EQ(Joined(taken_), "labs/demo/demo.cu (found as demo/demo.cu)");
  overlay_free(&ov_);
  overlay_init(&ov_);
  sl_free(&taken_);
  std::string loose = root_ + "/dave";
  WriteText(loose + "/demo.cu", "// dave\n");
  Collect(loose);
  EXPECT_EQ(Joined(taken_), "labs/demo/demo.cu (found as demo.cu)");
  Sync(work_);
  EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.cu"), "// dave\n");
}

TEST_F(SubmissionTest, GivenCodeComesFromTheCourseInEveryLayout) {
  // The lab's given code: everything in the course's labs/demo/ but the rubric's demo.cu.
  WriteText(course_ + "/labs/demo/demo_given.cu", "// given plumbing\n");
  WriteText(course_ + "/labs/demo/CMakeLists.txt", "gpulabs_add_lab(demo)\n");
  struct Layout {
    std::string name;
    std::string prefix;   // where the submission keeps the lab's files
    std::string changed;  // what the report must name
  } layouts[] = {
      // alice (a copy of the course) also changed demo.h; her top-level CMakeLists.txt is the
      // course's own, not the lab's, and is no news.
      {"alice", "labs/demo/", "labs/demo/demo.h|labs/demo/demo_given.cu"},
      {"carol", "demo/", "demo/demo_given.cu"},
      {"dave", "", "CMakeLists.txt|demo_given.cu"},
  };
  for (const Layout &layout : layouts) {
    SCOPED_TRACE(layout.name);
    std::string sub = root_ + "/" + layout.name;
    WriteText(sub + "/" + layout.prefix + "demo.cu", "// " + layout.name + "'s kernel\n");
    WriteText(sub + "/" + layout.prefix + "demo_given.cu", "// the given code, 'improved'\n");
    if (layout.prefix.empty()) {
      WriteText(sub + "/demo.h", "// the API\n");  // the course's bytes: not reported
      WriteText(sub + "/CMakeLists.txt", "add_executable(mine demo.cu)\n");
    } else {
      WriteText(sub + "/" + layout.prefix + "CMakeLists.txt", "gpulabs_add_lab(demo)\n");
    }
    overlay_free(&ov_);
    overlay_init(&ov_);
    sl_free(&taken_);
    strlist changed;
    sl_init(&changed);
    Collect(sub);
    submission_given_changed(sub.c_str(), course_.c_str(), "demo", &patterns_, &changed);
    EXPECT_EQ(Joined(changed), layout.changed);
    EXPECT_EQ(Joined(ov_.rel), "labs/demo/demo.cu") << "nothing but the rubric's file is laid over";
    Sync(work_);
    EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.cu"), "// " + layout.name + "'s kernel\n");
    EXPECT_EQ(ReadText(work_ + "/labs/demo/demo_given.cu"), "// given plumbing\n");
    EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.h"), "// the API\n");
    EXPECT_EQ(ReadText(work_ + "/labs/demo/CMakeLists.txt"), "gpulabs_add_lab(demo)\n");
    EXPECT_EQ(ReadText(work_ + "/CMakeLists.txt"), "project(course)\n");
    sl_free(&changed);
  }

  // A link in place of a given file is not the course's file either (and is never followed).
  std::string eve = root_ + "/eve";
  WriteText(eve + "/labs/demo/demo.cu", "// eve\n");
  ASSERT_EQ(symlink((course_ + "/labs/demo/demo_given.cu").c_str(),
                    (eve + "/labs/demo/demo_given.cu").c_str()),
            0);
  strlist changed;
  sl_init(&changed);
  submission_given_changed(eve.c_str(), course_.c_str(), "demo", &patterns_, &changed);
  EXPECT_EQ(Joined(changed), "labs/demo/demo_given.cu");
  sl_free(&changed);

  // A file the rubric names, by a glob too, is the student's, not given code.
  sl_push(&patterns_, "labs/demo/*_given.cu");
  sl_init(&changed);
  submission_given_changed((root_ + "/carol").c_str(), course_.c_str(), "demo", &patterns_,
                           &changed);
  EXPECT_EQ(changed.count, 0u) << Joined(changed);
  sl_free(&changed);
}

TEST_F(SubmissionTest, LinksAndHugeFilesAreRefused) {
  std::string eve = root_ + "/eve [late]";  // glob characters in the folder name are literal
  WriteText(eve + "/secret.txt", "x\n");
  ASSERT_EQ(mkdir_p((eve + "/labs/demo").c_str()), 0);
  ASSERT_EQ(symlink("/etc/passwd", (eve + "/labs/demo/demo.cu").c_str()), 0);
  Collect(eve);
  EXPECT_EQ(taken_.count, 0u);
  EXPECT_EQ(Joined(rejected_), "labs/demo/demo.cu (a symbolic link)");

  sl_free(&rejected_);
  std::string frank = root_ + "/frank";
  WriteText(frank + "/labs/demo/demo.cu", std::string(SUBMISSION_MAX_FILE_BYTES + 1, 'x'));
  Collect(frank);
  EXPECT_EQ(Joined(rejected_), "labs/demo/demo.cu (larger than 4 MiB)");

  // A folder of the submission that links outside it.
  sl_free(&rejected_);
  std::string elsewhere = root_ + "/elsewhere";
  WriteText(elsewhere + "/demo/demo.cu", "// not heidi's\n");
  std::string linked = root_ + "/heidi";
  ASSERT_EQ(mkdir_p(linked.c_str()), 0);
  ASSERT_EQ(symlink(elsewhere.c_str(), (linked + "/labs").c_str()), 0);
  Collect(linked);
  EXPECT_EQ(Joined(rejected_), "labs/demo/demo.cu (outside the submission)");
}

TEST_F(SubmissionTest, ASecondSyncRewritesOnlyWhatChanged) {
  Collect(sub_);
  sync_stats first = Sync(work_);
  EXPECT_GT(first.copied, 5u);
  struct stat before;
  ASSERT_EQ(stat((work_ + "/labs/demo/tests/demo_test.cpp").c_str(), &before), 0);
  sleep(1);  // a rewrite would show in the modification time
  sync_stats second = Sync(work_);
  EXPECT_EQ(second.copied, 0u);
  EXPECT_EQ(second.unchanged, first.copied + first.unchanged);
  struct stat after;
  ASSERT_EQ(stat((work_ + "/labs/demo/tests/demo_test.cpp").c_str(), &after), 0);
  EXPECT_EQ(after.st_mtime, before.st_mtime) << "an unchanged file keeps its time: no rebuild";

  // The next submission: its file replaces the last one's; the course's changes arrive; files
  // the course no longer has go.
  overlay_free(&ov_);
  overlay_init(&ov_);
  sl_free(&taken_);
  WriteText(work_ + "/labs/demo/leftover.o", "junk\n");
  WriteText(course_ + "/labs/demo/demo.h", "// the API, version 2\n");
  std::string bob = root_ + "/bob";
  WriteText(bob + "/labs/demo/demo.cu", "// bob's kernel\n");
  Collect(bob);
  sync_stats third = Sync(work_);
  EXPECT_EQ(third.copied, 2u) << "bob's file and the changed header";
  EXPECT_EQ(third.removed, 1u);
  EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.cu"), "// bob's kernel\n");
  EXPECT_EQ(ReadText(work_ + "/labs/demo/demo.h"), "// the API, version 2\n");
  EXPECT_FALSE(Exists(work_ + "/labs/demo/leftover.o"));
}

TEST_F(SubmissionTest, RefusesToOverwriteAFolderItDidNotMake) {
  std::string precious = root_ + "/precious";
  WriteText(precious + "/thesis.tex", "years of work\n");
  sync_stats stats{};
  strbuf err;
  sb_init(&err);
  EXPECT_EQ(tree_sync(course_.c_str(), precious.c_str(), &rules_, &ov_, &stats, &err), -1);
  EXPECT_NE(std::string(err.data).find("was not made by the grader"), std::string::npos) << err.data;
  EXPECT_EQ(ReadText(precious + "/thesis.tex"), "years of work\n");
  sb_clear(&err);
  EXPECT_EQ(tree_sync(course_.c_str(), course_.c_str(), &rules_, &ov_, &stats, &err), -1)
      << "a copy onto itself";
  sb_clear(&err);
  std::string inside = course_ + "/labs/copy";
  EXPECT_EQ(tree_sync(course_.c_str(), inside.c_str(), &rules_, &ov_, &stats, &err), -1);
  EXPECT_NE(std::string(err.data).find("would copy itself"), std::string::npos) << err.data;
  sb_clear(&err);
  std::string under_build = course_ + "/build/work";
  EXPECT_EQ(tree_sync(course_.c_str(), under_build.c_str(), &rules_, &ov_, &stats, &err), 0)
      << "build/ is left out of the copy, so a work folder may live there: " << err.data;
  sb_free(&err);
}

TEST_F(SubmissionTest, WhatGitIgnoresIsLeftOut) {
  if (std::system("git --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "git is not installed";
  // A real repository in place of the fake .git folder the other tests use.
  ASSERT_EQ(std::system(("rm -rf '" + course_ + "/.git' && git -C '" + course_ + "' init -q").c_str()), 0);
  WriteText(course_ + "/.gitignore", "/build/\nscratch/\n*.bak\n");
  WriteText(course_ + "/labs/demo/scratch/a.out", "a binary\n");
  WriteText(course_ + "/labs/demo/demo.cu.bak", "an editor's copy\n");
  EXPECT_GE(copy_rules_skip_git_ignored(&rules_, course_.c_str()), 2u);
  Sync(work_);
  EXPECT_TRUE(Exists(work_ + "/labs/demo/demo.cu"));
  EXPECT_FALSE(Exists(work_ + "/labs/demo/scratch"));
  EXPECT_FALSE(Exists(work_ + "/labs/demo/demo.cu.bak"));
  EXPECT_EQ(copy_rules_skip_git_ignored(&rules_, root_.c_str()), 0u) << "not a git checkout";
}

TEST_F(SubmissionTest, TheStudentReleaseLeavesOutSolutionsAndPrivateTests) {
  WriteText(course_ + "/.github/workflows/classroom.yml", "name: Autograding Tests\n");
  WriteText(course_ + "/.github/workflows/ci.yml", "name: ci\n");
  WriteText(course_ + "/README.md",
            "# demo\n\n[![ci](../../actions/workflows/ci.yml/badge.svg)](../../actions/workflows/ci.yml)\n"
            "\nSix labs.\n");
  copy_rules release;
  copy_rules_init(&release);
  copy_rules_for_release(&release);
  std::string dst = root_ + "/release";
  sync_stats stats{};
  strbuf err;
  sb_init(&err);
  ASSERT_EQ(tree_sync(course_.c_str(), dst.c_str(), &release, &ov_, &stats, &err), 0) << err.data;
  sb_free(&err);
  copy_rules_free(&release);
  EXPECT_TRUE(Exists(dst + "/labs/demo/demo.cu"));
  EXPECT_TRUE(Exists(dst + "/labs/demo/tests/demo_test.cpp"));
  EXPECT_TRUE(Exists(dst + "/labs/demo/demo.rubric"));
  EXPECT_TRUE(Exists(dst + "/.gitignore"));
  EXPECT_TRUE(Exists(dst + "/.github/workflows/classroom.yml"));
  EXPECT_FALSE(Exists(dst + "/.github/workflows/ci.yml")) << "the course's own CI";
  EXPECT_EQ(release_drop_course_ci(dst.c_str()), 0);
  EXPECT_EQ(ReadText(dst + "/README.md"), "# demo\n\nSix labs.\n") << "its badge goes with it";
  EXPECT_NE(ReadText(course_ + "/README.md").find("badge.svg"), std::string::npos) << "the course's stays";
  EXPECT_EQ(release_drop_course_ci((root_ + "/nowhere").c_str()), 0) << "no README.md: no error";
  EXPECT_FALSE(Exists(dst + "/solutions"));
  EXPECT_FALSE(Exists(dst + "/grader/private"));
  EXPECT_FALSE(Exists(dst + "/grader/selftest"));
  EXPECT_FALSE(Exists(dst + "/build"));
  EXPECT_FALSE(Exists(dst + "/.git"));
}
