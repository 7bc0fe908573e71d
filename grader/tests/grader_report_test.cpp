// Tests of the grader's reports (grader/src/report*.c): results.json is parsed back and checked
// against the fields grader/README.md documents; junit.xml is read back with the grader's own
// XML reader; summary.md and items.tsv are checked line by line.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gltest.h"
#include "grader_test_files.h"

extern "C" {
#include "grade.h"
#include "report.h"
#include "xml.h"
}

namespace {

using grader_test::ReadText;

// ---- a small, strict JSON reader: enough to check what the grader writes ----

struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  bool Has(const std::string &key) const { return kind == kObject && fields.count(key) > 0; }
  const Json &operator[](const std::string &key) const {
    static const Json missing;
    auto it = fields.find(key);
    return it == fields.end() ? missing : it->second;
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string &text) : s_(text) {}

  bool Parse(Json *out, std::string *error) {
    pos_ = 0;
    bool ok = Value(out, 0);
    Space();
    if (ok && pos_ != s_.size()) ok = Fail("text after the value");
    if (!ok) *error = error_ + " at byte " + std::to_string(pos_);
    return ok;
  }

 private:
  bool Fail(const std::string &why) {
    if (error_.empty()) error_ = why;
    return false;
  }
  void Space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) pos_++;
  }
  bool Literal(const char *word) {
    size_t n = strlen(word);
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }
  bool String(std::string *out) {
    if (s_[pos_] != '"') return Fail("expected a string");
    pos_++;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c < 0x20) return Fail("a raw control character in a string");
      if (c == '\\') {
        if (++pos_ >= s_.size()) return Fail("a string ends in an escape");
        char e = s_[pos_++];
        switch (e) {
          case '"': out->push_back('"'); break;
          case '\\': out->push_back('\\'); break;
          case '/': out->push_back('/'); break;
          case 'b': out->push_back('\b'); break;
          case 'f': out->push_back('\f'); break;
          case 'n': out->push_back('\n'); break;
          case 'r': out->push_back('\r'); break;
          case 't': out->push_back('\t'); break;
          case 'u': {
            if (pos_ + 4 > s_.size()) return Fail("a short \\u escape");
            unsigned cp = static_cast<unsigned>(std::stoul(s_.substr(pos_, 4), nullptr, 16));
            pos_ += 4;
            if (cp >= 0x80) return Fail("the grader escapes only control characters");
            out->push_back(static_cast<char>(cp));
            break;
          }
          default: return Fail("an unknown escape");
        }
      } else {
        out->push_back(static_cast<char>(c));
        pos_++;
      }
    }
    if (pos_ >= s_.size()) return Fail("an unterminated string");
    pos_++;
    return true;
  }
  bool Value(Json *out, int depth) {
    if (depth > 64) return Fail("too deep");
    Space();
    if (pos_ >= s_.size()) return Fail("expected a value");
    char c = s_[pos_];
    if (c == '{') {
      out->kind = Json::kObject;
      pos_++;
      Space();
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      for (;;) {
        Space();
        std::string key;
        if (!String(&key)) return false;
        if (out->fields.count(key)) return Fail("a key twice: " + key);
        Space();
        if (pos_ >= s_.size() || s_[pos_++] != ':') return Fail("expected ':'");
        if (!Value(&out->fields[key], depth + 1)) return false;
        Space();
        if (pos_ < s_.size() && s_[pos_] == ',') { pos_++; continue; }
        if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
        return Fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      out->kind = Json::kArray;
      pos_++;
      Space();
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      for (;;) {
        out->items.emplace_back();
        if (!Value(&out->items.back(), depth + 1)) return false;
        Space();
        if (pos_ < s_.size() && s_[pos_] == ',') { pos_++; continue; }
        if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
        return Fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      out->kind = Json::kString;
      return String(&out->text);
    }
    if (Literal("null")) return out->kind = Json::kNull, true;
    if (Literal("true")) return out->kind = Json::kBool, out->boolean = true, true;
    if (Literal("false")) return out->kind = Json::kBool, out->boolean = false, true;
    size_t begin = pos_;
    if (s_[pos_] == '-') pos_++;
    while (pos_ < s_.size() && (isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                s_[pos_] == 'e' || s_[pos_] == 'E' || s_[pos_] == '+' || s_[pos_] == '-')) {
      pos_++;
    }
    if (begin == pos_) return Fail("expected a value");
    std::string number = s_.substr(begin, pos_ - begin);
    char *end = nullptr;
    out->kind = Json::kNumber;
    out->number = strtod(number.c_str(), &end);
    if (*end != '\0') return Fail("a bad number " + number);
    return true;
  }

  const std::string &s_;
  size_t pos_ = 0;
  std::string error_;
};

bool ValidUtf8(const std::string &s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; k++) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// ---- a report like the one a grading run makes ----

void AddTest(test_list *tests, const char *name, test_status status, const char *reason,
             const char *metric_name = nullptr, double ratio = 0) {
  if (tests->count == tests->cap) {
    tests->cap = tests->cap ? tests->cap * 2 : 8;
    tests->items = static_cast<test_result *>(xrealloc(tests->items, tests->cap * sizeof(test_result)));
  }
  test_result *t = &tests->items[tests->count++];
  *t = test_result{};
  t->name = xstrdup(name);
  t->status = status;
  t->output = xstrdup("");
  t->reason = reason ? xstrdup(reason) : nullptr;
  if (metric_name) {
    t->metrics = static_cast<metric *>(xmalloc(sizeof(metric)));
    t->metrics[0] = metric{xstrdup(metric_name), ratio, xstrdup("student 1.3 ms, CUB 1.0 ms")};
    t->n_metrics = 1;
  }
}

void ScoreLab(lab_result *lab, const score_context &ctx) {
  lab->n_items = lab->rubric.n_items;
  lab->items = static_cast<item_result *>(xcalloc(lab->n_items + 1, sizeof(item_result)));
  for (size_t i = 0; i < lab->n_items; i++) {
    score_item(&lab->rubric.items[i], &lab->tests, &ctx, &lab->items[i]);
  }
}

void ParseRubric(lab_result *lab, const char *text) {
  strbuf errors;
  sb_init(&errors);
  ASSERT_EQ(rubric_parse(&lab->rubric, text, "test.rubric", &errors), 0) << errors.data;
  sb_free(&errors);
}

// A temporary folder, removed with what it holds.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/grader-report-test-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string &path() const { return path_; }

 private:
  std::string path_;
};

