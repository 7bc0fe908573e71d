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

int main(int argc, char **argv) {
  grade_environment();  // sealed whatever the caller's environment (grader/README.md)
  grade_options opt;
  grade_options_init(&opt);
  const char *out = "grade-out";
  const char *build_dir = GRADE_BINARY_DIR;
  const char *work_dir = NULL;
  const char *course = GRADE_SOURCE_DIR;
  const char *batch_dir = NULL;
  const char *export_dir = NULL;
  const char *submission = NULL;
  const char *merge_out = NULL;
  const char *shard_text = NULL;
  const char *gpus_text = NULL;
  gpu_slots slots;
  gpu_slots_init(&slots);
  int jobs_given = 0;
  size_t shard_index = 0, shard_count = 1;
  strlist operands;
  sl_init(&operands);
  int quiet = 0;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  opt.jobs = cpus > 0 ? (int)cpus : 1;
  opt.cmake = GRADE_CMAKE;
  opt.ctest = GRADE_CTEST;
  char labs_text[] = GRADE_LABS;
  for (char *lab = strtok(labs_text, " "); lab; lab = strtok(NULL, " ")) sl_push(&opt.all_labs, lab);
  const char *configure_args[] = {GRADE_CONFIGURE_ARGS};
  for (size_t i = 0; configure_args[i] != NULL; i++) sl_push(&opt.configure_args, configure_args[i]);

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
      case OPT_QUIET: quiet = 1; break;
      case OPT_OUT: out = optarg; break;
      case OPT_BUILD_DIR: build_dir = optarg; break;
      case OPT_WORK_DIR: work_dir = optarg; break;
      case OPT_COURSE: course = optarg; break;
      case OPT_BATCH: batch_dir = optarg; break;
      case OPT_EXPORT: export_dir = optarg; break;
      case OPT_CMAKE_ARG: sl_push(&opt.configure_args, optarg); break;
      case OPT_MERGE: merge_out = optarg; break;
      case OPT_SHARD:
        if (shard_parse(optarg, &shard_index, &shard_count) != 0) {
          fprintf(stderr, "grade: --shard takes K/N, shard K (0 to N-1) of N (1 to %d), not '%s'\n",
                  SHARD_COUNT_MAX, optarg);
          return 2;
        }
        shard_text = optarg;
        break;
      case OPT_GPUS: {
        strbuf err;
        sb_init(&err);
        if (gpu_slots_parse(optarg, &slots, &err) != 0) {
          fprintf(stderr, "grade: %s\n", err.data);
          sb_free(&err);
          return 2;
        }
        sb_free(&err);
        gpus_text = optarg;
        break;
      }
      case OPT_LAB:
        if (!sl_contains(&opt.all_labs, optarg)) {
          fprintf(stderr, "grade: no lab named '%s' (the labs: %s)\n", optarg, GRADE_LABS);
          return 2;
        }
        if (!sl_contains(&opt.labs, optarg)) sl_push(&opt.labs, optarg);
        break;
      case OPT_JOBS:
        if (!parse_jobs(optarg, &opt.jobs)) {
          fprintf(stderr, "grade: --jobs takes a number from 1 to 1024, not '%s'\n", optarg);
          return 2;
        }
        jobs_given = 1;
        break;
      case 1:
        sl_push(&operands, optarg);
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
  for (; optind < argc; optind++) sl_push(&operands, argv[optind]);

  if (merge_out != NULL) {
    if (batch_dir != NULL || shard_text != NULL || gpus_text != NULL || export_dir != NULL) {
      fprintf(stderr, "grade: --merge joins the folders of finished shards and grades nothing: "
                      "no --batch, --shard, --gpus or --export-release with it\n");
      return 2;
    }
    if (operands.count == 0) {
      fprintf(stderr, "grade: --merge OUT needs the output folders of the shards after it\n");
      return 2;
    }
    strbuf err;
    sb_init(&err);
    int rc = grade_merge(merge_out, (const char *const *)operands.items, operands.count, &err, stdout);
    if (rc != 0) fprintf(stderr, "grade: %s\n", err.data);
    sb_free(&err);
    sl_free(&operands);
    grade_options_free(&opt);
    return rc;
  }
  if (shard_text != NULL && batch_dir == NULL) {
    fprintf(stderr, "grade: --shard %s picks submissions of a batch: use it with --batch DIR\n",
            shard_text);
    return 2;
  }
  if (gpus_text != NULL && batch_dir == NULL) {
    fprintf(stderr, "grade: --gpus %s grades the submissions of a batch side by side: use it "
                    "with --batch DIR\n", gpus_text);
    return 2;
  }
  int one_ok;
  submission = one_submission(&operands, &one_ok);
  if (!one_ok) return 2;

  char *course_abs = real_path(course);
  if (course_abs == NULL) {
    fprintf(stderr, "grade: the course folder %s does not exist\n", course);
    return 2;
  }
  opt.source_dir = course_abs;
  if (export_dir != NULL) {
    char *dest = absolute_path(export_dir);
    int rc = export_release(course_abs, dest);
    free(dest);
    free(course_abs);
    grade_options_free(&opt);
    return rc;
  }
  if (batch_dir != NULL && submission != NULL) {
    fprintf(stderr, "grade: --batch grades a folder of submissions; name no other submission\n");
    return 2;
  }

  char *out_abs = absolute_path(out);
  char *work_abs = work_dir ? absolute_path(work_dir) : path_join(out_abs, "work");
  char *build_abs = absolute_path(build_dir);
  char *submission_abs = NULL;
  opt.out_dir = out_abs;
  opt.work_dir = work_abs;
  opt.build_dir = build_abs;
  if (mkdir_p(out_abs) != 0) {
    fprintf(stderr, "grade: cannot make %s: %s\n", out_abs, strerror(errno));
    return 1;
  }

  int rc;
  if (batch_dir != NULL) {
    char *batch_abs = real_path(batch_dir);
    if (batch_abs == NULL) {
      fprintf(stderr, "grade: the submissions folder %s does not exist\n", batch_dir);
      return 2;
    }
    if (gpus_text != NULL) {
      strbuf note, err;
      sb_init(&note);
      sb_init(&err);
      if (gpu_slots_resolve(&slots, getenv("CUDA_VISIBLE_DEVICES"), "nvidia-smi", "/dev", &note,
                            &err) != 0) {
        fprintf(stderr, "grade: %s\n", err.data);
        return 2;
      }
      if (note.len) fprintf(stderr, "grade: %s\n", note.data);
      sb_free(&note);
      sb_free(&err);
      /* The CPUs are shared among the graders: each builds and tests with its part. */
      if (!jobs_given) {
        long share = (cpus > 0 ? cpus : 1) / (long)slots.ids.count;
        opt.jobs = share > 0 ? (int)share : 1;
      }
    }
    rc = grade_batch(&opt, batch_abs, out_abs, shard_index, shard_count,
                     gpus_text != NULL ? &slots : NULL);
    free(batch_abs);
  } else {
    if (submission != NULL) {
      submission_abs = real_path(submission);
      if (submission_abs == NULL || !dir_exists(submission_abs)) {
        fprintf(stderr, "grade: the submission %s is not a folder\n", submission);
        return 2;
      }
      opt.submission = submission_abs;
    }
    grade_report report;
    report_init(&report);
    rc = grade_run(&opt, &report);
    strbuf err;
    sb_init(&err);
    if (grade_write_reports(&report, out_abs, &err) != 0) {
      fprintf(stderr, "grade: %s", err.data);
      rc = 1;
    }
    sb_free(&err);
    if (!quiet) print_table(&report, stdout);
    printf("reports: %s/{results.json,junit.xml,summary.md,items.tsv}; logs in %s/logs\n",
           out_abs, out_abs);
    report_free(&report);
  }
  free(submission_abs);
  free(build_abs);
  free(work_abs);
  free(out_abs);
  free(course_abs);
  grade_options_free(&opt);
  gpu_slots_free(&slots);
  sl_free(&operands);
  return rc;
}
