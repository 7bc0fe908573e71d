/* The human-readable reports: the terminal table, summary.md (a CI job summary), and
 * items.tsv (one line per item, for scripts). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* How much of a reason the terminal table shows; the files hold all of it. */
#define TABLE_REASON_CHARS 100

/* "12.5", "10": points with at most two decimals. */
static void format_points(char *out, size_t size, double points) {
  snprintf(out, size, "%.2f", points);
  char *dot = strchr(out, '.');
  if (dot != NULL) {
    size_t n = strlen(out);
    while (out[n - 1] == '0') out[--n] = '\0';
    if (out[n - 1] == '.') out[--n] = '\0';
  }
}

static void format_item_points(char *out, size_t size, const item_result *item) {
  char score[32], max[32];
  format_points(max, sizeof max, item->item->points);
  if (item->state == ITEM_NOT_RUN) {
    snprintf(out, size, "--/%s", max);
  } else {
    format_points(score, sizeof score, item->score);
    snprintf(out, size, "%s/%s", score, max);
  }
  /* Beyond the lab's maximum: "+10/10". */
  if (item->item->bonus && strlen(out) + 1 < size) {
    memmove(out + 1, out, strlen(out) + 1);
    out[0] = '+';
  }
}

static void format_ratio(char *out, size_t size, const item_result *item) {
  if (item->item->kind == ITEM_PERF && isfinite(item->ratio)) {
    snprintf(out, size, "%.2f", item->ratio);
  } else {
    out[0] = '\0';
  }
}

/* The reason an item shows, with its note, fit for a plain-text report. */
static char *item_why(const item_result *item) {
  char *why;
  if (item->reason && item->note) why = xasprintf("%s (%s)", item->reason, item->note);
  else if (item->reason) why = xstrdup(item->reason);
  else if (item->note) why = xstrdup(item->note);
  else if (item->item->kind == ITEM_PERF) why = xasprintf("target %.2f reached", item->item->target);
  else why = xstrdup("");
  char *printable = printable_text(why);
  free(why);
  return printable;
}

/* ---- the terminal ---- */

void print_table(const grade_report *report, FILE *out) {
  report_totals totals;
  report_totals_of(report, &totals);
  fprintf(out, "\ngpulabs grade: ");
  if (report->submission) fprintf(out, "submission %s\n", report->submission);
  else fprintf(out, "%s/ of %s\n", report->lab_impl ? report->lab_impl : "labs", report->source_dir);
  fprintf(out, "build tree: %s\n", report->build_dir);
  char *gpu = report_gpu_line(report);
  fprintf(out, "%s\n", gpu);
  free(gpu);
  if (report->sandbox) fprintf(out, "lab worker's sandbox: %s\n", report->sandbox);
  fprintf(out, "\n");
  fprintf(out, "%-13s %-24s %9s %6s  %-8s %s\n", "lab", "item", "points", "ratio", "result", "why");
  fprintf(out, "%-13s %-24s %9s %6s  %-8s %s\n", "-------------", "------------------------",
          "---------", "------", "--------", "---");
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    if (lab->n_items == 0) { /* no rubric, or one so broken that it has no item */
      char *note = printable_text(lab->note);
      char *why = one_line(note, TABLE_REASON_CHARS);
      free(note);
      fprintf(out, "%-13s %-24s %9s %6s  %-8s %s\n", lab->lab, "-", "", "",
              lab->state == LAB_ERROR ? "error" : "skipped", why);
      free(why);
      continue;
    }
    for (size_t j = 0; j < lab->n_items; j++) {
      const item_result *item = &lab->items[j];
      char points[64], ratio[32];
      format_item_points(points, sizeof points, item);
      format_ratio(ratio, sizeof ratio, item);
      char *why_full = item_why(item);
      char *why = one_line(why_full, TABLE_REASON_CHARS);
      fprintf(out, "%-13s %-24s %9s %6s  %-8s %s\n", lab->lab, item->item->id, points, ratio,
              item_state_name(item->state), why);
      free(why);
      free(why_full);
    }
    report_totals t;
    lab_totals(lab, &t);
    char score[32], max[32], points[80];
    format_points(score, sizeof score, t.score);
    format_points(max, sizeof max, t.max_score);
    snprintf(points, sizeof points, "%s/%s", score, max);
    fprintf(out, "%-13s %-24s %9s", lab->lab, "= lab total", points);
    if (t.not_scored > 0) {
      format_points(score, sizeof score, t.not_scored);
      fprintf(out, "         (%s points not scored)", score);
    }
    fprintf(out, "\n");
    if (lab->state == LAB_BUILD_FAILED && lab->build_errors) {
      fprintf(out, "    %s did not build; the first errors:\n", lab->lab);
      char *errors = printable_text(lab->build_errors);
      const char *line = errors;
      int shown = 0;
      while (*line && shown < 6) {
        const char *eol = strchr(line, '\n');
        int length = eol ? (int)(eol - line) : (int)strlen(line);
        fprintf(out, "      %.*s\n", length, line);
        shown++;
        if (eol == NULL) break;
        line = eol + 1;
      }
      free(errors);
    }
    if (lab->state == LAB_ERROR) {
      char *note = printable_text(lab->note);
      fprintf(out, "    %s could not be graded: %s\n", lab->lab, note);
      free(note);
    } else if (lab->note) {
      char *note = printable_text(lab->note);
      fprintf(out, "    %s: %s\n", lab->lab, note);
      free(note);
    }
    strlist audit;
    sl_init(&audit);
    audit_lines(lab, &audit);
    for (size_t f = 0; f < audit.count; f++) {
      char *line = printable_text(audit.items[f]);
      fprintf(out, "    audit: %s\n", line);
      free(line);
    }
    sl_free(&audit);
    if (lab->files_missing.count > 0) {
      fprintf(out, "    missing from the submission (the stub was graded):");
      for (size_t f = 0; f < lab->files_missing.count; f++) fprintf(out, " %s", lab->files_missing.items[f]);
      fprintf(out, "\n");
    }
    if (lab->files_rejected.count > 0) {
      fprintf(out, "    rejected:");
      for (size_t f = 0; f < lab->files_rejected.count; f++) fprintf(out, " %s", lab->files_rejected.items[f]);
      fprintf(out, "\n");
    }
    char *given = given_files_sentence(lab);
    if (given != NULL) {
      char *printable = printable_text(given);
      fprintf(out, "    %s\n", printable);
      free(printable);
      free(given);
    }
  }
  char score[32], max[32], not_scored[32];
  format_points(score, sizeof score, totals.score);
  format_points(max, sizeof max, totals.max_score);
  format_points(not_scored, sizeof not_scored, totals.not_scored);
  fprintf(out, "\ntotal: %s of %s points scored", score, max);
  if (totals.bonus > 0) {
    char bonus[32];
    format_points(bonus, sizeof bonus, totals.bonus);
    fprintf(out, " (%s of them bonus)", bonus);
  }
  if (totals.not_scored > 0) fprintf(out, "; %s points not scored (their tests did not run here)", not_scored);
  fprintf(out, "\n");
  for (size_t i = 0; i < report->problems.count; i++) {
    fprintf(out, "grading problem: %s\n", report->problems.items[i]);
  }
}

