// Tests of the grader's rubric parser and CTest-name patterns (grader/src/rubric.c).
#include <string>

#include "gltest.h"

extern "C" {
#include "rubric.h"
}

namespace {

// Parses `text` into a fresh rubric; returns the parser's messages ("" when it succeeded).
struct Parsed {
  rubric r;
  int rc;
  std::string errors;
  explicit Parsed(const std::string &text, const char *lab = "reduction") {
    rubric_init(&r, lab);
    strbuf sb;
    sb_init(&sb);
    rc = rubric_parse(&r, text.c_str(), "reduction.rubric", &sb);
    errors = sb.data;
    sb_free(&sb);
  }
  ~Parsed() { rubric_free(&r); }
  Parsed(const Parsed &) = delete;
  Parsed &operator=(const Parsed &) = delete;
};

const char *kGoodRubric =
    "# The reduction lab.\n"
    "files   labs/reduction/reduction.cu labs/reduction/helpers.cu\n"
    "\n"
    "# kind  id             points  tests                     performance only\n"
    "step    1-interleaved  10      ReductionStep1.*\n"
    "step    3-sequential   12.5    ReductionStep3.*|ReductionPrivate.Step3*   # hidden tests too\n"
    "   perf final-vs-cub   20      ReductionPerf.FinalVsCub  floor=0.5 metric=final_vs_cub target=0.9\n"
    "files   labs/reduction/reduction.cu\n";

}  // namespace

TEST(GraderRubric, ParsesItemsFilesAndComments) {
  Parsed p(kGoodRubric);
  ASSERT_EQ(p.rc, 0) << p.errors;
  EXPECT_EQ(p.errors, "");
  ASSERT_EQ(p.r.n_items, 3u);
  const rubric_item &step1 = p.r.items[0];
  EXPECT_EQ(step1.kind, ITEM_STEP);
  EXPECT_STREQ(step1.id, "1-interleaved");
  EXPECT_DOUBLE_EQ(step1.points, 10.0);
  EXPECT_STREQ(step1.tests, "ReductionStep1.*");
  EXPECT_STREQ(step1.source, "reduction.rubric:5");
  EXPECT_DOUBLE_EQ(p.r.items[1].points, 12.5);
  EXPECT_STREQ(p.r.items[1].tests, "ReductionStep3.*|ReductionPrivate.Step3*")
      << "a word starting with # ends the line";
  const rubric_item &perf = p.r.items[2];
  EXPECT_EQ(perf.kind, ITEM_PERF);
  EXPECT_STREQ(perf.metric, "final_vs_cub");
  EXPECT_DOUBLE_EQ(perf.target, 0.9);
  EXPECT_DOUBLE_EQ(perf.floor, 0.5);
  EXPECT_DOUBLE_EQ(rubric_total(&p.r), 42.5);
  ASSERT_EQ(p.r.files.count, 2u) << "a file named twice is kept once";
  EXPECT_STREQ(p.r.files.items[0], "labs/reduction/reduction.cu");
  EXPECT_STREQ(p.r.files.items[1], "labs/reduction/helpers.cu");
  strbuf sb;
  sb_init(&sb);
  EXPECT_EQ(rubric_check(&p.r, "reduction.rubric", &sb), 0) << sb.data;
  sb_free(&sb);
}

TEST(GraderRubric, BonusItemsAreMarkedAndLeftOutOfTheTotal) {
  Parsed p(
      "files labs/radix_sort/radix_sort.cu\n"
      "step 4-onesweep 25 RadixSortStep4.*\n"
      "step 5-tuned 10 RadixSortStep5.* bonus   # the stretch\n"
      "perf keys 15 RadixSortPerf.Keys bonus metric=keys target=1 floor=0.5\n",
      "radix_sort");
  ASSERT_EQ(p.rc, 0) << p.errors;
  ASSERT_EQ(p.r.n_items, 3u);
  EXPECT_FALSE(p.r.items[0].bonus);
  EXPECT_TRUE(p.r.items[1].bonus);
  EXPECT_STREQ(p.r.items[1].tests, "RadixSortStep5.*");
  EXPECT_TRUE(p.r.items[2].bonus) << "a perf line takes bonus among its options";
  EXPECT_STREQ(p.r.items[2].metric, "keys");
  EXPECT_DOUBLE_EQ(rubric_total(&p.r), 25.0);

  Parsed twice("files a.cu\nstep 5-tuned 10 RadixSortStep5.* bonus bonus\n", "radix_sort");
  EXPECT_EQ(twice.rc, -1);
  EXPECT_NE(twice.errors.find("reduction.rubric:2: unexpected 'bonus'"), std::string::npos)
      << twice.errors;
}

