/* grade: the course's grader. See grader/README.md, or run `grade --help`. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "grade.h"
#include "grade_config.h"
#include "merge.h"
#include "proc.h"
#include "shard.h"
#include "submission.h"

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

static int export_release(const char *course, const char *dest) {
  copy_rules rules;
  copy_rules_init(&rules);
  copy_rules_for_release(&rules);
  size_t ignored = copy_rules_skip_git_ignored(&rules, course);
  overlay none;
  overlay_init(&none);
  sync_stats stats;
  strbuf err;
  sb_init(&err);
  int rc = tree_sync(course, dest, &rules, &none, &stats, &err);
  if (rc == 0 && release_drop_course_ci(dest) != 0) {
    sb_printf(&err, "cannot rewrite %s/README.md without the course's CI badge\n", dest);
    rc = -1;
  }
  if (rc != 0) {
    fprintf(stderr, "grade: cannot export the student release: %s", err.data);
  } else {
    printf("student release in %s: %zu files written, %zu unchanged, %zu removed\n", dest,
           stats.copied, stats.unchanged, stats.removed);
    printf("left out: solutions/, grader/private/, grader/selftest/, labs/_template/, "
           ".github/workflows/ci.yml, "
           "build trees, grade-out/, hidden folders%s\n", ignored ? " and what git ignores" : "");
  }
  sb_free(&err);
  overlay_free(&none);
  copy_rules_free(&rules);
  return rc == 0 ? 0 : 1;
}

static int parse_jobs(const char *text, int *jobs) {
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 1024) return 0;
  *jobs = (int)value;
  return 1;
}

/* The operands: one submission, or with --merge the shards' folders. */
static const char *one_submission(const strlist *operands, int *ok) {
  *ok = 1;
  if (operands->count > 1) {
    fprintf(stderr, "grade: one submission at a time ('%s' and '%s'); use --batch for a "
                    "folder of them\n", operands->items[0], operands->items[1]);
    *ok = 0;
  }
  return operands->count ? operands->items[0] : NULL;
}

/* What the command line asked for, before the mode runs. */
typedef struct grade_cli {
  const char *out, *build_dir, *work_dir, *course, *batch_dir, *export_dir, *merge_out;
  const char *shard_text, *gpus_text;
  gpu_slots slots;
  int jobs_given, quiet;
  size_t shard_index, shard_count;
  strlist operands;
  long cpus;
} grade_cli;

