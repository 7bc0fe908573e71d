#define _POSIX_C_SOURCE 200809L
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append_points(strbuf *csv, double points) {
  char text[32];
  snprintf(text, sizeof text, "%.2f", points);
  size_t n = strlen(text);
  while (n > 0 && text[n - 1] == '0') text[--n] = '\0';
  if (n > 0 && text[n - 1] == '.') text[--n] = '\0';
  sb_append(csv, text);
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
    const lab_result *lab = &report->labs[i];
    sb_append_char(csv, ',');
    if (lab->n_items > 0) {
      report_totals t;
      lab_totals(lab, &t);
      /* A lab none of whose items could be scored gets an empty cell, not a zero. */
      if (t.max_score > 0 || t.not_scored == 0) append_points(csv, t.score);
    }
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

int grade_batch(const grade_options *base, const char *submissions_dir, const char *out_dir) {
  DIR *dir = opendir(submissions_dir);
  if (dir == NULL) {
    fprintf(stderr, "grade: cannot read %s: %s\n", submissions_dir, strerror(errno));
    return 1;
  }
  strlist names;
  sl_init(&names);
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char *path = path_join(submissions_dir, entry->d_name);
    char *resolved = real_path(path);
    /* The output folder may sit inside the submissions folder: it is no submission. */
    if (dir_exists(path) && resolved && !path_is_inside(resolved, out_dir) &&
        !path_is_inside(out_dir, resolved)) {
      sl_push(&names, entry->d_name);
    }
    free(resolved);
    free(path);
  }
  closedir(dir);
  sl_sort(&names);
  if (names.count == 0) {
    fprintf(stderr, "grade: %s holds no submission folders\n", submissions_dir);
    sl_free(&names);
    return 1;
  }

  strbuf csv;
  sb_init(&csv);
  int header_written = 0;
  int rc = 0;
  double start = now_seconds();
  char *gradebook = path_join(out_dir, "gradebook.csv");
  for (size_t i = 0; i < names.count; i++) {
    const char *name = names.items[i];
    char *submission = path_join(submissions_dir, name);
    char *sub_out = path_join(out_dir, name);
    char *label = xasprintf("[%*zu/%zu] %s", (int)snprintf(NULL, 0, "%zu", names.count), i + 1,
                            names.count, name);
    grade_options opt = *base;
    opt.submission = submission;
    opt.out_dir = sub_out;
    opt.progress = label;
    grade_report report;
    report_init(&report);
    if (grade_run(&opt, &report) != 0) rc = 1;
    strbuf err;
    sb_init(&err);
    if (grade_write_reports(&report, sub_out, &err) != 0) {
      fprintf(stderr, "grade: %s", err.data);
      rc = 1;
    }
    sb_free(&err);
    if (!header_written) {
      gradebook_header(&report, &csv);
      header_written = 1;
    }
    gradebook_row(name, &report, &csv);
    if (write_file_atomic(gradebook, csv.data, csv.len) != 0) {
      fprintf(stderr, "grade: cannot write %s: %s\n", gradebook, strerror(errno));
      rc = 1;
    }
    report_totals totals;
    report_totals_of(&report, &totals);
    double elapsed = now_seconds() - start;
    double left = elapsed / (double)(i + 1) * (double)(names.count - i - 1);
    fprintf(stderr, "grade: %s: %.2f of %.2f points%s; %.0f s so far, about %.0f s to go\n",
            label, totals.score, totals.max_score,
            totals.not_scored > 0 ? " (some items not scored)" : "", elapsed, left);
    report_free(&report);
    free(label);
    free(sub_out);
    free(submission);
  }
  printf("gradebook: %s (%zu submissions)\n", gradebook, names.count);
  free(gradebook);
  sb_free(&csv);
  sl_free(&names);
  return rc;
}