const char *kGivenSentence =
    "labs/reduction/reduction_given.cu in the submission differs from the course's and was not "
    "used: the given code is always the course's";

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    report_init(&report_);
    report_.source_dir = xstrdup("/course");
    report_.build_dir = xstrdup("/course/build/student");
    report_.submission = xstrdup("/submissions/alice");
    report_.lab_impl = xstrdup("labs");
    report_.backend = xstrdup("cuda");
    report_.gpu_present = 1;
    report_.gpu_name = xstrdup("NVIDIA H100 80GB HBM3");
    report_.started_at = xstrdup("2026-11-22T10:00:00Z");
    report_.seconds = 42.4;
    score_context ctx = {1, 0};

    lab_result *reduction = report_add_lab(&report_, "reduction");
    ParseRubric(reduction,
                "files labs/reduction/reduction.cu\n"
                "step 1-interleaved 10 ReductionStep1.*\n"
                "step 3-sequential 15 ReductionStep3.*\n"
                "step 9-missing 5 ReductionStep9.*\n"
                "perf final-vs-cub 20 ReductionPerf.* metric=final_vs_cub target=0.9 floor=0.5\n");
    AddTest(&reduction->tests, "ReductionStep1.Sum/32", TEST_PASSED, nullptr);
    // A reason with everything a writer must escape: quotes, a backslash, markup, a tab, a
    // control character, a table bar, a code fence and a byte that is not UTF-8.
    AddTest(&reduction->tests, "ReductionStep3.Sum/33", TEST_FAILED,
            "expected \"3\" \\ got <7> & 'x'\tbad\x01 | col ``` \xff end");
    AddTest(&reduction->tests, "ReductionPerf.FinalVsCub", TEST_PASSED, nullptr, "final_vs_cub", 0.7);
    sl_push(&reduction->files_taken, "labs/reduction/reduction.cu");
    sl_push(&reduction->files_ignored, "labs/reduction/reduction_given.cu");
    ScoreLab(reduction, ctx);

    lab_result *scan = report_add_lab(&report_, "scan");
    ParseRubric(scan, "files labs/scan/scan.cu\nstep 2-naive 40 ScanStep2.*\nstep 3-x 60 ScanStep3.*\n");
    scan->state = LAB_BUILD_FAILED;
    scan->build_errors = xstrdup("labs/scan/scan.cu(12): error: identifier \"x\" is undefined\n");
    scan->note = xstrdup("did not build");
    lab_fail_items(scan, "the lab did not build: labs/scan/scan.cu(12): error",
                   "The lab did not build, so none of its tests ran.\n");
    sl_push(&scan->files_missing, "labs/scan/scan.cu");

    lab_result *radix = report_add_lab(&report_, "radix_sort");
    ParseRubric(radix, "files labs/radix_sort/radix_sort.cu\nstep 2-split 30 RadixStep2.*\n");
    AddTest(&radix->tests, "RadixStep2.Keys", TEST_SKIPPED, "no CUDA device");
    score_context no_gpu = {0, 0};
    ScoreLab(radix, no_gpu);

    lab_result *ode = report_add_lab(&report_, "ode");
    ode->state = LAB_NO_RUBRIC;
    ode->note = xstrdup("not graded: labs/ode/ode.rubric does not exist yet");

    sl_push(&report_.problems, "common's GPU tests failed on this machine");
  }
  void TearDown() override { report_free(&report_); }

  std::string Write(const char *name, int (*writer)(const grade_report *, const char *)) {
    std::string path = dir_.path() + "/" + name;
    EXPECT_EQ(writer(&report_, path.c_str()), 0) << path;
    return ReadText(path);
  }

  grade_report report_;
  TempDir dir_;
};

}  // namespace

