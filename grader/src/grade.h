/* One grading run: from a course tree (or a submission laid over a pristine copy of one) to a
 * filled grade_report, and the reports written from it. */
#ifndef GRADE_GRADE_H
#define GRADE_GRADE_H

#include "report.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_options {
  const char *source_dir;  /* the course: the pristine tree for submissions, or the one graded */
  const char *build_dir;   /* NULL: the tree's default (in place only) */
  const char *out_dir;     /* where the reports go (absolute) */
  const char *work_dir;    /* submissions: where the copy and its build live (absolute) */
  const char *submission;  /* NULL: grade source_dir's own labs/ in place */
  strlist all_labs;        /* every lab of the course, in teaching order */
  strlist labs;            /* the labs to grade; empty: all */
  int jobs;                /* parallel build jobs and parallel correctness tests */
  const char *cmake;       /* the cmake and ctest of the build the grader came from */
  const char *ctest;
  strlist configure_args;  /* for a fresh build tree: -G, -D... (LAB_IMPL=labs is added) */
  const char *progress;    /* a prefix for progress lines ("[ 3/40] alice"); NULL: none */
  const char *gpu_lock;    /* grade --batch --gpus: the lock file of this grader's GPU, taken
                            * shared around correctness tests and exclusive around performance
                            * tests (gpu_lock_acquire); NULL: no lock (a plain run) */
} grade_options;

void grade_options_init(grade_options *opt);
void grade_options_free(grade_options *opt);

/* Grades and fills `report`. Returns 0 when grading ran as it should (whatever the score),
 * 1 when something kept it from grading fully (the report's problems say what). */
int grade_run(const grade_options *opt, grade_report *report);

/* Writes results.json, junit.xml, summary.md and items.tsv into `out_dir`. 0 or -1. */
int grade_write_reports(const grade_report *report, const char *out_dir, strbuf *err);

/* The value of KEY in a build tree's CMakeCache.txt, or NULL. */
char *cmake_cache_get(const char *build_dir, const char *key);

/* The first compiler errors of a build log, without the source folder's prefix; NULL if none
 * is recognised. */
char *build_errors_of(const char *log_text, const char *source_dir);

#ifdef __cplusplus
}
#endif
#endif
