#include "score.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* How many tests an item's detail lists before it says "... and N more". */
#define DETAIL_MAX_TESTS 30

const char *item_state_name(item_state state) {
  switch (state) {
    case ITEM_PASSED: return "passed";
    case ITEM_PARTIAL: return "partial";
    case ITEM_FAILED: return "failed";
    case ITEM_NOT_RUN: return "not run";
  }
  return "unknown";
}

static double round_points(double points) { return floor(points * 100.0 + 0.5) / 100.0; }

double perf_points(const rubric_item *item, double ratio) {
  if (!isfinite(ratio) || ratio <= item->floor) return 0.0;
  double fraction = (ratio - item->floor) / (item->target - item->floor);
  if (fraction > 1.0) fraction = 1.0;
  return round_points(item->points * fraction);
}

static void init_result(const rubric_item *item, item_result *out) {
  memset(out, 0, sizeof *out);
  out->item = item;
  out->ratio = NAN;
}

void item_result_free(item_result *result) {
  free(result->reason);
  free(result->note);
  free(result->detail);
  memset(result, 0, sizeof *result);
}

void score_item_lost(const rubric_item *item, const char *reason, const char *detail,
                     item_result *out) {
  init_result(item, out);
  out->state = ITEM_FAILED;
  out->score = 0;
  out->reason = xstrdup(reason);
  out->detail = xstrdup(detail);
}

/* Whether a test counts against the item: it failed. (A skipped test leaves the item not
 * scored: without a GPU that is the rule; on a GPU a test may still skip for want of memory,
 * and the report says so, since no score is given for it.) */
static int counts_as_failed(const test_result *t) { return t->status == TEST_FAILED; }

static void describe_tests(const test_result **matched, size_t n, strbuf *detail) {
  for (size_t i = 0; i < n && i < DETAIL_MAX_TESTS; i++) {
    const test_result *t = matched[i];
    const char *status = test_status_name(t->status);
    sb_printf(detail, "  %-8s %s (%.2f s)", status, t->name, t->seconds);
    if (t->reason) sb_printf(detail, ": %s", t->reason);
    sb_append_char(detail, '\n');
  }
  if (n > DETAIL_MAX_TESTS) sb_printf(detail, "  ... and %zu more tests\n", n - DETAIL_MAX_TESTS);
}

void score_item(const rubric_item *item, const test_list *tests, const score_context *ctx,
                item_result *out) {
  init_result(item, out);
  const test_result **matched = xcalloc(tests->count + 1, sizeof *matched);
  size_t n = 0;
  const test_result *first_failed = NULL;
  const test_result *first_not_run = NULL;
  for (size_t i = 0; i < tests->count; i++) {
    const test_result *t = &tests->items[i];
    if (!pattern_match(item->tests, t->name)) continue;
    matched[n++] = t;
    if (counts_as_failed(t)) {
      out->n_failed++;
      if (first_failed == NULL) first_failed = t;
    } else if (t->status == TEST_PASSED) {
      out->n_passed++;
    } else {
      out->n_not_run++;
      if (first_not_run == NULL) first_not_run = t;
    }
  }
  out->n_tests = n;

  strbuf detail;
  sb_init(&detail);
  sb_printf(&detail, "%s %s: %zu tests match %s (%zu passed, %zu failed, %zu not run)\n",
            item_kind_name(item->kind), item->id, n, item->tests, out->n_passed, out->n_failed,
            out->n_not_run);
  describe_tests(matched, n, &detail);

  if (item->kind == ITEM_PERF && ctx->cpu_backend) {
    out->state = ITEM_NOT_RUN;
    out->reason = xstrdup("not run: performance is measured on a GPU only (this grade ran on "
                          "the CPU backend)");
  } else if (n == 0) {
    out->state = ITEM_FAILED;
    out->reason = xasprintf("no test matches '%s' (a missing or renamed test never gives points)",
                            item->tests);
  } else if (first_failed != NULL) {
    out->state = ITEM_FAILED;
    const char *why = first_failed->reason ? first_failed->reason : "failed";
    out->reason = xasprintf("%s: %s", first_failed->name, why);
    if (out->n_failed > 1) {
      char *longer = xasprintf("%s (and %zu more failing tests)", out->reason, out->n_failed - 1);
      free(out->reason);
      out->reason = longer;
    }
    if (first_failed->excerpt) {
      sb_printf(&detail, "\nThe first failure, %s:\n%s", first_failed->name,
                first_failed->excerpt);
    }
  } else if (first_not_run != NULL) {
    out->state = ITEM_NOT_RUN;
    const char *why = first_not_run->reason ? first_not_run->reason : "skipped";
    if (first_not_run->status == TEST_SKIPPED && !ctx->gpu_present) {
      /* The report says once, at the top, why there is no GPU. */
      out->reason = xasprintf("not run: needs a GPU (%zu of %zu tests skipped)", out->n_not_run, n);
    } else if (first_not_run->status == TEST_SKIPPED) {
      out->reason = xasprintf("not run: %s skipped on this GPU (%s)", first_not_run->name, why);
    } else {
      out->reason = xasprintf("not run: %s: %s", first_not_run->name,
                              first_not_run->reason ? first_not_run->reason : "not run");
    }
  } else if (item->kind == ITEM_STEP) {
    out->state = ITEM_PASSED;
    out->score = item->points;
  } else {
    /* A perf item: its tests passed; now its ratio. */
    size_t reported = 0;
    const metric *found = NULL;
    for (size_t i = 0; i < n; i++) {
      for (size_t m = 0; m < matched[i]->n_metrics; m++) {
        if (strcmp(matched[i]->metrics[m].name, item->metric) != 0) continue;
        reported++;
        if (found == NULL) found = &matched[i]->metrics[m];
      }
    }
    if (found == NULL) {
      out->state = ITEM_FAILED;
      out->reason = xasprintf("the tests passed but none reported the metric %s", item->metric);
    } else if (reported > 1) {
      /* A performance test reports each metric once; two lines mean something else printed
       * one, and the grader cannot tell which is the measurement. */
      out->state = ITEM_FAILED;
      out->reason = xasprintf("the metric %s was reported %zu times (a test reports it once): "
                              "the grader cannot tell which is the measurement",
                              item->metric, reported);
    } else if (!isfinite(found->ratio) || found->ratio < 0) {
      out->state = ITEM_FAILED;
      out->reason = xasprintf("the metric %s has no valid ratio", item->metric);
    } else {
      out->ratio = found->ratio;
      out->score = perf_points(item, found->ratio);
      sb_printf(&detail, "\nratio %.3f (target %.2f, floor %.2f): %s\n", found->ratio,
                item->target, item->floor, found->detail);
      if (out->score >= item->points) {
        out->state = ITEM_PASSED;
      } else if (out->score > 0) {
        out->state = ITEM_PARTIAL;
        out->reason = xasprintf("ratio %.2f is below the target %.2f (floor %.2f): %.2f of %g "
                                "points", found->ratio, item->target, item->floor, out->score,
                                item->points);
      } else {
        out->state = ITEM_FAILED;
        out->reason = xasprintf("ratio %.2f is at or below the floor %.2f (target %.2f)",
                                found->ratio, item->floor, item->target);
      }
    }
  }
  if (ctx->cpu_backend && item->kind == ITEM_STEP && out->state != ITEM_NOT_RUN) {
    out->note = xstrdup("checked on the CPU backend");
  }
  if (out->state == ITEM_FAILED || out->state == ITEM_NOT_RUN) out->score = 0;
  out->score = round_points(out->score);
  out->detail = sb_steal(&detail);
  sb_free(&detail);
  free(matched);
}

