// Tests of the static audit (grader/src/audit.c): the rubric's audit lines, the step banners,
// symbol names, and audits of small object files compiled here with the host compiler (and
// with nvcc, where it is installed: compiled only, never run). Nothing binary is checked in.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gltest.h"
#include "grader_test_files.h"

extern "C" {
#include "audit.h"
#include "grade.h"
#include "report.h"
#include "rubric.h"
}

namespace {

using namespace grader_test;

// The rubric lines `text` parsed into a config; the parser's messages in `errors`.
struct Config {
  rubric r;
  int rc;
  std::string errors;
  explicit Config(const std::string &text) {
    rubric_init(&r, "reduction");
    strbuf sb;
    sb_init(&sb);
    rc = rubric_parse(&r, text.c_str(), "reduction.rubric", &sb);
    errors = sb.data;
    sb_free(&sb);
  }
  ~Config() { rubric_free(&r); }
  Config(const Config &) = delete;
  Config &operator=(const Config &) = delete;
};

std::vector<std::string> Texts(const audit_result &res) {
  std::vector<std::string> texts;
  for (size_t i = 0; i < res.count; i++) {
    char *text = audit_finding_text(&res.findings[i]);
    texts.push_back(text);
    free(text);
  }
  return texts;
}

std::string Joined(const std::vector<std::string> &texts) {
  std::string all;
  for (const std::string &t : texts) all += t + "\n";
  return all;
}

// A folder for one test's sources and objects, removed afterwards.
class AuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-audit-test-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  // Writes `source` as dir/name and compiles it with `compiler` and `flags` into dir/name.o
  // (and its dependency file dir/name.o.d, as CMake's Makefiles have it). Returns the
  // compiler's exit status.
  int Compile(const std::string &compiler, const std::string &name, const std::string &source,
              const std::string &flags) {
    WriteText(dir_ + "/" + name, source);
    std::string object = dir_ + "/" + name + ".o";
    std::string command = "'" + compiler + "' " + flags + " -MD -MF '" + object + ".d' -c '" +
                          dir_ + "/" + name + "' -o '" + object + "' >'" + dir_ + "/cc.log' 2>&1";
    int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string CompileLog() { return ReadText(dir_ + "/cc.log"); }

  // Audits dir/name.o under the rubric `text`; the findings as report lines.
  std::vector<std::string> Audit(const std::string &name, const std::string &rubric_text = "") {
    Config config(rubric_text);
    EXPECT_EQ(config.rc, 0) << config.errors;
    audit_result res;
    audit_result_init(&res);
    std::string source = dir_ + "/" + name;
    audit_object(&config.r.audit, (source + ".o").c_str(), source.c_str(), nullptr, name.c_str(),
                 &res);
    std::vector<std::string> texts = Texts(res);
    for (size_t i = 0; i < res.problems.count; i++) ADD_FAILURE() << res.problems.items[i];
    audit_result_free(&res);
    return texts;
  }

  std::string dir_;
};

const char *const kCxx = GRADER_TEST_CXX;

// Step banners as the labs write them, and the code of each step.
const char *kClean =
    "#include <cassert>\n"
    "#include <cstdio>\n"
    "#include <cstdlib>\n"
    "#include <iostream>\n"
    "// The lab: a clean file. \"// Step 9: in a comment\" is no banner, nor is a string:\n"
    "static const char *kText = \"asm exit cub::\";\n"
    "// =====================\n"
    "// Step 1: printing and asserting\n"
    "// =====================\n"
    "// Step 1's helper (not a banner: no rule above it)\n"
    "int step1(int x) {\n"
    "  assert(x >= 0);\n"
    "  std::printf(\"%d %s\\n\", x, kText);\n"
    "  if (x > 1000) abort();\n"
    "  std::cout << x << std::endl;\n"
    "  void *p = std::malloc(16);\n"
    "  std::free(p);\n"
    "  static int calls = 0;  // a static local, set on first use\n"
    "  return ++calls + x;\n"
    "}\n";

const char *kHostile =
    "#include <fcntl.h>\n"
    "#include <unistd.h>\n"
    "#include <vector>\n"
    "#define LEAVE(code) _exit(code)\n"
    "// =====================\n"
    "// Step 1: fine\n"
    "// =====================\n"
    "int step1(int x) { return x + 1; }\n"
    "// =====================\n"
    "// Step 2: leaves early, through a macro\n"
    "// =====================\n"
    "int step2(int x) {\n"
    "  if (x == 42) LEAVE(0);\n"
    "  return x;\n"
    "}\n"
    "// =====================\n"
    "// Step 3: code before main\n"
    "// =====================\n"
    "__attribute__((constructor)) static void early() { (void)open(\"/tmp/x\", O_WRONLY); }\n"
    "static std::vector<int> cache;\n"
    "int step3(int x) { cache.push_back(x); return (int)cache.size(); }\n"
    "// =====================\n"
    "// Step 4a: a system call of its own\n"
    "// =====================\n"
    "long step4a(long n) {\n"
    "  long r;\n"
    "  __asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(n) : \"rcx\", \"r11\", \"memory\");\n"
    "  return r;\n"
    "}\n"
    "#include <pthread.h>\n"
    "#include <signal.h>\n"
    "#include <thread>\n"
    "// =====================\n"
    "// Step 4b: work between the calls\n"
    "// =====================\n"
    "static void *spin(void *arg) { return arg; }\n"
    "static void on_alarm(int) {}\n"
    "int step4b(int x) {\n"
    "  pthread_t t;\n"
    "  if (pthread_create(&t, nullptr, spin, nullptr) == 0) pthread_detach(t);\n"
    "  signal(SIGALRM, on_alarm);\n"
    "  std::thread([] {}).detach();\n"
    "  return x;\n"
    "}\n";

bool Has(const std::vector<std::string> &texts, const std::string &text) {
  for (const std::string &t : texts) {
    if (t.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST(GraderAudit, RubricLinesConfigureIt) {
  Config c(
      "audit forbid printf puts*\n"
      "audit allow cub::* cub/* step=8\n"
      "audit allow cudaStreamCreate*\n"
      "audit cost lab\n"
      "uses scan fallback=student\n"
      "uses radix_sort\n");
  ASSERT_EQ(c.rc, 0) << c.errors;
  ASSERT_EQ(c.r.audit.forbid.count, 2u);
  EXPECT_STREQ(c.r.audit.forbid.items[1], "puts*");
  ASSERT_EQ(c.r.audit.n_allow, 3u);
  EXPECT_STREQ(c.r.audit.allow[1].pattern, "cub/*");
  EXPECT_STREQ(c.r.audit.allow[1].step, "8");
  EXPECT_EQ(c.r.audit.allow[2].step, nullptr);
  EXPECT_EQ(c.r.audit.cost, AUDIT_COST_LAB);
  ASSERT_EQ(c.r.n_uses, 2u);
  EXPECT_STREQ(c.r.uses[0].lab, "scan");
  EXPECT_EQ(c.r.uses[0].reference, 0);
  EXPECT_EQ(c.r.uses[1].reference, 1) << "fallback=reference is the default";

  Config defaults("");
  EXPECT_EQ(defaults.r.audit.cost, AUDIT_COST_STEP | AUDIT_COST_PERF);
  Config costs("audit cost step+perf\n");
  EXPECT_EQ(costs.r.audit.cost, AUDIT_COST_STEP | AUDIT_COST_PERF);
  Config none("audit cost none\n");
  EXPECT_EQ(none.r.audit.cost, 0);
}

TEST(GraderAudit, BadRubricLinesAreErrors) {
  const std::pair<const char *, const char *> cases[] = {
      {"audit\n", "an audit line is"},
      {"audit ban exit\n", "an audit line is"},
      {"audit forbid\n", "audit forbid names at least one pattern"},
      {"audit forbid exit step=2\n", "unexpected 'step=2'"},
      {"audit allow exit step=2 step=3\n", "unexpected 'step=3'"},
      {"audit cost everything\n", "audit cost takes one of"},
      {"audit cost step perf\n", "audit cost takes one of"},
      {"uses\n", "a uses line is"},
      {"uses scan fallback=maybe\n", "a uses line is"},
      {"uses scan\nuses scan\n", "once per lab"},
      {"uses ../scan\n", "a uses line is"},
  };
  for (const auto &c : cases) {
    Config config(c.first);
    EXPECT_EQ(config.rc, -1) << c.first;
    EXPECT_NE(config.errors.find(c.second), std::string::npos) << c.first << ": " << config.errors;
    EXPECT_NE(config.errors.find("reduction.rubric:"), std::string::npos) << config.errors;
  }
}

TEST(GraderAudit, StepBannersNeedTheRuleAbove) {
  step_map map;
  step_map_build(&map,
                 "// intro\n"                   // 1
                 "// Step 1: no rule above\n"   // 2
                 "// ===========\n"             // 3
                 "// Step 1: first\n"           // 4
                 "int a;\n"                     // 5
                 "// Step 1's kernel:\n"        // 6
                 "// ===========\n"             // 7
                 "// Step 4a: sub-step\n"       // 8
                 "int b;\n"                     // 9
                 "// ===\n"                     // 10
                 "// Steps 5-6: not a banner\n" // 11
                 "int c;\n");                   // 12
  EXPECT_EQ(step_map_lookup(&map, 1), nullptr);
  EXPECT_EQ(step_map_lookup(&map, 2), nullptr);
  EXPECT_STREQ(step_map_lookup(&map, 4), "1");
  EXPECT_STREQ(step_map_lookup(&map, 6), "1");
  EXPECT_STREQ(step_map_lookup(&map, 9), "4a");
  EXPECT_STREQ(step_map_lookup(&map, 12), "4a");
  EXPECT_EQ(step_map_lookup(&map, 0), nullptr);
  EXPECT_EQ(step_map_lookup(&map, 99), nullptr);
  step_map_free(&map);
}

// Every form of banner the labs write, and the variants a student's editor may leave: each
// line below a rule starts the step it names.
TEST(GraderAudit, StepBannersInEveryForm) {
  const std::pair<const char *, const char *> cases[] = {
      {"// Step 2: one launch per layer", "2"},
      {"// Step 5 (bonus): windows of the network, fewer passes", "5"},
      {"// Step 6: prefetch a part of a wave ahead (a bonus)", "6"},
      {"// Step 4a: parallel enqueue, one atomic per element", "4a"},
      {"/* Step 5: */", "5"},
      {"/* Step 5 (bonus): windows */", "5"},
      {"/* Step 5 (bonus) */", "5"},
      {" * Step 7: inside a block comment", "7"},
      {"//Step 3:no spaces", "3"},
      {"///   Step   3   :   more spaces", "3"},
      {"\t//\tStep\t3\t(\tbonus\t)\t:\ttabs", "3"},
      {"// STEP 5 (BONUS): shouting", "5"},
      {"// step 4B: lower case, the id lower-cased", "4b"},
      {"// Step 8", "8"},
      {"// Step 8 - a dash", "8"},
      {"// Step 8 -- two dashes", "8"},
      {"// Step 8 \xe2\x80\x94 an em dash", "8"},
      {"// Step 8. a full stop", "8"},
      {"// Step 8:\r", "8"},
  };
  const char *const rules[] = {"// ======", "//=====", "/* ===== */", " * =====", "// ------",
                               "/*************/", "// ====\r"};
  for (const auto &c : cases) {
    for (const char *rule : rules) {
      std::string text = std::string("int before;\n") + rule + "\n" + c.first + "\nint in_step;\n";
      step_map map;
      step_map_build(&map, text.c_str());
      EXPECT_EQ(step_map_lookup(&map, 1), nullptr) << text;
      EXPECT_STREQ(step_map_lookup(&map, 3), c.second) << text;
      EXPECT_STREQ(step_map_lookup(&map, 4), c.second) << text;
      step_map_free(&map);
    }
  }
  // A blank line between the rule and the banner; a banner in a block comment of its own.
  step_map map;
  step_map_build(&map,
                 "// =====\n"                       // 1
                 "\n"                               // 2
                 "// Step 2: after a blank line\n"  // 3
                 "int a;\n"                         // 4
                 "/* ===========\n"                 // 5
                 " * Step 3 (bonus): boxed\n"       // 6
                 " * =========== */\n"              // 7
                 "int b;\n");                       // 8
  EXPECT_STREQ(step_map_lookup(&map, 4), "2");
  EXPECT_STREQ(step_map_lookup(&map, 8), "3");
  step_map_free(&map);
  // Not banners, even below a rule: the word alone, a range, a possessive, prose after the id,
  // a step with no number, a longer word.
  for (const char *line : {"// Steps 5-6: two at once", "// Step 5-6: a range", "// Step 1's kernel:",
                           "// Step 6 (below) turns on two things", "// Step: none",
                           "// Stepping 5: no", "// Step 5x7: no", "// Step 5bonus: no",
                           "int Step = 5; // Step 5: code first"}) {
    std::string text = std::string("// =====\n") + line + "\nint x;\n";
    step_map_build(&map, text.c_str());
    EXPECT_EQ(step_map_lookup(&map, 3), nullptr) << line;
    step_map_free(&map);
  }
}

// The course's own exercise files, stubs and solutions: every banner is read, in order, and
// each step's function (`gl_status reduce_step3(`, `compact_step4_atomic(`) lies in its step.
TEST(GraderAudit, TheCoursesBannersAreReadToTheirSteps) {
  const std::string course = std::string(GRADER_TEST_DATA) + "/../../..";
  const std::pair<const char *, const char *> labs[] = {
      {"bitonic_sort", "2 3 4 5"},       {"compaction", "2 3 4a 4b 4c 5 6"},
      {"ode", "1 2 3 4 5"},              {"radix_sort", "2 3 4 5"},
      {"reduction", "1 2 3 4 5 6 7 8"},  {"scan", "2 3 4 5 6 7 8"},
  };
  const std::regex function(R"(^\s*(static\s+)?gl_status\s+\w+_step(\d+)\w*\s*\()");
  const std::regex loose(R"(^\s*(//|/\*|\*)\s*step\s+\d)", std::regex::icase);
  size_t files = 0;
  for (const auto &lab : labs) {
    for (const char *impl : {"labs", "solutions"}) {
      std::string path = course + "/" + impl + "/" + lab.first + "/" + lab.first + ".cu";
      if (!Exists(path)) {
        EXPECT_STREQ(impl, "solutions") << path << ": the stubs are in every copy of the course";
        continue;  // the student release has no solutions
      }
      files++;
      std::string text = ReadText(path);
      step_map map;
      step_map_build(&map, text.c_str());
      std::string ids;
      for (size_t i = 0; i < map.ids.count; i++) ids += std::string(i ? " " : "") + map.ids.items[i];
      EXPECT_EQ(ids, lab.second) << path;
      std::istringstream lines(text);
      std::string line, previous;
      int number = 0, functions = 0;
      while (std::getline(lines, line)) {
        number++;
        const char *step = step_map_lookup(&map, number);
        std::smatch m;
        if (std::regex_search(line, m, function)) {
          functions++;
          ASSERT_NE(step, nullptr) << path << ":" << number << ": " << line;
          EXPECT_EQ(std::string(step).rfind(m[2].str(), 0), 0u)
              << path << ":" << number << " lies in step " << step << ": " << line;
        }
        // A line below a rule that looks like a banner is one, read to its own step.
        if (std::regex_search(line, loose) && previous.find("// ===") == 0) {
          ASSERT_NE(step, nullptr) << path << ":" << number << ": " << line;
          EXPECT_NE(line.find(std::string(" ") + step), std::string::npos)
              << path << ":" << number << " read as step " << step << ": " << line;
        }
        if (line.find_first_not_of(" \t\r") != std::string::npos) previous = line;
      }
      EXPECT_GE(functions, 4) << path;
      step_map_free(&map);
    }
  }
  EXPECT_GE(files, 6u);
}

TEST(GraderAudit, ShortNamesDropWhatAReportNeedsNot) {
  const std::pair<const char *, const char *> cases[] = {
      {"cudaError cub::CUB_300001_SM_900::DeviceReduce::Sum<int*, long*, int>(void*, unsigned "
       "long&, int*, long*, int, CUstream_st*) [clone .isra.0]",
       "cub::DeviceReduce::Sum"},
      {"void thrust::THRUST_200200_800_NS::sort<int*>(int*, int*)", "thrust::sort"},
      {"std::ios_base::Init::Init()", "std::ios_base::Init::Init"},
      {"foo::bar(int) const", "foo::bar"},
      {"guard variable for cub::CUB_300001_SM_900::DeviceCountCachedValue()::count",
       "cub::DeviceCountCachedValue::count"},
      {"cuda::std::__4::plus<void>::operator", "cuda::std::plus::operator"},
      {"exit", "exit"},
  };
  for (const auto &c : cases) {
    char *brief = audit_short_name(c.first);
    EXPECT_STREQ(brief, c.second) << c.first;
    free(brief);
  }
}

TEST_F(AuditTest, CleanCodePassesInEveryBuild) {
  ASSERT_EQ(Compile(kCxx, "clean.cpp", kClean, "-O2 -g"), 0) << CompileLog();
  EXPECT_EQ(Joined(Audit("clean.cpp")), "");
  // The CPU backend builds with AddressSanitizer, whose module constructor is the compiler's.
  if (Compile(kCxx, "clean.cpp", kClean, "-O2 -g -fsanitize=address") == 0) {
    EXPECT_EQ(Joined(Audit("clean.cpp")), "");
  }
  ASSERT_EQ(Compile(kCxx, "clean.cpp", kClean, "-O0 -g"), 0) << CompileLog();
  EXPECT_EQ(Joined(Audit("clean.cpp")), "");
}

TEST_F(AuditTest, FindsCallsConstructorsAndAssemblyWithTheirLineAndStep) {
  ASSERT_EQ(Compile(kCxx, "hostile.cpp", kHostile, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("hostile.cpp");
  std::string all = Joined(found);
  // A macro hides the call from the text, not from the object.
  EXPECT_TRUE(Has(found, "forbidden symbol _exit in hostile.cpp line 13 (step 2)")) << all;
  EXPECT_TRUE(Has(found, "forbidden symbol open in hostile.cpp line 19 (step 3)")) << all;
  EXPECT_TRUE(Has(found, "constructor early() (it runs before the tests) in hostile.cpp line 19 "
                         "(step 3)"))
      << all;
  EXPECT_TRUE(Has(found, "constructor: a global object's initialiser calls std::vector::~vector "
                         "(it runs before the tests) in hostile.cpp line 20 (step 3)"))
      << all;
  EXPECT_TRUE(Has(found, "inline assembly in hostile.cpp line 27 (step 4a)")) << all;
#if defined(__x86_64__)
  EXPECT_TRUE(Has(found, "system call instruction 'syscall' in hostile.cpp line 27 (step 4a)")) << all;
#endif
  // Threads and signal handlers would run lab code between the calls.
  EXPECT_TRUE(Has(found, "forbidden symbol pthread_create in hostile.cpp line 40 (step 4b)")) << all;
  EXPECT_TRUE(Has(found, "forbidden symbol signal in hostile.cpp line 41 (step 4b)")) << all;
  EXPECT_TRUE(Has(found, "forbidden symbol std::thread::")) << all;
  EXPECT_FALSE(Has(found, "step 1)")) << all;
}

TEST_F(AuditTest, TheRubricAllowsForOneStepOrEverywhere) {
  ASSERT_EQ(Compile(kCxx, "hostile.cpp", kHostile, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("hostile.cpp",
                                         "audit allow _exit step=2\n"
                                         "audit allow open\n"
                                         "audit allow asm step=3\n");
  std::string all = Joined(found);
  EXPECT_FALSE(Has(found, "_exit")) << all;
  EXPECT_FALSE(Has(found, "symbol open")) << all;
  EXPECT_TRUE(Has(found, "inline assembly in hostile.cpp line 27 (step 4a)"))
      << "allowed in step 3 only: " << all;
  EXPECT_TRUE(Has(found, "constructor early()")) << all;

  found = Audit("hostile.cpp", "audit allow _exit step=3\naudit allow constructor asm\n");
  all = Joined(found);
  EXPECT_TRUE(Has(found, "forbidden symbol _exit in hostile.cpp line 13 (step 2)")) << all;
  EXPECT_FALSE(Has(found, "constructor")) << all;
  EXPECT_FALSE(Has(found, "assembly")) << all;
  EXPECT_FALSE(Has(found, "system call")) << all;
}

TEST_F(AuditTest, ARubricForbidsMoreAndWithoutLinesEveryStepCounts) {
  ASSERT_EQ(Compile(kCxx, "clean.cpp", kClean, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("clean.cpp", "audit forbid printf abort\n");
  EXPECT_TRUE(Has(found, "forbidden symbol printf in clean.cpp line 13 (step 1)")) << Joined(found);
  EXPECT_TRUE(Has(found, "forbidden symbol abort in clean.cpp line 14 (step 1)")) << Joined(found);
  // _FORTIFY_SOURCE (Ubuntu's gcc turns it on by default) calls __printf_chk for printf: the
  // audit still names and matches printf.
  ASSERT_EQ(Compile(kCxx, "clean.cpp", kClean, "-O2 -g -D_FORTIFY_SOURCE=2"), 0) << CompileLog();
  found = Audit("clean.cpp", "audit forbid printf abort\n");
  EXPECT_TRUE(Has(found, "forbidden symbol printf in clean.cpp line 13 (step 1)")) << Joined(found);
  // Without line tables the line is unknown, and the finding counts for every step.
  ASSERT_EQ(Compile(kCxx, "hostile.cpp", kHostile, "-O2"), 0) << CompileLog();
  found = Audit("hostile.cpp");
  EXPECT_TRUE(Has(found, "forbidden symbol _exit in hostile.cpp (line unknown: it counts for "
                         "every step)"))
      << Joined(found);
}

// A bitonic sort whose bonus step 5 called CUB's merge sort: the audit read "// Step 5
// (bonus):" as part of step 4, so step 4 paid and step 5 kept its points.
TEST_F(AuditTest, ABonusStepPaysForItsOwnFindings) {
  const char *source =
      "namespace cub { struct DeviceMergeSort { static int SortKeys(unsigned *keys, int n); }; }\n"
      "// =============================================================================================\n"
      "// Step 4: registers, shuffles, and several strides per pass\n"
      "// =============================================================================================\n"
      "int bitonic_step4(unsigned *keys, int n) { return keys[0] + n; }\n"
      "// =============================================================================================\n"
      "// Step 5 (bonus): windows of the network, fewer passes\n"
      "// =============================================================================================\n"
      "int bitonic_step5(unsigned *keys, int n) {\n"
      "  return cub::DeviceMergeSort::SortKeys(keys, n);\n"
      "}\n";
  ASSERT_EQ(Compile(kCxx, "bitonic_sort.cpp", source, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("bitonic_sort.cpp");
  ASSERT_EQ(found.size(), 1u) << Joined(found);
  EXPECT_EQ(found[0], "forbidden symbol cub::DeviceMergeSort::SortKeys in bitonic_sort.cpp line 10 "
                      "(step 5)");
  EXPECT_EQ(Joined(Audit("bitonic_sort.cpp", "audit allow cub::* step=5\n")), "");
  EXPECT_NE(Joined(Audit("bitonic_sort.cpp", "audit allow cub::* step=4\n")), "");
}

TEST_F(AuditTest, ALineDirectiveCannotHideCodeInAHeader) {
  const char *source =
      "#include <unistd.h>\n"
      "// =====================\n"
      "// Step 2: pretends to be stdio.h\n"
      "// =====================\n"
      "#line 1 \"/usr/include/stdio.h\"\n"
      "int step2(int x) { if (x == 42) _exit(0); return x; }\n";
  ASSERT_EQ(Compile(kCxx, "line.cpp", source, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("line.cpp");
  EXPECT_TRUE(Has(found, "a #line directive in line.cpp line 5 (step 2)")) << Joined(found);
  EXPECT_TRUE(Audit("line.cpp", "audit allow line-directive\n").empty() ||
              !Has(Audit("line.cpp", "audit allow line-directive\n"), "#line"));
}

// A namespace pattern finds its namespace at any level of a name: CUB wrapped in a namespace
// of the student's (CUB_WRAPPED_NAMESPACE), in a template argument, in a parameter type; but
// not a longer name that ends in the same letters.
TEST_F(AuditTest, ALibrarysNamespaceIsFoundAtAnyLevelOfAName) {
  const char *source =
      "namespace mywrap { namespace cub { struct DeviceScan {\n"              // 1
      "  static int ExclusiveSum(int *p, int n); }; struct Max {}; } }\n"     // 2
      "namespace mycub { int Sum(int x); }\n"                                 // 3
      "namespace scrub { int Sum(int x); }\n"                                 // 4
      "namespace thrust_like { int sort(int x); }\n"                          // 5
      "template <typename Op> int reduce_with(Op op, int x);\n"               // 6
      "int apply(void (*f)(mywrap::cub::Max *), int x);\n"                    // 7
      "// =====================\n"                                            // 8
      "// Step 2: wrapped\n"                                                  // 9
      "// =====================\n"                                            // 10
      "int step2(int *p) { return mywrap::cub::DeviceScan::ExclusiveSum(p, 1); }\n"  // 11
      "// =====================\n"                                            // 12
      "// Step 3: names that merely end in the letters\n"                     // 13
      "// =====================\n"                                            // 14
      "int step3(int x) { return mycub::Sum(x) + scrub::Sum(x) + thrust_like::sort(x); }\n"  // 15
      "// =====================\n"                                            // 16
      "// Step 4: a template argument, a parameter type\n"                    // 17
      "// =====================\n"                                            // 18
      "int step4(int x) { return reduce_with(mywrap::cub::Max{}, x) + apply(nullptr, x); }\n";  // 19
  ASSERT_EQ(Compile(kCxx, "wrapped.cpp", source, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("wrapped.cpp");
  std::string all = Joined(found);
  ASSERT_EQ(found.size(), 1u) << all;
  EXPECT_TRUE(Has(found, "matching cub::*) in wrapped.cpp lines 11, 19 (steps 2, 4)")) << all;
  EXPECT_FALSE(Has(found, "step 3")) << all;
  // The rubric's allow lines match the same way: allowed, the wrapped library is allowed.
  EXPECT_EQ(Joined(Audit("wrapped.cpp", "audit allow cub::*\n")), "");
  EXPECT_EQ(Joined(Audit("wrapped.cpp", "audit allow cub::* step=2\naudit allow cub::* step=4\n")), "");
  EXPECT_TRUE(Has(Audit("wrapped.cpp", "audit allow cub::* step=2\n"), "line 19 (step 4)"));
  // A pattern of the rubric's own is a namespace pattern too, alternatives included.
  found = Audit("wrapped.cpp", "audit forbid nothing::*|mycub::*\n");
  EXPECT_TRUE(Has(found, "forbidden symbol mycub::Sum in wrapped.cpp line 15 (step 3)")) << Joined(found);
}

// The worker counts launches and GPU memory by the linker's --wrap: its __real_ names reach
// the runtime around the counts, and the runtime's internal names reach the driver.
TEST_F(AuditTest, NamesThatReachAroundTheWorkersCountsAreFindings) {
  const char *source =
      "extern \"C\" int __real_cudaMalloc(void **p, unsigned long n);\n"       // 1
      "extern \"C\" int __wrap_cudaFree(void *p);\n"                            // 2
      "extern \"C\" int __cudaGetProcAddress(const char *s, void **f);\n"       // 3
      "int take(void **p) { return __real_cudaMalloc(p, 1ul << 40); }\n"        // 4
      "int give(void *p) { return __wrap_cudaFree(p); }\n"                      // 5
      "int reach(void **f) { return __cudaGetProcAddress(\"cuMemAlloc\", f); }\n"  // 6
      "extern \"C\" int aio_write(void *cb);\n"                                 // 7
      "extern \"C\" int cudaDeviceSetLimit(int limit, unsigned long value);\n"  // 8
      "int later(void *cb) { return aio_write(cb) + cudaDeviceSetLimit(0, 1ul << 20); }\n";  // 9
  ASSERT_EQ(Compile(kCxx, "around.cpp", source, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("around.cpp");
  std::string all = Joined(found);
  EXPECT_TRUE(Has(found, "__real_cudaMalloc")) << all;
  EXPECT_TRUE(Has(found, "__wrap_cudaFree")) << all;
  EXPECT_TRUE(Has(found, "__cudaGetProcAddress")) << all;
  // A thread the C library starts for the lab (asynchronous I/O's notification), and a device
  // limit that reserves GPU memory the cap does not count.
  EXPECT_TRUE(Has(found, "forbidden symbol aio_write")) << all;
  EXPECT_TRUE(Has(found, "forbidden symbol cudaDeviceSetLimit")) << all;
}

// The headers of a library, from the #include lines of the student's text: the dependency file
// is not needed (some generators delete it), and no spelling the preprocessor accepts hides one.
TEST_F(AuditTest, IncludesAreReadFromTheStudentsText) {
  WriteText(dir_ + "/inc/cub/cub.cuh", "namespace cub { inline int Twice(int x) { return 2 * x; } }\n");
  WriteText(dir_ + "/inc/thrust/sort.h", "namespace thrust { inline int Id(int x) { return x; } }\n");
  WriteText(dir_ + "/inc/cute/tensor.hpp", "namespace cute { inline int One() { return 1; } }\n");
  WriteText(dir_ + "/inc/cutlass/cutlass.h", "namespace cutlass { inline int Two() { return 2; } }\n");
  WriteText(dir_ + "/inc/cublas_v2.h", "inline int cublasLike() { return 3; }\n");
  WriteText(dir_ + "/inc/mycub/x.h", "inline int mine() { return 4; }\n");
  const char *source =
      "#include <cub/cub.cuh>\n"                        // 1
      "// #include <thrust/sort.h> in a comment\n"      // 2
      "static const char *kText = \"#include <cute/tensor.hpp>\";\n"  // 3
      "static const char *kRaw = R\"x(\n"               // 4
      "#include <cutlass/cutlass.h>\n"                  // 5: inside a raw string
      ")x\";\n"                                         // 6
      "#include <mycub/x.h>\n"                          // 7
      "// =====================\n"                      // 8
      "// Step 5: the library in place of the step\n"   // 9
      "// =====================\n"                      // 10
      "int step5(int x) { return cub::Twice(x) + (kText[0] + kRaw[0]) * 0 + mine(); }\n"  // 11
      "// =====================\n"                      // 12
      "// Step 6: includes spelled otherwise\n"         // 13
      "// =====================\n"                      // 14
      "#\\\n"                                           // 15: spliced
      "include <thrust/sort.h>\n"                       // 16
      "%:  include \"cute/tensor.hpp\"\n"               // 17: the digraph of '#'
      "#/* a comment */include /*\n"                    // 18: a comment that joins two lines
      "*/ <cublas_v2.h>\n"                              // 19
      "int step6(int x) { return x; }\n";               // 20
  ASSERT_EQ(Compile(kCxx, "includes.cpp", source, "-O2 -g -I'" + dir_ + "/inc'"), 0) << CompileLog();
  for (bool deps : {true, false}) {
    if (!deps) {
      ASSERT_EQ(unlink((dir_ + "/includes.cpp.o.d").c_str()), 0);
    }
    std::vector<std::string> found = Audit("includes.cpp");
    std::string all = Joined(found);
    EXPECT_TRUE(Has(found, "forbidden header cub/cub.cuh in includes.cpp line 11 (step 5)")) << all;
    // A spliced #include names the library on its second line.
    EXPECT_TRUE(Has(found, "forbidden header thrust/sort.h in includes.cpp line 16 (step 6)")) << all;
    EXPECT_TRUE(Has(found, "forbidden header cute/tensor.hpp in includes.cpp line 17 (step 6)")) << all;
    EXPECT_TRUE(Has(found, "forbidden header cublas_v2.h in includes.cpp line 19 (step 6)")) << all;
    EXPECT_FALSE(Has(found, "cutlass")) << "a raw string is no #include: " << all;
    EXPECT_FALSE(Has(found, "mycub")) << all;
    EXPECT_EQ(found.size(), 4u) << all;
  }
  // Allowed where the code names it, the library stays allowed: its #include above the steps
  // does not count against it.
  std::vector<std::string> found = Audit("includes.cpp", "audit allow cub::* step=5\n");
  EXPECT_FALSE(Has(found, "cub/")) << Joined(found);
  EXPECT_TRUE(Has(Audit("includes.cpp", "audit allow cub::* step=6\n"), "cub/cub.cuh"));
}

// An #include of a macro names a header the text does not show: a finding of its own.
TEST_F(AuditTest, AnIncludeOfAMacroIsAFinding) {
  WriteText(dir_ + "/inc/cub/cub.cuh", "namespace cub { inline int Twice(int x) { return 2 * x; } }\n");
  const char *source =
      "#define LIBRARY(name) <name/name.cuh>\n"
      "#define HEADER LIBRARY(cub)\n"
      "// =====================\n"
      "// Step 3: a header by macro\n"
      "// =====================\n"
      "#include HEADER\n"
      "int step3(int x) { return Twice(x); }\n";
  std::string fixed = std::string(source);
  fixed.replace(fixed.find("Twice(x)"), 5, "cub::Twice");
  ASSERT_EQ(Compile(kCxx, "macro.cpp", fixed, "-O2 -g -I'" + dir_ + "/inc'"), 0) << CompileLog();
  std::vector<std::string> found = Audit("macro.cpp");
  EXPECT_TRUE(Has(found, "an #include of a macro, HEADER (it can name any header, a library's too) "
                         "in macro.cpp line 6 (step 3)"))
      << Joined(found);
  // The dependency file shows the header; the code names the library in step 3 and above the
  // steps, in the macro.
  EXPECT_TRUE(Has(found, "forbidden header cub/cub.cuh in macro.cpp lines 2, 7 (outside the steps: "
                         "it counts for every step)"))
      << Joined(found);
  EXPECT_FALSE(Has(Audit("macro.cpp", "audit allow include-macro\n"), "macro, HEADER"));
  EXPECT_FALSE(Has(Audit("macro.cpp", "audit allow include-macro step=3\n"), "macro, HEADER"));
}

// Comments and literals are read as the compiler reads them: a raw string that holds a quote
// and a comment's start hides no code after it.
TEST_F(AuditTest, ARawStringHidesNoCode) {
  const char *source =
      "// =====================\n"
      "// Step 2: a raw string, then assembly\n"
      "// =====================\n"
      "static const char *kRaw = R\"(\")/*)\";\n"
      "long step2(long n) { __asm__ volatile(\"\" : \"+r\"(n)); return n + kRaw[0]; }\n"
      "// */\n";
  ASSERT_EQ(Compile(kCxx, "raw.cpp", source, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("raw.cpp");
  EXPECT_TRUE(Has(found, "inline assembly in raw.cpp line 5 (step 2)")) << Joined(found);
}

// Code before main is recognised by what it is, never by its name: the compilers' start-up code
// reaches only the CUDA runtime's registration, atexit and <iostream>'s set-up, and stands in
// the plain .init_array. Each of these is the student's, whatever it is called.
TEST_F(AuditTest, ConstructorsAreRecognisedByWhatTheyAre) {
  const char *source =
      "#include <cstdlib>\n"                                                          // 1
      "extern \"C\" void **__cudaRegisterFatBinary(void *fatbin);\n"                  // 2
      "// =====================\n"                                                    // 3
      "// Step 2: named like nvcc's registration\n"                                   // 4
      "// =====================\n"                                                    // 5
      "static void __sti____cudaRegisterAll(void) __attribute__((constructor));\n"    // 6
      "static void __sti____cudaRegisterAll(void) {\n"                                // 7
      "  __cudaRegisterFatBinary(nullptr);\n"                                         // 8
      "  if (std::getenv(\"X\")) std::abort();\n"                                     // 9
      "}\n"                                                                           // 10
      "__attribute__((noinline)) static void early_work() { if (std::getenv(\"Y\")) std::abort(); }\n"  // 11
      "extern \"C\" __attribute__((constructor)) void __sti____cudaRegisterAll_2(void) {\n"  // 12
      "  __cudaRegisterFatBinary(nullptr);\n"                                         // 13
      "  early_work();\n"                                                             // 14
      "}\n"                                                                           // 15
      "// =====================\n"                                                    // 16
      "// Step 3: named like a global initialiser, and a real one\n"                  // 17
      "// =====================\n"                                                    // 18
      "extern \"C\" __attribute__((constructor)) void _GLOBAL__sub_I_x(void) { std::getenv(\"Z\"); }\n"  // 19
      "struct Early { Early() { if (std::getenv(\"W\")) std::abort(); } };\n"         // 20
      "static Early early_object;\n"                                                  // 21
      "// =====================\n"                                                    // 22
      "// Step 4: registration alone, but before the sandbox; before the loader ends\n"  // 23
      "// =====================\n"                                                    // 24
      "__attribute__((constructor(50))) static void early50() { __cudaRegisterFatBinary(nullptr); }\n"  // 25
      "static void nothing() {}\n"                                                    // 26
      "__attribute__((section(\".preinit_array\"), used)) static void (*pre)() = nothing;\n"  // 27
      "// =====================\n"                                                    // 28
      "// Step 5: a resolver, and a function the start-up code calls\n"              // 29
      "// =====================\n"                                                    // 30
      "static int impl(int x) { return x; }\n"                                        // 31
      "extern \"C\" void *resolve_chosen() { return (void *)impl; }\n"                // 32
      "extern \"C\" int chosen(int) __attribute__((ifunc(\"resolve_chosen\")));\n"    // 33
      "extern \"C\" void __cudaRegisterFunction(void **, const char *) {}\n";         // 34
  ASSERT_EQ(Compile(kCxx, "ctors.cpp", source, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("ctors.cpp");
  std::string all = Joined(found);
  // The function's line or its first statement's: compilers differ in which the entry maps to.
  EXPECT_TRUE(Has(found, "constructor __sti____cudaRegisterAll() (it runs before the tests) in ctors.cpp "
                         "line 7 (step 2)") ||
              Has(found, "constructor __sti____cudaRegisterAll() (it runs before the tests) in ctors.cpp "
                         "line 8 (step 2)"))
      << all;
  // It reaches getenv only through a function of its own that no relocation shows.
  EXPECT_TRUE(Has(found, "constructor __sti____cudaRegisterAll_2 (it runs before the tests) in ctors.cpp "
                         "line 12 (step 2)"))
      << all;
  EXPECT_TRUE(Has(found, "constructor _GLOBAL__sub_I_x (it runs before the tests) in ctors.cpp line 19 "
                         "(step 3)"))
      << all;
  EXPECT_TRUE(Has(found, "constructor: a global object's initialiser calls getenv (it runs before the "
                         "tests) in ctors.cpp line 20 (step 3)"))
      << all;
  EXPECT_TRUE(Has(found, "constructor early50() (it runs before the tests) in ctors.cpp line 25 (step 4)"))
      << all;
  EXPECT_TRUE(Has(found, "constructor nothing() (it runs before the tests) in ctors.cpp line 26 (step 4)"))
      << all;
  EXPECT_TRUE(Has(found, "an IFUNC, chosen (its resolver runs in the dynamic loader, before the tests) "
                         "in ctors.cpp line 32 (step 5)"))
      << all;
  EXPECT_TRUE(Has(found, "a definition of __cudaRegisterFunction, which the compilers' generated code "
                         "calls (the linker would take it for the library's) in ctors.cpp line 34 (step 5)"))
      << all;
  EXPECT_EQ(found.size(), 8u) << all;
  EXPECT_EQ(Joined(Audit("ctors.cpp", "audit allow constructor\n")), "");
  // Unoptimised, the calls the assembler resolves itself are read from the machine code.
  ASSERT_EQ(Compile(kCxx, "ctors.cpp", source, "-O0 -g"), 0) << CompileLog();
  found = Audit("ctors.cpp");
  all = Joined(found);
  EXPECT_TRUE(Has(found, "constructor __sti____cudaRegisterAll_2 (it runs before the tests)")) << all;
  EXPECT_TRUE(Has(found, "constructor: a global object's initialiser calls")) << all;
  EXPECT_EQ(found.size(), 8u) << all;
}

// Under nvcc the line tables place some of the student's code in the generated
// <name>.cudafe1.cpp (or .cudafe1.stub.c), on no line of the .cu. Such a use is never dropped:
// it counts for every step, and the finding says why. A #line stands in for nvcc here (its
// own finding is allowed, to look at the other).
TEST_F(AuditTest, CodeOnNoLineOfTheFileCountsForEveryStep) {
  for (const char *generated : {"tmpxft_00001234_00000000-6_gen.cudafe1.cpp", "gen.cudafe1.stub.c"}) {
    std::string source = std::string(
                             "#include <unistd.h>\n"                              // 1
                             "// =====================\n"                         // 2
                             "// Step 1: fine, but for one call\n"                // 3
                             "// =====================\n"                         // 4
                             "int step1(int x) { if (x == 7) _exit(1); return x; }\n"  // 5
                             "// =====================\n"                         // 6
                             "// Step 2: placed by the line tables in nvcc's file\n"  // 7
                             "// =====================\n"                         // 8
                             "int step2(int x) {\n"                               // 9
                             "#line 40 \"/tmp/") +
                         generated + "\"\n"
                                     "  if (x == 42) _exit(0);\n"
                                     "  return x;\n"
                                     "}\n";
    ASSERT_EQ(Compile(kCxx, "gen.cpp", source, "-O2 -g"), 0) << CompileLog();
    std::vector<std::string> found = Audit("gen.cpp", "audit allow line-directive\n");
    ASSERT_EQ(found.size(), 1u) << Joined(found);
    EXPECT_EQ(found[0], "forbidden symbol _exit in gen.cpp line 5 (and in code that nvcc generated from the "
                        "file and its line tables place on no line of it: it counts for every step)")
        << generated;
    // Never allowed for one step: where it is, is not known.
    EXPECT_EQ(Audit("gen.cpp", "audit allow line-directive\naudit allow _exit step=1\naudit allow _exit "
                               "step=2\n")
                  .size(),
              1u);
  }
  // Where the line tables say nothing at all (code in a section of its own, from top-level
  // assembly), the same.
  const char *bare =
      "#include <unistd.h>\n"
      "// =====================\n"
      "// Step 2: a call the line tables place\n"
      "// =====================\n"
      "int step2(int x) { if (x == 7) _exit(1); return x; }\n"
      "// =====================\n"
      "// Step 3: and one they do not\n"
      "// =====================\n"
      "__asm__(\".section .text.bare,\\\"ax\\\",@progbits\\n\"\n"
      "        \".globl bare\\nbare:\\n call _exit@PLT\\n\"\n"
      "        \".text\\n\");\n";
  ASSERT_EQ(Compile(kCxx, "bare.cpp", bare, "-O2 -g"), 0) << CompileLog();
  std::vector<std::string> found = Audit("bare.cpp", "audit allow asm\n");
  ASSERT_EQ(found.size(), 1u) << Joined(found);
  EXPECT_EQ(found[0], "forbidden symbol _exit in bare.cpp line 5 (and where the line tables name no "
                      "line: it counts for every step)");
}

// The CPU backend compiles a rewrite of the student's .cu that starts with #line 1 "<the .cu>":
// findings carry the .cu's lines, also where addr2line names the rewrite (a constructor in
// .text.startup has no line table of its own there).
TEST_F(AuditTest, TheCpuBackendsRewriteKeepsTheSourcesLines) {
  std::string source = std::string(kHostile) +
                       "static volatile int flag;\n"
                       "__attribute__((constructor)) static void later(void) { flag = 1; }\n";
  WriteText(dir_ + "/lab.cu", source);
  ASSERT_EQ(Compile(kCxx, "lab.cu.cpp", "#include <cstdio>\n#line 1 \"" + dir_ + "/lab.cu\"\n" + source,
                    "-O2 -g"),
            0)
      << CompileLog();
  ASSERT_EQ(mkdir((dir_ + "/build").c_str(), 0777), 0);
  ASSERT_EQ(mkdir((dir_ + "/build/gpulabs-audit").c_str(), 0777), 0);
  WriteText(dir_ + "/build/gpulabs-audit/reduction.txt",
            "exercise\t" + dir_ + "/lab.cu\t" + dir_ + "/lab.cu.cpp\nobject\t" + dir_ + "/lab.cu.cpp.o\n");
  Config config("");
  audit_result res;
  audit_result_init(&res);
  audit_lab(&config.r.audit, (dir_ + "/build").c_str(), dir_.c_str(), "reduction", &res);
  std::vector<std::string> found = Texts(res);
  EXPECT_TRUE(Has(found, "forbidden symbol _exit in lab.cu line 13 (step 2)")) << Joined(found);
  EXPECT_TRUE(Has(found, "constructor later() (it runs before the tests) in lab.cu line 46 (step 4b)"))
      << Joined(found);
  EXPECT_FALSE(Has(found, "#line")) << "the rewrite's own #line is not the student's";
  audit_result_free(&res);
}

TEST_F(AuditTest, AnObjectItCannotReadCountsAgainstIt) {
  WriteText(dir_ + "/broken.cpp", "int x;\n");
  WriteText(dir_ + "/broken.cpp.o", "not an object");
  std::vector<std::string> found = Audit("broken.cpp");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "an object the audit cannot read (not a 64-bit little-endian ELF object) in "
                      "broken.cpp (line unknown: it counts for every step)");
}

TEST_F(AuditTest, TheBuildTreesListNamesTheFilesAndObjects) {
  ASSERT_EQ(Compile(kCxx, "hostile.cpp", kHostile, "-O2 -g"), 0) << CompileLog();
  ASSERT_EQ(mkdir((dir_ + "/build").c_str(), 0777), 0);
  ASSERT_EQ(mkdir((dir_ + "/build/gpulabs-audit").c_str(), 0777), 0);
  WriteText(dir_ + "/build/gpulabs-audit/reduction.txt",
            "exercise\t" + dir_ + "/hostile.cpp\t" + dir_ + "/hostile.cpp\n"
            "object\t" + dir_ + "/hostile.cpp.o\n"
            "object\t" + dir_ + "/given.cpp.o\n");
  Config config("");
  audit_result res;
  audit_result_init(&res);
  audit_lab(&config.r.audit, (dir_ + "/build").c_str(), dir_.c_str(), "reduction", &res);
  EXPECT_EQ(res.problems.count, 0u);
  ASSERT_EQ(res.audited.count, 1u);
  EXPECT_STREQ(res.audited.items[0], "hostile.cpp") << "named relative to the course";
  EXPECT_TRUE(Has(Texts(res), "forbidden symbol _exit in hostile.cpp line 13 (step 2)"));
  audit_lab(&config.r.audit, (dir_ + "/build").c_str(), dir_.c_str(), "scan", &res);
  ASSERT_EQ(res.problems.count, 1u);
  EXPECT_NE(std::string(res.problems.items[0]).find("not audited: the build tree has no"),
            std::string::npos);
  audit_result_free(&res);
}

TEST(GraderAudit, AFindingCostsItsStepsAndThePerformanceItems) {
  for (const char *cost : {"", "audit cost lab\n", "audit cost none\n", "audit cost step\n"}) {
    grade_report report;
    report_init(&report);
    lab_result *lab = report_add_lab(&report, "reduction");
    strbuf errors;
    sb_init(&errors);
    std::string rubric = std::string(
                             "files labs/reduction/reduction.cu\n"
                             "step 1-first 10 S1.*\n"
                             "step 8-warp-shuffle 12 S8.*\n"
                             "step 8-operators 8 S8b.*\n"
                             "step 80-other 5 S80.*\n"
                             "perf final-vs-cub 20 P.* metric=m target=0.9 floor=0.5\n") +
                         cost;
    ASSERT_EQ(rubric_parse(&lab->rubric, rubric.c_str(), "reduction.rubric", &errors), 0) << errors.data;
    sb_free(&errors);
    lab->n_items = lab->rubric.n_items;
    lab->items = static_cast<item_result *>(xcalloc(lab->n_items, sizeof(item_result)));
    for (size_t i = 0; i < lab->n_items; i++) {
      lab->items[i].item = &lab->rubric.items[i];
      lab->items[i].state = ITEM_PASSED;
      lab->items[i].score = lab->rubric.items[i].points;
    }
    lab->items[4].state = ITEM_NOT_RUN;  // perf on the CPU backend
    lab->items[4].score = 0;
    lab->items[2].state = ITEM_FAILED;  // a test of its own failed too
    lab->items[2].score = 0;
    lab->items[2].reason = xstrdup("S8b.Sum: wrong");
    audit_finding f;
    memset(&f, 0, sizeof f);
    f.name = xstrdup("exit");
    f.what = xstrdup("forbidden symbol exit");
    f.file = xstrdup("labs/reduction/reduction.cu");
    f.lines[f.n_lines++] = 412;
    sl_init(&f.steps);
    sl_push(&f.steps, "8");
    lab->audit.findings = static_cast<audit_finding *>(xcalloc(1, sizeof f));
    lab->audit.findings[0] = f;
    lab->audit.count = 1;
    audit_apply(&lab->rubric.audit, lab);

    std::string lost;
    for (size_t i = 0; i < lab->n_items; i++) {
      if (lab->items[i].state == ITEM_FAILED) lost += std::string(lab->items[i].item->id) + " ";
    }
    if (cost[0] == '\0') {
      EXPECT_EQ(lost, "8-warp-shuffle 8-operators final-vs-cub ");
      EXPECT_STREQ(lab->items[1].reason,
                   "forbidden symbol exit in labs/reduction/reduction.cu line 412 (step 8): "
                   "8-warp-shuffle, 8-operators and final-vs-cub earn nothing");
      EXPECT_EQ(lab->items[1].score, 0);
      EXPECT_STREQ(lab->items[2].reason,
                   "forbidden symbol exit in labs/reduction/reduction.cu line 412 (step 8): "
                   "8-warp-shuffle, 8-operators and final-vs-cub earn nothing (and before the "
                   "audit: S8b.Sum: wrong)");
      EXPECT_NE(std::string(lab->items[4].reason).find("earn nothing"), std::string::npos);
      EXPECT_EQ(std::string(lab->items[4].reason).find("before the audit"), std::string::npos)
          << "not scored is no finding of the tests";
      EXPECT_EQ(lab->items[0].score, 10);
      report_totals t;
      lab_totals(lab, &t);
      EXPECT_EQ(t.score, 15) << "a perf item the audit charges counts as lost, not as not scored";
      EXPECT_EQ(t.max_score, 55);
      // Every report carries the finding.
      char pattern[] = "/tmp/grader-audit-report-XXXXXX";
      std::string out = mkdtemp(pattern);
      strbuf err;
      sb_init(&err);
      ASSERT_EQ(grade_write_reports(&report, out.c_str(), &err), 0) << err.data;
      sb_free(&err);
      const char *line = "forbidden symbol exit in labs/reduction/reduction.cu line 412 (step 8)";
      EXPECT_NE(ReadText(out + "/summary.md").find(line), std::string::npos);
      std::string json = ReadText(out + "/results.json");
      EXPECT_NE(json.find(std::string("\"audit\": [\"") + line), std::string::npos) << json;
      EXPECT_NE(json.find("8-warp-shuffle, 8-operators and final-vs-cub earn nothing"),
                std::string::npos);
      std::system(("rm -rf '" + out + "'").c_str());
    } else if (std::string(cost) == "audit cost lab\n") {
      EXPECT_EQ(lost, "1-first 8-warp-shuffle 8-operators 80-other final-vs-cub ");
    } else if (std::string(cost) == "audit cost none\n") {
      EXPECT_EQ(lost, "8-operators ") << "only what its own tests lost";
      strlist lines;
      sl_init(&lines);
      audit_lines(lab, &lines);
      ASSERT_EQ(lines.count, 1u);
      EXPECT_NE(std::string(lines.items[0]).find("reported only"), std::string::npos);
      sl_free(&lines);
    } else {
      EXPECT_EQ(lost, "8-warp-shuffle 8-operators ");
    }
    report_free(&report);
  }
}

// A banner is the student's text: renamed ("// Step 55:"), the findings below it would cost no
// step at all. A step the rubric has no item for counts for every step.
TEST(GraderAudit, AStepWithNoItemCountsForEveryStep) {
  for (const char *steps : {"55", "8 55", "8"}) {
    grade_report report;
    report_init(&report);
    lab_result *lab = report_add_lab(&report, "reduction");
    strbuf errors;
    sb_init(&errors);
    ASSERT_EQ(rubric_parse(&lab->rubric,
                           "files labs/reduction/reduction.cu\n"
                           "step 1-first 10 S1.*\n"
                           "step 8-warp-shuffle 12 S8.*\n"
                           "step n-near-2^32 8 SN.*\n"
                           "perf final-vs-cub 20 P.* metric=m target=0.9 floor=0.5\n",
                           "reduction.rubric", &errors),
              0)
        << errors.data;
    sb_free(&errors);
    lab->n_items = lab->rubric.n_items;
    lab->items = static_cast<item_result *>(xcalloc(lab->n_items, sizeof(item_result)));
    for (size_t i = 0; i < lab->n_items; i++) {
      lab->items[i].item = &lab->rubric.items[i];
      lab->items[i].state = ITEM_PASSED;
      lab->items[i].score = lab->rubric.items[i].points;
    }
    audit_finding f;
    memset(&f, 0, sizeof f);
    f.name = xstrdup("exit");
    f.what = xstrdup("forbidden symbol exit");
    f.file = xstrdup("labs/reduction/reduction.cu");
    sl_init(&f.steps);
    std::istringstream ids(steps);
    std::string id;
    while (ids >> id) {
      f.lines[f.n_lines] = 400 + static_cast<int>(f.n_lines);
      f.n_lines++;
      sl_push(&f.steps, id.c_str());
    }
    lab->audit.findings = static_cast<audit_finding *>(xcalloc(1, sizeof f));
    lab->audit.findings[0] = f;
    lab->audit.count = 1;
    audit_apply(&lab->rubric.audit, lab);
    std::string lost;
    for (size_t i = 0; i < lab->n_items; i++) {
      if (lab->items[i].state == ITEM_FAILED) lost += std::string(lab->items[i].item->id) + " ";
    }
    if (std::string(steps) == "8") {
      EXPECT_EQ(lost, "8-warp-shuffle final-vs-cub ");
    } else {
      EXPECT_EQ(lost, "1-first 8-warp-shuffle n-near-2^32 final-vs-cub ") << steps;
      EXPECT_NE(std::string(lab->items[0].reason).find("(a step with no item in the lab: it counts "
                                                      "for every step): 1-first, "),
                std::string::npos)
          << lab->items[0].reason;
    }
    report_free(&report);
  }
}

// nvcc's object: CUB in step 8 is found by its symbols and its headers, on the right line; a
// __device__ function's host stub (which calls exit(1)) is not a call to exit. Compiled only.
TEST_F(AuditTest, NvccObjectsShowLibrariesButNotTheirOwnStubs) {
  std::string nvcc = GRADER_TEST_NVCC;
  if (nvcc.empty() && std::system("nvcc --version >/dev/null 2>&1") == 0) nvcc = "nvcc";
  if (nvcc.empty()) GTEST_SKIP() << "nvcc is not installed";
  const char *source =
      "#include <cstdio>\n"
      "#include <cub/cub.cuh>\n"
      "// =====================\n"
      "// Step 7: a device function\n"
      "// =====================\n"
      "__device__ double twice(double v) {\n"
      "  return 2 * v;\n"
      "}\n"
      "__global__ void k7(double *p) { p[threadIdx.x] = twice(p[0]); }\n"
      "int step7(double *p) { k7<<<1, 32>>>(p); return 0; }\n"
      "// =====================\n"
      "// Step 8: the library instead\n"
      "// =====================\n"
      "int step8(int *in, long *out, int n) {\n"
      "  size_t bytes = 0;\n"
      "  return cub::DeviceReduce::Sum(nullptr, bytes, in, out, n);\n"
      "}\n";
  // As the course builds an exercise file: host line tables (-g), optimised.
  ASSERT_EQ(Compile(nvcc, "lab.cu", source, "-O3 -g -std=c++17"), 0) << CompileLog();
  std::vector<std::string> found = Audit("lab.cu");
  std::string all = Joined(found);
  EXPECT_TRUE(Has(found, "forbidden symbol cub::DeviceReduce::Sum (and ")) << all;
  EXPECT_TRUE(Has(found, "matching cub::*) in lab.cu line 16 (step 8)")) << all;
  EXPECT_TRUE(Has(found, "forbidden header cub/")) << all;
  EXPECT_FALSE(Has(found, "exit")) << all;
  EXPECT_FALSE(Has(found, "step 7")) << all;
  EXPECT_FALSE(Has(found, "thrust")) << "CUB's own headers bring Thrust's: " << all;
  EXPECT_FALSE(Has(found, "dlopen")) << "NVTX's code inside CUB calls it, not the lab: " << all;
  // An instructor may allow the library for step 8.
  EXPECT_EQ(Joined(Audit("lab.cu", "audit allow cub::* step=8\n")), "");
  EXPECT_NE(Joined(Audit("lab.cu", "audit allow cub::* step=7\n")), "");
}

// CUB in a namespace of the student's (CUB_WRAPPED_NAMESPACE), in a bonus step, with no
// dependency file beside the object (CMake's Ninja generator removes it): its symbols and the
// #include in the text still find it, in step 5 and no other. Compiled only.
TEST_F(AuditTest, NvccWrappedCubIsFoundWithoutTheDependencyFile) {
  std::string nvcc = GRADER_TEST_NVCC;
  if (nvcc.empty() && std::system("nvcc --version >/dev/null 2>&1") == 0) nvcc = "nvcc";
  if (nvcc.empty()) GTEST_SKIP() << "nvcc is not installed";
  const char *source =
      "#define CUB_WRAPPED_NAMESPACE mywrap\n"
      "#include <cub/cub.cuh>\n"
      "// =====================\n"
      "// Step 4: registers\n"
      "// =====================\n"
      "int step4(int *keys, int n) { return keys[0] + n; }\n"
      "// =====================\n"
      "// Step 5 (bonus): windows\n"
      "// =====================\n"
      "int step5(int *in, int *out, int n) {\n"
      "  size_t bytes = 0;\n"
      "  return mywrap::cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n);\n"
      "}\n";
  ASSERT_EQ(Compile(nvcc, "lab.cu", source, "-O3 -g -std=c++17"), 0) << CompileLog();
  ASSERT_EQ(unlink((dir_ + "/lab.cu.o.d").c_str()), 0);
  std::vector<std::string> found = Audit("lab.cu");
  std::string all = Joined(found);
  EXPECT_TRUE(Has(found, "forbidden symbol mywrap::cub::")) << all;
  EXPECT_TRUE(Has(found, "matching cub::*) in lab.cu line 12 (step 5)")) << all;
  EXPECT_TRUE(Has(found, "forbidden header cub/cub.cuh in lab.cu line 12 (step 5)")) << all;
  EXPECT_FALSE(Has(found, "step 4")) << all;
  EXPECT_EQ(Joined(Audit("lab.cu", "audit allow cub::* step=5\n")), "");
  EXPECT_NE(Joined(Audit("lab.cu", "audit allow cub::* step=4\n")), "");
}

// nvcc's kernel registration and <iostream>'s initialiser are recognised by what they reach,
// optimised or not, with template kernels, __device__ and __managed__ variables; a constructor
// of the student's beside them is still found. Compiled only.
TEST_F(AuditTest, NvccStartUpCodeIsRecognisedByItsContents) {
  std::string nvcc = GRADER_TEST_NVCC;
  if (nvcc.empty() && std::system("nvcc --version >/dev/null 2>&1") == 0) nvcc = "nvcc";
  if (nvcc.empty()) GTEST_SKIP() << "nvcc is not installed";
  const std::string clean =
      "#include <iostream>\n"
      "// =====================\n"
      "// Step 1: kernels of every kind\n"
      "// =====================\n"
      "__global__ void k(int *p) { p[0] = 1; }\n"
      "template <typename T> __global__ void kt(T *p) { p[0] = 2; }\n"
      "__device__ int device_value;\n"
      "__managed__ int managed_value;\n"
      "int step1(int *p) {\n"
      "  k<<<1, 1>>>(p);\n"
      "  kt<<<1, 1>>>(p);\n"
      "  std::cout << managed_value;\n"
      "  return 0;\n"
      "}\n";
  const std::string hostile = clean +
                              "#include <cstdlib>\n"
                              "__attribute__((constructor)) static void early() { k<<<1, 1>>>(nullptr); }\n";
  for (const char *level : {"-O3", "-O0"}) {
    ASSERT_EQ(Compile(nvcc, "lab.cu", clean, std::string(level) + " -g -std=c++17 -Xcompiler=-fPIC"), 0)
        << CompileLog();
    EXPECT_EQ(Joined(Audit("lab.cu")), "") << level;
    ASSERT_EQ(Compile(nvcc, "lab.cu", hostile, std::string(level) + " -g -std=c++17 -Xcompiler=-fPIC"), 0)
        << CompileLog();
    std::vector<std::string> found = Audit("lab.cu");
    EXPECT_TRUE(Has(found, "constructor early() (it runs before the tests) in lab.cu line 16"))
        << level << ": " << Joined(found);
    EXPECT_EQ(found.size(), 1u) << level << ": " << Joined(found);
  }
}

// nvcc's line tables place an extended lambda's body in the generated .cudafe1.cpp (the call
// of _exit below is "<tmp>_lab.cudafe1.cpp:15", inlined into line 18); the function around it
// is on the student's lines, and so is the finding: step 3, no other. Compiled only.
TEST_F(AuditTest, NvccCodeInItsGeneratedFileIsTheStudents) {
  std::string nvcc = GRADER_TEST_NVCC;
  if (nvcc.empty() && std::system("nvcc --version >/dev/null 2>&1") == 0) nvcc = "nvcc";
  if (nvcc.empty()) GTEST_SKIP() << "nvcc is not installed";
  const char *source =
      "#include <unistd.h>\n"                                                    // 1
      "#include <algorithm>\n"                                                   // 2
      "#include <vector>\n"                                                      // 3
      "// =====================\n"                                              // 4
      "// Step 1: fine\n"                                                        // 5
      "// =====================\n"                                              // 6
      "int step1(int x) { return x; }\n"                                         // 7
      "template <typename F> __global__ void kl(F f, int *p) { p[0] = f(1, 2); }\n"  // 8
      "// =====================\n"                                              // 9
      "// Step 3: an extended lambda\n"                                          // 10
      "// =====================\n"                                              // 11
      "int step3(std::vector<int> &v, int *p) {\n"                               // 12
      "  auto f = [] __host__ __device__(int a, int b) {\n"                      // 13
      "#ifndef __CUDA_ARCH__\n"                                                  // 14
      "    if (a == 77) _exit(2);\n"                                             // 15
      "#endif\n"                                                                 // 16
      "    return a < b;\n"                                                      // 17
      "  };\n"                                                                   // 18
      "  kl<<<1, 1>>>(f, p);\n"                                                  // 19
      "  std::sort(v.begin(), v.end(), f);\n"                                    // 20
      "  return 0;\n"                                                            // 21
      "}\n";                                                                     // 22
  ASSERT_EQ(Compile(nvcc, "lab.cu", source, "-O3 -g -std=c++17 --extended-lambda -Xcompiler=-fPIC"), 0)
      << CompileLog();
  std::vector<std::string> found = Audit("lab.cu");
  std::string all = Joined(found);
  ASSERT_EQ(found.size(), 1u) << all;
  EXPECT_EQ(found[0], "forbidden symbol _exit in lab.cu line 18 (step 3)") << all;
}
