/* A grading run's build (run_internal.h): the CMake cache, configuring, building the labs, and
 * the compiler's errors out of a build log. */
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

char *cmake_cache_get(const char *build_dir, const char *key) {
  char *path = path_join(build_dir, "CMakeCache.txt");
  char *text = read_file(path, NULL);
  free(path);
  if (text == NULL) return NULL;
  char *value = NULL;
  size_t key_length = strlen(key);
  for (char *line = text; line && *line;) {
    char *eol = strchr(line, '\n');
    if (eol) *eol = '\0';
    /* KEY:TYPE=VALUE */
    if (strncmp(line, key, key_length) == 0 && line[key_length] == ':') {
      char *equals = strchr(line, '=');
      if (equals) {
        value = trim_copy(equals + 1, strlen(equals + 1));
        break;
      }
    }
    line = eol ? eol + 1 : NULL;
  }
  free(text);
  return value;
}

/* Lines of build output that are the build tool's own, not the compiler's. */
static int is_tool_line(const char *line) {
  return starts_with(line, "make") || starts_with(line, "gmake") || starts_with(line, "ninja") ||
         starts_with(line, "[") || starts_with(line, "$ ") || starts_with(line, "Consolidate") ||
         starts_with(line, "Scanning dependencies");
}

static int is_error_line(const char *line) {
  return strstr(line, "error:") != NULL || strstr(line, "error :") != NULL ||
         strstr(line, "): error") != NULL || strstr(line, "undefined reference") != NULL ||
         starts_with(line, "CMake Error");
}

char *build_errors_of(const char *log_text, const char *source_dir) {
  strlist lines;
  sl_init(&lines);
  for (const char *line = log_text; *line;) {
    const char *eol = strchr(line, '\n');
    size_t length = eol ? (size_t)(eol - line) : strlen(line);
    sl_push_owned(&lines, xstrndup(line, length));
    if (!eol) break;
    line = eol + 1;
  }
  size_t first = lines.count;
  for (size_t i = 0; i < lines.count && first == lines.count; i++) {
    if (!is_tool_line(lines.items[i]) && is_error_line(lines.items[i])) first = i;
  }
  if (first == lines.count) {
    sl_free(&lines);
    return NULL;
  }
  char *prefix = xasprintf("%s/", source_dir);
  strbuf sb;
  sb_init(&sb);
  size_t kept = 0;
  for (size_t i = first; i < lines.count && kept < 12; i++) {
    const char *line = lines.items[i];
    if (is_tool_line(line) || line[0] == '\0') continue;
    /* "…/work/src/labs/scan/scan.cu(12): error: …" reads better as "labs/scan/scan.cu(12): …" */
    for (const char *p = line; *p;) {
      if (strncmp(p, prefix, strlen(prefix)) == 0) {
        p += strlen(prefix);
      } else {
        sb_append_char(&sb, *p++);
      }
    }
    sb_append_char(&sb, '\n');
    kept++;
  }
  free(prefix);
  sl_free(&lines);
  return sb_steal(&sb);
}

int run_configure(const grade_options *opt, const char *source_dir, const char *build_dir,
                     const char *log_path) {
  strlist args;
  sl_init(&args);
  sl_push(&args, opt->cmake);
  sl_push(&args, "-S");
  sl_push(&args, source_dir);
  sl_push(&args, "-B");
  sl_push(&args, build_dir);
  /* A submission's copy is the grader's own: its test programs also run as a few processes of
   * many test cases each (run_ctest), which an instructor may change with --cmake-arg. A
   * student's tree graded in place keeps one process per test case, as the student's ctest. */
  if (opt->submission != NULL) sl_push(&args, "-DGPULABS_GRADER_SHARDS=" GRADER_SHARDS);
  /* No device source lines for the tools in the grader's builds: a shorter compile. */
  if (opt->submission != NULL) sl_push(&args, "-DGPULABS_LINE_INFO=OFF");
  for (size_t i = 0; i < opt->configure_args.count; i++) sl_push(&args, opt->configure_args.items[i]);
  sl_push(&args, "-DLAB_IMPL=labs");
  /* Each grade starts with the student's own code everywhere (use_dependencies). */
  sl_push(&args, "-DGPULABS_REFERENCE_LABS=");
  sl_push_owned(&args, NULL);
  int rc = run_logged(args.items, log_path);
  sl_free(&args);
  return rc;
}

int run_build_target(const grade_options *opt, const char *build_dir, const char *target,
                        const char *log_path) {
  char jobs[16];
  snprintf(jobs, sizeof jobs, "%d", opt->jobs);
  char *argv[] = {(char *)opt->cmake, "--build", (char *)build_dir, "--target", (char *)target,
                  "--parallel", jobs, NULL};
  return run_logged(argv, log_path);
}

/* When every lab is graded: one parallel build of them all (lab_all_tests), so that they compile
 * side by side; each lab's own build after it (lab_build) then finds little left to do and gives
 * that lab's status and log. A lab that does not compile leaves the others building (-k). */
void run_build_all_labs(const grade_options *opt, grade_report *report, const char *logs) {
  size_t graded = 0;
  for (size_t i = 0; i < report->n_labs; i++) graded += report->labs[i].state == LAB_GRADED;
  if (graded < 2 || graded != opt->all_labs.count) return;
  char jobs[16];
  snprintf(jobs, sizeof jobs, "%d", opt->jobs);
  char *generator = cmake_cache_get(report->build_dir, "CMAKE_GENERATOR");
  const int ninja = generator && strcmp(generator, "Ninja") == 0;
  const int make = generator && strcmp(generator, "Unix Makefiles") == 0;
  free(generator);
  /* Keep going past a failure: make's -k, ninja's -k 0 (the list ends at the first NULL). */
  char *argv[] = {(char *)opt->cmake, "--build", report->build_dir, "--parallel", jobs, "--target",
                  "lab_all_tests", ninja || make ? "--" : NULL, "-k", ninja ? "0" : NULL, NULL};
  char *log = path_join(logs, "build-all.log");
  run_progress(opt, "building every lab");
  double t = now_seconds();
  if (run_logged(argv, log) == 0) { /* each lab's own build reports its errors */
    char *stamp = path_join(report->build_dir, BUILT_STAMP);
    write_file_atomic(stamp, "", 0);
    free(stamp);
  }
  report->phase[PHASE_BUILD] += now_seconds() - t;
  free(log);
}

/* Runs the tests carrying both labels and appends what the JUnit file holds to `tests`.
 * Returns 0, or -1 with the cause in `why`. */
/* The layers of the lab worker's sandbox, as the first test program that started a worker
 * printed them (grader/README.md, "The lab worker"): "[ gpulabs  ] lab worker <pid>, sandbox:
 * <layers>" at the start of a line. The worker's own lines all start with "[lab worker] ", so
 * none of them can pass for it. NULL when no worker ran. */
