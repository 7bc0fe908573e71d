/* One submission of a batch (batch_one.h): graded by grade_run, its reports written, and what
 * the batch keeps of it, and that as text (how a slot's grader passes it back). */
#define _POSIX_C_SOURCE 200809L
#include "batch_one.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gradebook.h"

/* What a report says it ran on, for the manifest (shards merged from different GPUs get a
 * warning: performance ratios are measured on each shard's own GPU). */
static char *graded_on(const grade_report *report) {
  if (report->backend && strcmp(report->backend, "sim") == 0) return xstrdup("CPU backend");
  if (report->gpu_present) return xstrdup(report->gpu_name ? report->gpu_name : "a CUDA device");
  return xstrdup("no GPU");
}


void graded_init(graded_one *g) {
  memset(g, 0, sizeof *g);
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    sb_init(&g->header[f]);
    sb_init(&g->rows[f]);
  }
}

void graded_free(graded_one *g) {
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    sb_free(&g->header[f]);
    sb_free(&g->rows[f]);
  }
  free(g->gpu);
  memset(g, 0, sizeof *g);
}

/* Grades one submission into <out_dir>/<name>/ and fills `g`. `work_dir` and `gpu_lock`
 * replace the base options' (NULL: keep them). */
void grade_one(const grade_options *base, const char *submissions_dir, const char *out_dir,
                      const char *name, const char *label, const char *work_dir,
                      const char *gpu_lock, graded_one *g) {
  double start = now_seconds();
  char *submission = path_join(submissions_dir, name);
  char *sub_out = path_join(out_dir, name);
  grade_options opt = *base;
  opt.submission = submission;
  opt.out_dir = sub_out;
  opt.progress = label;
  if (work_dir) opt.work_dir = work_dir;
  if (gpu_lock) opt.gpu_lock = gpu_lock;
  grade_report report;
  report_init(&report);
  g->rc = grade_run(&opt, &report) != 0;
  strbuf err;
  sb_init(&err);
  if (grade_write_reports(&report, sub_out, &err) != 0) {
    fprintf(stderr, "grade: %s", err.data);
    g->rc = 1;
  }
  sb_free(&err);
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    gradebook_file_header((gradebook_file)f, &report, &g->header[f]);
    gradebook_file_rows((gradebook_file)f, name, &report, &g->rows[f]);
  }
  g->gpu = graded_on(&report);
  report_totals_of(&report, &g->totals);
  report_free(&report);
  free(sub_out);
  free(submission);
  g->seconds = now_seconds() - start;
  g->done = 1;
}

/* A slot's result travels to the batch in a file: fields "<key> <length>\n<bytes>\n". */
static void put_field(strbuf *sb, const char *key, const char *data, size_t length) {
  sb_printf(sb, "%s %zu\n", key, length);
  sb_append_n(sb, data, length);
  sb_append_char(sb, '\n');
}

char *graded_format(const graded_one *g) {
  strbuf sb;
  sb_init(&sb);
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    char key[16];
    snprintf(key, sizeof key, "header%d", f);
    put_field(&sb, key, g->header[f].data, g->header[f].len);
    snprintf(key, sizeof key, "rows%d", f);
    put_field(&sb, key, g->rows[f].data, g->rows[f].len);
  }
  put_field(&sb, "gpu", g->gpu, strlen(g->gpu));
  char *numbers = xasprintf("%.17g %.17g %.17g %d %.17g", g->totals.score, g->totals.max_score,
                            g->totals.not_scored, g->rc, g->seconds);
  put_field(&sb, "numbers", numbers, strlen(numbers));
  free(numbers);
  return sb_steal(&sb);
}

/* 0, or -1 when the text is not a whole result. */
int graded_parse(const char *text, size_t length, graded_one *g) {
  int have = 0;
  size_t at = 0;
  while (at < length) {
    const char *eol = memchr(text + at, '\n', length - at);
    if (eol == NULL) return -1;
    char key[16];
    size_t n = 0;
    char *line = xstrndup(text + at, (size_t)(eol - (text + at)));
    int fields = sscanf(line, "%15s %zu", key, &n);
    free(line);
    at = (size_t)(eol - text) + 1;
    if (fields != 2 || n > length - at || at + n >= length || text[at + n] != '\n') return -1;
    const char *data = text + at;
    at += n + 1;
    if (strncmp(key, "header", 6) == 0 || strncmp(key, "rows", 4) == 0) {
      int f = key[strlen(key) - 1] - '0';
      if (f < 0 || f >= GRADEBOOK_FILES) return -1;
      strbuf *into = key[0] == 'h' ? &g->header[f] : &g->rows[f];
      sb_clear(into);
      sb_append_n(into, data, n);
      have |= 1 << (key[0] == 'h' ? f : GRADEBOOK_FILES + f);
    } else if (strcmp(key, "gpu") == 0) {
      free(g->gpu);
      g->gpu = xstrndup(data, n);
      have |= 1 << 6;
    } else if (strcmp(key, "numbers") == 0) {
      char *numbers = xstrndup(data, n);
      if (sscanf(numbers, "%lf %lf %lf %d %lf", &g->totals.score, &g->totals.max_score,
                 &g->totals.not_scored, &g->rc, &g->seconds) == 5) {
        have |= 1 << 7;
      }
      free(numbers);
    }
  }
  if (have != 0xff) return -1;
  g->done = 1;
  return 0;
}
