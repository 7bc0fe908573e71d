/* results.json: Gradescope's autograder format (score, max_score, tests[] with name, score,
 * max_score, status, output) plus the fields documented in grader/README.md, under
 * "extra_data" (Gradescope keeps and ignores them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* A number with at most `decimals` decimals and no trailing zeros ("12.5", "10"). */
static void append_number(strbuf *sb, double value, int decimals) {
  if (!isfinite(value)) {
    sb_append(sb, "null");
    return;
  }
  char text[64];
  snprintf(text, sizeof text, "%.*f", decimals, value);
  if (strchr(text, '.') != NULL) {
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == '0') text[--n] = '\0';
    if (n > 0 && text[n - 1] == '.') text[--n] = '\0';
  }
  if (strcmp(text, "-0") == 0) strcpy(text, "0");
  sb_append(sb, text);
}

/* {"prepare": 1.2, "build": 30.5, ...}: the seconds of each phase. */
static void append_phases(strbuf *sb, const double *phase) {
  sb_append(sb, "{");
  for (int p = 0; p < PHASE_COUNT; p++) {
    sb_printf(sb, "%s\"%s\": ", p ? ", " : "", grade_phase_name((grade_phase)p));
    append_number(sb, phase[p], 1);
  }
  sb_append(sb, "}");
}

static void append_key(strbuf *sb, const char *indent, const char *key) {
  sb_append(sb, indent);
  json_append_string(sb, key);
  sb_append(sb, ": ");
}

static void append_string_or_null(strbuf *sb, const char *text) {
  if (text) json_append_string(sb, text);
  else sb_append(sb, "null");
}

static void append_list(strbuf *sb, const strlist *list) {
  sb_append_char(sb, '[');
  for (size_t i = 0; i < list->count; i++) {
    if (i) sb_append(sb, ", ");
    json_append_string(sb, list->items[i]);
  }
  sb_append_char(sb, ']');
}

static char *item_output(const lab_result *lab, const item_result *item) {
  strbuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s", item_state_name(item->state));
  if (item->reason) sb_printf(&sb, ": %s", item->reason);
  if (item->note) sb_printf(&sb, " (%s)", item->note);
  sb_append(&sb, "\n");
  if (lab->build_errors) sb_printf(&sb, "\nThe first build errors:\n%s", lab->build_errors);
  if (item->detail) sb_printf(&sb, "\n%s", item->detail);
  char *text = sb_steal(&sb);
  sb_free(&sb);
  return text;
}

static void append_test(strbuf *sb, const lab_result *lab, const item_result *item) {
  const rubric_item *ri = item->item;
  sb_append(sb, "    {\n");
  append_key(sb, "      ", "name");
  char *name = xasprintf("%s: %s%s", lab->lab, ri->id, ri->bonus ? " (bonus)" : "");
  json_append_string(sb, name);
  free(name);
  sb_append(sb, ",\n");
  append_key(sb, "      ", "number");
  char *number = xasprintf("%s.%s", lab->lab, ri->id);
  json_append_string(sb, number);
  free(number);
  sb_append(sb, ",\n");
  if (item->state != ITEM_NOT_RUN) {
    /* A not-scored item carries no score and no status: neither zero nor full marks. */
    append_key(sb, "      ", "score");
    append_number(sb, item->score, 2);
    sb_append(sb, ",\n");
    append_key(sb, "      ", "status");
    json_append_string(sb, item->state == ITEM_PASSED ? "passed" : "failed");
    sb_append(sb, ",\n");
  }
  append_key(sb, "      ", "max_score");
  append_number(sb, ri->points, 2);
  sb_append(sb, ",\n");
  append_key(sb, "      ", "output");
  char *output = item_output(lab, item);
  json_append_string(sb, output);
  free(output);
  sb_append(sb, ",\n");
  append_key(sb, "      ", "tags");
  sb_append(sb, "[");
  json_append_string(sb, lab->lab);
  sb_append(sb, ", ");
  json_append_string(sb, item_kind_name(ri->kind));
  sb_append(sb, "],\n");
  append_key(sb, "      ", "extra_data");
  sb_append(sb, "{\n");
  append_key(sb, "        ", "lab");
  json_append_string(sb, lab->lab);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "item");
  json_append_string(sb, ri->id);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "kind");
  json_append_string(sb, item_kind_name(ri->kind));
  sb_append(sb, ",\n");
  append_key(sb, "        ", "result");
  json_append_string(sb, item_state_name(item->state));
  sb_append(sb, ",\n");
  append_key(sb, "        ", "reason");
  append_string_or_null(sb, item->reason);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "note");
  append_string_or_null(sb, item->note);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "tests_pattern");
  json_append_string(sb, ri->tests);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "tests");
  sb_printf(sb, "{\"matched\": %zu, \"passed\": %zu, \"failed\": %zu, \"not_run\": %zu}",
            item->n_tests, item->n_passed, item->n_failed, item->n_not_run);
  if (ri->kind == ITEM_PERF) {
    sb_append(sb, ",\n");
    append_key(sb, "        ", "metric");
    json_append_string(sb, ri->metric);
    sb_append(sb, ",\n");
    append_key(sb, "        ", "ratio");
    append_number(sb, item->ratio, 4);
    sb_append(sb, ",\n");
    append_key(sb, "        ", "target");
    append_number(sb, ri->target, 4);
    sb_append(sb, ",\n");
    append_key(sb, "        ", "floor");
    append_number(sb, ri->floor, 4);
  }
  sb_append(sb, "\n      }\n    }");
}

