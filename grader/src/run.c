/* One grading run (grade.h): the options, the labs' build, tests and scores, a submission laid
 * over a copy of the course, and the run's phases in order (grade_run). CTest is the only test
 * runner: per lab the grader builds lab_<lab>_tests (so a build error costs that lab only), runs
 * the lab's correctness tests in parallel and its performance tests one at a time, reads CTest's
 * JUnit files and scores them. */
#define _POSIX_C_SOURCE 200809L
#include "run_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "reaper.h"
#include "submission.h"

void grade_options_init(grade_options *opt) {
  memset(opt, 0, sizeof *opt);
  sl_init(&opt->all_labs);
  sl_init(&opt->labs);
  sl_init(&opt->configure_args);
  opt->jobs = 1;
}

void grade_options_free(grade_options *opt) {
  sl_free(&opt->all_labs);
  sl_free(&opt->labs);
  sl_free(&opt->configure_args);
}


/* One write a line: graders side by side (--gpus) share stderr, and a line written in pieces
 * could be cut by another grader's ("grade: [GPU 0, slot 0] carol: grade: [GPU 0, slot 1] dave:
 * ..."), which a reader waiting for carol's line never sees. */
void run_progress(const grade_options *opt, const char *format, ...) {
  strbuf line;
  sb_init(&line);
  sb_printf(&line, "grade: %s%s", opt->progress ? opt->progress : "", opt->progress ? ": " : "");
  va_list args;
  va_start(args, format);
  sb_vprintf(&line, format, args);
  va_end(args);
  sb_printf(&line, "\n");
  fflush(stderr);
  ssize_t ignored = write(STDERR_FILENO, line.data, line.len); /* as proc.c logs a command */
  (void)ignored;
  sb_free(&line);
}

static char *utc_now(void) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char text[32];
  strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return xstrdup(text);
}

static int wants_lab(const grade_options *opt, const char *lab) {
  return opt->labs.count == 0 || sl_contains(&opt->labs, lab);
}

/* Reads a rubric and the private one beside it, if any. */
int run_load_rubric(const char *source_dir, const char *lab, rubric *r, strbuf *errors) {
  char *name = rubric_course_path(lab);
  char *path = path_join(source_dir, name);
  int rc = rubric_load(r, path, errors);
  char *private_name = rubric_private_path(lab);
  char *private_path = path_join(source_dir, private_name);
  if (file_exists(private_path) && rubric_load(r, private_path, errors) != 0) rc = -1;
  if (rc == 0) rc = rubric_check(r, name, errors);
  free(private_name);
  free(private_path);
  free(path);
  free(name);
  return rc;
}

static void audit_built_lab(const grade_options *opt, grade_report *report, lab_result *lab) {
  audit_lab(&lab->rubric.audit, report->build_dir, report->source_dir, lab->lab, &lab->audit);
  for (size_t i = 0; i < lab->audit.problems.count; i++) {
    sl_push_owned(&report->problems, xasprintf("%s: %s", lab->lab, lab->audit.problems.items[i]));
  }
  for (size_t i = 0; i < lab->audit.count; i++) {
    char *text = audit_finding_text(&lab->audit.findings[i]);
    run_progress(opt, "%s: audit: %s", lab->lab, text);
    free(text);
  }
}

/* Builds the lab's targets and audits its exercise objects. 0, or -1 when the build failed (the
 * lab's items then fail with the compiler's first errors). */
