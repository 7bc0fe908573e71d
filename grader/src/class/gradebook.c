#define _POSIX_C_SOURCE 200809L
#include "gradebook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gradebook_file_name(gradebook_file file) {
  switch (file) {
    case GRADEBOOK_MAIN: return "gradebook.csv";
    case GRADEBOOK_LMS: return "lms.csv";
    case GRADEBOOK_ITEMS: return "items.csv";
  }
  return "gradebook.csv";
}

/* Points as the reports write them: at most two decimals, no trailing zeros ("12.5", "13"). */
static void append_points(strbuf *csv, double points) {
  char text[32];
  snprintf(text, sizeof text, "%.2f", points);
  size_t n = strlen(text);
  while (n > 0 && text[n - 1] == '0') text[--n] = '\0';
  if (n > 0 && text[n - 1] == '.') text[--n] = '\0';
  if (strcmp(text, "-0") == 0) strcpy(text, "0");
  sb_append(csv, text);
}

/* A lab's score for a cell: empty when none of its items could be scored (not a zero), or
 * when it has no items (no rubric). */
static void append_lab_score(strbuf *csv, const lab_result *lab) {
  if (lab->n_items == 0) return;
  report_totals t;
  lab_totals(lab, &t);
  if (t.max_score > 0 || t.not_scored == 0) append_points(csv, t.score);
}

void gradebook_header(const grade_report *report, strbuf *csv) {
  sb_append(csv, "submission,score,max_score,not_scored,status");
  for (size_t i = 0; i < report->n_labs; i++) {
    sb_append_char(csv, ',');
    csv_append_field(csv, report->labs[i].lab);
  }
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    for (size_t j = 0; j < lab->rubric.n_items; j++) {
      char *column = xasprintf("%s:%s", lab->lab, lab->rubric.items[j].id);
      sb_append_char(csv, ',');
      csv_append_field(csv, column);
      free(column);
    }
  }
  sb_append_char(csv, '\n');
}

/* What went wrong for this submission, in a few words; "ok" when nothing did. */
static char *row_status(const grade_report *report) {
  strbuf sb;
  sb_init(&sb);
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    if (lab->state == LAB_BUILD_FAILED) sb_printf(&sb, "%s%s did not build", sb.len ? "; " : "", lab->lab);
    if (lab->state == LAB_ERROR) sb_printf(&sb, "%s%s not graded", sb.len ? "; " : "", lab->lab);
    if (lab->files_missing.count) {
      sb_printf(&sb, "%s%s: %zu files missing", sb.len ? "; " : "", lab->lab, lab->files_missing.count);
    }
  }
  if (report->gpu_present) {
    /* On a GPU every item should be scored; one that is not deserves a look. */
    size_t not_scored = 0;
    for (size_t i = 0; i < report->n_labs; i++) {
      for (size_t j = 0; j < report->labs[i].n_items; j++) {
        not_scored += report->labs[i].items[j].state == ITEM_NOT_RUN;
      }
    }
    if (not_scored) sb_printf(&sb, "%s%zu items not scored on the GPU", sb.len ? "; " : "", not_scored);
  }
  if (report->problems.count) sb_printf(&sb, "%sgrading problems (see its results.json)", sb.len ? "; " : "");
  if (sb.len == 0) sb_append(&sb, "ok");
  return sb_steal(&sb);
}

void gradebook_row(const char *submission, const grade_report *report, strbuf *csv) {
  report_totals totals;
  report_totals_of(report, &totals);
  csv_append_field(csv, submission);
  sb_append_char(csv, ',');
  append_points(csv, totals.score);
  sb_append_char(csv, ',');
  append_points(csv, totals.max_score);
  sb_append_char(csv, ',');
  append_points(csv, totals.not_scored);
  sb_append_char(csv, ',');
  char *status = row_status(report);
  csv_append_field(csv, status);
  free(status);
  for (size_t i = 0; i < report->n_labs; i++) {
    sb_append_char(csv, ',');
    append_lab_score(csv, &report->labs[i]);
  }
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    for (size_t j = 0; j < lab->rubric.n_items; j++) {
      sb_append_char(csv, ',');
      /* An empty cell: not scored (or the lab has no rubric), which is not a zero. */
      if (j < lab->n_items && lab->items[j].state != ITEM_NOT_RUN) {
        append_points(csv, lab->items[j].score);
      }
    }
  }
  sb_append_char(csv, '\n');
}

