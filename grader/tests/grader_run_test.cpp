// Tests of the helpers a grading run uses around CMake (grader/src/run.c): reading a build
// tree's cache, finding the first compiler errors in a build log; and the environment every
// grade runs in (grader/src/proc.c).
#include <cstdlib>
#include <fstream>
#include <string>

#include "gltest.h"

extern "C" {
#include "grade.h"
#include "proc.h"
}

TEST(GraderRun, ReadsValuesFromTheCMakeCache) {
  char pattern[] = "/tmp/grader-run-test-XXXXXX";
  std::string dir = mkdtemp(pattern);
  {
    std::ofstream cache(dir + "/CMakeCache.txt");
    cache << "# This is the CMakeCache file.\n"
             "//Build the labs from the student stubs (labs) or the reference solutions\n"
             "LAB_IMPL:STRING=solutions\n"
             "LAB_IMPL_EXTRA:STRING=wrong\n"
             "CMAKE_HOME_DIRECTORY:INTERNAL=/work/course dir\n"
             "EMPTY:STRING=\n";
  }
  char *impl = cmake_cache_get(dir.c_str(), "LAB_IMPL");
  ASSERT_NE(impl, nullptr);
  EXPECT_STREQ(impl, "solutions");
  free(impl);
  char *home = cmake_cache_get(dir.c_str(), "CMAKE_HOME_DIRECTORY");
  EXPECT_STREQ(home, "/work/course dir");
  free(home);
  char *empty = cmake_cache_get(dir.c_str(), "EMPTY");
  EXPECT_STREQ(empty, "");
  free(empty);
  EXPECT_EQ(cmake_cache_get(dir.c_str(), "LAB_BACKEND"), nullptr);
  EXPECT_EQ(cmake_cache_get("/nonexistent", "LAB_IMPL"), nullptr);
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST(GraderRun, FindsTheFirstCompilerErrorsWithoutTheToolNoise) {
  const char *log =
      "$ cmake --build /w/build --target lab_scan_tests\n"
      "[  5%] Built target gpulabs_common\n"
      "[ 10%] Building CUDA object labs/scan/CMakeFiles/lab_scan.dir/__/__/labs/scan/scan.cu.o\n"
      "/w/src/labs/scan/scan.cu(42): error: identifier \"tile\" is undefined\n"
      "      tile[threadIdx.x] = 0;\n"
      "      ^\n"
      "\n"
      "1 error detected in the compilation of \"/w/src/labs/scan/scan.cu\".\n"
      "make[2]: *** [labs/scan/CMakeFiles/lab_scan.dir/build.make:76: scan.cu.o] Error 2\n"
      "make[1]: *** [CMakeFiles/Makefile2:400: labs/scan/CMakeFiles/lab_scan.dir/all] Error 2\n"
      "gmake: *** [Makefile:91: all] Error 2\n";
  char *errors = build_errors_of(log, "/w/src");
  ASSERT_NE(errors, nullptr);
  EXPECT_STREQ(errors,
               "labs/scan/scan.cu(42): error: identifier \"tile\" is undefined\n"
               "      tile[threadIdx.x] = 0;\n"
               "      ^\n"
               "1 error detected in the compilation of \"labs/scan/scan.cu\".\n");
  free(errors);
}

TEST(GraderRun, FindsHostCompilerAndLinkerErrors) {
  char *gcc = build_errors_of(
      "[ 50%] Building C object x.o\n/w/src/labs/ode/ode.c:7:3: error: expected ';' before '}'\n",
      "/w/src");
  ASSERT_NE(gcc, nullptr);
  EXPECT_EQ(std::string(gcc).rfind("labs/ode/ode.c:7:3: error: expected ';'", 0), 0u) << gcc;
  free(gcc);
  char *ld = build_errors_of(
      "[ 90%] Linking CXX executable test_scan\n"
      "/usr/bin/ld: liblab_scan.a(scan.cu.o): in function `scan':\n"
      "scan.cu:(.text+0x1c): undefined reference to `scan_helper'\n"
      "collect2: error: ld returned 1 exit status\n",
      "/w/src");
  ASSERT_NE(ld, nullptr);
  EXPECT_EQ(std::string(ld).rfind("scan.cu:(.text+0x1c): undefined reference to `scan_helper'", 0), 0u)
      << ld;
  free(ld);
  EXPECT_EQ(build_errors_of("[100%] Built target x\nmake: *** [all] Error 2\n", "/w/src"), nullptr)
      << "no compiler error to show: the caller points at the log instead";
}

// Whatever the caller's environment, a grade runs sealed: no worker debugging switch survives,
// the test programs' buffers come from slabs even if the caller asked for exact ones (as a
// tool's wrapper would), and make's variables are gone.
TEST(GraderRun, GradesInAnEnvironmentOfItsOwn) {
  const char *gone[] = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GPULABS_SANDBOX",
                        "GPULABS_LAB_WORKER", "GPULABS_WORKER_EARLY"};
  for (const char *name : gone) setenv(name, "1", 1);
  setenv("GPULABS_EXACT_BUFFERS", "1", 1);
  grade_environment();
  for (const char *name : gone) EXPECT_EQ(getenv(name), nullptr) << name;
  EXPECT_STREQ(getenv("GPULABS_EXACT_BUFFERS"), "0");
  unsetenv("GPULABS_EXACT_BUFFERS");
  grade_environment();  // also when it was not set at all
  EXPECT_STREQ(getenv("GPULABS_EXACT_BUFFERS"), "0");
  unsetenv("GPULABS_EXACT_BUFFERS");
}