static int lab_build(const grade_options *opt, grade_report *report, lab_result *lab,
                     const char *logs) {
  char *name = xasprintf("%s-build.log", lab->lab);
  char *build_log = path_join(logs, name);
  free(name);
  char *target = xasprintf("lab_%s_tests", lab->lab);
  run_progress(opt, "%s: building %s", lab->lab, target);
  remove(build_log);
  double t = now_seconds();
  int build_status = run_build_target(opt, report->build_dir, target, build_log);
  lab->phase[PHASE_BUILD] += now_seconds() - t;
  free(target);
  if (build_status != 0) {
    char *log = read_file(build_log, NULL);
    lab->state = LAB_BUILD_FAILED;
    lab->build_errors = log ? build_errors_of(log, report->source_dir) : NULL;
    free(log);
    char *first = NULL;
    if (lab->build_errors) {
      const char *eol = strchr(lab->build_errors, '\n');
      first = eol ? xstrndup(lab->build_errors, (size_t)(eol - lab->build_errors))
                  : xstrdup(lab->build_errors);
    }
    char *reason = first ? xasprintf("the lab did not build: %s", first)
                         : xasprintf("the lab did not build (exit status %d); see %s",
                                     build_status, build_log);
    char *note = xasprintf("did not build; see logs/%s-build.log%s%s", lab->lab,
                           lab->note ? "; " : "", lab->note ? lab->note : "");
    free(lab->note);
    lab->note = note;
    lab_fail_items(lab, reason, "The lab did not build, so none of its tests ran.\n");
    run_progress(opt, "%s: did not build: %s", lab->lab, first ? first : "see the log");
    free(reason);
    free(first);
    free(build_log);
    return -1;
  }
  free(build_log);
  t = now_seconds();
  audit_built_lab(opt, report, lab);
  lab->phase[PHASE_AUDIT] += now_seconds() - t;
  return 0;
}

/* A grading problem for a lab whose tests could not be run. */
static void report_not_run(grade_report *report, const lab_result *lab) {
  sl_push_owned(&report->problems, xasprintf("%s: %s", lab->lab, lab->note));
}

/* Runs the lab's tests of one kind (0: correctness, 1: performance) into lab->tests; when they
 * could not be run, the lab is not graded and the report says why. Correctness tests share the
 * GPU with other graders' (--gpus 0,0); performance tests have it to themselves (a plain run
 * takes no lock). */
static void lab_tests_locked(const grade_options *opt, grade_report *report, lab_result *lab,
                             int kind, const char *logs) {
  const char *kinds[] = {"correctness", "performance"};
  char *junit_name = xasprintf("%s-%s.xml", lab->lab, kinds[kind]);
  char *log_name = xasprintf("%s-%s.log", lab->lab, kinds[kind]);
  char *junit = path_join(logs, junit_name);
  char *log = path_join(logs, log_name);
  strbuf why;
  sb_init(&why);
  double t = now_seconds();
  int lock = run_lock_gpu(opt, report, kind == 1);
  run_progress(opt, "%s: running the %s tests", lab->lab, kinds[kind]);
  int ran = run_ctest(opt, report->build_dir, lab->lab, kinds[kind], kind == 0, junit, log,
                      &lab->tests, &why, &report->sandbox);
  gpu_lock_release(lock);
  lab->phase[kind == 0 ? PHASE_CORRECTNESS : PHASE_PERFORMANCE] += now_seconds() - t;
  if (ran != 0) {
    lab_not_graded(lab, xasprintf("the %s tests could not be run: %s", kinds[kind], why.data));
    report_not_run(report, lab);
  }
  sb_free(&why);
  free(junit_name);
  free(log_name);
  free(junit);
  free(log);
}

/* Scores the lab's items from its tests and applies the audit's findings. */
static void lab_score(const grade_options *opt, lab_result *lab, const score_context *ctx) {
  if (lab->state == LAB_ERROR || lab->state == LAB_BUILD_FAILED) return;
  lab->n_items = lab->rubric.n_items;
  lab->items = xcalloc(lab->n_items + 1, sizeof *lab->items);
  for (size_t i = 0; i < lab->n_items; i++) {
    score_item(&lab->rubric.items[i], &lab->tests, ctx, &lab->items[i]);
  }
  audit_apply(&lab->rubric.audit, lab);
  report_totals t;
  lab_totals(lab, &t);
  run_progress(opt, "%s: %.2f of %.2f points (%zu tests)%s", lab->lab, t.score, t.max_score,
           lab->tests.count, t.not_scored > 0 ? ", some items not scored" : "");
}

/* One lab from start to end: build, audit, correctness tests, performance tests (unless
 * correctness_only, or on the CPU backend), scores. */
