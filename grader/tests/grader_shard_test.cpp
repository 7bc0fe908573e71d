// Tests of sharded batches and their merge (grader/src/class/shard.c, merge.c, gradebook.c,
// batch.c): which submissions a shard grades, the manifest every batch output carries, the CSV
// reading the merge relies on, the merge itself on made-up shard folders (every refusal:
// overlapping, missing, incomplete and inconsistent shards, a foreign OUT), re-merging one
// re-graded shard, and at the end the grade program on the fake course: two shards graded side by
// side and merged give exactly what one plain --batch run gives.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gltest.h"
#include "grader_test_files.h"

extern "C" {
#include "batch.h"
#include "gradebook.h"
#include "merge.h"
#include "shard.h"
}

namespace {

using namespace grader_test;

std::vector<std::string> Strings(const strlist &list) {
  return std::vector<std::string>(list.items, list.items + list.count);
}

// A made-up batch: these submissions, in order (sorted, as the grader lists them).
const std::vector<std::string> kBatch = {"alice", "bob", "carol", "dave", "eve"};

struct ShardSpec {
  size_t count = 3;
  std::vector<size_t> holds;           // the shards the folder holds
  std::string tag = "v1";              // goes into every line and report, to tell versions apart
  bool complete = true;
  std::string rubrics = "00000000000000aa";
  std::string labs = "reduction scan";
  std::vector<std::string> batch = kBatch;
  std::string gradebook_header = "submission,score,max_score,not_scored,status,reduction,scan\n";
  std::string gpu = "NVIDIA H100";
};

// The lines a made-up shard writes for one submission.
std::string MainLine(const std::string &name, const std::string &tag) {
  return name + ",10,20,0,\"ok, " + tag + "\",4,6\n";
}
std::string LmsLine(const std::string &name, const std::string &tag) {
  return name + ",10," + tag + "\n";
}
std::string ItemLines(const std::string &name, const std::string &tag) {
  // A reason with a comma, quotes and a line break: quoted, and one record all the same.
  return name + ",reduction,1-a,4,4,\n" + name + ",scan,2-b,0,6,\"failed \"\"" + tag +
         "\"\", at\nindex 3\"\n";
}

class GraderShard : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-shard-test-XXXXXX";
    tmp_ = mkdtemp(pattern);
  }
  void TearDown() override { std::system(("rm -rf '" + tmp_ + "'").c_str()); }

  // Writes a shard's output folder as grade --batch --shard would.
  std::string MakeShard(const std::string &name, const ShardSpec &spec) {
    std::string dir = tmp_ + "/" + name;
    batch_manifest m;
    manifest_init(&m, spec.count);
    for (size_t k : spec.holds) m.holds[k] = 1;
    m.complete = spec.complete;
    m.course = xstrdup("/course");
    m.rubrics = xstrdup(spec.rubrics.c_str());
    m.labs = xstrdup(spec.labs.c_str());
    m.submissions_dir = xstrdup("/submissions");
    sl_push(&m.cmake_args, "-G");
    sl_push(&m.cmake_args, "Unix Makefiles");
    sl_push(&m.gpus, spec.gpu.c_str());
    std::string main_csv, lms_csv, items_csv;
    for (size_t i = 0; i < spec.batch.size(); i++) {
      const std::string &who = spec.batch[i];
      sl_push(&m.submissions, who.c_str());
      if (!manifest_holds_position(&m, i)) continue;
      sl_push(&m.graded, who.c_str());
      main_csv += MainLine(who, spec.tag);
      lms_csv += LmsLine(who, spec.tag);
      items_csv += ItemLines(who, spec.tag);
      WriteText(dir + "/" + who + "/results.json", "{\"tag\": \"" + spec.tag + "\"}\n");
      WriteText(dir + "/" + who + "/logs/reduction-build.log", "built " + who + "\n");
    }
    if (!main_csv.empty()) {
      main_csv = spec.gradebook_header + main_csv;
      lms_csv = "id,total,reduction\n" + lms_csv;
      items_csv = "submission,lab,item,score,max,reason\n" + items_csv;
    }
    WriteText(dir + "/gradebook.csv", main_csv);
    WriteText(dir + "/lms.csv", lms_csv);
    WriteText(dir + "/items.csv", items_csv);
    EXPECT_EQ(manifest_write(&m, dir.c_str()), 0);
    manifest_free(&m);
    return dir;
  }

  // grade_merge; returns its status, the error text in *error.
  int Merge(const std::string &out, const std::vector<std::string> &dirs, std::string *error) {
    std::vector<const char *> sources;
    for (const std::string &d : dirs) sources.push_back(d.c_str());
    strbuf err;
    sb_init(&err);
    int rc = grade_merge(out.c_str(), sources.data(), sources.size(), &err, nullptr);
    *error = err.data;
    sb_free(&err);
    return rc;
  }

  // What one --batch over kBatch would hold, with each submission's tag.
  static std::string Expected(int file, const std::vector<std::string> &tags) {
    std::string text = file == 0   ? "submission,score,max_score,not_scored,status,reduction,scan\n"
                       : file == 1 ? "id,total,reduction\n"
                                   : "submission,lab,item,score,max,reason\n";
    for (size_t i = 0; i < kBatch.size(); i++) {
      text += file == 0 ? MainLine(kBatch[i], tags[i])
              : file == 1 ? LmsLine(kBatch[i], tags[i])
                          : ItemLines(kBatch[i], tags[i]);
    }
    return text;
  }

  std::string tmp_;
};

}  // namespace

