/* grade: the course's grader. See grader/README.md, or run `grade --help`.
 *
 * The command line is read here, once: each option goes to the parser of the mode it belongs
 * to (grade_cli.h: the options every grade shares, one tree, the student release;
 * class_cli.h: a batch, the merge of its shards), then one mode runs. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_cli.h"
#include "grade_cli.h"
#include "grade_config.h"
#include "proc.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: grade [options] [SUBMISSION_DIR]\n"
          "       grade --batch SUBMISSIONS_DIR [--shard K/N] [--gpus all|0,1,...] [options]\n"
          "       grade --merge OUT SHARD_OUT...\n"
          "       grade --export-release DIR\n"
          "\n"
          "Grades the labs with CTest and their rubrics (labs/<lab>/<lab>.rubric), and writes\n"
          "results.json (Gradescope), junit.xml, summary.md and items.tsv into the output\n"
          "folder. With no SUBMISSION_DIR it grades the course's own labs/ in a build tree;\n"
          "with one, it copies the course to a work folder, lays only the student's files\n"
          "(each rubric's `files` line) over it and grades that. The exit status says whether\n"
          "grading ran (0), not whether the code passed; 1: grading hit a problem (the reports\n"
          "say which), 2: bad usage.\n"
          "\n"
          "options:\n"
          "  --out DIR          reports go here (default: grade-out)\n"
          "  --build-dir DIR    the build tree to grade labs/ in (default: %s);\n"
          "                     configured with LAB_IMPL=labs if it does not exist\n"
          "  --work-dir DIR     submissions: the course copy and its build (default: OUT/work);\n"
          "                     kept between runs, so the next grade rebuilds only what changed\n"
          "  --lab LAB          grade only this lab (repeatable): %s\n"
          "  --jobs N           parallel build jobs and correctness tests (default: CPUs)\n"
          "  --course DIR       the course tree (default: %s)\n"
          "  --cmake-arg ARG    an extra argument for configuring a fresh build (repeatable)\n"
          "  --quiet            no table on the terminal\n"
          "  --batch DIR        grade every folder in DIR; OUT/gradebook.csv, lms.csv, items.csv\n"
          "                     and OUT/<name>/\n"
          "  --shard K/N        with --batch: grade only every N-th submission (name order) from\n"
          "                     the K-th, counting from 0, for grade --merge to join\n"
          "  --gpus all|0,1,... with --batch: one grader per GPU, each pinned to its GPU\n"
          "                     (CUDA_VISIBLE_DEVICES) with its own work folder, one gradebook;\n"
          "                     all: every GPU here; a number may repeat (0,0: two graders share\n"
          "                     GPU 0, timing their performance tests one at a time). --jobs\n"
          "                     defaults to the CPUs divided among the graders\n"
          "  --merge OUT SHARD_OUT...  join the output folders of a batch's shards into OUT, as\n"
          "                     if one --batch run had graded them all\n"
          "  --export-release DIR  copy the course without solutions/, grader/private/,\n"
          "                     grader/selftest/, labs/_template/ and the course's CI\n"
          "                     workflow into DIR (a student release)\n"
          "  --help             this text\n",
          GRADE_BINARY_DIR, GRADE_LABS, GRADE_SOURCE_DIR);
}

/* What the command line asked for: the shared options and operands, and each mode's. */
typedef struct command {
  grade_cli cli;
  batch_cli batch;
  const char *merge_out;  /* --merge */
  const char *export_dir; /* --export-release */
} command;

static const struct option help_options[] = {
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Every mode's options in one table, for getopt_long: an option may stand anywhere on the
 * command line, and a prefix names it only when no other option of any mode shares it. */
#define OPTIONS_MAX 32 /* the modes have 14 between them */
static void all_options(struct option all[OPTIONS_MAX]) {
  const struct option *modes[] = {grade_cli_options, batch_cli_options, merge_cli_options,
                                  export_cli_options, help_options};
  size_t n = 0;
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    for (const struct option *o = modes[m]; o->name != NULL && n + 1 < OPTIONS_MAX; o++) {
      all[n++] = *o;
    }
  }
  all[n] = (struct option){NULL, 0, NULL, 0};
}

static int in_table(const struct option *table, int code) {
  for (; table->name != NULL; table++) {
    if (table->val == code) return 1;
  }
  return 0;
}

/* One option, to the parser of its mode. -1 to go on; else the exit status. */
static int take_option(command *cmd, grade_options *opt, int code, const char *value) {
  if (in_table(grade_cli_options, code)) return grade_cli_option(&cmd->cli, opt, code, value);
  if (in_table(batch_cli_options, code)) return batch_cli_option(&cmd->batch, code, value);
  if (in_table(merge_cli_options, code)) return merge_cli_option(&cmd->merge_out, code, value);
  return export_cli_option(&cmd->export_dir, code, value);
}

/* What getopt_long refused ('?'): an option that takes no value given one, or one it does not
 * know. */