void run_grade_lab(const grade_options *opt, grade_report *report, lab_result *lab,
                      const score_context *ctx, const char *logs, int correctness_only) {
  if (lab_build(opt, report, lab, logs) != 0) return;
  for (int k = 0; k < 2 && lab->state != LAB_ERROR; k++) {
    if (k == 1 && (ctx->cpu_backend || correctness_only)) break;
    lab_tests_locked(opt, report, lab, k, logs);
  }
  lab_score(opt, lab, ctx);
}

/* Undoes lab_build and the tests run so far: the lab is graded again (against a reference). */
static void lab_reset(lab_result *lab) {
  lab->state = LAB_GRADED;
  free(lab->build_errors);
  lab->build_errors = NULL;
  for (size_t i = 0; i < lab->n_items; i++) item_result_free(&lab->items[i]);
  free(lab->items);
  lab->items = NULL;
  lab->n_items = 0;
  tests_free(&lab->tests);
  audit_result_free(&lab->audit);
  audit_result_init(&lab->audit);
}

/* Which of `labs` a test is labelled with (`labels` as ctest_names gives them), or -1. */
static long lab_of(const char *labels, lab_result *const *labs, size_t n) {
  for (const char *p = labels; *p;) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, " ");
    for (size_t k = 0; k < n && len > 0; k++) {
      if (strlen(labs[k]->lab) == len && strncmp(p, labs[k]->lab, len) == 0) return (long)k;
    }
    p += len;
  }
  return -1;
}

/* The correctness tests of every built lab in one CTest run, sharing --jobs: the labs' test
 * programs run side by side, so a lab with few long programs does not leave the cores idle
 * while the next lab waits. One run, not one per lab at once: CTest runs in one build tree at
 * the same time may each rerun Google Test's discovery of a test program and read the list
 * another is writing, and then fail. Each test's lab comes from its labels. */