static void cli_init(grade_cli *cli) {
  memset(cli, 0, sizeof *cli);
  cli->out = "grade-out";
  cli->build_dir = GRADE_BINARY_DIR;
  cli->course = GRADE_SOURCE_DIR;
  cli->shard_count = 1;
  gpu_slots_init(&cli->slots);
  sl_init(&cli->operands);
  cli->cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

static void cli_free(grade_cli *cli) {
  gpu_slots_free(&cli->slots);
  sl_free(&cli->operands);
}

/* The options into cli and opt. -1 to go on; else the exit status (0 for --help). */
static int parse_args(int argc, char **argv, grade_cli *cli, grade_options *opt) {
  /* "-": non-options come back in place, as 1 (the submission), whatever POSIXLY_CORRECT
   * says; ":": a missing value comes back as ':', so the messages are the grader's own. */
  enum { OPT_OUT = 256, OPT_BUILD_DIR, OPT_WORK_DIR, OPT_LAB, OPT_JOBS, OPT_COURSE, OPT_BATCH,
         OPT_EXPORT, OPT_CMAKE_ARG, OPT_QUIET, OPT_SHARD, OPT_MERGE, OPT_GPUS };
  static const struct option options[] = {
      {"out", required_argument, NULL, OPT_OUT},
      {"build-dir", required_argument, NULL, OPT_BUILD_DIR},
      {"work-dir", required_argument, NULL, OPT_WORK_DIR},
      {"lab", required_argument, NULL, OPT_LAB},
      {"jobs", required_argument, NULL, OPT_JOBS},
      {"course", required_argument, NULL, OPT_COURSE},
      {"batch", required_argument, NULL, OPT_BATCH},
      {"export-release", required_argument, NULL, OPT_EXPORT},
      {"cmake-arg", required_argument, NULL, OPT_CMAKE_ARG},
      {"quiet", no_argument, NULL, OPT_QUIET},
      {"shard", required_argument, NULL, OPT_SHARD},
      {"merge", required_argument, NULL, OPT_MERGE},
      {"gpus", required_argument, NULL, OPT_GPUS},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, "-:h", options, NULL)) != -1;) {
    switch (c) {
      case 'h':
        usage(stdout);
        return 0;
      case OPT_QUIET: cli->quiet = 1; break;
      case OPT_OUT: cli->out = optarg; break;
      case OPT_BUILD_DIR: cli->build_dir = optarg; break;
      case OPT_WORK_DIR: cli->work_dir = optarg; break;
      case OPT_COURSE: cli->course = optarg; break;
      case OPT_BATCH: cli->batch_dir = optarg; break;
      case OPT_EXPORT: cli->export_dir = optarg; break;
      case OPT_CMAKE_ARG: sl_push(&opt->configure_args, optarg); break;
      case OPT_MERGE: cli->merge_out = optarg; break;
      case OPT_SHARD:
        if (shard_parse(optarg, &cli->shard_index, &cli->shard_count) != 0) {
          fprintf(stderr, "grade: --shard takes K/N, shard K (0 to N-1) of N (1 to %d), not '%s'\n",
                  SHARD_COUNT_MAX, optarg);
          return 2;
        }
        cli->shard_text = optarg;
        break;
      case OPT_GPUS: {
        strbuf err;
        sb_init(&err);
        if (gpu_slots_parse(optarg, &cli->slots, &err) != 0) {
          fprintf(stderr, "grade: %s\n", err.data);
          sb_free(&err);
          return 2;
        }
        sb_free(&err);
        cli->gpus_text = optarg;
        break;
      }
      case OPT_LAB:
        if (!sl_contains(&opt->all_labs, optarg)) {
          fprintf(stderr, "grade: no lab named '%s' (the labs: %s)\n", optarg, GRADE_LABS);
          return 2;
        }
        if (!sl_contains(&opt->labs, optarg)) sl_push(&opt->labs, optarg);
        break;
      case OPT_JOBS:
        if (!parse_jobs(optarg, &opt->jobs)) {
          fprintf(stderr, "grade: --jobs takes a number from 1 to 1024, not '%s'\n", optarg);
          return 2;
        }
        cli->jobs_given = 1;
        break;
      case 1:
        sl_push(&cli->operands, optarg);
        break;
      case ':':
        fprintf(stderr, "grade: %s needs a value\n", argv[optind - 1]);
        return 2;
      default: /* '?' */
        if (optopt == OPT_QUIET || optopt == 'h') {
          const char *arg = argv[optind - 1]; /* "--quiet=1" */
          fprintf(stderr, "grade: %.*s takes no value\n", (int)strcspn(arg, "="), arg);
        } else if (optopt > 0 && optopt < 256) {
          fprintf(stderr, "grade: unknown option -%c (see grade --help)\n", optopt);
        } else { /* getopt_long takes a prefix, such as --qu, when only one option has it */
          fprintf(stderr, "grade: unknown or ambiguous option %s (see grade --help)\n",
                  argv[optind - 1]);
        }
        return 2;
    }
  }
  /* What follows "--" is not an option, whatever it looks like. */
  for (; optind < argc; optind++) sl_push(&cli->operands, argv[optind]);
  return -1;
}

/* --merge: joins the shards' output folders; grades nothing. */
static int merge_mode(const grade_cli *cli) {
  if (cli->batch_dir != NULL || cli->shard_text != NULL || cli->gpus_text != NULL ||
      cli->export_dir != NULL) {
    fprintf(stderr, "grade: --merge joins the folders of finished shards and grades nothing: "
                    "no --batch, --shard, --gpus or --export-release with it\n");
    return 2;
  }
  if (cli->operands.count == 0) {
    fprintf(stderr, "grade: --merge OUT needs the output folders of the shards after it\n");
    return 2;
  }
  strbuf err;
  sb_init(&err);
  int rc = grade_merge(cli->merge_out, (const char *const *)cli->operands.items,
                       cli->operands.count, &err, stdout);
  if (rc != 0) fprintf(stderr, "grade: %s\n", err.data);
  sb_free(&err);
  return rc;
}

/* --batch: the submissions of a folder, side by side on --gpus' slots. */
static int batch_mode(grade_cli *cli, grade_options *opt, const char *out_abs) {
  char *batch_abs = real_path(cli->batch_dir);
  if (batch_abs == NULL) {
    fprintf(stderr, "grade: the submissions folder %s does not exist\n", cli->batch_dir);
    return 2;
  }
  if (cli->gpus_text != NULL) {
    strbuf note, err;
    sb_init(&note);
    sb_init(&err);
    int resolved = gpu_slots_resolve(&cli->slots, getenv("CUDA_VISIBLE_DEVICES"), "nvidia-smi",
                                     "/dev", &note, &err);
    if (resolved != 0) fprintf(stderr, "grade: %s\n", err.data);
    if (resolved == 0 && note.len) fprintf(stderr, "grade: %s\n", note.data);
    sb_free(&note);
    sb_free(&err);
    if (resolved != 0) {
      free(batch_abs);
      return 2;
    }
    /* The CPUs are shared among the graders: each builds and tests with its part. */
    if (!cli->jobs_given) {
      long share = (cli->cpus > 0 ? cli->cpus : 1) / (long)cli->slots.ids.count;
      opt->jobs = share > 0 ? (int)share : 1;
    }
  }
  int rc = grade_batch(opt, batch_abs, out_abs, cli->shard_index, cli->shard_count,
                       cli->gpus_text != NULL ? &cli->slots : NULL);
  free(batch_abs);
  return rc;
}

