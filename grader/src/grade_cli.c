/* The options every grade shares, read once whatever the mode (grade_cli.h), and the folders
 * a grade writes to. */
#define _POSIX_C_SOURCE 200809L
#include "grade_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct option grade_cli_options[] = {
    {"out", required_argument, NULL, CLI_OUT},
    {"build-dir", required_argument, NULL, CLI_BUILD_DIR},
    {"work-dir", required_argument, NULL, CLI_WORK_DIR},
    {"lab", required_argument, NULL, CLI_LAB},
    {"jobs", required_argument, NULL, CLI_JOBS},
    {"course", required_argument, NULL, CLI_COURSE},
    {"cmake-arg", required_argument, NULL, CLI_CMAKE_ARG},
    {"quiet", no_argument, NULL, CLI_QUIET},
    {NULL, 0, NULL, 0},
};

void grade_cli_init(grade_cli *cli) {
  memset(cli, 0, sizeof *cli);
  cli->out = "grade-out";
  sl_init(&cli->operands);
  cli->cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

void grade_cli_free(grade_cli *cli) {
  sl_free(&cli->operands);
  free(cli->out_abs);
  free(cli->work_abs);
  free(cli->build_abs);
  memset(cli, 0, sizeof *cli);
}

static int parse_jobs(const char *text, int *jobs) {
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 1024) return 0;
  *jobs = (int)value;
  return 1;
}

/* --lab: one of the course's labs, each once. */
static int take_lab(grade_options *opt, const char *lab) {
  if (!sl_contains(&opt->all_labs, lab)) {
    strbuf labs;
    sb_init(&labs);
    for (size_t i = 0; i < opt->all_labs.count; i++) {
      sb_printf(&labs, "%s%s", i ? " " : "", opt->all_labs.items[i]);
    }
    fprintf(stderr, "grade: no lab named '%s' (the labs: %s)\n", lab, labs.data);
    sb_free(&labs);
    return 2;
  }
  if (!sl_contains(&opt->labs, lab)) sl_push(&opt->labs, lab);
  return -1;
}

int grade_cli_option(grade_cli *cli, grade_options *opt, int code, const char *value) {
  switch (code) {
    case CLI_OUT: cli->out = value; break;
    case CLI_BUILD_DIR: cli->build_dir = value; break;
    case CLI_WORK_DIR: cli->work_dir = value; break;
    case CLI_COURSE: cli->course = value; break;
    case CLI_QUIET: cli->quiet = 1; break;
    case CLI_CMAKE_ARG: sl_push(&opt->configure_args, value); break;
    case CLI_LAB: return take_lab(opt, value);
    case CLI_JOBS:
      if (!parse_jobs(value, &opt->jobs)) {
        fprintf(stderr, "grade: --jobs takes a number from 1 to 1024, not '%s'\n", value);
        return 2;
      }
      cli->jobs_given = 1;
      break;
    default: return 2; /* not a shared option: the reader's mistake */
  }
  return -1;
}

int grade_cli_folders(grade_cli *cli, grade_options *opt) {
  cli->out_abs = absolute_path(cli->out);
  cli->work_abs = cli->work_dir ? absolute_path(cli->work_dir) : path_join(cli->out_abs, "work");
  cli->build_abs = absolute_path(cli->build_dir);
  opt->out_dir = cli->out_abs;
  opt->work_dir = cli->work_abs;
  opt->build_dir = cli->build_abs;
  if (mkdir_p(cli->out_abs) != 0) {
    fprintf(stderr, "grade: cannot make %s: %s\n", cli->out_abs, strerror(errno));
    return 1;
  }
  return 0;
}
