/* The grade command's options on the one-tree side, split by mode (main.c reads the command
 * line and hands each option to the parser of the mode it belongs to):
 *   - the options every grade shares (--out, --build-dir, --work-dir, --course, --lab, --jobs,
 *     --cmake-arg, --quiet), read once whatever the mode: grade_cli.c;
 *   - grading one tree, the course's own labs or one submission (an operand): one_cli.c;
 *   - the student release (--export-release): export_cli.c.
 * Each mode's options are a table of getopt_long entries with codes of their own, so the
 * reader can tell whose an option is. A parser returns -1 to go on, or the exit status (2 for
 * bad usage, after saying why on stderr). */
#ifndef GRADE_GRADE_CLI_H
#define GRADE_GRADE_CLI_H

#include <getopt.h>

#include "grade.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The codes of the shared options and of --export-release; the modes built over this side take
 * theirs from 0x200 on. */
enum {
  CLI_OUT = 0x100,
  CLI_BUILD_DIR,
  CLI_WORK_DIR,
  CLI_COURSE,
  CLI_LAB,
  CLI_JOBS,
  CLI_CMAKE_ARG,
  CLI_QUIET,
  CLI_EXPORT_RELEASE = 0x180,
};

/* What the shared options asked for, the operands, and the folders made from them. */
typedef struct grade_cli {
  const char *out, *build_dir, *work_dir, *course;
  int jobs_given, quiet;
  long cpus;        /* this machine's, for --jobs' default */
  strlist operands; /* in order: the submission, or with --merge the shards' folders */
  char *out_abs, *work_abs, *build_abs; /* grade_cli_folders */
} grade_cli;

/* The shared options' defaults: --out grade-out, every CPU. The course and build tree are the
 * caller's to set (the ones this grader was built with). */
void grade_cli_init(grade_cli *cli);
void grade_cli_free(grade_cli *cli);

extern const struct option grade_cli_options[]; /* ends with a zero entry */
/* One shared option: into cli, or the options of the grade in opt (--lab, --jobs,
 * --cmake-arg). */
int grade_cli_option(grade_cli *cli, grade_options *opt, int code, const char *value);

/* The folders a grade writes to, made absolute into opt (out_dir, work_dir: OUT/work unless
 * --work-dir, build_dir), and the out folder made. 0, or 1 after saying why. The paths stay
 * cli's (freed by grade_cli_free). */
int grade_cli_folders(grade_cli *cli, grade_options *opt);

/* ---- grading one tree (one_cli.c) ---- */

/* The operands as one tree's: none (the course's own labs) or one submission, into
 * *submission. 0, or 2 after saying why. */
int one_cli_operands(const grade_cli *cli, const char **submission);
/* Grades the course's labs, or `submission` laid over a copy of the course, into opt->out_dir
 * (grade_cli_folders made it): the reports, the table unless --quiet, where they are. The
 * exit status: 0 graded, 1 grading hit a problem, 2 no such submission. */
int one_cli_run(const grade_cli *cli, grade_options *opt, const char *submission);

/* ---- the student release (export_cli.c) ---- */

extern const struct option export_cli_options[];
/* --export-release DIR into *dest. */
int export_cli_option(const char **dest, int code, const char *value);
/* Copies the course at `course` (absolute) into `dest` without what students do not get.
 * 0, or 1 after saying why. */
int export_cli_run(const char *course, const char *dest);

#ifdef __cplusplus
}
#endif
#endif