/* lms.csv: what a learning-management system imports, and nothing it could take for a grade
 * column by mistake (no status, no maxima): the key, the total, each lab. */
static void lms_header(const grade_report *report, strbuf *csv) {
  sb_append(csv, "id,total");
  for (size_t i = 0; i < report->n_labs; i++) {
    sb_append_char(csv, ',');
    csv_append_field(csv, report->labs[i].lab);
  }
  sb_append_char(csv, '\n');
}

static void lms_row(const char *submission, const grade_report *report, strbuf *csv) {
  report_totals totals;
  report_totals_of(report, &totals);
  csv_append_field(csv, submission);
  sb_append_char(csv, ',');
  append_points(csv, totals.score);
  for (size_t i = 0; i < report->n_labs; i++) {
    sb_append_char(csv, ',');
    append_lab_score(csv, &report->labs[i]);
  }
  sb_append_char(csv, '\n');
}

/* items.csv's reason: why the item did not get full points, with the grader's note on it
 * ("checked on the CPU backend"), as one printable line. */
static char *item_reason(const item_result *item) {
  char *text;
  if (item->reason && item->note) text = xasprintf("%s (%s)", item->reason, item->note);
  else if (item->reason) text = xstrdup(item->reason);
  else if (item->note) text = xstrdup(item->note);
  else text = xstrdup("");
  char *printable = printable_text(text);
  free(text);
  char *line = one_line(printable, 4000);
  free(printable);
  return line;
}

static void items_rows(const char *submission, const grade_report *report, strbuf *csv) {
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    for (size_t j = 0; j < lab->n_items; j++) {
      const item_result *item = &lab->items[j];
      csv_append_field(csv, submission);
      sb_append_char(csv, ',');
      csv_append_field(csv, lab->lab);
      sb_append_char(csv, ',');
      csv_append_field(csv, item->item->id);
      sb_append_char(csv, ',');
      if (item->state != ITEM_NOT_RUN) append_points(csv, item->score);
      sb_append_char(csv, ',');
      append_points(csv, item->item->points);
      sb_append_char(csv, ',');
      char *reason = item_reason(item);
      csv_append_field(csv, reason);
      free(reason);
      sb_append_char(csv, '\n');
    }
  }
}

void gradebook_file_header(gradebook_file file, const grade_report *report, strbuf *csv) {
  switch (file) {
    case GRADEBOOK_MAIN: gradebook_header(report, csv); break;
    case GRADEBOOK_LMS: lms_header(report, csv); break;
    case GRADEBOOK_ITEMS: sb_append(csv, "submission,lab,item,score,max,reason\n"); break;
  }
}

void gradebook_file_rows(gradebook_file file, const char *submission, const grade_report *report,
                         strbuf *csv) {
  switch (file) {
    case GRADEBOOK_MAIN: gradebook_row(submission, report, csv); break;
    case GRADEBOOK_LMS: lms_row(submission, report, csv); break;
    case GRADEBOOK_ITEMS: items_rows(submission, report, csv); break;
  }
}

int csv_records(const char *text, size_t length, strlist *records) {
  size_t start = 0;
  int quoted = 0;
  for (size_t i = 0; i < length; i++) {
    char c = text[i];
    if (c == '"') {
      quoted = !quoted; /* "" inside a quoted field flips twice: no change */
    } else if (c == '\n' && !quoted) {
      sl_push_owned(records, xstrndup(text + start, i + 1 - start));
      start = i + 1;
    }
  }
  if (quoted) return -1;
  /* A last record without its line break is still a record. */
  if (start < length) sl_push_owned(records, xstrndup(text + start, length - start));
  return 0;
}

char *csv_first_field(const char *record) {
  strbuf sb;
  sb_init(&sb);
  const char *p = record;
  if (*p == '"') {
    for (p++; *p; p++) {
      if (*p == '"') {
        if (p[1] != '"') break;
        p++;
      }
      sb_append_char(&sb, *p);
    }
  } else {
    size_t n = strcspn(p, ",\r\n");
    sb_append_n(&sb, p, n);
  }
  return sb_steal(&sb);
}