static void say_unknown(const struct option *all, char **argv) {
  const char *arg = argv[optind - 1];
  for (const struct option *o = all; o->name != NULL; o++) {
    if (o->val == optopt && o->has_arg == no_argument) { /* "--quiet=1" */
      fprintf(stderr, "grade: %.*s takes no value\n", (int)strcspn(arg, "="), arg);
      return;
    }
  }
  if (optopt > 0 && optopt < 256) {
    fprintf(stderr, "grade: unknown option -%c (see grade --help)\n", optopt);
  } else { /* getopt_long takes a prefix, such as --qu, when only one option has it */
    fprintf(stderr, "grade: unknown or ambiguous option %s (see grade --help)\n", arg);
  }
}

/* Reads the command line into cmd and opt, each option by its mode's parser, in order. -1 to
 * go on; else the exit status (0 for --help). */
static int parse_args(int argc, char **argv, command *cmd, grade_options *opt) {
  struct option all[OPTIONS_MAX];
  all_options(all);
  /* "-": non-options come back in place, as 1 (the submission), whatever POSIXLY_CORRECT
   * says; ":": a missing value comes back as ':', so the messages are the grader's own. */
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, "-:h", all, NULL)) != -1;) {
    int rc = -1;
    if (c == 'h') {
      usage(stdout);
      return 0;
    } else if (c == 1) {
      sl_push(&cmd->cli.operands, optarg);
    } else if (c == ':') {
      fprintf(stderr, "grade: %s needs a value\n", argv[optind - 1]);
      rc = 2;
    } else if (c == '?') {
      say_unknown(all, argv);
      rc = 2;
    } else {
      rc = take_option(cmd, opt, c, optarg);
    }
    if (rc >= 0) return rc;
  }
  /* What follows "--" is not an option, whatever it looks like. */
  for (; optind < argc; optind++) sl_push(&cmd->cli.operands, argv[optind]);
  return -1;
}

/* A batch or one tree, into the folders of the shared options. */
static int grade_mode(command *cmd, grade_options *opt, const char *submission) {
  if (cmd->batch.batch_dir != NULL && submission != NULL) {
    fprintf(stderr, "grade: --batch grades a folder of submissions; name no other submission\n");
    return 2;
  }
  int rc = grade_cli_folders(&cmd->cli, opt);
  if (rc == 0 && cmd->batch.batch_dir != NULL) rc = batch_cli_run(&cmd->batch, &cmd->cli, opt);
  else if (rc == 0) rc = one_cli_run(&cmd->cli, opt, submission);
  opt->out_dir = opt->work_dir = opt->build_dir = NULL;
  return rc;
}

/* The mode the options chose: --merge (which grades nothing), or in the course named, the
 * student release, a batch, or one tree. */
static int run_mode(command *cmd, grade_options *opt) {
  if (cmd->merge_out != NULL) {
    int others = batch_cli_given(&cmd->batch) || cmd->export_dir != NULL;
    return merge_cli_run(cmd->merge_out, others, &cmd->cli);
  }
  const char *submission = NULL;
  if (batch_cli_check(&cmd->batch) != 0 || one_cli_operands(&cmd->cli, &submission) != 0) {
    return 2;
  }
  char *course_abs = real_path(cmd->cli.course);
  if (course_abs == NULL) {
    fprintf(stderr, "grade: the course folder %s does not exist\n", cmd->cli.course);
    return 2;
  }
  opt->source_dir = course_abs;
  int rc;
  if (cmd->export_dir != NULL) {
    char *dest = absolute_path(cmd->export_dir);
    rc = export_cli_run(course_abs, dest);
    free(dest);
  } else {
    rc = grade_mode(cmd, opt, submission);
  }
  opt->source_dir = NULL;
  free(course_abs);
  return rc;
}

/* The defaults this grader was built with (grade_config.h): the course, its build tree and
 * labs, cmake and ctest, the configure arguments; every CPU. */
static void defaults_of_this_build(command *cmd, grade_options *opt) {
  cmd->cli.course = GRADE_SOURCE_DIR;
  cmd->cli.build_dir = GRADE_BINARY_DIR;
  opt->jobs = cmd->cli.cpus > 0 ? (int)cmd->cli.cpus : 1;
  opt->cmake = GRADE_CMAKE;
  opt->ctest = GRADE_CTEST;
  char labs_text[] = GRADE_LABS;
  for (char *lab = strtok(labs_text, " "); lab; lab = strtok(NULL, " ")) sl_push(&opt->all_labs, lab);
  const char *configure_args[] = {GRADE_CONFIGURE_ARGS};
  for (size_t i = 0; configure_args[i] != NULL; i++) sl_push(&opt->configure_args, configure_args[i]);
}

int main(int argc, char **argv) {
  grade_environment();  // sealed whatever the caller's environment (grader/README.md)
  grade_options opt;
  grade_options_init(&opt);
  command cmd;
  memset(&cmd, 0, sizeof cmd);
  grade_cli_init(&cmd.cli);
  batch_cli_init(&cmd.batch);
  defaults_of_this_build(&cmd, &opt);
  int rc = parse_args(argc, argv, &cmd, &opt);
  if (rc < 0) rc = run_mode(&cmd, &opt);
  grade_options_free(&opt);
  batch_cli_free(&cmd.batch);
  grade_cli_free(&cmd.cli);
  return rc;
}