static void correctness_together(const grade_options *opt, grade_report *report,
                                 const char *logs) {
  size_t n = 0;
  lab_result **labs = xcalloc(report->n_labs + 1, sizeof *labs);
  strbuf regex;
  sb_init(&regex);
  sb_append(&regex, "^(");
  for (size_t i = 0; i < report->n_labs; i++) {
    if (report->labs[i].state != LAB_GRADED) continue;
    sb_printf(&regex, "%s%s", n ? "|" : "", report->labs[i].lab);
    labs[n++] = &report->labs[i];
  }
  sb_append(&regex, ")$");
  if (n == 0) {
    sb_free(&regex);
    free(labs);
    return;
  }
  double t = now_seconds(), labs_time = 0;
  strbuf names_text;
  sb_init(&names_text);
  for (size_t k = 0; k < n; k++) sb_printf(&names_text, "%s%s", k ? ", " : "", labs[k]->lab);
  run_progress(opt, "running the correctness tests of %s", names_text.data);
  sb_free(&names_text);
  char *select[] = {"-L", regex.data, "-L", "^correctness(-shards)?$", "-LE", "^sharded$", NULL};
  strlist names, labels;
  sl_init(&names);
  sl_init(&labels);
  run_ctest_names(opt, report->build_dir, select, &names, &labels);
  char *junit = path_join(logs, "correctness.xml");
  char *log = path_join(logs, "correctness.log");
  int lock = run_lock_gpu(opt, report, 0);
  test_list found;
  tests_init(&found);
  strbuf why;
  sb_init(&why);
  char *xml = NULL;
  int rc = run_ctest_once(opt, report->build_dir, select, 1, junit, log, &found, &why, &xml);
  if (rc == 0 && report->sandbox == NULL) report->sandbox = run_sandbox_layers(xml);
  free(xml);
  /* Each lab's tests, in CTest's order, and its seconds: what its test processes took. */
  test_list *mine = xcalloc(n, sizeof *mine);
  for (size_t i = 0; rc == 0 && i < found.count; i++) {
    long k = -1;
    for (size_t j = 0; j < names.count && k < 0; j++) {
      if (strcmp(names.items[j], found.items[i].name) == 0) k = lab_of(labels.items[j], labs, n);
    }
    if (k < 0) {
      sl_push_owned(&report->problems, xasprintf("the test %s belongs to no lab graded here; "
                                                 "it was left out", found.items[i].name));
      continue;
    }
    labs[k]->seconds += found.items[i].seconds;
    labs[k]->phase[PHASE_CORRECTNESS] += found.items[i].seconds;
    labs_time += found.items[i].seconds;
    *tests_add(&mine[k]) = found.items[i];
    memset(&found.items[i], 0, sizeof found.items[i]);
  }
  for (size_t k = 0; k < n; k++) {
    lab_result *lab = labs[k];
    if (rc != 0) {
      lab_not_graded(lab, xasprintf("the correctness tests could not be run: %s", why.data));
      report_not_run(report, lab);
      continue;
    }
    test_list cases;
    tests_init(&cases);
    strlist seen;
    sl_init(&seen);
    if (!run_split_shards(&mine[k], &cases, &seen)) {
      char *lab_regex = xasprintf("^%s$", lab->lab);
      char *junit_name = xasprintf("%s-correctness.xml", lab->lab);
      char *log_name = xasprintf("%s-correctness.log", lab->lab);
      char *junit_lab = path_join(logs, junit_name), *log_lab = path_join(logs, log_name);
      strbuf why_lab;
      sb_init(&why_lab);
      double t_lab = now_seconds();
      if (run_missing(opt, report->build_dir, lab_regex, "correctness", 1, junit_lab, log_lab,
                      &seen, &cases, &why_lab) != 0) {
        lab_not_graded(lab, xasprintf("the correctness tests could not be run: %s",
                                      why_lab.data));
        report_not_run(report, lab);
      }
      double spent = now_seconds() - t_lab;
      lab->seconds += spent;
      lab->phase[PHASE_CORRECTNESS] += spent;
      labs_time += spent;
      sb_free(&why_lab);
      free(lab_regex);
      free(junit_name);
      free(log_name);
      free(junit_lab);
      free(log_lab);
    }
    tests_classify(&cases);
    for (size_t i = 0; i < cases.count; i++) *tests_add(&lab->tests) = cases.items[i];
    free(cases.items);
    sl_free(&seen);
    tests_free(&mine[k]);
  }
  gpu_lock_release(lock);
  /* The report's phase is the wall time (grade_run adds the labs' phases to it, which here
   * overlap); each lab's the seconds its processes ran. */
  report->phase[PHASE_CORRECTNESS] += now_seconds() - t - labs_time;
  free(mine);
  tests_free(&found);
  sb_free(&why);
  sb_free(&regex);
  sl_free(&names);
  sl_free(&labels);
  free(junit);
  free(log);
  free(labs);
}

static int prepare_submission(const grade_options *opt, grade_report *report, const char *logs) {
  char *src = path_join(opt->work_dir, "src");
  char *build = path_join(opt->work_dir, "build");
  overlay ov;
  overlay_init(&ov);
  for (size_t i = 0; i < report->n_labs; i++) {
    lab_result *lab = &report->labs[i];
    if (lab->state != LAB_GRADED) continue;
    submission_collect(opt->submission, &lab->rubric.files, &ov, &lab->files_taken,
                       &lab->files_missing, &lab->files_rejected);
    /* Only the files above reach the copy; copies of the given code are reported, not used. */
    submission_given_changed(opt->submission, opt->source_dir, lab->lab, &lab->rubric.files,
                             &lab->files_ignored);
  }
  copy_rules rules;
  copy_rules_init(&rules);
  copy_rules_for_grading(&rules);
  copy_rules_skip_git_ignored(&rules, opt->source_dir);
  sync_stats stats;
  strbuf err;
  sb_init(&err);
  run_progress(opt, "copying the course to %s and laying the submission over it", src);
  int rc = tree_sync(opt->source_dir, src, &rules, &ov, &stats, &err);
  if (rc != 0) {
    sl_push_owned(&report->problems, xasprintf("cannot prepare the copy of the course: %s", err.data));
  } else {
    run_progress(opt, "%zu files written, %zu unchanged, %zu removed", stats.copied, stats.unchanged,
             stats.removed);
    char *log = path_join(logs, "configure.log");
    remove(log);
    run_progress(opt, "configuring %s", build);
    int status = run_configure(opt, src, build, log);
    if (status != 0) {
      sl_push_owned(&report->problems,
                    xasprintf("configuring the copy failed (exit status %d); see %s", status, log));
      rc = -1;
    }
    free(log);
  }
  free(report->source_dir);
  free(report->build_dir);
  report->source_dir = src;
  report->build_dir = build;
  sb_free(&err);
  copy_rules_free(&rules);
  overlay_free(&ov);
  return rc;
}