TEST(GraderRubric, EmptyTextAndCommentsOnlyParseButFailTheCheck) {
  Parsed p("# nothing here\n\n   \n");
  EXPECT_EQ(p.rc, 0);
  EXPECT_EQ(p.r.n_items, 0u);
  strbuf sb;
  sb_init(&sb);
  EXPECT_EQ(rubric_check(&p.r, "reduction.rubric", &sb), -1);
  std::string errors = sb.data;
  sb_free(&sb);
  EXPECT_NE(errors.find("no step or perf line"), std::string::npos) << errors;
  EXPECT_NE(errors.find("no files line"), std::string::npos) << errors;
  EXPECT_NE(errors.find("labs/reduction/reduction.cu"), std::string::npos)
      << "the message shows what the line should look like: " << errors;
}

TEST(GraderRubric, EachMistakeIsNamedWithItsLine) {
  struct Case {
    const char *line;
    const char *message;
  } cases[] = {
      {"stpe 1-a 10 A.*", "'stpe' is not a kind of line"},
      {"step 1-a ten A.*", "points 'ten' is not a non-negative number"},
      {"step 1-a -5 A.*", "points '-5' is not a non-negative number"},
      {"step 1-a inf A.*", "points 'inf' is not a non-negative number"},
      {"step 1-a 10", "a step line needs"},
      {"step 1,a 10 A.*", "item id '1,a' may not hold a comma"},
      {"step 1-a 10 A.* B.*", "unexpected 'B.*' after the tests pattern"},
      {"perf p 10 A.Perf metric=m target=0.9", "a perf line needs metric="},
      {"perf p 10 A.Perf metric=m target=0.5 floor=0.5", "needs 0 <= floor < target"},
      {"perf p 10 A.Perf metric=m target=0.9 floor=-1", "needs 0 <= floor < target"},
      {"perf p 10 A.Perf metric=m target=x floor=0.1", "target=x is not a number"},
      {"perf p 10 A.Perf metric=m target=0.9 floor=0.1 speed=3", "unexpected 'speed=3'"},
      {"perf p 10 metric=m target=0.9 floor=0.1", "is in the place of the tests pattern"},
      {"files", "a files line names at least one file"},
      {"files /etc/passwd", "must be a path inside the course"},
      {"files labs/../grader/private/reduction.rubric", "must be a path inside the course"},
  };
  for (const Case &c : cases) {
    Parsed p(std::string("# first line\n") + c.line + "\n");
    EXPECT_EQ(p.rc, -1) << c.line;
    EXPECT_NE(p.errors.find("reduction.rubric:2: "), std::string::npos)
        << c.line << " -> " << p.errors;
    EXPECT_NE(p.errors.find(c.message), std::string::npos) << c.line << " -> " << p.errors;
  }
}

TEST(GraderRubric, IdsMayHoldAnyPrintableCharacterButACommaOrSpace) {
  Parsed p("step n-near-2^32 8 ReductionHuge.*\nstep 3/sequential 1 A.*\n");
  EXPECT_EQ(p.rc, 0) << p.errors;
  ASSERT_EQ(p.r.n_items, 2u);
  EXPECT_STREQ(p.r.items[0].id, "n-near-2^32");
}

TEST(GraderRubric, DuplicateIdsAreRefusedAndEveryErrorIsListed) {
  Parsed p("step a 1 A.*\nstep a 2 B.*\nstep b x C.*\n");
  EXPECT_EQ(p.rc, -1);
  EXPECT_NE(p.errors.find("reduction.rubric:2: item id 'a' is used twice (first at "
                          "reduction.rubric:1)"),
            std::string::npos)
      << p.errors;
  EXPECT_NE(p.errors.find("reduction.rubric:3:"), std::string::npos)
      << "parsing goes on after an error: " << p.errors;
  EXPECT_EQ(p.r.n_items, 1u);
}

TEST(GraderRubric, APrivateRubricAddsToThePublicOne) {
  rubric r;
  rubric_init(&r, "reduction");
  strbuf sb;
  sb_init(&sb);
  ASSERT_EQ(rubric_parse(&r, kGoodRubric, "reduction.rubric", &sb), 0) << sb.data;
  ASSERT_EQ(rubric_parse(&r, "step hidden-edge-cases 5 ReductionPrivate.*\n", "private.rubric", &sb), 0)
      << sb.data;
  EXPECT_EQ(r.n_items, 4u);
  EXPECT_DOUBLE_EQ(rubric_total(&r), 47.5);
  EXPECT_EQ(rubric_parse(&r, "step 1-interleaved 5 X.*\n", "private.rubric", &sb), -1)
      << "an id of the public rubric cannot be reused";
  sb_free(&sb);
  rubric_free(&r);
}