TEST(ShardSpec, ParsesKOfNAndNothingElse) {
  size_t k = 9, n = 9;
  ASSERT_EQ(shard_parse("0/1", &k, &n), 0);
  EXPECT_EQ(k, 0u);
  EXPECT_EQ(n, 1u);
  ASSERT_EQ(shard_parse("3/4", &k, &n), 0);
  EXPECT_EQ(k, 3u);
  EXPECT_EQ(n, 4u);
  ASSERT_EQ(shard_parse("99999/100000", &k, &n), 0);
  for (const char *bad : {"4/4", "5/4", "1/0", "0/0", "-1/2", "1/-2", "a/b", "1/2x", "1 /2", "1/ 2",
                          "", "/2", "1/", "1", "1//2", "0/100001", "+1/2", "1/2/3"}) {
    EXPECT_EQ(shard_parse(bad, &k, &n), -1) << "'" << bad << "'";
  }
}

TEST(ShardSpec, EverySubmissionIsInExactlyOneShardAndShardsDifferByOneAtMost) {
  for (size_t count : {1u, 2u, 3u, 7u}) {
    for (size_t total : {0u, 1u, 5u, 20u}) {
      std::vector<size_t> sizes(count, 0);
      for (size_t i = 0; i < total; i++) {
        size_t k = shard_of(i, count);
        ASSERT_LT(k, count);
        EXPECT_EQ(k, i % count) << "every N-th from K";
        sizes[k]++;
      }
      size_t lo = total, hi = 0;
      for (size_t s : sizes) lo = std::min(lo, s), hi = std::max(hi, s);
      EXPECT_LE(hi - std::min(lo, hi), 1u) << count << " shards of " << total;
    }
  }
}

TEST_F(GraderShard, TheBatchIsItsFoldersInNameOrderWithoutHiddenOnesFilesOrTheOutput) {
  for (const char *name : {"zoe", "Bob", "alice", "al", ".hidden", "out", "10", "9"}) {
    ASSERT_EQ(mkdir_p((tmp_ + "/subs/" + name).c_str()), 0);
  }
  WriteText(tmp_ + "/subs/notes.txt", "a file is no submission\n");
  strlist names;
  sl_init(&names);
  strbuf err;
  sb_init(&err);
  std::string subs = tmp_ + "/subs", out = tmp_ + "/subs/out";
  ASSERT_EQ(batch_list_submissions(subs.c_str(), out.c_str(), &names, &err), 0) << err.data;
  // Byte order, whatever the locale: upper case first, "10" before "9".
  EXPECT_EQ(Strings(names), (std::vector<std::string>{"10", "9", "Bob", "al", "alice", "zoe"}));
  sl_free(&names);
  sl_init(&names);
  std::string missing = tmp_ + "/nope";
  EXPECT_EQ(batch_list_submissions(missing.c_str(), out.c_str(), &names, &err), -1);
  EXPECT_NE(std::string(err.data).find("cannot read " + missing), std::string::npos) << err.data;
  sb_free(&err);
  sl_free(&names);
}

