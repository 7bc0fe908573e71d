/* Batch mode: a folder of submissions graded one after another into one gradebook, or one
 * shard of it (grade --batch DIR --shard K/N), which grade --merge joins (merge.h). */
#ifndef GRADE_BATCH_H
#define GRADE_BATCH_H

#include <stddef.h>

#include "gpu_slots.h"
#include "grade.h"
#include "gradebook.h"
#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The batch's submissions: the folders in `submissions_dir` but hidden ones and any that
 * holds or lies inside `out_dir`, sorted by name (byte order, whatever the locale): the
 * batch's stable order, which shards and gradebooks follow. 0, or -1 with the cause in err. */
int batch_list_submissions(const char *submissions_dir, const char *out_dir, strlist *names,
                           strbuf *err);

/* Grades the submissions of shard `shard_index` of `shard_count` (those whose position in the
 * batch's order is shard_index modulo shard_count; 0 of 1 is the whole batch) with the options
 * in `base` (its submission, out_dir and progress are set per submission): reports in
 * <out_dir>/<name>/, and in <out_dir> the gradebook files (gradebook.csv, lms.csv, items.csv;
 * gradebook.h) and batch-manifest.txt (shard.h), rewritten after each submission. With `slots`
 * (--gpus; NULL: one at a time, in this process), one submission per slot at a time, each in a
 * process of its own; SIGINT and SIGTERM then stop every slot (the gradebook keeps what was
 * graded; the batch is not complete) and the status is 128 + the signal.
 * Returns 0 when every submission was graded fully, 1 otherwise. */
int grade_batch(const grade_options *base, const char *submissions_dir, const char *out_dir,
                size_t shard_index, size_t shard_count, const gpu_slots *slots);

#ifdef __cplusplus
}
#endif
#endif
