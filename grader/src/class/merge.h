/* grade --merge OUT SHARD_OUT...: the output folders of the shards of one batch (grade --batch
 * DIR --shard K/N) joined into one folder, as if one grade --batch run had graded them all:
 * gradebook.csv, lms.csv and items.csv with every submission's lines in the batch's order,
 * each submission's reports in OUT/<name>/, and OUT's own batch-manifest.txt.
 *
 * Refused, with nothing written: a folder that is not a complete batch output (its grade is
 * still running, or stopped), folders that do not belong to one batch graded alike (another
 * submissions list or shard count, another course, rubrics, labs or configure options), two
 * folders holding the same shard, a shard missing, and an OUT that is neither new, empty, nor
 * the output of an earlier merge or batch of the same batch. An OUT that holds an earlier merge
 * keeps the lines of the shards not named: merging one re-graded shard into it replaces that
 * shard's lines (and reports) only. */
#ifndef GRADE_MERGE_H
#define GRADE_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 0 when merged; 1 with the reason in `err` (one or more lines, no "grade: " prefix).
 * What it did, and warnings (shards graded on different GPUs), go to `log` when not NULL. */
int grade_merge(const char *out_dir, const char *const *sources, size_t n_sources, strbuf *err,
                FILE *log);

#ifdef __cplusplus
}
#endif
#endif
