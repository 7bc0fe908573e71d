/* Batch mode: a folder of submissions graded one after another into one gradebook. */
#ifndef GRADE_BATCH_H
#define GRADE_BATCH_H

#include "grade.h"
#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Appends the gradebook's header line (from the items of `report`) to `csv`. */
void gradebook_header(const grade_report *report, strbuf *csv);
/* Appends one submission's line; the columns follow the header's. */
void gradebook_row(const char *submission, const grade_report *report, strbuf *csv);

/* Grades every folder in `submissions_dir` (sorted by name; hidden ones skipped) with the
 * options in `base` (its submission, out_dir and progress are set per submission): reports in
 * <out_dir>/<name>/, the gradebook in <out_dir>/gradebook.csv, rewritten after each one.
 * Returns 0 when every submission was graded fully, 1 otherwise. */
int grade_batch(const grade_options *base, const char *submissions_dir, const char *out_dir);

#ifdef __cplusplus
}
#endif
#endif