TEST(GraderRubric, LoadNamesAMissingFile) {
  rubric r;
  rubric_init(&r, "reduction");
  strbuf sb;
  sb_init(&sb);
  EXPECT_EQ(rubric_load(&r, "/nonexistent/reduction.rubric", &sb), -1);
  EXPECT_NE(std::string(sb.data).find("/nonexistent/reduction.rubric: cannot read it"),
            std::string::npos)
      << sb.data;
  sb_free(&sb);
  rubric_free(&r);
}

TEST(GraderPattern, MatchesWholeNamesWithStarAndQuestionMark) {
  EXPECT_TRUE(pattern_match("ReductionStep3.*", "ReductionStep3.Sum/256"));
  EXPECT_TRUE(pattern_match("ReductionStep3.*", "ReductionStep3."));
  EXPECT_FALSE(pattern_match("ReductionStep3.*", "ReductionStep30.Sum"))
      << "the dot is literal, so step 30 is not step 3";
  EXPECT_FALSE(pattern_match("ReductionStep3.*", "XReductionStep3.Sum"))
      << "patterns match the whole name";
  EXPECT_TRUE(pattern_match("ReductionPerf.FinalVsCub", "ReductionPerf.FinalVsCub"));
  EXPECT_FALSE(pattern_match("ReductionPerf.FinalVsCub", "ReductionPerf.FinalVsCubToo"));
  EXPECT_TRUE(pattern_match("Scan?.*", "Scan7.X"));
  EXPECT_FALSE(pattern_match("Scan?.*", "Scan.X"));
  EXPECT_TRUE(pattern_match("*", ""));
  EXPECT_TRUE(pattern_match("a*b*c", "aXXbYYc"));
  EXPECT_TRUE(pattern_match("a*b*c", "abc"));
  EXPECT_FALSE(pattern_match("a*b*c", "aXXbYY"));
  EXPECT_TRUE(pattern_match("*.Sum/*", "ReductionStep8.Sum/1024"));
  EXPECT_FALSE(pattern_match("", "anything"));
}

TEST(GraderPattern, OnlyStarAndQuestionMarkAreSpecial) {
  // fnmatch(3) does the matching, but a rubric's '[' and backslash stand for themselves, as
  // rubric/README.md says (fnmatch alone would read a bracket expression and an escape).
  EXPECT_TRUE(pattern_match("Odd[1].*", "Odd[1].X"));
  EXPECT_FALSE(pattern_match("Odd[1].*", "Odd1.X"));
  EXPECT_TRUE(pattern_match("A[.*", "A[.x")) << "an unclosed bracket too";
  EXPECT_TRUE(pattern_match("A\\*", "A\\b"));
  EXPECT_FALSE(pattern_match("A\\*", "A*"));
  EXPECT_TRUE(pattern_match("*.x", ".x")) << "a leading dot is an ordinary character";
  EXPECT_TRUE(pattern_match("A.*/3", "A.b/c/3")) << "'*' crosses '/'";
}

TEST(GraderPattern, AlternativesAreJoinedWithABar) {
  const char *pattern = "ScanStep7.*|ScanPrivate.Step7*";
  EXPECT_TRUE(pattern_match(pattern, "ScanStep7.Exclusive/32"));
  EXPECT_TRUE(pattern_match(pattern, "ScanPrivate.Step7Huge"));
  EXPECT_FALSE(pattern_match(pattern, "ScanStep6.Exclusive/32"));
  EXPECT_FALSE(pattern_match("A.x||B.y", "")) << "an empty alternative matches nothing";
  EXPECT_TRUE(pattern_match("A.x||B.y", "B.y"));
}

// `order N` places the lab in the course (the build lists the labs by it): one whole number.
TEST(GraderRubric, AnOrderLinePlacesTheLab) {
  Parsed good("order 3\nstep 1-a 10 A.*\n");
  ASSERT_EQ(good.rc, 0) << good.errors;
  EXPECT_EQ(good.r.order, 3);
  Parsed none("step 1-a 10 A.*\n");
  EXPECT_EQ(none.rc, 0) << none.errors;
  EXPECT_EQ(none.r.order, 0);
  for (const char *bad : {"order\n", "order 0\n", "order 2.5\n", "order 3 4\n", "order x\n"}) {
    Parsed p(bad);
    EXPECT_NE(p.rc, 0) << bad;
    EXPECT_NE(p.errors.find("an order line holds one whole number"), std::string::npos)
        << bad << ": " << p.errors;
  }
}