TEST(ShardManifest, RoundTripsWithEscapes) {
  batch_manifest m;
  manifest_init(&m, 4);
  m.holds[1] = m.holds[3] = 1;
  m.complete = 1;
  m.course = xstrdup("/course with space");
  m.rubrics = xstrdup("0123456789abcdef");
  m.labs = xstrdup("reduction scan");
  m.submissions_dir = xstrdup("/subs");
  sl_push(&m.cmake_args, "-DX=a\tb\\c\nd");
  sl_push(&m.gpus, "NVIDIA H100 80GB HBM3");
  for (const char *name : {"a b", "b\tc", "c,d"}) sl_push(&m.submissions, name);
  sl_push(&m.graded, "b\tc");
  char *text = manifest_format(&m);
  batch_manifest back;
  manifest_init(&back, 1);
  strbuf err;
  sb_init(&err);
  ASSERT_EQ(manifest_parse(&back, text, &err), 0) << err.data << "\n" << text;
  EXPECT_EQ(back.shard_count, 4u);
  EXPECT_FALSE(manifest_holds(&back, 0));
  EXPECT_TRUE(manifest_holds(&back, 1));
  EXPECT_TRUE(manifest_holds(&back, 3));
  EXPECT_FALSE(manifest_holds(&back, 4));
  EXPECT_TRUE(back.complete);
  EXPECT_STREQ(back.course, "/course with space");
  EXPECT_STREQ(back.rubrics, "0123456789abcdef");
  EXPECT_EQ(Strings(back.cmake_args), std::vector<std::string>{"-DX=a\tb\\c\nd"});
  EXPECT_EQ(Strings(back.submissions), (std::vector<std::string>{"a b", "b\tc", "c,d"}));
  EXPECT_EQ(Strings(back.graded), std::vector<std::string>{"b\tc"});
  EXPECT_EQ(Strings(back.gpus), std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  char *shards = manifest_shards_text(&back);
  EXPECT_STREQ(shards, "shards 1, 3 of 4");
  free(shards);
  back.holds[2] = 1;
  shards = manifest_shards_text(&back);
  EXPECT_STREQ(shards, "shards 1-3 of 4");
  free(shards);
  memset(back.holds, 0, 4);
  back.holds[2] = 1;
  shards = manifest_shards_text(&back);
  EXPECT_STREQ(shards, "shard 2/4");
  free(shards);
  free(text);
  sb_free(&err);
  manifest_free(&back);
  manifest_free(&m);
}

TEST(ShardManifest, RefusesWhatIsNoManifest) {
  struct Case {
    const char *text, *message;
  } cases[] = {
      {"shard_count\t2\n", "no format line"},
      {"format\t2\nshard_count\t2\n", "a format this grader does not read"},
      {"format\t1\n", "no shard_count line"},
      {"format\t1\nshard_count\tmany\n", "shard_count 'many'"},
      {"format\t1\nshard_count\t2\nshards\t2\n", "shards '2' names no shard of 2"},
      {"format\t1\nshard_count\t2\nsubmission\t../etc\n", "'../etc' is not a submission's folder"},
      {"format\t1\nshard_count\t2\nsubmission\t.git\n", "'.git' is not a submission's folder"},
      {"format\t1\nshard_count\t2\ngraded\ta/b\n", "'a/b' is not a submission's folder"},
      {"format\t1\nshard_count\t2\nsubmission\tb\nsubmission\ta\n", "not in the batch's order"},
      {"format\t1\nshard_count\t2\nsubmission\ta\nsubmission\ta\n", "not in the batch's order"},
      {"format 1\n", "line 1 has no tab"},
  };
  for (const Case &c : cases) {
    batch_manifest m;
    manifest_init(&m, 1);
    strbuf err;
    sb_init(&err);
    EXPECT_EQ(manifest_parse(&m, c.text, &err), -1) << c.text;
    EXPECT_NE(std::string(err.data).find(c.message), std::string::npos) << c.text << ": " << err.data;
    sb_free(&err);
    manifest_free(&m);
  }
}

TEST(ShardCsv, RecordsKeepQuotedLineBreaksAndTheFirstFieldIsUnquoted) {
  std::string text = "a,b\n\"x, \"\"y\"\"\",\"line\nbreak\"\nplain,\"\"\nlast";
  strlist records;
  sl_init(&records);
  ASSERT_EQ(csv_records(text.data(), text.size(), &records), 0);
  EXPECT_EQ(Strings(records), (std::vector<std::string>{"a,b\n", "\"x, \"\"y\"\"\",\"line\nbreak\"\n",
                                                        "plain,\"\"\n", "last"}));
  char *first = csv_first_field(records.items[1]);
  EXPECT_STREQ(first, "x, \"y\"");
  free(first);
  first = csv_first_field(records.items[2]);
  EXPECT_STREQ(first, "plain");
  free(first);
  sl_free(&records);
  sl_init(&records);
  std::string cut = "a,\"never closed\n";
  EXPECT_EQ(csv_records(cut.data(), cut.size(), &records), -1);
  sl_free(&records);
  // What the gradebook writes is read back the same way: a submission named with a comma.
  strbuf csv;
  sb_init(&csv);
  csv_append_field(&csv, "o'brien, \"jr\"");
  sb_append(&csv, ",1\n");
  first = csv_first_field(csv.data);
  EXPECT_STREQ(first, "o'brien, \"jr\"");
  free(first);
  sb_free(&csv);
}

TEST_F(GraderShard, ShardsMergeIntoOneGradebookInTheBatchsOrderWhateverOrderTheyAreNamedIn) {
  ShardSpec s;
  std::vector<std::string> dirs;
  for (size_t k = 0; k < 3; k++) {
    s.holds = {k};
    dirs.push_back(MakeShard("shard" + std::to_string(k), s));
  }
  std::string error;
  ASSERT_EQ(Merge(tmp_ + "/merged", {dirs[2], dirs[0], dirs[1]}, &error), 0) << error;
  std::vector<std::string> v1(kBatch.size(), "v1");
  EXPECT_EQ(ReadText(tmp_ + "/merged/gradebook.csv"), Expected(0, v1));
  EXPECT_EQ(ReadText(tmp_ + "/merged/lms.csv"), Expected(1, v1));
  EXPECT_EQ(ReadText(tmp_ + "/merged/items.csv"), Expected(2, v1));
  for (const std::string &who : kBatch) {
    EXPECT_EQ(ReadText(tmp_ + "/merged/" + who + "/results.json"), "{\"tag\": \"v1\"}\n") << who;
    EXPECT_EQ(ReadText(tmp_ + "/merged/" + who + "/logs/reduction-build.log"), "built " + who + "\n");
  }
  EXPECT_FALSE(Exists(tmp_ + "/merged/work")) << "a shard's work folder is not a report";
  // The merged folder is a complete batch output of its own: it merges again (as a base).
  batch_manifest m;
  manifest_init(&m, 1);
  strbuf err;
  sb_init(&err);
  ASSERT_EQ(manifest_load(&m, (tmp_ + "/merged").c_str(), &err), 0) << err.data;
  EXPECT_TRUE(m.complete);
  EXPECT_EQ(m.shard_count, 3u);
  for (size_t k = 0; k < 3; k++) EXPECT_TRUE(manifest_holds(&m, k));
  EXPECT_EQ(Strings(m.graded), kBatch);
  sb_free(&err);
  manifest_free(&m);

  // The same merge again, in another order, into another folder: the same bytes.
  ASSERT_EQ(Merge(tmp_ + "/merged2", {dirs[1], dirs[2], dirs[0]}, &error), 0) << error;
  for (const char *f : {"gradebook.csv", "lms.csv", "items.csv", "batch-manifest.txt"}) {
    EXPECT_EQ(ReadText(tmp_ + "/merged/" + f), ReadText(tmp_ + "/merged2/" + f)) << f;
  }
}

TEST_F(GraderShard, ReMergingOneReGradedShardReplacesOnlyItsLinesAndReports) {
  ShardSpec s;
  std::vector<std::string> dirs;
  for (size_t k = 0; k < 3; k++) {
    s.holds = {k};
    dirs.push_back(MakeShard("shard" + std::to_string(k), s));
  }
  std::string error, out = tmp_ + "/merged";
  ASSERT_EQ(Merge(out, dirs, &error), 0) << error;
  // Shard 1 (bob, eve) graded again, with other results; a stale file in bob's old reports.
  WriteText(out + "/bob/stale.txt", "from the earlier merge\n");
  s.holds = {1};
  s.tag = "v2";
  std::string again = MakeShard("shard1-again", s);
  ASSERT_EQ(Merge(out, {again}, &error), 0) << error;
  std::vector<std::string> tags = {"v1", "v2", "v1", "v1", "v2"};
  EXPECT_EQ(ReadText(out + "/gradebook.csv"), Expected(0, tags));
  EXPECT_EQ(ReadText(out + "/lms.csv"), Expected(1, tags));
  EXPECT_EQ(ReadText(out + "/items.csv"), Expected(2, tags));
  EXPECT_EQ(ReadText(out + "/bob/results.json"), "{\"tag\": \"v2\"}\n");
  EXPECT_FALSE(Exists(out + "/bob/stale.txt")) << "a re-merged submission's reports are replaced whole";
  EXPECT_EQ(ReadText(out + "/alice/results.json"), "{\"tag\": \"v1\"}\n");
  // Naming every shard again gives what a fresh merge gives.
  ASSERT_EQ(Merge(out, {dirs[0], again, dirs[2]}, &error), 0) << error;
  EXPECT_EQ(ReadText(out + "/gradebook.csv"), Expected(0, tags));
}

TEST_F(GraderShard, AShardWithNoSubmissionMerges) {
  ShardSpec s;
  s.count = 7;  // 5 submissions: shards 5 and 6 have none
  std::vector<std::string> dirs;
  for (size_t k = 0; k < 7; k++) {
    s.holds = {k};
    dirs.push_back(MakeShard("shard" + std::to_string(k), s));
  }
  EXPECT_EQ(ReadText(dirs[6] + "/gradebook.csv"), "");
  std::string error;
  ASSERT_EQ(Merge(tmp_ + "/merged", dirs, &error), 0) << error;
  EXPECT_EQ(ReadText(tmp_ + "/merged/gradebook.csv"),
            Expected(0, std::vector<std::string>(kBatch.size(), "v1")));
}

TEST_F(GraderShard, OverlappingMissingIncompleteAndInconsistentShardsAreRefusedWithNothingWritten) {
  ShardSpec s;
  std::vector<std::string> dirs;
  for (size_t k = 0; k < 3; k++) {
    s.holds = {k};
    dirs.push_back(MakeShard("shard" + std::to_string(k), s));
  }
  std::string out = tmp_ + "/merged", error;
  struct Case {
    std::string what;
    std::vector<std::string> dirs;
    std::string message;
  };
  std::vector<Case> cases;
  s.holds = {1};
  cases.push_back({"overlap", {dirs[0], dirs[1], MakeShard("other1", s), dirs[2]},
                   "both hold shard 1/3: name each shard's folder once"});
  s.holds = {0, 1};
  cases.push_back({"overlap with a two-shard folder", {dirs[0], MakeShard("both01", s), dirs[2]},
                   "both hold shard 0/3"});
  cases.push_back({"missing", {dirs[0], dirs[2]}, "shard 1 of 3 is missing"});
  cases.push_back({"two missing", {dirs[1]}, "shards 0, 2 of 3 are missing"});
  cases.push_back({"named twice", {dirs[0], dirs[1], dirs[2], dirs[1]}, "is named twice"});
  ShardSpec bad = s;
  bad.holds = {2};
  bad.complete = false;
  cases.push_back({"incomplete", {dirs[0], dirs[1], MakeShard("running2", bad)},
                   "holds shard 2/3, which is not complete"});
  bad = s;
  bad.holds = {2};
  bad.rubrics = "00000000000000bb";
  cases.push_back({"other rubrics", {dirs[0], dirs[1], MakeShard("rubrics2", bad)},
                   "their rubrics (their fingerprints) differ (00000000000000aa; 00000000000000bb)"});
  bad = s;
  bad.holds = {2};
  bad.labs = "reduction";
  cases.push_back({"other labs", {dirs[0], dirs[1], MakeShard("labs2", bad)},
                   "their graded labs (--lab) differ"});
  bad = s;
  bad.holds = {2};
  bad.count = 4;
  cases.push_back({"other count", {dirs[0], dirs[1], MakeShard("count4", bad)},
                   "their shard counts differ (3; 4)"});
  bad = s;
  bad.holds = {2};
  bad.batch = {"alice", "bob", "carol", "dave", "eve", "frank"};
  cases.push_back({"other batch", {dirs[0], dirs[1], MakeShard("batch2", bad)},
                   "their lists of submissions differ"});
  bad = s;
  bad.holds = {2};
  bad.gradebook_header = "submission,score,max_score,not_scored,status,reduction,scan,extra\n";
  cases.push_back({"other columns", {dirs[0], dirs[1], MakeShard("header2", bad)},
                   "their gradebook columns differ (gradebook.csv"});
  WriteText(tmp_ + "/no-manifest/carol/results.json", "{}\n");
  cases.push_back({"not a batch output", {dirs[0], dirs[1], tmp_ + "/no-manifest"},
                   "no-manifest/batch-manifest.txt: No such file or directory (is it the output "
                   "folder of grade --batch?)"});
  cases.push_back({"not a folder", {dirs[0], dirs[1], tmp_ + "/nope"}, "/nope is not a folder"});
  for (const Case &c : cases) {
    EXPECT_EQ(Merge(out, c.dirs, &error), 1) << c.what;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.what << ": " << error;
    EXPECT_FALSE(Exists(out)) << c.what << ": nothing is written when a merge is refused";
  }

  // A shard folder whose gradebook has a line that is not its own, or lacks one.
  s.holds = {2};
  std::string odd = MakeShard("odd2", s);
  WriteText(odd + "/lms.csv", ReadText(odd + "/lms.csv") + "alice,1,1\n");
  EXPECT_EQ(Merge(out, {dirs[0], dirs[1], odd}, &error), 1);
  EXPECT_NE(error.find("lms.csv has a line for 'alice', which is not one of the submissions of "
                       "shard 2/3"), std::string::npos) << error;
  WriteText(odd + "/lms.csv", "id,total,reduction\n");
  EXPECT_EQ(Merge(out, {dirs[0], dirs[1], odd}, &error), 1);
  EXPECT_NE(error.find("lms.csv has 0 lines for 'carol' (one was expected)"), std::string::npos)
      << error;
  std::system(("rm -rf '" + dirs[2] + "/carol'").c_str());
  EXPECT_EQ(Merge(out, dirs, &error), 1);
  EXPECT_NE(error.find("the reports of 'carol'"), std::string::npos) << error;
  EXPECT_FALSE(Exists(out));
}

TEST_F(GraderShard, TheMergedFolderMustBeNewEmptyOrAnEarlierOutputOfTheSameBatch) {
  ShardSpec s;
  std::vector<std::string> dirs;
  for (size_t k = 0; k < 3; k++) {
    s.holds = {k};
    dirs.push_back(MakeShard("shard" + std::to_string(k), s));
  }
  std::string error;
  WriteText(tmp_ + "/busy/thesis.tex", "not a gradebook\n");
  EXPECT_EQ(Merge(tmp_ + "/busy", dirs, &error), 1);
  EXPECT_NE(error.find("is not empty and holds no batch-manifest.txt"), std::string::npos) << error;
  EXPECT_EQ(ReadText(tmp_ + "/busy/thesis.tex"), "not a gradebook\n");

  EXPECT_EQ(Merge(dirs[1], dirs, &error), 1);
  EXPECT_NE(error.find("is both the merged folder and a folder to merge"), std::string::npos) << error;
  EXPECT_EQ(Merge(dirs[0] + "/merged", dirs, &error), 1);
  EXPECT_NE(error.find("may not lie one inside the other"), std::string::npos) << error;

  EXPECT_EQ(Merge(dirs[0], {dirs[1], dirs[2]}, &error), 1);
  EXPECT_NE(error.find(dirs[0] + " holds shard 0/3 only (the output of grade --batch --shard): "
                       "merge into a folder of its own"), std::string::npos) << error;
  EXPECT_FALSE(Exists(dirs[0] + "/bob")) << "shard 0's folder is left as it was";

  ASSERT_EQ(mkdir_p((tmp_ + "/empty").c_str()), 0);
  EXPECT_EQ(Merge(tmp_ + "/empty", dirs, &error), 0) << error;

  // An earlier merge of another batch is not overwritten.
  s.batch = {"x", "y"};
  s.holds = {0, 1, 2};
  std::string other = MakeShard("other-batch", s);
  EXPECT_EQ(Merge(other, dirs, &error), 1);
  EXPECT_NE(error.find("holds the output of another batch"), std::string::npos) << error;
  EXPECT_TRUE(Exists(other + "/x/results.json"));
}

// ---- the grade program on the fake course ----

namespace {

const char *kGoodLab =
    "#include \"reduction.h\"\n"
    "int fake_add(int a, int b) { return a + b; }\n"
    "int fake_mul(int a, int b) { return a * b; }\n"
    "int fake_wait(void) { return 0; }\n"
    "int fake_touch(int *cell) { return *cell; }\n"
    "double fake_speed(void) { return 0.75; }\n";

struct Outcome {
  int status;
  std::string output;
};

}  // namespace

class GraderShardProgram : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-shard-e2e-XXXXXX";
    tmp_ = mkdtemp(pattern);
  }
  void TearDown() override { std::system(("rm -rf '" + tmp_ + "'").c_str()); }

  std::string Command(const std::string &args, const std::string &log) {
    return std::string("'") + GRADE_EXE + "' " + args + " >'" + log + "' 2>&1";
  }
  Outcome Grade(const std::string &args) {
    std::string log = tmp_ + "/grade.log";
    int status = std::system(Command(args, log).c_str());
    return Outcome{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadText(log)};
  }
  // The options every grade of the fake course takes here.
  std::string Course() {
    return "--course '" + std::string(GRADER_TEST_DATA) +
           "/fake-course' --lab reduction --jobs 1 --quiet --cmake-arg -DLAB_BACKEND=cuda ";
  }

  std::string tmp_;
};