/* The labs' rubrics, from the pristine course (never from a submission); in place, from the
 * tree the build was configured from (which --build-dir may point at). */
static void load_rubrics(const grade_options *opt, grade_report *report) {
  char *rubric_root = NULL;
  if (opt->submission == NULL) rubric_root = cmake_cache_get(opt->build_dir, "CMAKE_HOME_DIRECTORY");
  if (rubric_root == NULL || !dir_exists(rubric_root)) {
    free(rubric_root);
    rubric_root = xstrdup(opt->source_dir);
  }
  for (size_t i = 0; i < opt->all_labs.count; i++) {
    const char *name = opt->all_labs.items[i];
    if (!wants_lab(opt, name)) continue;
    lab_result *lab = report_add_lab(report, name);
    char *rubric_rel = rubric_course_path(name);
    char *rubric_path = path_join(rubric_root, rubric_rel);
    if (!file_exists(rubric_path)) {
      lab->state = LAB_NO_RUBRIC;
      lab->note = xasprintf("not graded: %s does not exist yet", rubric_rel);
    } else {
      strbuf errors;
      sb_init(&errors);
      if (run_load_rubric(rubric_root, name, &lab->rubric, &errors) != 0) {
        char *first = xstrndup(errors.data, strcspn(errors.data, "\n"));
        lab_not_graded(lab, xasprintf("not graded: the rubric has errors: %s", first));
        free(first);
        sl_push_owned(&report->problems, xasprintf("rubric errors:\n%s", errors.data));
      }
      sb_free(&errors);
    }
    free(rubric_rel);
    free(rubric_path);
  }
  free(rubric_root);
}

/* The build tree: a submission laid over a copy of the course, or the course's own tree
 * (configured when it is not yet). 1 when it is ready; its backend and LAB_IMPL recorded. */
static int prepare_tree(const grade_options *opt, grade_report *report, const char *logs) {
  int ready = 1;
  if (opt->submission) {
    ready = prepare_submission(opt, report, logs) == 0;
  } else {
    report->build_dir = xstrdup(opt->build_dir);
    char *cache = path_join(report->build_dir, "CMakeCache.txt");
    if (!file_exists(cache)) {
      char *log = path_join(logs, "configure.log");
      remove(log);
      run_progress(opt, "configuring %s (LAB_IMPL=labs)", report->build_dir);
      int status = run_configure(opt, opt->source_dir, report->build_dir, log);
      if (status != 0) {
        sl_push_owned(&report->problems,
                      xasprintf("configuring %s failed (exit status %d); see %s",
                                report->build_dir, status, log));
        ready = 0;
      }
      free(log);
    }
    free(cache);
  }
  if (ready) {
    char *home = cmake_cache_get(report->build_dir, "CMAKE_HOME_DIRECTORY");
    if (home) {
      free(report->source_dir);
      report->source_dir = home;
    }
    report->lab_impl = cmake_cache_get(report->build_dir, "LAB_IMPL");
    report->backend = cmake_cache_get(report->build_dir, "LAB_BACKEND");
  }
  if (report->lab_impl == NULL) report->lab_impl = xstrdup("labs");
  if (report->backend == NULL) report->backend = xstrdup("cuda");
  return ready;
}

/* Every lab built (one parallel build, then each lab's for its status and log) and audited,
 * the GPU probe finished, then every lab's correctness tests side by side, all with the
 * student's own code. Each lab's build note goes to build_notes[i] (the labs it uses may change
 * it). */
