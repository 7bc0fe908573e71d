/* What one grading run found, and the reports written from it: the terminal table,
 * results.json (Gradescope's format plus the fields grader/README.md documents), junit.xml,
 * summary.md and items.tsv (one line per item, for scripts such as the self-test). */
#ifndef GRADE_REPORT_H
#define GRADE_REPORT_H

#include <stdio.h>

#include "verdict.h"
#include "rubric.h"
#include "score.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lab_state {
  LAB_GRADED,       /* built, tests ran, items scored */
  LAB_BUILD_FAILED, /* the student's code did not build: every item 0 */
  LAB_NO_RUBRIC,    /* no labs/<lab>/<lab>.rubric yet: not graded, not counted */
  LAB_ERROR         /* the grader could not grade it (bad rubric, CTest failed): every item
                       fails with the reason, so its points count as possible and lost */
} lab_state;

const char *lab_state_name(lab_state state);

/* Where a grade's time goes (results.json's extra_data.phases and each lab's phases): seconds
 * per phase, so that a slow batch shows what to make faster. */
typedef enum grade_phase {
  PHASE_PREPARE,      /* the course copy laid out and configured */
  PHASE_GPU_PROBE,    /* common's GPU tests */
  PHASE_BUILD,        /* compiling the labs and their test programs */
  PHASE_AUDIT,        /* the static audit of the exercise files */
  PHASE_CORRECTNESS,  /* the correctness tests */
  PHASE_PERFORMANCE,  /* the performance tests */
  PHASE_DEPENDENCIES, /* reconfiguring for the labs another lab uses (reference scan) */
  PHASE_COUNT
} grade_phase;

const char *grade_phase_name(grade_phase phase);

typedef struct lab_result {
  char *lab;
  lab_state state;
  char *note;         /* why it was not graded, or a warning; NULL when none */
  char *build_errors; /* the first compiler errors when the build failed */
  rubric rubric;
  test_list tests;
  item_result *items; /* one per rubric item, in rubric order */
  size_t n_items;
  strlist files_taken;    /* from the submission: "labs/scan/scan.cu" */
  strlist files_missing;  /* rubric files the submission lacks: the course's stub is graded */
  strlist files_rejected; /* "labs/scan/scan.cu (a symbolic link)" */
  strlist files_ignored;  /* given files the submission has with other content: never used */
  audit_result audit;     /* the static audit of its exercise files (audit.h) */
  double seconds;
  double phase[PHASE_COUNT]; /* of `seconds` */
} lab_result;

typedef struct grade_report {
  char *source_dir;  /* the course tree that was built */
  char *build_dir;
  char *submission;  /* NULL: the course's own labs/ */
  char *lab_impl;    /* "labs" or "solutions", from the build tree */
  char *backend;     /* "cuda" or "sim" */
  int gpu_present;
  char *gpu_name;      /* NULL when unknown */
  char *no_gpu_reason; /* why there is no GPU; NULL when there is one */
  char *sandbox;       /* the lab worker's sandbox layers, as a test printed them; NULL: none ran */
  char *started_at;    /* ISO 8601, UTC */
  double seconds;
  double phase[PHASE_COUNT]; /* the whole grade's, the labs' included */
  lab_result *labs;
  size_t n_labs;
  strlist problems;    /* what went wrong in grading itself (not the student's fault) */
} grade_report;

typedef struct report_totals {
  double score;          /* points earned in scored items */
  double max_score;      /* points of the scored items */
  double rubric_points;  /* points of every item of the graded labs */
  double not_scored;     /* points of items not run */
  double bonus;          /* of `score`, the points earned in bonus items (beyond the maximum) */
} report_totals;

void report_init(grade_report *report);
void report_free(grade_report *report);
lab_result *report_add_lab(grade_report *report, const char *lab);
void lab_totals(const lab_result *lab, report_totals *totals);
/* Every item of the lab's rubric fails with `reason`, and `detail` says why no test counted:
 * for a lab that did not build, or that the grader could not grade. */
void lab_fail_items(lab_result *lab, const char *reason, const char *detail);
/* Marks a lab the grader could not grade; `note` (owned) says why and is each item's reason. */
void lab_not_graded(lab_result *lab, char *note);
/* The audit's findings (lab->audit), scored: takes the points the rubric's audit cost says from
 * the items of `lab` (after the tests scored them), each with the finding as its reason. */
void audit_apply(const audit_config *cfg, lab_result *lab);
/* The audit's findings for the reports, one line each ("forbidden symbol ... (step 8)"), with
 * what they cost when the rubric's audit cost is none. */
void audit_lines(const lab_result *lab, strlist *lines);
/* The sentence the reports give about lab->files_ignored; NULL when it is empty. */
char *given_files_sentence(const lab_result *lab);
void report_totals_of(const grade_report *report, report_totals *totals);
/* One line about the GPU and the backend, the same in every report. */
char *report_gpu_line(const grade_report *report);

/* Writers. Each returns 0 or -1 (errno set). */
int write_results_json(const grade_report *report, const char *path);
int write_junit_xml(const grade_report *report, const char *path);
int write_summary_md(const grade_report *report, const char *path);
int write_items_tsv(const grade_report *report, const char *path);
void print_table(const grade_report *report, FILE *out);

/* Text escaping shared by the writers; invalid UTF-8 becomes U+FFFD. */
void json_append_string(strbuf *sb, const char *text);
void xml_append_escaped(strbuf *sb, const char *text);
/* A copy for plain-text reports: control characters other than newline and tab become '?',
 * bytes that are not UTF-8 become U+FFFD. */
char *printable_text(const char *text);
/* A CSV field, quoted when it needs to be. */
void csv_append_field(strbuf *sb, const char *text);

#ifdef __cplusplus
}
#endif
#endif
