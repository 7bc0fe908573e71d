/* One submission of a batch (batch.c, in turn or in its slots): what
 * the batch keeps of it, and the text a slot's grader hands back in its result file. */
#ifndef GRADE_BATCH_ONE_H
#define GRADE_BATCH_ONE_H

#include "batch.h"

/* What a batch keeps of one graded submission: its gradebook lines (and the files' header
 * lines, the same for every submission of a batch), where it ran, its totals. */
typedef struct graded_one {
  int done;
  strbuf header[GRADEBOOK_FILES];
  strbuf rows[GRADEBOOK_FILES];
  char *gpu;
  report_totals totals;
  int rc; /* 1: something kept it from being graded fully */
  double seconds;
} graded_one;

void graded_init(graded_one *g);
void graded_free(graded_one *g);
/* Grades submission `name` of submissions_dir into out_dir/<name>/ and fills `g`; work_dir and
 * gpu_lock replace the base options' (NULL: keep them). */
void grade_one(const grade_options *base, const char *submissions_dir, const char *out_dir,
               const char *name, const char *label, const char *work_dir, const char *gpu_lock,
               graded_one *g);
/* What a slot's grader writes to its result file, and reads back. */
char *graded_format(const graded_one *g);
int graded_parse(const char *text, size_t length, graded_one *g);

#endif