static void build_and_test_together(const grade_options *opt, grade_report *report,
                                    const char *logs, score_context *ctx, probe_job *probe,
                                    char **build_notes) {
  run_build_all_labs(opt, report, logs);
  for (size_t i = 0; i < report->n_labs; i++) {
    lab_result *lab = &report->labs[i];
    if (lab->state != LAB_GRADED) continue;
    double began = now_seconds();
    lab_build(opt, report, lab, logs);
    lab->seconds += now_seconds() - began;
    build_notes[i] = lab->note; /* "did not build; ...": the labs it uses may change that */
    lab->note = NULL;
  }
  double t = now_seconds(); /* what is left of the probe when the build is done */
  if (!ctx->cpu_backend) run_probe_finish(opt, report, logs, probe);
  report->phase[PHASE_GPU_PROBE] += now_seconds() - t;
  ctx->gpu_present = report->gpu_present;
  correctness_together(opt, report, logs);
}

/* One lab after the correctness tests: the labs it uses (a lab tested with a used lab that
 * failed is built and tested again against the reference), its performance tests, its scores.
 * Takes build_note. */
static void finish_lab(const grade_options *opt, grade_report *report, lab_result *lab,
                       const score_context *ctx, const char *logs, char *build_note) {
  /* No rubric, a rubric with errors, or correctness tests that could not be run. */
  if (lab->state == LAB_NO_RUBRIC || lab->state == LAB_ERROR) {
    free(build_note);
    return;
  }
  strlist references;
  sl_init(&references);
  double t = now_seconds();
  int deps = run_use_dependencies(opt, report, lab, ctx, logs, &references);
  report->phase[PHASE_DEPENDENCIES] += now_seconds() - t;
  double began = now_seconds();
  if (deps != 0) {
    free(build_note);
    lab_reset(lab);
    lab_not_graded(lab, xasprintf("not graded: the build tree would not configure for the "
                                  "labs it uses; see logs/%s-configure.log", lab->lab));
    sl_push_owned(&report->problems, xasprintf("%s: %s", lab->lab, lab->note));
  } else if (references.count > 0) {
    free(build_note);
    lab_reset(lab);
    run_progress(opt, "%s: building and testing it again with the reference %s", lab->lab,
                 references.items[0]);
    run_grade_lab(opt, report, lab, ctx, logs, 0);
    run_note_references(lab, &references);
  } else {
    if (build_note != NULL) {
      char *both = lab->note ? xasprintf("%s; %s", build_note, lab->note) : xstrdup(build_note);
      free(build_note);
      free(lab->note);
      lab->note = both;
    }
    if (lab->state == LAB_GRADED && !ctx->cpu_backend) lab_tests_locked(opt, report, lab, 1, logs);
    lab_score(opt, lab, ctx);
  }
  lab->seconds += now_seconds() - began;
  sl_free(&references);
}

/* The build tree goes back to the student's own code (the student's next ctest, the next
 * submission of a batch). */
static void restore_own_labs(const grade_options *opt, grade_report *report, const char *logs) {
  char *left = cmake_cache_get(report->build_dir, "GPULABS_REFERENCE_LABS");
  if (left && left[0] != '\0') {
    char *log = path_join(logs, "configure-restore.log");
    char *argv[] = {(char *)opt->cmake, "-S", report->source_dir, "-B", report->build_dir,
                    "-DGPULABS_REFERENCE_LABS=", NULL};
    remove(log);
    if (run_logged(argv, log) != 0) {
      sl_push_owned(&report->problems, xasprintf("restoring GPULABS_REFERENCE_LABS in %s "
                                                 "failed; see %s", report->build_dir, log));
    }
    free(log);
  }
  free(left);
}