static void append_lab(strbuf *sb, const lab_result *lab) {
  report_totals totals;
  lab_totals(lab, &totals);
  sb_append(sb, "      {\n");
  append_key(sb, "        ", "lab");
  json_append_string(sb, lab->lab);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "state");
  json_append_string(sb, lab_state_name(lab->state));
  sb_append(sb, ",\n");
  append_key(sb, "        ", "score");
  append_number(sb, totals.score, 2);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "max_score");
  append_number(sb, totals.max_score, 2);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "rubric_points");
  append_number(sb, totals.rubric_points, 2);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "not_scored_points");
  append_number(sb, totals.not_scored, 2);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "note");
  append_string_or_null(sb, lab->note);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "build_errors");
  append_string_or_null(sb, lab->build_errors);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "files_taken");
  append_list(sb, &lab->files_taken);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "files_missing");
  append_list(sb, &lab->files_missing);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "files_rejected");
  append_list(sb, &lab->files_rejected);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "files_ignored");
  append_list(sb, &lab->files_ignored);
  sb_append(sb, ",\n");
  strlist audit;
  sl_init(&audit);
  audit_lines(lab, &audit);
  append_key(sb, "        ", "audit");
  append_list(sb, &audit);
  sl_free(&audit);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "audited");
  append_list(sb, &lab->audit.audited);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "seconds");
  append_number(sb, lab->seconds, 1);
  sb_append(sb, ",\n");
  append_key(sb, "        ", "phases");
  append_phases(sb, lab->phase);
  sb_append(sb, "\n      }");
}

static char *overall_output(const grade_report *report, const report_totals *totals) {
  strbuf sb;
  sb_init(&sb);
  char *gpu = report_gpu_line(report);
  sb_printf(&sb, "%s\n\n", gpu);
  free(gpu);
  sb_printf(&sb, "Score: %.2f of %.2f points scored", totals->score, totals->max_score);
  if (totals->not_scored > 0) sb_printf(&sb, " (%.2f points not scored)", totals->not_scored);
  sb_append(&sb, ".\n");
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    report_totals t;
    lab_totals(lab, &t);
    sb_printf(&sb, "\n%s: %s", lab->lab, lab_state_name(lab->state));
    if (lab->n_items > 0) sb_printf(&sb, ", %.2f of %.2f", t.score, t.max_score);
    if (lab->note) sb_printf(&sb, " (%s)", lab->note);
    sb_append(&sb, "\n");
    if (lab->files_taken.count) {
      sb_append(&sb, "  files taken from the submission:");
      for (size_t f = 0; f < lab->files_taken.count; f++) sb_printf(&sb, " %s", lab->files_taken.items[f]);
      sb_append(&sb, "\n");
    }
    if (lab->files_missing.count) {
      sb_append(&sb, "  missing from the submission (the course's stub was graded):");
      for (size_t f = 0; f < lab->files_missing.count; f++) sb_printf(&sb, " %s", lab->files_missing.items[f]);
      sb_append(&sb, "\n");
    }
    if (lab->files_rejected.count) {
      sb_append(&sb, "  rejected:");
      for (size_t f = 0; f < lab->files_rejected.count; f++) sb_printf(&sb, " %s", lab->files_rejected.items[f]);
      sb_append(&sb, "\n");
    }
    char *given = given_files_sentence(lab);
    if (given != NULL) sb_printf(&sb, "  %s.\n", given);
    free(given);
    strlist audit;
    sl_init(&audit);
    audit_lines(lab, &audit);
    for (size_t f = 0; f < audit.count; f++) sb_printf(&sb, "  audit: %s\n", audit.items[f]);
    sl_free(&audit);
  }
  for (size_t i = 0; i < report->problems.count; i++) {
    sb_printf(&sb, "\nGrading problem: %s\n", report->problems.items[i]);
  }
  char *text = sb_steal(&sb);
  sb_free(&sb);
  return text;
}

