/* A grading run's labs that use another lab (run_internal.h): when the lab it uses failed, it
 * is graded with the reference solution of that lab, and the report says so. */
#define _POSIX_C_SOURCE 200809L
#include "run_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "reaper.h"
#include "submission.h"

/* ---- labs that use another lab ---- */

/* Why a lab's code cannot be trusted by the labs that use it, or NULL: it did not build, a test
 * failed, or the audit charged it. */
static char *lab_failure(const lab_result *dep) {
  if (dep->state == LAB_BUILD_FAILED) return xstrdup("did not build");
  if (dep->state != LAB_GRADED) return xstrdup("could not be graded");
  for (size_t i = 0; i < dep->tests.count; i++) {
    const test_result *t = &dep->tests.items[i];
    if (t->status == TEST_FAILED) return xasprintf("failed a test (%s)", t->name);
  }
  if (dep->audit.count > 0 && dep->rubric.audit.cost != 0) {
    char *text = audit_finding_text(&dep->audit.findings[0]);
    char *why = xasprintf("failed the audit (%s)", text);
    free(text);
    return why;
  }
  return NULL;
}

/* The verdict on lab `name` of this run, or one made now for the purpose (its correctness
 * tests and audit, not reported) when the run does not grade it. */
static char *dependency_failure(const grade_options *opt, grade_report *report, const char *name,
                                const score_context *ctx, const char *logs) {
  for (size_t i = 0; i < report->n_labs; i++) {
    if (strcmp(report->labs[i].lab, name) == 0) return lab_failure(&report->labs[i]);
  }
  grade_report scratch;
  report_init(&scratch);
  scratch.source_dir = xstrdup(report->source_dir);
  scratch.build_dir = xstrdup(report->build_dir);
  lab_result *dep = report_add_lab(&scratch, name);
  strbuf errors;
  sb_init(&errors);
  char *why;
  if (run_load_rubric(report->source_dir, name, &dep->rubric, &errors) != 0) {
    why = xasprintf("has a rubric with errors");
  } else {
    run_progress(opt, "%s: checking it for the labs that use it", name);
    run_grade_lab(opt, &scratch, dep, ctx, logs, 1);
    why = lab_failure(dep);
  }
  sb_free(&errors);
  report_free(&scratch);
  return why;
}

/* Before a lab that uses others (its rubric's uses lines): picks, for each, the student's code
 * or the reference, and configures the build tree to match (GPULABS_REFERENCE_LABS; changed
 * only when a used lab failed, so a good submission costs no time). Returns 0, or -1 when the
 * build tree would not configure. */
int run_use_dependencies(const grade_options *opt, grade_report *report, lab_result *lab,
                            const score_context *ctx, const char *logs, strlist *references) {
  strlist wanted;
  sl_init(&wanted);
  for (size_t u = 0; u < lab->rubric.n_uses; u++) {
    const rubric_use *use = &lab->rubric.uses[u];
    char *why = dependency_failure(opt, report, use->lab, ctx, logs);
    if (why == NULL) continue;
    char *solutions = xasprintf("solutions/%s", use->lab);
    char *path = path_join(report->source_dir, solutions);
    char *note;
    int own_is_reference = strcmp(report->lab_impl, "solutions") == 0;
    if (!use->reference) {
      note = xasprintf("graded with your %s, which %s (the rubric says: uses %s "
                       "fallback=student)", use->lab, why, use->lab);
    } else if (own_is_reference) {
      note = xasprintf("graded with this build's %s (LAB_IMPL=solutions), which %s", use->lab, why);
    } else if (dir_exists(path)) {
      sl_push(&wanted, use->lab);
      note = xasprintf("graded with the reference %s: your %s %s, and the %s lab alone loses "
                       "points for it", use->lab, use->lab, why, use->lab);
    } else {
      note = xasprintf("graded with your %s, which %s: this copy of the course has no reference "
                       "%s (%s/ is not in the student release)", use->lab, why, use->lab, solutions);
    }
    if (lab->note) {
      char *both = xasprintf("%s; %s", lab->note, note);
      free(note);
      note = both;
    }
    free(lab->note);
    lab->note = note;
    free(path);
    free(solutions);
    free(why);
  }
  /* The build tree's value, as CMake keeps a list: "scan;radix". */
  strbuf value;
  sb_init(&value);
  for (size_t i = 0; i < wanted.count; i++) sb_printf(&value, "%s%s", i ? ";" : "", wanted.items[i]);
  char *current = cmake_cache_get(report->build_dir, "GPULABS_REFERENCE_LABS");
  int rc = 0;
  if (strcmp(current ? current : "", value.data) != 0) {
    char *name = xasprintf("%s-configure.log", lab->lab);
    char *log = path_join(logs, name);
    char *define = xasprintf("-DGPULABS_REFERENCE_LABS=%s", value.data);
    char *argv[] = {(char *)opt->cmake, "-S", report->source_dir, "-B", report->build_dir, define, NULL};
    run_progress(opt, "%s: configuring the build with %s", lab->lab, define);
    remove(log);
    if (run_logged(argv, log) != 0) rc = -1;
    free(define);
    free(log);
    free(name);
  }
  free(current);
  for (size_t i = 0; i < wanted.count; i++) {
    if (!sl_contains(references, wanted.items[i])) sl_push(references, wanted.items[i]);
  }
  sb_free(&value);
  sl_free(&wanted);
  return rc;
}

/* Each item of a lab graded with a reference says so. */
void run_note_references(lab_result *lab, const strlist *used) {
  for (size_t i = 0; i < lab->n_items; i++) {
    item_result *item = &lab->items[i];
    for (size_t u = 0; u < used->count; u++) {
      char *note = item->note ? xasprintf("%s; graded with the reference %s", item->note, used->items[u])
                              : xasprintf("graded with the reference %s", used->items[u]);
      free(item->note);
      item->note = note;
    }
  }
}

/* Lays the submission over a pristine copy of the course and configures its build. */