/* Nothing of the submission's may outlive its grade: the reports come after this. */
static void sweep_left_behind(grade_report *report) {
  reaper_sweep(&run_left_behind);
  if (run_left_behind.count > 0) {
    strbuf names;
    sb_init(&names);
    for (size_t i = 0; i < run_left_behind.count && i < 8; i++) {
      sb_printf(&names, "%s%s", i ? ", " : "", run_left_behind.items[i]);
    }
    sl_push_owned(&report->problems,
                  xasprintf("the tests left %zu process%s running (%s%s); %s ended before any "
                            "result was read", run_left_behind.count,
                            run_left_behind.count == 1 ? "" : "es", names.data,
                            run_left_behind.count > 8 ? ", ..." : "",
                            run_left_behind.count == 1 ? "it was" : "they were"));
    sb_free(&names);
  }
  sl_free(&run_left_behind);
  sl_init(&run_left_behind);
}

/* The run's phases in order: rubrics, the tree, the GPU probe, the build and the correctness
 * tests of every lab together, then each lab's dependencies, performance tests and scores, and
 * the sweep of what the tests left running. */
int grade_run(const grade_options *opt, grade_report *report) {
  double start = now_seconds();
  if (reaper_adopt() != 0) {
    sl_push_owned(&report->problems, xasprintf("cannot adopt the tests' orphans "
                                               "(PR_SET_CHILD_SUBREAPER): %s", strerror(errno)));
  }
  sl_free(&run_left_behind);
  sl_init(&run_left_behind);
  report->started_at = utc_now();
  char *logs = path_join(opt->out_dir, "logs");
  if (mkdir_p(logs) != 0) {
    sl_push_owned(&report->problems, xasprintf("cannot make %s: %s", logs, strerror(errno)));
  }
  report->source_dir = xstrdup(opt->source_dir);
  report->submission = opt->submission ? xstrdup(opt->submission) : NULL;
  load_rubrics(opt, report);

  double t = now_seconds();
  int ready = prepare_tree(opt, report, logs);
  report->phase[PHASE_PREPARE] += now_seconds() - t;
  score_context ctx = {0, strcmp(report->backend, "sim") == 0};
  t = now_seconds();
  probe_job probe = {-1, 0, NULL, 0};
  if (ready && !ctx.cpu_backend) run_probe_start(opt, report, logs, &probe);
  report->phase[PHASE_GPU_PROBE] += now_seconds() - t;

  char **build_notes = xcalloc(report->n_labs + 1, sizeof *build_notes);
  if (ready) build_and_test_together(opt, report, logs, &ctx, &probe, build_notes);
  for (size_t i = 0; i < report->n_labs; i++) {
    lab_result *lab = &report->labs[i];
    if (ready) {
      finish_lab(opt, report, lab, &ctx, logs, build_notes[i]);
    } else if (lab->state == LAB_GRADED) {
      lab_not_graded(lab, xstrdup("not graded: the build tree could not be prepared"));
    }
  }
  free(build_notes);
  t = now_seconds();
  if (ready) restore_own_labs(opt, report, logs);
  free(logs);
  report->phase[PHASE_DEPENDENCIES] += now_seconds() - t;
  for (size_t i = 0; i < report->n_labs; i++) {
    for (int p = 0; p < PHASE_COUNT; p++) report->phase[p] += report->labs[i].phase[p];
  }
  sweep_left_behind(report);
  report->seconds = now_seconds() - start;
  return report->problems.count > 0 ? 1 : 0;
}

int grade_write_reports(const grade_report *report, const char *out_dir, strbuf *err) {
  if (mkdir_p(out_dir) != 0) {
    sb_printf(err, "cannot make %s: %s", out_dir, strerror(errno));
    return -1;
  }
  struct {
    const char *name;
    int (*write)(const grade_report *, const char *);
  } writers[] = {{"results.json", write_results_json},
                 {"junit.xml", write_junit_xml},
                 {"summary.md", write_summary_md},
                 {"items.tsv", write_items_tsv}};
  int rc = 0;
  for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
    char *path = path_join(out_dir, writers[i].name);
    if (writers[i].write(report, path) != 0) {
      sb_printf(err, "cannot write %s: %s\n", path, strerror(errno));
      rc = -1;
    }
    free(path);
  }
  return rc;
}