/* ---- the audit's findings: what they cost (the audit finds; the score decides) ---- */

static int item_in_step(const rubric_item *item, const char *step) {
  size_t n = strlen(step);
  return strncmp(item->id, step, n) == 0 && item->id[n] == '-';
}

/* Each step the finding lies in has an item in the lab. */
static int steps_have_items(const item_result *items, size_t n_items, const audit_finding *f) {
  for (size_t s = 0; s < f->steps.count; s++) {
    int has = 0;
    for (size_t k = 0; k < n_items && !has; k++) {
      const rubric_item *item = items[k].item;
      has = item->kind == ITEM_STEP && item_in_step(item, f->steps.items[s]);
    }
    if (!has) return 0;
  }
  return 1;
}

void audit_score_items(const audit_config *cfg, const audit_result *res, item_result *items,
                       size_t n_items) {
  if (cfg->cost == 0 || res->count == 0) return;
  char *hit = xcalloc(n_items + 1, 1); /* items already charged by an earlier finding */
  for (size_t i = 0; i < res->count; i++) {
    const audit_finding *f = &res->findings[i];
    /* Banners are the student's text: a step the rubric has no item for (a banner renamed)
     * would cost nothing, so its findings count for every step. */
    int every_step = f->every_step || !steps_have_items(items, n_items, f);
    char *lose = xcalloc(n_items + 1, 1);
    for (size_t k = 0; k < n_items; k++) {
      const rubric_item *item = items[k].item;
      int step = item->kind == ITEM_STEP;
      lose[k] = (cfg->cost & AUDIT_COST_LAB) || (!step && (cfg->cost & AUDIT_COST_PERF));
      if (step && (cfg->cost & AUDIT_COST_STEP)) {
        if (every_step) lose[k] = 1;
        for (size_t s = 0; s < f->steps.count && !lose[k]; s++) lose[k] = item_in_step(item, f->steps.items[s]);
      }
    }
    strbuf ids;
    sb_init(&ids);
    size_t n = 0, total = 0;
    for (size_t k = 0; k < n_items; k++) total += lose[k];
    for (size_t k = 0; k < n_items; k++) {
      if (!lose[k]) continue;
      n++;
      sb_printf(&ids, "%s%s", n == 1 ? "" : n == total ? " and " : ", ", items[k].item->id);
    }
    char *text = audit_finding_text(f);
    if (every_step && !f->every_step) {
      char *more = xasprintf("%s (a step with no item in the lab: it counts for every step)", text);
      free(text);
      text = more;
    }
    char *reason = xasprintf("%s: %s earn%s nothing", text, ids.data, total == 1 ? "s" : "");
    for (size_t k = 0; k < n_items; k++) {
      if (!lose[k]) continue;
      item_result *item = &items[k];
      if (!hit[k]) {
        char *detail = xasprintf("The audit of the compiled exercise file: %s.\n\n%s", reason,
                                 item->detail ? item->detail : "");
        free(item->detail);
        item->detail = detail;
        /* What the tests found stays in the reason, after the audit's. */
        int tested = item->state == ITEM_FAILED || item->state == ITEM_PARTIAL;
        char *both = item->reason && tested ? xasprintf("%s (and before the audit: %s)", reason, item->reason)
                                  : xstrdup(reason);
        free(item->reason);
        item->reason = both;
        item->state = ITEM_FAILED;
        item->score = 0;
        hit[k] = 1;
      } else {
        char *detail = xasprintf("The audit also found: %s.\n%s", text, item->detail);
        free(item->detail);
        item->detail = detail;
      }
    }
    free(reason);
    free(text);
    sb_free(&ids);
    free(lose);
  }
  free(hit);
}