/* ---- summary.md ---- */

static void md_cell(strbuf *sb, const char *text) {
  char *printable = printable_text(text);
  char *line = one_line(printable, 400);
  free(printable);
  for (const char *p = line; *p; p++) {
    if (*p == '|') sb_append(sb, "\\|");
    else if (*p == '<') sb_append(sb, "&lt;");
    else if (*p == '>') sb_append(sb, "&gt;");
    else sb_append_char(sb, *p);
  }
  free(line);
}

static void md_code_block(strbuf *sb, const char *raw) {
  char *text = printable_text(raw);
  sb_append(sb, "```text\n");
  /* A fence inside the text would end the block early. */
  for (const char *p = text; *p; p++) {
    if (p[0] == '`' && p[1] == '`' && p[2] == '`') {
      sb_append(sb, "'''");
      p += 2;
    } else {
      sb_append_char(sb, *p);
    }
  }
  if (sb->len && sb->data[sb->len - 1] != '\n') sb_append_char(sb, '\n');
  sb_append(sb, "```\n");
  free(text);
}

int write_summary_md(const grade_report *report, const char *path) {
  report_totals totals;
  report_totals_of(report, &totals);
  strbuf sb;
  sb_init(&sb);
  char score[32], max[32], not_scored[32];
  format_points(score, sizeof score, totals.score);
  format_points(max, sizeof max, totals.max_score);
  format_points(not_scored, sizeof not_scored, totals.not_scored);
  sb_printf(&sb, "# gpulabs grade: %s of %s points", score, max);
  if (totals.not_scored > 0) sb_printf(&sb, " (%s more not scored)", not_scored);
  sb_append(&sb, "\n\n");
  if (report->submission) sb_printf(&sb, "Submission `%s`", report->submission);
  else sb_printf(&sb, "`%s/` of `%s`", report->lab_impl ? report->lab_impl : "labs", report->source_dir);
  sb_printf(&sb, ", graded %s.\n\n", report->started_at ? report->started_at : "");
  char *gpu = report_gpu_line(report);
  sb_printf(&sb, "%s\n\n", gpu);
  free(gpu);
  if (report->sandbox) sb_printf(&sb, "The lab worker's sandbox: %s.\n\n", report->sandbox);
  if (totals.not_scored > 0) {
    sb_printf(&sb, "%s points were not scored: their tests did not run here.\n\n", not_scored);
  }
  for (size_t i = 0; i < report->problems.count; i++) {
    sb_printf(&sb, "> **Grading problem:** %s\n\n", report->problems.items[i]);
  }
  sb_append(&sb, "| lab | points | not scored | state |\n| --- | ---: | ---: | --- |\n");
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    report_totals t;
    lab_totals(lab, &t);
    format_points(score, sizeof score, t.score);
    format_points(max, sizeof max, t.max_score);
    format_points(not_scored, sizeof not_scored, t.not_scored);
    int graded = lab->n_items > 0;
    sb_printf(&sb, "| %s | %s%s%s | %s | ", lab->lab, graded ? score : "", graded ? " / " : "",
              graded ? max : "", graded ? not_scored : "");
    md_cell(&sb, lab->note ? lab->note : lab_state_name(lab->state));
    sb_append(&sb, " |\n");
  }
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    if (lab->n_items == 0) continue;
    report_totals t;
    lab_totals(lab, &t);
    format_points(score, sizeof score, t.score);
    format_points(max, sizeof max, t.max_score);
    sb_printf(&sb, "\n## %s: %s of %s\n\n", lab->lab, score, max);
    if (lab->state == LAB_ERROR) {
      sb_append(&sb, "The lab could not be graded, so its points are lost: ");
      md_cell(&sb, lab->note);
      sb_append(&sb, ".\n\n");
    }
    if (lab->state == LAB_GRADED && lab->note) {
      md_cell(&sb, lab->note);
      sb_append(&sb, ".\n\n");
    }
    strlist audit;
    sl_init(&audit);
    audit_lines(lab, &audit);
    if (audit.count) sb_append(&sb, "The audit of the compiled exercise files found:\n\n");
    for (size_t f = 0; f < audit.count; f++) {
      sb_append(&sb, "- ");
      md_cell(&sb, audit.items[f]);
      sb_append(&sb, "\n");
    }
    if (audit.count) sb_append(&sb, "\n");
    sl_free(&audit);
    if (lab->files_taken.count) {
      sb_append(&sb, "Files taken from the submission:");
      for (size_t f = 0; f < lab->files_taken.count; f++) sb_printf(&sb, " `%s`", lab->files_taken.items[f]);
      sb_append(&sb, ".\n\n");
    }
    if (lab->files_missing.count) {
      sb_append(&sb, "Missing from the submission (the course's stub was graded):");
      for (size_t f = 0; f < lab->files_missing.count; f++) sb_printf(&sb, " `%s`", lab->files_missing.items[f]);
      sb_append(&sb, ".\n\n");
    }
    if (lab->files_rejected.count) {
      sb_append(&sb, "Rejected:");
      for (size_t f = 0; f < lab->files_rejected.count; f++) sb_printf(&sb, " `%s`", lab->files_rejected.items[f]);
      sb_append(&sb, ".\n\n");
    }
    char *given = given_files_sentence(lab);
    if (given != NULL) {
      md_cell(&sb, given);
      sb_append(&sb, ".\n\n");
      free(given);
    }
    sb_append(&sb, "| item | points | ratio | result | why |\n| --- | ---: | ---: | --- | --- |\n");
    for (size_t j = 0; j < lab->n_items; j++) {
      const item_result *item = &lab->items[j];
      char points[64], ratio[32];
      format_item_points(points, sizeof points, item);
      format_ratio(ratio, sizeof ratio, item);
      sb_printf(&sb, "| %s | %s | %s | %s | ", item->item->id, points, ratio,
                item_state_name(item->state));
      char *why = item_why(item);
      md_cell(&sb, why);
      free(why);
      sb_append(&sb, " |\n");
    }
    if (lab->build_errors) {
      sb_append(&sb, "\nThe lab did not build. The first errors:\n\n");
      md_code_block(&sb, lab->build_errors);
    }
  }
  int rc = write_file_atomic(path, sb.data, sb.len);
  sb_free(&sb);
  return rc;
}

