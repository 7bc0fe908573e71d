/* Grading one tree from the command line (grade_cli.h): the course's own labs, or the one
 * submission named; the reports written and the table shown. */
#define _POSIX_C_SOURCE 200809L
#include "grade_cli.h"

#include <stdio.h>
#include <stdlib.h>

int one_cli_operands(const grade_cli *cli, const char **submission) {
  const strlist *operands = &cli->operands;
  *submission = operands->count ? operands->items[0] : NULL;
  if (operands->count > 1) {
    fprintf(stderr, "grade: one submission at a time ('%s' and '%s'); use --batch for a "
                    "folder of them\n", operands->items[0], operands->items[1]);
    return 2;
  }
  return 0;
}

int one_cli_run(const grade_cli *cli, grade_options *opt, const char *submission) {
  char *submission_abs = NULL;
  if (submission != NULL) {
    submission_abs = real_path(submission);
    if (submission_abs == NULL || !dir_exists(submission_abs)) {
      fprintf(stderr, "grade: the submission %s is not a folder\n", submission);
      free(submission_abs);
      return 2;
    }
    opt->submission = submission_abs;
  }
  grade_report report;
  report_init(&report);
  int rc = grade_run(opt, &report);
  strbuf err;
  sb_init(&err);
  if (grade_write_reports(&report, opt->out_dir, &err) != 0) {
    fprintf(stderr, "grade: %s", err.data);
    rc = 1;
  }
  sb_free(&err);
  if (!cli->quiet) print_table(&report, stdout);
  printf("reports: %s/{results.json,junit.xml,summary.md,items.tsv}; logs in %s/logs\n",
         opt->out_dir, opt->out_dir);
  report_free(&report);
  opt->submission = NULL;
  free(submission_abs);
  return rc;
}