/* One tree: the course's own labs in place, or one submission; the reports written. */
static int one_mode(const grade_cli *cli, grade_options *opt, const char *submission,
                    const char *out_abs) {
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
  if (grade_write_reports(&report, out_abs, &err) != 0) {
    fprintf(stderr, "grade: %s", err.data);
    rc = 1;
  }
  sb_free(&err);
  if (!cli->quiet) print_table(&report, stdout);
  printf("reports: %s/{results.json,junit.xml,summary.md,items.tsv}; logs in %s/logs\n",
         out_abs, out_abs);
  report_free(&report);
  opt->submission = NULL;
  free(submission_abs);
  return rc;
}

/* Options that belong to a mode not chosen, or operands it does not take. 0, or 2 after
 * saying why; *submission: the one submission named, if any. */
static int check_modes(const grade_cli *cli, const char **submission) {
  if (cli->shard_text != NULL && cli->batch_dir == NULL) {
    fprintf(stderr, "grade: --shard %s picks submissions of a batch: use it with --batch DIR\n",
            cli->shard_text);
    return 2;
  }
  if (cli->gpus_text != NULL && cli->batch_dir == NULL) {
    fprintf(stderr, "grade: --gpus %s grades the submissions of a batch side by side: use it "
                    "with --batch DIR\n", cli->gpus_text);
    return 2;
  }
  int one_ok;
  *submission = one_submission(&cli->operands, &one_ok);
  return one_ok ? 0 : 2;
}

/* The folders a grade writes to, made absolute into opt, and the out folder made; then the
 * batch, or the one tree. */
static int grade_mode(grade_cli *cli, grade_options *opt, const char *submission) {
  if (cli->batch_dir != NULL && submission != NULL) {
    fprintf(stderr, "grade: --batch grades a folder of submissions; name no other submission\n");
    return 2;
  }
  char *out_abs = absolute_path(cli->out);
  char *work_abs = cli->work_dir ? absolute_path(cli->work_dir) : path_join(out_abs, "work");
  char *build_abs = absolute_path(cli->build_dir);
  opt->out_dir = out_abs;
  opt->work_dir = work_abs;
  opt->build_dir = build_abs;
  int rc;
  if (mkdir_p(out_abs) != 0) {
    fprintf(stderr, "grade: cannot make %s: %s\n", out_abs, strerror(errno));
    rc = 1;
  } else if (cli->batch_dir != NULL) {
    rc = batch_mode(cli, opt, out_abs);
  } else {
    rc = one_mode(cli, opt, submission, out_abs);
  }
  opt->out_dir = opt->work_dir = opt->build_dir = NULL;
  free(build_abs);
  free(work_abs);
  free(out_abs);
  return rc;
}

/* Grades the course's own tree, the submission given, or a batch; or merges a batch's shards;
 * or exports the student release. */
static int run_mode(grade_cli *cli, grade_options *opt) {
  if (cli->merge_out != NULL) return merge_mode(cli);
  const char *submission = NULL;
  if (check_modes(cli, &submission) != 0) return 2;
  char *course_abs = real_path(cli->course);
  if (course_abs == NULL) {
    fprintf(stderr, "grade: the course folder %s does not exist\n", cli->course);
    return 2;
  }
  opt->source_dir = course_abs;
  int rc;
  if (cli->export_dir != NULL) {
    char *dest = absolute_path(cli->export_dir);
    rc = export_release(course_abs, dest);
    free(dest);
  } else {
    rc = grade_mode(cli, opt, submission);
  }
  opt->source_dir = NULL;
  free(course_abs);
  return rc;
}

int main(int argc, char **argv) {
  grade_environment();  // sealed whatever the caller's environment (grader/README.md)
  grade_options opt;
  grade_options_init(&opt);
  grade_cli cli;
  cli_init(&cli);
  opt.jobs = cli.cpus > 0 ? (int)cli.cpus : 1;
  opt.cmake = GRADE_CMAKE;
  opt.ctest = GRADE_CTEST;
  char labs_text[] = GRADE_LABS;
  for (char *lab = strtok(labs_text, " "); lab; lab = strtok(NULL, " ")) sl_push(&opt.all_labs, lab);
  const char *configure_args[] = {GRADE_CONFIGURE_ARGS};
  for (size_t i = 0; configure_args[i] != NULL; i++) sl_push(&opt.configure_args, configure_args[i]);
  int rc = parse_args(argc, argv, &cli, &opt);
  if (rc < 0) rc = run_mode(&cli, &opt);
  grade_options_free(&opt);
  cli_free(&cli);
  return rc;
}