/* ---- items.tsv ---- */

static void tsv_field(strbuf *sb, const char *text) {
  char *printable = printable_text(text);
  for (const char *p = printable; *p; p++) {
    sb_append_char(sb, (*p == '\t' || *p == '\n') ? ' ' : *p);
  }
  free(printable);
}

int write_items_tsv(const grade_report *report, const char *path) {
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "lab\titem\tkind\tresult\tscore\tmax_score\tratio\twhy\n");
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    if (lab->n_items == 0) {
      sb_printf(&sb, "%s\t-\t-\t%s\t\t\t\t", lab->lab,
                lab->state == LAB_ERROR ? "error" : "no rubric");
      tsv_field(&sb, lab->note);
      sb_append_char(&sb, '\n');
      continue;
    }
    for (size_t j = 0; j < lab->n_items; j++) {
      const item_result *item = &lab->items[j];
      char score[32] = "", max[32], ratio[32];
      if (item->state != ITEM_NOT_RUN) format_points(score, sizeof score, item->score);
      format_points(max, sizeof max, item->item->points);
      format_ratio(ratio, sizeof ratio, item);
      sb_printf(&sb, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t", lab->lab, item->item->id,
                item_kind_name(item->item->kind), item_state_name(item->state), score, max, ratio);
      char *why = item_why(item);
      tsv_field(&sb, why);
      free(why);
      sb_append_char(&sb, '\n');
    }
  }
  int rc = write_file_atomic(path, sb.data, sb.len);
  sb_free(&sb);
  return rc;
}