TEST_F(GraderShardProgram, UsageOfShardAndMerge) {
  struct Case {
    const char *args, *message;
  } cases[] = {
      {"--shard 1/2", "grade: --shard 1/2 picks submissions of a batch: use it with --batch DIR"},
      {"--batch . --shard 2/2", "grade: --shard takes K/N, shard K (0 to N-1) of N (1 to 100000), not '2/2'"},
      {"--batch . --shard=x", "not 'x'"},
      {"--merge out", "grade: --merge OUT needs the output folders of the shards after it"},
      {"--merge out --batch . a", "grade: --merge joins the folders of finished shards and grades nothing"},
      {"--merge out --shard 0/2 a", "grade: --merge joins the folders of finished shards"},
  };
  for (const Case &c : cases) {
    Outcome run = Grade(c.args);
    EXPECT_EQ(run.status, 2) << c.args << ": " << run.output;
    EXPECT_NE(run.output.find(c.message), std::string::npos) << c.args << ": " << run.output;
  }
  Outcome help = Grade("--help");
  for (const char *option : {"--shard K/N", "--merge OUT SHARD_OUT..."}) {
    EXPECT_NE(help.output.find(option), std::string::npos) << option;
  }
  Outcome missing = Grade("--merge '" + tmp_ + "/out' '" + tmp_ + "/no-shard'");
  EXPECT_EQ(missing.status, 1) << missing.output;
  EXPECT_NE(missing.output.find("grade: " + tmp_ + "/no-shard is not a folder"), std::string::npos)
      << missing.output;
}

