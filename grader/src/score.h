/* Scoring: one rubric item against the tests CTest ran. */
#ifndef GRADE_SCORE_H
#define GRADE_SCORE_H

#include "verdict.h"
#include "rubric.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum item_state {
  ITEM_PASSED,  /* full points */
  ITEM_PARTIAL, /* a perf item between its floor and its target */
  ITEM_FAILED,  /* no points, and the reason says why */
  ITEM_NOT_RUN  /* not scored: its tests could not run here (no GPU, CPU backend) */
} item_state;

const char *item_state_name(item_state state); /* "passed", "partial", "failed", "not run" */

typedef struct score_context {
  int gpu_present; /* the GPU tests could run (the grader's probe ran on a GPU) */
  int cpu_backend; /* the labs run on the CPU execution backend (LAB_BACKEND=sim) */
} score_context;

typedef struct item_result {
  const rubric_item *item;
  item_state state;
  double score;      /* points earned (0 when not run), rounded to 0.01 */
  double ratio;      /* perf: the measured ratio; NAN when there is none */
  char *reason;      /* one line; NULL when the item passed */
  char *note;        /* e.g. "checked on the CPU backend"; NULL when none */
  char *detail;      /* several lines: the tests and their outcome, the first failure */
  size_t n_tests, n_passed, n_failed, n_not_run;
} item_result;

/* Points for a ratio: points * clamp((ratio - floor) / (target - floor), 0, 1), to 0.01. */
double perf_points(const rubric_item *item, double ratio);

/* Scores one item (see grader/rubric/README.md for the rules). */
void score_item(const rubric_item *item, const test_list *tests, const score_context *ctx,
                item_result *out);

/* An item of a lab whose tests could not count at all (a build error, CTest writing no
 * results): no points, this reason, and `detail` saying why no test counted. */
void score_item_lost(const rubric_item *item, const char *reason, const char *detail,
                     item_result *out);

void item_result_free(item_result *result);

/* The audit's findings for one lab, scored: takes the points the rubric's audit cost says from
 * the lab's `n_items` items (after the tests scored them), each with the finding as its
 * reason. It takes the items, not the report's lab_result (report.h, audit_apply), so scoring
 * stays below the report. */
void audit_score_items(const audit_config *cfg, const audit_result *res, item_result *items,
                       size_t n_items);

#ifdef __cplusplus
}
#endif
#endif
