#define _POSIX_C_SOURCE 200809L
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradebook.h"
#include "shard.h"

int batch_list_submissions(const char *submissions_dir, const char *out_dir, strlist *names,
                           strbuf *err) {
  DIR *dir = opendir(submissions_dir);
  if (dir == NULL) {
    sb_printf(err, "cannot read %s: %s", submissions_dir, strerror(errno));
    return -1;
  }
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char *path = path_join(submissions_dir, entry->d_name);
    char *resolved = real_path(path);
    /* The output folder may sit inside the submissions folder: it is no submission. */
    if (dir_exists(path) && resolved && !path_is_inside(resolved, out_dir) &&
        !path_is_inside(out_dir, resolved)) {
      sl_push(names, entry->d_name);
    }
    free(resolved);
    free(path);
  }
  closedir(dir);
  sl_sort(names);
  return 0;
}

/* What a report says it ran on, for the manifest (shards merged from different GPUs get a
 * warning: performance ratios are measured on each shard's own GPU). */
static char *graded_on(const grade_report *report) {
  if (report->backend && strcmp(report->backend, "sim") == 0) return xstrdup("CPU backend");
  if (report->gpu_present) return xstrdup(report->gpu_name ? report->gpu_name : "a CUDA device");
  return xstrdup("no GPU");
}

/* Writes the three gradebook files and the manifest; 0, or 1 after saying what failed. */
static int write_outputs(const char *out_dir, strbuf files[GRADEBOOK_FILES],
                         const batch_manifest *manifest) {
  int rc = 0;
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    char *path = path_join(out_dir, gradebook_file_name((gradebook_file)f));
    if (write_file_atomic(path, files[f].data, files[f].len) != 0) {
      fprintf(stderr, "grade: cannot write %s: %s\n", path, strerror(errno));
      rc = 1;
    }
    free(path);
  }
  if (manifest_write(manifest, out_dir) != 0) {
    fprintf(stderr, "grade: cannot write %s/%s: %s\n", out_dir, BATCH_MANIFEST, strerror(errno));
    rc = 1;
  }
  return rc;
}