TEST_F(GraderShardProgram, TwoShardsGradedSideBySideMergeIntoWhatOneBatchRunWrites) {
  std::string subs = tmp_ + "/subs";
  WriteText(subs + "/alice/labs/reduction/reduction.c", kGoodLab);
  std::string bob = kGoodLab;
  bob.replace(bob.find("a * b"), 5, "a + b");  // step 2 fails
  WriteText(subs + "/bob/reduction.c", bob);
  WriteText(subs + "/carol/reduction/reduction.c", kGoodLab);

  // Shards 0/2 (alice, carol) and 1/2 (bob) at the same time, each with its own work folder,
  // as two tasks of a job array would; a third shard of 3 would have nothing (checked below).
  std::string both =
      "(" + Command(Course() + "--batch '" + subs + "' --shard 0/2 --out '" + tmp_ + "/s0'",
                    tmp_ + "/s0.log") +
      ") & (" +
      Command(Course() + "--batch '" + subs + "' --shard 1/2 --out '" + tmp_ + "/s1'",
              tmp_ + "/s1.log") +
      ") & wait";
  ASSERT_NE(std::system(both.c_str()), -1);
  EXPECT_NE(ReadText(tmp_ + "/s0.log").find("shard 0/2: 2 of the batch's 3 submissions"),
            std::string::npos) << ReadText(tmp_ + "/s0.log");
  EXPECT_NE(ReadText(tmp_ + "/s0.log").find("gradebook: " + tmp_ + "/s0/gradebook.csv (shard 0/2"),
            std::string::npos);
  EXPECT_TRUE(Exists(tmp_ + "/s0/alice/results.json"));
  EXPECT_FALSE(Exists(tmp_ + "/s0/bob")) << "bob is shard 1's";
  EXPECT_TRUE(Exists(tmp_ + "/s1/bob/results.json")) << ReadText(tmp_ + "/s1.log");

  // One plain batch of the same submissions, in shard 0's work folder (only what differs is
  // rebuilt).
  Outcome plain = Grade(Course() + "--batch '" + subs + "' --work-dir '" + tmp_ + "/s0/work' --out '" +
                    tmp_ + "/plain'");
  ASSERT_EQ(plain.status, 0) << plain.output;
  Outcome merge = Grade("--merge '" + tmp_ + "/merged' '" + tmp_ + "/s1' '" + tmp_ + "/s0'");
  ASSERT_EQ(merge.status, 0) << merge.output;
  EXPECT_NE(merge.output.find("merged 2 shards into " + tmp_ + "/merged: 3 submissions"),
            std::string::npos) << merge.output;
  for (const char *f : {"gradebook.csv", "lms.csv", "items.csv"}) {
    EXPECT_EQ(ReadText(tmp_ + "/merged/" + f), ReadText(tmp_ + "/plain/" + f)) << f;
  }
  std::string gradebook = ReadText(tmp_ + "/plain/gradebook.csv");
  EXPECT_EQ(gradebook.substr(0, gradebook.find('\n') + 1),
            "submission,score,max_score,not_scored,status,reduction,reduction:1-add,reduction:2-mul,"
            "reduction:3-wait,reduction:4-touch,reduction:5-renamed,reduction:speed\n");
  EXPECT_NE(gradebook.find("\nbob,55,100,0,ok,55,10,0,10,10,0,25\n"), std::string::npos) << gradebook;
  EXPECT_EQ(ReadText(tmp_ + "/plain/lms.csv"), "id,total,reduction\nalice,65,65\nbob,55,55\ncarol,65,65\n");
  std::string items = ReadText(tmp_ + "/plain/items.csv");
  EXPECT_EQ(items.substr(0, items.find('\n') + 1), "submission,lab,item,score,max,reason\n");
  EXPECT_NE(items.find("\nbob,reduction,2-mul,0,10,\"FakeStep2.Multiplies: Expected equality"),
            std::string::npos) << items;
  EXPECT_NE(items.find("\ncarol,reduction,speed,25,50,ratio 0.75 is below the target 1.00"),
            std::string::npos) << items;
  EXPECT_EQ(ReadText(tmp_ + "/merged/bob/items.tsv"), ReadText(tmp_ + "/s1/bob/items.tsv"));

  // Bob's file fixed, shard 1 graded again and merged alone into the earlier merge: bob's
  // lines change, alice's and carol's stay as they were.
  WriteText(subs + "/bob/reduction.c", kGoodLab);
  Outcome again = Grade(Course() + "--batch '" + subs + "' --shard 1/2 --out '" + tmp_ + "/s1'");
  ASSERT_EQ(again.status, 0) << again.output;
  std::string before = ReadText(tmp_ + "/merged/gradebook.csv");
  merge = Grade("--merge '" + tmp_ + "/merged' '" + tmp_ + "/s1'");
  ASSERT_EQ(merge.status, 0) << merge.output;
  EXPECT_NE(merge.output.find("1 from the folders named, 2 kept from its earlier merge"),
            std::string::npos) << merge.output;
  std::string after = ReadText(tmp_ + "/merged/gradebook.csv");
  std::string expected = before;
  expected.replace(expected.find("\nbob,55,100,0,ok,55,10,0,"), 25, "\nbob,65,100,0,ok,65,10,10,");
  EXPECT_EQ(after, expected);

  // More shards than submissions: the last one grades nothing and still merges.
  Outcome empty = Grade(Course() + "--batch '" + subs + "' --shard 3/4 --out '" + tmp_ + "/e3'");
  ASSERT_EQ(empty.status, 0) << empty.output;
  EXPECT_NE(empty.output.find("shard 3/4: no submission to grade (the batch holds 3)"),
            std::string::npos) << empty.output;
  EXPECT_EQ(ReadText(tmp_ + "/e3/gradebook.csv"), "");
  Outcome mixed = Grade("--merge '" + tmp_ + "/m2' '" + tmp_ + "/e3' '" + tmp_ + "/s0'");
  EXPECT_EQ(mixed.status, 1);
  EXPECT_NE(mixed.output.find("their shard counts differ (4; 2)"), std::string::npos) << mixed.output;
}