TEST_F(ReportTest, TotalsCountOnlyScoredItems) {
  report_totals totals;
  report_totals_of(&report_, &totals);
  // reduction: 10 + 0 + 0 + 10 (ratio 0.7 of 0.5..0.9) of 50; scan: 0 of 100; radix: not run.
  EXPECT_DOUBLE_EQ(totals.score, 20.0);
  EXPECT_DOUBLE_EQ(totals.max_score, 150.0);
  EXPECT_DOUBLE_EQ(totals.not_scored, 30.0);
  EXPECT_DOUBLE_EQ(totals.rubric_points, 180.0) << "the lab without a rubric counts nothing";
}

TEST_F(ReportTest, ResultsJsonHasEveryDocumentedField) {
  std::string text = Write("results.json", write_results_json);
  EXPECT_TRUE(ValidUtf8(text)) << "the byte 0xff must not reach the file";
  Json root;
  std::string error;
  ASSERT_TRUE(JsonReader(text).Parse(&root, &error)) << error << "\n" << text;
  ASSERT_EQ(root.kind, Json::kObject);

  // Gradescope's fields.
  EXPECT_EQ(root["score"].kind, Json::kNumber);
  EXPECT_DOUBLE_EQ(root["score"].number, 20.0);
  EXPECT_DOUBLE_EQ(root["max_score"].number, 150.0);
  EXPECT_DOUBLE_EQ(root["execution_time"].number, 42.0);
  EXPECT_EQ(root["output"].kind, Json::kString);
  EXPECT_NE(root["output"].text.find("GPU: NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(root["output"].text.find("missing from the submission"), std::string::npos);
  EXPECT_EQ(root["output_format"].text, "text");
  ASSERT_EQ(root["tests"].kind, Json::kArray);
  ASSERT_EQ(root["tests"].items.size(), 7u) << "4 + 2 + 1 items; none for a lab without a rubric";

  const std::set<std::string> test_fields = {"name", "number", "score", "status", "max_score",
                                             "output", "tags", "extra_data"};
  const std::set<std::string> item_fields = {"lab", "item", "kind", "result", "reason", "note",
                                             "tests_pattern", "tests", "metric", "ratio",
                                             "target", "floor"};
  std::map<std::string, const Json *> by_number;
  for (const Json &t : root["tests"].items) {
    ASSERT_EQ(t.kind, Json::kObject);
    for (const auto &field : t.fields) EXPECT_TRUE(test_fields.count(field.first)) << field.first;
    for (const auto &field : t["extra_data"].fields) {
      EXPECT_TRUE(item_fields.count(field.first)) << "undocumented field " << field.first;
    }
    EXPECT_EQ(t["name"].kind, Json::kString);
    EXPECT_EQ(t["max_score"].kind, Json::kNumber);
    EXPECT_EQ(t["output"].kind, Json::kString);
    EXPECT_EQ(t["tags"].kind, Json::kArray);
    const Json &extra = t["extra_data"];
    for (const char *key : {"lab", "item", "kind", "result", "tests_pattern"}) {
      EXPECT_EQ(extra[key].kind, Json::kString) << key;
    }
    for (const char *key : {"reason", "note"}) {
      EXPECT_TRUE(extra[key].kind == Json::kString || extra[key].kind == Json::kNull) << key;
    }
    for (const char *key : {"matched", "passed", "failed", "not_run"}) {
      EXPECT_EQ(extra["tests"][key].kind, Json::kNumber) << key;
    }
    if (extra["result"].text == "not run") {
      EXPECT_FALSE(t.Has("score")) << "a not-scored item has no score: neither zero nor full";
      EXPECT_FALSE(t.Has("status"));
    } else {
      EXPECT_EQ(t["score"].kind, Json::kNumber);
      EXPECT_TRUE(t["status"].text == "passed" || t["status"].text == "failed");
    }
    by_number[t["number"].text] = &t;
  }
  const Json &passed = *by_number.at("reduction.1-interleaved");
  EXPECT_EQ(passed["name"].text, "reduction: 1-interleaved");
  EXPECT_DOUBLE_EQ(passed["score"].number, 10.0);
  EXPECT_EQ(passed["status"].text, "passed");
  EXPECT_EQ(passed["extra_data"]["reason"].kind, Json::kNull);

  const Json &failed = *by_number.at("reduction.3-sequential");
  EXPECT_EQ(failed["status"].text, "failed");
  EXPECT_EQ(failed["extra_data"]["reason"].text,
            "ReductionStep3.Sum/33: expected \"3\" \\ got <7> & 'x'\tbad\x01 | col ``` \xEF\xBF\xBD end")
      << "escaped and read back; the bad byte became U+FFFD";

  const Json &missing = *by_number.at("reduction.9-missing");
  EXPECT_NE(missing["extra_data"]["reason"].text.find("no test matches"), std::string::npos);

  const Json &perf = *by_number.at("reduction.final-vs-cub");
  EXPECT_EQ(perf["extra_data"]["result"].text, "partial");
  EXPECT_EQ(perf["status"].text, "failed") << "Gradescope's status is passed only at full points";
  EXPECT_DOUBLE_EQ(perf["score"].number, 10.0);
  EXPECT_DOUBLE_EQ(perf["extra_data"]["ratio"].number, 0.7);
  EXPECT_DOUBLE_EQ(perf["extra_data"]["target"].number, 0.9);
  EXPECT_DOUBLE_EQ(perf["extra_data"]["floor"].number, 0.5);
  EXPECT_EQ(perf["extra_data"]["metric"].text, "final_vs_cub");

  const Json &unbuilt = *by_number.at("scan.2-naive");
  EXPECT_NE(unbuilt["output"].text.find("identifier \"x\" is undefined"), std::string::npos)
      << "a build failure shows the compiler's first errors";

  const Json &not_run = *by_number.at("radix_sort.2-split");
  EXPECT_EQ(not_run["extra_data"]["result"].text, "not run");

  // The grader's own fields.
  const Json &extra = root["extra_data"];
  const std::set<std::string> top_fields = {"grader", "format_version", "started_at", "source_dir",
                                            "build_dir", "submission", "lab_impl", "backend", "gpu", "sandbox",
                                            "rubric_points", "not_scored_points", "problems", "labs",
                                            "phases"};
  for (const auto &field : extra.fields) EXPECT_TRUE(top_fields.count(field.first)) << field.first;
  for (const std::string &field : top_fields) EXPECT_TRUE(extra.Has(field)) << field;
  EXPECT_EQ(extra["grader"].text, "gpulabs grade");
  EXPECT_DOUBLE_EQ(extra["format_version"].number, 1.0);
  EXPECT_EQ(extra["started_at"].text, "2026-11-22T10:00:00Z");
  EXPECT_EQ(extra["submission"].text, "/submissions/alice");
  EXPECT_EQ(extra["lab_impl"].text, "labs");
  EXPECT_EQ(extra["backend"].text, "cuda");
  EXPECT_TRUE(extra["gpu"]["present"].boolean);
  EXPECT_EQ(extra["gpu"]["name"].text, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(extra["gpu"]["reason"].kind, Json::kNull);
  EXPECT_DOUBLE_EQ(extra["rubric_points"].number, 180.0);
  EXPECT_DOUBLE_EQ(extra["not_scored_points"].number, 30.0);
  for (const char *phase : {"prepare", "gpu_probe", "build", "audit", "correctness",
                            "performance", "dependencies"}) {
    EXPECT_EQ(extra["phases"][phase].kind, Json::kNumber) << phase;
  }
  ASSERT_EQ(extra["problems"].items.size(), 1u);
  ASSERT_EQ(extra["labs"].items.size(), 4u);
  const std::set<std::string> lab_fields = {"lab", "state", "score", "max_score", "rubric_points",
                                            "not_scored_points", "note", "build_errors",
                                            "files_taken", "files_missing", "files_rejected",
                                            "files_ignored", "audit", "audited", "seconds", "phases"};
  for (const Json &lab : extra["labs"].items) {
    for (const std::string &field : lab_fields) EXPECT_TRUE(lab.Has(field)) << field;
    for (const auto &field : lab.fields) EXPECT_TRUE(lab_fields.count(field.first)) << field.first;
  }
  EXPECT_EQ(extra["labs"].items[0]["files_taken"].items.at(0).text, "labs/reduction/reduction.cu");
  EXPECT_EQ(extra["labs"].items[0]["files_ignored"].items.at(0).text,
            "labs/reduction/reduction_given.cu");
  EXPECT_NE(root["output"].text.find(kGivenSentence), std::string::npos) << root["output"].text;
  EXPECT_EQ(extra["labs"].items[1]["state"].text, "build failed");
  EXPECT_EQ(extra["labs"].items[1]["files_missing"].items.at(0).text, "labs/scan/scan.cu");
  EXPECT_DOUBLE_EQ(extra["labs"].items[2]["not_scored_points"].number, 30.0);
  EXPECT_EQ(extra["labs"].items[3]["state"].text, "no rubric");
}

TEST_F(ReportTest, ResultsJsonWithoutAGpuSaysWhy) {
  report_.gpu_present = 0;
  free(report_.gpu_name);
  report_.gpu_name = nullptr;
  report_.no_gpu_reason = xstrdup("no CUDA device (cudaErrorNoDevice)");
  std::string text = Write("results.json", write_results_json);
  Json root;
  std::string error;
  ASSERT_TRUE(JsonReader(text).Parse(&root, &error)) << error;
  EXPECT_FALSE(root["extra_data"]["gpu"]["present"].boolean);
  EXPECT_EQ(root["extra_data"]["gpu"]["reason"].text, "no CUDA device (cudaErrorNoDevice)");
  EXPECT_NE(root["output"].text.find("No GPU: no CUDA device (cudaErrorNoDevice). Tests that need a "
                                     "GPU were not run"),
            std::string::npos);
  EXPECT_NE(root["output"].text.find("cmake --workflow --preset grade-sim"), std::string::npos)
      << "the report should point a student without a GPU at the CPU backend";
}

TEST_F(ReportTest, JunitXmlHasOneCasePerItem) {
  std::string text = Write("junit.xml", write_junit_xml);
  char err[256];
  xml_node *root = xml_parse(text.data(), text.size(), err, sizeof err);
  ASSERT_NE(root, nullptr) << err << "\n" << text;
  EXPECT_STREQ(root->name, "testsuites");
  EXPECT_STREQ(xml_attr_get(root, "tests"), "8") << "7 items and one for the lab without a rubric";
  EXPECT_STREQ(xml_attr_get(root, "failures"), "4");
  EXPECT_STREQ(xml_attr_get(root, "skipped"), "2");
  ASSERT_EQ(root->n_children, 4u);
  const xml_node *reduction = root->children[0];
  EXPECT_STREQ(xml_attr_get(reduction, "name"), "reduction");
  std::vector<const xml_node *> cases;
  for (size_t i = 0; i < reduction->n_children; i++) {
    if (strcmp(reduction->children[i]->name, "testcase") == 0) cases.push_back(reduction->children[i]);
  }
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_STREQ(xml_attr_get(cases[0], "classname"), "gpulabs.reduction");
  EXPECT_STREQ(xml_attr_get(cases[0], "name"), "1-interleaved");
  EXPECT_EQ(xml_child(cases[0], "failure"), nullptr);
  const xml_node *failure = xml_child(cases[1], "failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_NE(std::string(xml_attr_get(failure, "message")).find("expected \"3\" \\ got <7> & 'x'"),
            std::string::npos);
  EXPECT_EQ(xml_child(cases[3], "failure"), nullptr) << "a partial perf item earned points";
  EXPECT_NE(std::string(xml_child(cases[3], "system-out")->text).find("10.00 of 20 points"),
            std::string::npos);
  EXPECT_NE(xml_child(root->children[2]->children[1], "skipped"), nullptr)
      << "radix_sort's item was not run";
  xml_free(root);
}

TEST_F(ReportTest, SummaryAndTableNameEveryItemAndWhy) {
  std::string md = Write("summary.md", write_summary_md);
  EXPECT_EQ(md.rfind("# gpulabs grade: 20 of 150 points (30 more not scored)\n", 0), 0u) << md;
  EXPECT_NE(md.find("| reduction | 20 / 50 | 0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| final-vs-cub | 10/20 | 0.70 | partial |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2-split | --/30 |  | not run | not run: needs a GPU"), std::string::npos) << md;
  EXPECT_NE(md.find("bad? \\| col"), std::string::npos)
      << "a bar inside a cell is escaped, a control character replaced: " << md;
  EXPECT_NE(md.find("\xEF\xBF\xBD end"), std::string::npos) << "a byte that is not UTF-8 too";
  EXPECT_NE(md.find("&lt;7&gt;"), std::string::npos);
  EXPECT_NE(md.find("```text\nlabs/scan/scan.cu(12): error"), std::string::npos) << md;
  EXPECT_NE(md.find("**Grading problem:**"), std::string::npos);
  EXPECT_NE(md.find(kGivenSentence), std::string::npos) << md;

  char *buffer = nullptr;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  print_table(&report_, out);
  fclose(out);
  std::string table(buffer, size);
  free(buffer);
  EXPECT_NE(table.find("GPU: NVIDIA H100 80GB HBM3."), std::string::npos) << table;
  EXPECT_NE(table.find("reduction     1-interleaved                10/10         passed"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("reduction     final-vs-cub                 10/20   0.70  partial  ratio 0.70"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("identifier \"x\" is undefined"), std::string::npos) << table;
  EXPECT_NE(table.find("total: 20 of 150 points scored; 30 points not scored"), std::string::npos)
      << table;
  EXPECT_NE(table.find(kGivenSentence), std::string::npos) << table;
}

TEST_F(ReportTest, ItemsTsvHasOneLinePerItem) {
  std::string tsv = Write("items.tsv", write_items_tsv);
  std::vector<std::string> lines;
  std::stringstream in(tsv);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 9u) << tsv;
  EXPECT_EQ(lines[0], "lab\titem\tkind\tresult\tscore\tmax_score\tratio\twhy");
  EXPECT_EQ(lines[1], "reduction\t1-interleaved\tstep\tpassed\t10\t10\t\t");
  EXPECT_EQ(lines[2].rfind("reduction\t3-sequential\tstep\tfailed\t0\t15\t\tReductionStep3.Sum/33: ", 0), 0u)
      << lines[2];
  EXPECT_EQ(lines[4].rfind("reduction\tfinal-vs-cub\tperf\tpartial\t10\t20\t0.70\t", 0), 0u) << lines[4];
  EXPECT_EQ(lines[7].rfind("radix_sort\t2-split\tstep\tnot run\t\t30\t\t", 0), 0u) << lines[7];
  EXPECT_EQ(lines[8].rfind("ode\t-\t-\tno rubric\t", 0), 0u) << lines[8];
  for (const std::string &line : lines) {
    size_t tabs = 0;
    for (char c : line) tabs += c == '\t';
    EXPECT_EQ(tabs, 7u) << "a tab inside a reason would shift the columns: " << line;
  }
}

TEST_F(ReportTest, AllReportsAreWrittenTogether) {
  strbuf err;
  sb_init(&err);
  std::string out = dir_.path() + "/nested/out";
  EXPECT_EQ(grade_write_reports(&report_, out.c_str(), &err), 0) << err.data;
  sb_free(&err);
  for (const char *name : {"results.json", "junit.xml", "summary.md", "items.tsv"}) {
    EXPECT_EQ(access((out + "/" + name).c_str(), R_OK), 0) << name;
  }
}

TEST(GraderReport, ALabThatCouldNotBeGradedLosesAllItsPoints) {
  // CTest wrote no JUnit file for reduction: its 40 points are possible and lost, with the
  // reason on each item, never "0 of 0" (which would leave them out of the total).
  grade_report report;
  report_init(&report);
  report.source_dir = xstrdup("/course");
  report.build_dir = xstrdup("/course/build/student");
  report.lab_impl = xstrdup("labs");
  report.backend = xstrdup("cuda");
  report.gpu_present = 1;
  lab_result *reduction = report_add_lab(&report, "reduction");
  ParseRubric(reduction,
              "files labs/reduction/reduction.cu\nstep 1-a 10 ReductionStep1.*\n"
              "perf p 30 ReductionPerf.* metric=m target=1 floor=0.5\n");
  const char *why = "the correctness tests could not be run: CTest wrote no JUnit file (exit "
                    "status 8); see logs/reduction-correctness.log";
  lab_not_graded(reduction, xstrdup(why));
  lab_result *scan = report_add_lab(&report, "scan");
  ParseRubric(scan, "files labs/scan/scan.cu\nstep 2-naive 20 ScanStep2.*\n");
  AddTest(&scan->tests, "ScanStep2.Exclusive", TEST_PASSED, nullptr);
  ScoreLab(scan, score_context{1, 0});

  report_totals totals;
  report_totals_of(&report, &totals);
  EXPECT_DOUBLE_EQ(totals.score, 20.0);
  EXPECT_DOUBLE_EQ(totals.max_score, 60.0);
  EXPECT_DOUBLE_EQ(totals.rubric_points, 60.0);
  EXPECT_DOUBLE_EQ(totals.not_scored, 0.0);

  TempDir dir;
  std::string path = dir.path() + "/results.json";
  ASSERT_EQ(write_results_json(&report, path.c_str()), 0);
  Json root;
  std::string error;
  ASSERT_TRUE(JsonReader(ReadText(path)).Parse(&root, &error)) << error;
  EXPECT_DOUBLE_EQ(root["max_score"].number, 60.0);
  const Json &lab = root["extra_data"]["labs"].items.at(0);
  EXPECT_EQ(lab["state"].text, "error");
  EXPECT_DOUBLE_EQ(lab["score"].number, 0.0);
  EXPECT_DOUBLE_EQ(lab["max_score"].number, 40.0);
  EXPECT_EQ(lab["note"].text, why);
  ASSERT_EQ(root["tests"].items.size(), 3u);
  for (size_t i = 0; i < 2; i++) {
    const Json &item = root["tests"].items[i];
    EXPECT_EQ(item["status"].text, "failed");
    EXPECT_DOUBLE_EQ(item["score"].number, 0.0);
    EXPECT_EQ(item["extra_data"]["reason"].text, why);
  }
  EXPECT_NE(root["output"].text.find("reduction: error, 0.00 of 40.00"), std::string::npos)
      << root["output"].text;

  path = dir.path() + "/items.tsv";
  ASSERT_EQ(write_items_tsv(&report, path.c_str()), 0);
  std::string tsv = ReadText(path);
  EXPECT_NE(tsv.find("reduction\t1-a\tstep\tfailed\t0\t10\t\tthe correctness tests could not"),
            std::string::npos)
      << tsv;
  path = dir.path() + "/summary.md";
  ASSERT_EQ(write_summary_md(&report, path.c_str()), 0);
  std::string md = ReadText(path);
  EXPECT_EQ(md.rfind("# gpulabs grade: 20 of 60 points\n", 0), 0u) << md;
  EXPECT_NE(md.find("| reduction | 0 / 40 |"), std::string::npos) << md;
  EXPECT_NE(md.find("The lab could not be graded, so its points are lost: the correctness"),
            std::string::npos)
      << md;
  path = dir.path() + "/junit.xml";
  ASSERT_EQ(write_junit_xml(&report, path.c_str()), 0);
  EXPECT_NE(ReadText(path).find("failures=\"2\""), std::string::npos);

  char *buffer = nullptr;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  print_table(&report, out);
  fclose(out);
  std::string table(buffer, size);
  free(buffer);
  EXPECT_NE(table.find("reduction could not be graded: the correctness tests"), std::string::npos)
      << table;
  EXPECT_NE(table.find("total: 20 of 60 points scored"), std::string::npos) << table;
  report_free(&report);
}

TEST(GraderReport, ABonusItemAddsToTheScoreAndNotToTheMaximum) {
  grade_report report;
  report_init(&report);
  report.source_dir = xstrdup("/course");
  report.build_dir = xstrdup("/course/build/student");
  report.lab_impl = xstrdup("labs");
  report.backend = xstrdup("cuda");
  report.gpu_present = 1;
  lab_result *radix = report_add_lab(&report, "radix_sort");
  ParseRubric(radix,
              "files labs/radix_sort/radix_sort.cu\nstep 4-onesweep 25 RadixSortStep4.*\n"
              "step 5-tuned 10 RadixSortStep5.* bonus\nstep 6-more 5 RadixSortStep6.* bonus\n");
  AddTest(&radix->tests, "RadixSortStep4.Keys", TEST_PASSED, nullptr);
  AddTest(&radix->tests, "RadixSortStep5.Keys", TEST_PASSED, nullptr);
  AddTest(&radix->tests, "RadixSortStep6.Keys", TEST_SKIPPED, "no CUDA device");
  ScoreLab(radix, score_context{1, 0});

  report_totals totals;
  report_totals_of(&report, &totals);
  EXPECT_DOUBLE_EQ(totals.score, 35.0);
  EXPECT_DOUBLE_EQ(totals.max_score, 25.0) << "a bonus item is beyond the maximum";
  EXPECT_DOUBLE_EQ(totals.rubric_points, 25.0);
  EXPECT_DOUBLE_EQ(totals.not_scored, 0.0) << "a bonus item not run leaves the maximum alone";
  EXPECT_DOUBLE_EQ(totals.bonus, 10.0);

  TempDir dir;
  std::string path = dir.path() + "/results.json";
  ASSERT_EQ(write_results_json(&report, path.c_str()), 0);
  Json root;
  std::string error;
  ASSERT_TRUE(JsonReader(ReadText(path)).Parse(&root, &error)) << error;
  EXPECT_DOUBLE_EQ(root["score"].number, 35.0);
  EXPECT_DOUBLE_EQ(root["max_score"].number, 25.0);
  ASSERT_EQ(root["tests"].items.size(), 3u);
  EXPECT_EQ(root["tests"].items[1]["name"].text, "radix_sort: 5-tuned (bonus)");
  EXPECT_DOUBLE_EQ(root["tests"].items[1]["score"].number, 10.0);

  char *buffer = nullptr;
  size_t size = 0;
  FILE *out = open_memstream(&buffer, &size);
  print_table(&report, out);
  fclose(out);
  std::string table(buffer, size);
  free(buffer);
  EXPECT_NE(table.find("+10/10"), std::string::npos) << table;
  EXPECT_NE(table.find("+--/5"), std::string::npos) << table;
  EXPECT_NE(table.find("total: 35 of 25 points scored (10 of them bonus)"), std::string::npos)
      << table;
  report_free(&report);
}

TEST(GraderReport, ARubricWithoutItemsStaysOneLine) {
  // A rubric so broken that no item was read has no points to count: the lab is one line.
  grade_report report;
  report_init(&report);
  report.source_dir = xstrdup("/course");
  report.build_dir = xstrdup("/course/build");
  lab_result *lab = report_add_lab(&report, "ode");
  lab_not_graded(lab, xstrdup("not graded: the rubric has errors: ode.rubric:3: 'stp' is not a "
                              "kind of line"));
  report_totals totals;
  report_totals_of(&report, &totals);
  EXPECT_DOUBLE_EQ(totals.max_score, 0.0);
  TempDir dir;
  std::string path = dir.path() + "/items.tsv";
  ASSERT_EQ(write_items_tsv(&report, path.c_str()), 0);
  EXPECT_NE(ReadText(path).find("ode\t-\t-\terror\t"), std::string::npos) << ReadText(path);
  report_free(&report);
}

TEST(GraderCsv, QuotesFieldsThatNeedIt) {
  strbuf sb;
  sb_init(&sb);
  csv_append_field(&sb, "plain");
  sb_append(&sb, ",");
  csv_append_field(&sb, "with, comma and \"quotes\"");
  EXPECT_STREQ(sb.data, "plain,\"with, comma and \"\"quotes\"\"\"");
  sb_free(&sb);
}