int grade_batch(const grade_options *base, const char *submissions_dir, const char *out_dir,
                size_t shard_index, size_t shard_count) {
  strlist names;
  sl_init(&names);
  strbuf err;
  sb_init(&err);
  if (batch_list_submissions(submissions_dir, out_dir, &names, &err) != 0) {
    fprintf(stderr, "grade: %s\n", err.data);
    sb_free(&err);
    sl_free(&names);
    return 1;
  }
  sb_free(&err);
  if (names.count == 0) {
    fprintf(stderr, "grade: %s holds no submission folders\n", submissions_dir);
    sl_free(&names);
    return 1;
  }
  if (shard_count < 1 || shard_index >= shard_count) shard_index = 0, shard_count = 1;

  /* This shard's submissions: every shard_count-th of the sorted list, from shard_index. */
  strlist mine;
  sl_init(&mine);
  for (size_t i = 0; i < names.count; i++) {
    if (shard_of(i, shard_count) == shard_index) sl_push(&mine, names.items[i]);
  }
  /* A submission's reports go to OUT/<name>: never into the work folder (OUT/work unless
   * --work-dir says otherwise). */
  for (size_t i = 0; i < mine.count; i++) {
    char *sub_out = path_join(out_dir, mine.items[i]);
    int clash = base->work_dir && (path_is_inside(sub_out, base->work_dir) ||
                                   path_is_inside(base->work_dir, sub_out));
    if (clash) {
      fprintf(stderr, "grade: the submission '%s' would write its reports into the work folder "
                      "%s: give the work folder another place (--work-dir DIR)\n",
              mine.items[i], base->work_dir);
    }
    free(sub_out);
    if (clash) {
      sl_free(&mine);
      sl_free(&names);
      return 1;
    }
  }

  batch_manifest manifest;
  manifest_init(&manifest, shard_count);
  manifest.holds[shard_index] = 1;
  manifest.course = xstrdup(base->source_dir);
  manifest.submissions_dir = xstrdup(submissions_dir);
  const strlist *labs = base->labs.count ? &base->labs : &base->all_labs;
  strbuf labs_text;
  sb_init(&labs_text);
  for (size_t i = 0; i < labs->count; i++) sb_printf(&labs_text, "%s%s", i ? " " : "", labs->items[i]);
  manifest.labs = sb_steal(&labs_text);
  sb_free(&labs_text);
  manifest.rubrics = rubric_fingerprint(base->source_dir, labs);
  for (size_t i = 0; i < base->configure_args.count; i++) {
    sl_push(&manifest.cmake_args, base->configure_args.items[i]);
  }
  for (size_t i = 0; i < names.count; i++) sl_push(&manifest.submissions, names.items[i]);

  strbuf files[GRADEBOOK_FILES];
  for (int f = 0; f < GRADEBOOK_FILES; f++) sb_init(&files[f]);
  int rc = 0;
  if (shard_count > 1) {
    fprintf(stderr, "grade: shard %zu/%zu: %zu of the batch's %zu submissions (in name order, "
                    "counting from 0: numbers %zu, %zu, %zu, ...)\n",
            shard_index, shard_count, mine.count, names.count, shard_index,
            shard_index + shard_count, shard_index + 2 * shard_count);
  }
  if (mine.count == 0) {
    /* More shards than submissions: this one has none, and says so (it still merges). */
    manifest.complete = 1;
    rc = write_outputs(out_dir, files, &manifest);
    printf("shard %zu/%zu: no submission to grade (the batch holds %zu); %s/%s written\n",
           shard_index, shard_count, names.count, out_dir, BATCH_MANIFEST);
  }
  /* Written before the first grade: a merge sees this folder as not complete until the end. */
  if (mine.count > 0 && manifest_write(&manifest, out_dir) != 0) {
    fprintf(stderr, "grade: cannot write %s/%s: %s\n", out_dir, BATCH_MANIFEST, strerror(errno));
    rc = 1;
  }

  int header_written = 0;
  double start = now_seconds();
  for (size_t i = 0; i < mine.count; i++) {
    const char *name = mine.items[i];
    char *submission = path_join(submissions_dir, name);
    char *sub_out = path_join(out_dir, name);
    char *label = xasprintf("[%*zu/%zu] %s", (int)snprintf(NULL, 0, "%zu", mine.count), i + 1,
                            mine.count, name);
    grade_options opt = *base;
    opt.submission = submission;
    opt.out_dir = sub_out;
    opt.progress = label;
    grade_report report;
    report_init(&report);
    if (grade_run(&opt, &report) != 0) rc = 1;
    sb_init(&err);
    if (grade_write_reports(&report, sub_out, &err) != 0) {
      fprintf(stderr, "grade: %s", err.data);
      rc = 1;
    }
    sb_free(&err);
    for (int f = 0; f < GRADEBOOK_FILES; f++) {
      if (!header_written) gradebook_file_header((gradebook_file)f, &report, &files[f]);
      gradebook_file_rows((gradebook_file)f, name, &report, &files[f]);
    }
    header_written = 1;
    char *gpu = graded_on(&report);
    if (!sl_contains(&manifest.gpus, gpu)) sl_push(&manifest.gpus, gpu);
    free(gpu);
    sl_push(&manifest.graded, name);
    manifest.complete = i + 1 == mine.count;
    /* Rewritten after each submission, so an interrupted batch keeps what it graded. */
    if (write_outputs(out_dir, files, &manifest) != 0) rc = 1;
    report_totals totals;
    report_totals_of(&report, &totals);
    double elapsed = now_seconds() - start;
    double left = elapsed / (double)(i + 1) * (double)(mine.count - i - 1);
    fprintf(stderr, "grade: %s: %.2f of %.2f points%s; %.0f s so far, about %.0f s to go\n",
            label, totals.score, totals.max_score,
            totals.not_scored > 0 ? " (some items not scored)" : "", elapsed, left);
    report_free(&report);
    free(label);
    free(sub_out);
    free(submission);
  }
  if (mine.count > 0) {
    char *gradebook = path_join(out_dir, "gradebook.csv");
    if (shard_count > 1) {
      printf("gradebook: %s (shard %zu/%zu: %zu of %zu submissions; join the shards with "
             "grade --merge)\n", gradebook, shard_index, shard_count, mine.count, names.count);
    } else {
      printf("gradebook: %s (%zu submissions); lms.csv and items.csv beside it\n", gradebook,
             mine.count);
    }
    free(gradebook);
  }
  for (int f = 0; f < GRADEBOOK_FILES; f++) sb_free(&files[f]);
  manifest_free(&manifest);
  sl_free(&mine);
  sl_free(&names);
  return rc;
}