int write_results_json(const grade_report *report, const char *path) {
  report_totals totals;
  report_totals_of(report, &totals);
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "{\n");
  append_key(&sb, "  ", "score");
  append_number(&sb, totals.score, 2);
  sb_append(&sb, ",\n");
  append_key(&sb, "  ", "max_score");
  append_number(&sb, totals.max_score, 2);
  sb_append(&sb, ",\n");
  append_key(&sb, "  ", "execution_time");
  append_number(&sb, floor(report->seconds + 0.5), 0);
  sb_append(&sb, ",\n");
  append_key(&sb, "  ", "output");
  char *output = overall_output(report, &totals);
  json_append_string(&sb, output);
  free(output);
  sb_append(&sb, ",\n");
  append_key(&sb, "  ", "output_format");
  json_append_string(&sb, "text");
  sb_append(&sb, ",\n");
  append_key(&sb, "  ", "tests");
  sb_append(&sb, "[");
  int first = 1;
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    for (size_t j = 0; j < lab->n_items; j++) {
      sb_append(&sb, first ? "\n" : ",\n");
      first = 0;
      append_test(&sb, lab, &lab->items[j]);
    }
  }
  sb_append(&sb, first ? "],\n" : "\n  ],\n");

  append_key(&sb, "  ", "extra_data");
  sb_append(&sb, "{\n");
  append_key(&sb, "    ", "grader");
  json_append_string(&sb, "gpulabs grade");
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "format_version");
  sb_append(&sb, "1,\n");
  append_key(&sb, "    ", "started_at");
  append_string_or_null(&sb, report->started_at);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "source_dir");
  append_string_or_null(&sb, report->source_dir);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "build_dir");
  append_string_or_null(&sb, report->build_dir);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "submission");
  append_string_or_null(&sb, report->submission);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "lab_impl");
  append_string_or_null(&sb, report->lab_impl);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "backend");
  append_string_or_null(&sb, report->backend);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "gpu");
  sb_printf(&sb, "{\"present\": %s, \"name\": ", report->gpu_present ? "true" : "false");
  append_string_or_null(&sb, report->gpu_name);
  sb_append(&sb, ", \"reason\": ");
  append_string_or_null(&sb, report->no_gpu_reason);
  sb_append(&sb, "},\n");
  append_key(&sb, "    ", "sandbox");
  append_string_or_null(&sb, report->sandbox);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "phases");
  append_phases(&sb, report->phase);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "rubric_points");
  append_number(&sb, totals.rubric_points, 2);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "not_scored_points");
  append_number(&sb, totals.not_scored, 2);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "problems");
  append_list(&sb, &report->problems);
  sb_append(&sb, ",\n");
  append_key(&sb, "    ", "labs");
  sb_append(&sb, "[");
  for (size_t i = 0; i < report->n_labs; i++) {
    sb_append(&sb, i ? ",\n" : "\n");
    append_lab(&sb, &report->labs[i]);
  }
  sb_append(&sb, report->n_labs ? "\n    ]\n" : "]\n");
  sb_append(&sb, "  }\n}\n");
  int rc = write_file_atomic(path, sb.data, sb.len);
  sb_free(&sb);
  return rc;
}
