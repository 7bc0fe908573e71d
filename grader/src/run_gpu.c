/* A grading run's GPU (run_internal.h): its lock, its name, and the probe that says whether the
 * GPU tests can run (and why not). */
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

int run_lock_gpu(const grade_options *opt, grade_report *report, int exclusive) {
  if (opt->gpu_lock == NULL) return -1;
  double start = now_seconds();
  int fd = gpu_lock_acquire(opt->gpu_lock, exclusive);
  if (fd < 0) {
    char *problem = xasprintf("cannot take the GPU's lock %s (%s): the tests ran without it, and "
                              "another grader may have used the GPU while they were timed",
                              opt->gpu_lock, strerror(errno));
    if (sl_contains(&report->problems, problem)) free(problem); /* once per report */
    else sl_push_owned(&report->problems, problem);
    return -1;
  }
  double waited = now_seconds() - start;
  if (waited >= 1.0) {
    run_progress(opt, "waited %.0f s for the GPU (%s)", waited,
             exclusive ? "to time the performance tests alone" : "another grader was timing");
  }
  return fd;
}

/* The name of the GPU the tests used: the one CUDA_VISIBLE_DEVICES names when it names one
 * (a grader pinned by --gpus, a Slurm task), else the first nvidia-smi lists. */
static char *gpu_name(void) {
  const char *visible = getenv("CUDA_VISIBLE_DEVICES");
  if (visible && visible[0] != '\0' && strchr(visible, ',') == NULL) {
    char *argv[] = {"nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i",
                    (char *)visible, NULL};
    char *name = run_first_line(argv);
    if (name) return name;
  }
  char *argv[] = {"nvidia-smi", "--query-gpu=name", "--format=csv,noheader", NULL};
  return run_first_line(argv);
}

/* Finds out whether the tests can use a GPU, by running common's GPU tests (code no student
 * touches): they run on a GPU and skip, saying why, without one. `built`: test_common_gpu was
 * built (probe_start builds it). */
static void probe_gpu(const grade_options *opt, grade_report *report, const char *logs, int built) {
  char *build_log = path_join(logs, "gpu-probe-build.log");
  char *junit = path_join(logs, "gpu-probe.xml");
  char *log = path_join(logs, "gpu-probe.log");
  test_list tests;
  tests_init(&tests);
  strbuf why;
  sb_init(&why);
  run_progress(opt, "checking for a GPU (common's GPU tests)");
  if (!built) {
    sl_push_owned(&report->problems,
                  xasprintf("the GPU probe (test_common_gpu) did not build; see %s", build_log));
  } else {
    int lock = run_lock_gpu(opt, report, 0);
    if (run_ctest(opt, report->build_dir, "common", "gpu", 1, junit, log, &tests, &why, NULL) != 0) {
      sl_push_owned(&report->problems, xasprintf("the GPU probe did not run: %s", why.data));
    }
    gpu_lock_release(lock);
  }
  size_t ran = 0, failed = 0;
  const char *skip_reason = NULL, *fail_reason = NULL;
  for (size_t i = 0; i < tests.count; i++) {
    const test_result *t = &tests.items[i];
    if (t->status == TEST_PASSED || t->status == TEST_FAILED) ran++;
    if (t->status == TEST_FAILED) {
      failed++;
      if (!fail_reason) fail_reason = t->reason;
    }
    if (t->status == TEST_SKIPPED && !skip_reason) skip_reason = t->reason;
  }
  if (ran > 0) {
    report->gpu_present = 1;
    report->gpu_name = gpu_name();
    if (failed > 0) {
      sl_push_owned(&report->problems,
                    xasprintf("common's GPU tests failed on this machine (%s): results may be "
                              "unreliable; see %s", fail_reason ? fail_reason : "failed", log));
    }
  } else {
    report->gpu_present = 0;
    if (skip_reason) report->no_gpu_reason = xstrdup(skip_reason);
    else if (tests.count == 0) report->no_gpu_reason = xstrdup("the GPU probe found no test to run");
    else report->no_gpu_reason = xstrdup("the GPU probe's tests did not run");
  }
  sb_free(&why);
  tests_free(&tests);
  free(build_log);
  free(junit);
  free(log);
}


static void put_line(strbuf *sb, const char *key, const char *value) {
  sb_printf(sb, "%s\t", key);
  for (const char *c = value; *c; c++) sb_append_char(sb, *c == '\n' ? ' ' : *c);
  sb_append_char(sb, '\n');
}

void run_probe_start(const grade_options *opt, grade_report *report, const char *logs,
                        probe_job *job) {
  char *build_log = path_join(logs, "gpu-probe-build.log");
  job->built = run_build_target(opt, report->build_dir, "test_common_gpu", build_log) == 0;
  free(build_log);
  job->result = path_join(logs, "gpu-probe.result");
  job->problems = report->problems.count;
  remove(job->result);
  char *stamp = path_join(report->build_dir, BUILT_STAMP);
  const int built_before = file_exists(stamp);
  free(stamp);
  job->pid = -1;
  if (!built_before) return;
  fflush(NULL);
  job->pid = fork();
  if (job->pid != 0) return;
  probe_gpu(opt, report, logs, job->built);
  strbuf found;
  sb_init(&found);
  sb_printf(&found, "present\t%d\n", report->gpu_present);
  if (report->gpu_name) put_line(&found, "name", report->gpu_name);
  if (report->no_gpu_reason) put_line(&found, "no-gpu", report->no_gpu_reason);
  for (size_t i = job->problems; i < report->problems.count; i++) {
    put_line(&found, "problem", report->problems.items[i]);
  }
  const int written = write_file_atomic(job->result, found.data, found.len) == 0;
  fflush(NULL);
  _exit(written ? 0 : 1);
}

void run_probe_finish(const grade_options *opt, grade_report *report, const char *logs,
                         probe_job *job) {
  const int status = job->pid > 0 ? wait_exit_status(job->pid) : -1;
  char *text = status == 0 ? read_file(job->result, NULL) : NULL;
  if (text == NULL) {
    if (job->pid > 0) run_progress(opt, "the GPU probe beside the build did not finish; again");
    probe_gpu(opt, report, logs, job->built); /* no child, or it failed: here, after the build */
  } else {
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
      char *value = strchr(line, '\t');
      if (value == NULL) continue;
      *value++ = '\0';
      if (strcmp(line, "present") == 0) report->gpu_present = atoi(value);
      else if (strcmp(line, "name") == 0) report->gpu_name = xstrdup(value);
      else if (strcmp(line, "no-gpu") == 0) report->no_gpu_reason = xstrdup(value);
      else if (strcmp(line, "problem") == 0) sl_push(&report->problems, value);
    }
    free(text);
  }
  free(job->result);
}

/* The static audit of the lab's exercise files, as just built; what kept it from checking
 * fully is a grading problem (the grader's, not the student's). */
