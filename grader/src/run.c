/* One grading run. CTest is the only test runner: per lab the grader builds lab_<lab>_tests
 * (so a build error costs that lab only), runs the lab's correctness tests in parallel and its
 * performance tests one at a time, reads CTest's JUnit files and scores them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "grade.h"
#include "proc.h"
#include "reaper.h"
#include "submission.h"

/* In a build tree, once every lab has been built in it (probe_start says why it matters). */
#define BUILT_STAMP "gpulabs-labs-built.stamp"

/* Output CTest keeps per test in its JUnit file: enough for every test case of a shard (the lab
 * worker forwards at most 1 MiB per test program). */
#define OUTPUT_BYTES_PASSED "8388608"
#define OUTPUT_BYTES_FAILED "8388608"
/* Processes per test program in a submission's build (GPULABS_GRADER_SHARDS): enough that a
 * program's test cases share the cores, few enough that starting each process and its lab
 * worker (two CUDA contexts, which the driver makes one at a time) does not eat the gain. */
#define GRADER_SHARDS "4"

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

static void progress(const grade_options *opt, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One write a line: graders side by side (--gpus) share stderr, and a line written in pieces
 * could be cut by another grader's ("grade: [GPU 0, slot 0] carol: grade: [GPU 0, slot 1] dave:
 * ..."), which a reader waiting for carol's line never sees. */
static void progress(const grade_options *opt, const char *format, ...) {
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
static int load_rubric(const char *source_dir, const char *lab, rubric *r, strbuf *errors) {
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

static int configure(const grade_options *opt, const char *source_dir, const char *build_dir,
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

static int build_target(const grade_options *opt, const char *build_dir, const char *target,
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
static void build_all_labs(const grade_options *opt, grade_report *report, const char *logs) {
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
  progress(opt, "building every lab");
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
static char *sandbox_layers(const char *xml) {
  static const char marker[] = "[ gpulabs  ] lab worker ";
  for (const char *p = strstr(xml, marker); p != NULL; p = strstr(p + 1, marker)) {
    if (p != xml && p[-1] != '\n' && p[-1] != '>') continue;
    const char *layers = strstr(p, ", sandbox: ");
    const char *end = p + strcspn(p, "\r\n<&");
    if (layers == NULL || layers > end) continue;
    layers += strlen(", sandbox: ");
    return xasprintf("%.*s", (int)(end - layers), layers);
  }
  return NULL;
}

/* "ctest --test-dir BUILD" followed by `more` (NULL-terminated), into args. */
static void ctest_command(strlist *args, const grade_options *opt, const char *build_dir,
                          char *const more[]) {
  sl_push(args, opt->ctest);
  sl_push(args, "--test-dir");
  sl_push(args, build_dir);
  for (size_t i = 0; more[i] != NULL; i++) sl_push(args, more[i]);
}

/* Processes the tests left running, ended by the sweeps of this grade (reaper.h). */
static strlist left_behind;

/* One CTest run: `select` holds its -L/-LE/-R options (NULL-terminated); the JUnit file's tests
 * are appended to `found`, with the statuses CTest's console log adds, not yet classified. The
 * JUnit text is kept in *xml_out when asked for. 0, or -1 with the cause in `why`. */
static int ctest_once(const grade_options *opt, const char *build_dir, char *const select[],
                      int parallel, const char *junit_path, const char *log_path,
                      test_list *found, strbuf *why, char **xml_out) {
  char jobs[16];
  snprintf(jobs, sizeof jobs, "%d", parallel ? opt->jobs : 1);
  strlist args;
  sl_init(&args);
  ctest_command(&args, opt, build_dir, select);
  char *rest[] = {"--parallel", jobs, "--output-junit", (char *)junit_path,
                  "--test-output-size-passed", OUTPUT_BYTES_PASSED,
                  "--test-output-size-failed", OUTPUT_BYTES_FAILED, "--no-tests=ignore", NULL};
  for (size_t i = 0; rest[i] != NULL; i++) sl_push(&args, rest[i]);
  sl_push_owned(&args, NULL);
  remove(junit_path);
  remove(log_path);
  int status = run_logged(args.items, log_path);
  sl_free(&args);
  /* Before the JUnit file is read: nothing the tests started may still be running to change it. */
  reaper_sweep(&left_behind);
  size_t length = 0;
  char *xml = read_file(junit_path, &length);
  if (xml == NULL) {
    sb_printf(why, "CTest wrote no JUnit file (exit status %d); see %s", status, log_path);
    return -1;
  }
  char err[256];
  size_t before = found->count;
  if (junit_read(xml, length, found, err, sizeof err) != 0) {
    sb_printf(why, "cannot read CTest's JUnit file %s: %s", junit_path, err);
    free(xml);
    return -1;
  }
  char *log = read_file(log_path, NULL);
  if (log) {
    test_list mine = {found->items + before, found->count - before, found->count - before};
    ctest_log_apply(log, &mine);
  }
  free(log);
  if (xml_out) *xml_out = xml;
  else free(xml);
  return 0;
}

/* A regular expression for CTest's -R that matches exactly these test names. */
static char *names_regex(const strlist *names) {
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "^(");
  for (size_t i = 0; i < names->count; i++) {
    if (i) sb_append_char(&sb, '|');
    for (const char *c = names->items[i]; *c; c++) {
      if (strchr(".[]()*+?^$|\\{}", *c)) sb_append_char(&sb, '\\');
      sb_append_char(&sb, *c);
    }
  }
  sb_append(&sb, ")$");
  char *text = sb_steal(&sb);
  sb_free(&sb);
  return text;
}

/* The names of the tests CTest would run for `select` ("ctest -N"), and when `labels` is not
 * NULL each one's labels, space-separated ("ctest -N -V" prints a "Labels:" line before the
 * name of each test that has some). */
static void ctest_names(const grade_options *opt, const char *build_dir, char *const select[],
                        strlist *names, strlist *labels) {
  strlist args;
  sl_init(&args);
  ctest_command(&args, opt, build_dir, select);
  sl_push(&args, "-N");
  if (labels != NULL) sl_push(&args, "-V");
  sl_push_owned(&args, NULL);
  size_t length = 0;
  char *text = run_capture(args.items, &length);
  sl_free(&args);
  char *current = NULL; /* the labels of the test being described */
  for (const char *line = text ? text : ""; *line;) {
    const char *eol = strchr(line, '\n');
    size_t n = eol ? (size_t)(eol - line) : strlen(line);
    const char *colon = memchr(line, ':', n);
    const char *hash = memchr(line, '#', n);
    if (hash && colon && colon > hash && strncmp(line, "  Test", 6) == 0) {
      const char *name = colon + 1;
      while (name < line + n && *name == ' ') name++;
      sl_push_owned(names, xstrndup(name, (size_t)(line + n - name)));
      if (labels != NULL) sl_push_owned(labels, current ? current : xstrdup(""));
      current = NULL;
    } else if (labels != NULL && strncmp(line, "Labels:", 7) == 0) {
      free(current);
      current = xstrndup(line + 7, n - 7);
    }
    line = eol ? eol + 1 : line + n;
  }
  free(current);
  free(text);
}

/* Moves a CTest run's tests into `cases`: each shard's as the test cases it ran (their names
 * into `seen`), the others as they are. 0 when a shard ended before its last case. */
static int split_shards(test_list *found, test_list *cases, strlist *seen) {
  int complete = 1;
  for (size_t i = 0; i < found->count; i++) {
    test_result *t = &found->items[i];
    if (!starts_with(t->name, "shard-")) {
      *tests_add(cases) = *t;
      memset(t, 0, sizeof *t);
      continue;
    }
    size_t before = cases->count;
    if (!gtest_split_shard(t, cases)) complete = 0;
    for (size_t c = before; c < cases->count; c++) sl_push(seen, cases->items[c].name);
  }
  return complete;
}

/* After a shard ended early: the lab's sharded test cases of this kind that no shard reached
 * (none in `seen`), each run in a process of its own, into `cases`. 0, or -1 with `why`. */
static int run_missing(const grade_options *opt, const char *build_dir, const char *lab_regex,
                       const char *kind_label, int parallel, const char *junit_path,
                       const char *log_path, const strlist *seen, test_list *cases,
                       strbuf *why) {
  char *one_kind = xasprintf("^%s$", kind_label);
  char *select_sharded[] = {"-L", (char *)lab_regex, "-L", one_kind, "-L", "^sharded$", NULL};
  strlist expected, missing;
  sl_init(&expected);
  sl_init(&missing);
  ctest_names(opt, build_dir, select_sharded, &expected, NULL);
  for (size_t i = 0; i < expected.count; i++) {
    /* CTest names a parameterized case "Suite/Case/0  # GetParam() = 3"; Google Test's
     * [ RUN ] line, and so the shard's case, says "Suite/Case/0". */
    const char *name = expected.items[i];
    const char *comment = strstr(name, "  # ");
    char *base = comment ? xstrndup(name, (size_t)(comment - name)) : xstrdup(name);
    if (!sl_contains(seen, base)) sl_push(&missing, name);
    free(base);
  }
  int rc = 0;
  if (missing.count > 0) {
    char *regex = names_regex(&missing);
    char *junit2 = xasprintf("%s.rest.xml", junit_path);
    char *log2 = xasprintf("%s.rest.log", log_path);
    char *select_rest[] = {"-L", (char *)lab_regex, "-L", one_kind, "-R", regex, NULL};
    rc = ctest_once(opt, build_dir, select_rest, parallel, junit2, log2, cases, why, NULL);
    free(regex);
    free(junit2);
    free(log2);
  }
  sl_free(&expected);
  sl_free(&missing);
  free(one_kind);
  return rc;
}

/* Runs a lab's tests of one kind and appends their verdicts to `tests`. With shards in the
 * build (GPULABS_GRADER_SHARDS), each test program runs as a few processes of many test cases
 * (the "<kind>-shards" tests), and each case's verdict is read out of its process's output; the
 * test cases a shard never reached (its process crashed or timed out) then run one to a process,
 * as without shards. Returns 0, or -1 with the cause in `why`. */
static int run_ctest(const grade_options *opt, const char *build_dir, const char *lab_label,
                     const char *kind_label, int parallel, const char *junit_path,
                     const char *log_path, test_list *tests, strbuf *why, char **sandbox) {
  char *lab_regex = xasprintf("^%s$", lab_label);
  char *kind_regex = xasprintf("^%s(-shards)?$", kind_label);
  char *select[] = {"-L", lab_regex, "-L", kind_regex, "-LE", "^sharded$", NULL};
  test_list found, cases;
  tests_init(&found);
  tests_init(&cases);
  strlist seen;
  sl_init(&seen);
  char *xml = NULL;
  int rc = ctest_once(opt, build_dir, select, parallel, junit_path, log_path, &found, why, &xml);
  if (rc == 0 && !split_shards(&found, &cases, &seen)) {
    rc = run_missing(opt, build_dir, lab_regex, kind_label, parallel, junit_path, log_path,
                     &seen, &cases, why);
  }
  if (rc == 0 && sandbox != NULL && *sandbox == NULL) *sandbox = sandbox_layers(xml);
  free(xml);
  tests_classify(&cases);
  for (size_t i = 0; i < cases.count; i++) *tests_add(tests) = cases.items[i];
  free(cases.items);
  tests_free(&found);
  sl_free(&seen);
  free(lab_regex);
  free(kind_regex);
  return rc;
}

/* grade --batch --gpus: graders may share a GPU (--gpus 0,0), so a submission's tests run under
 * the GPU's lock: shared for correctness tests (and the GPU probe), which may overlap with
 * another grader's, exclusive for performance tests, which are timed with nothing else on the
 * GPU. Returns the lock's descriptor, or -1 when there is none to take (a plain run) or it could
 * not be taken (a grading problem: the tests run all the same). */
static int lock_gpu(const grade_options *opt, grade_report *report, int exclusive) {
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
    progress(opt, "waited %.0f s for the GPU (%s)", waited,
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
  progress(opt, "checking for a GPU (common's GPU tests)");
  if (!built) {
    sl_push_owned(&report->problems,
                  xasprintf("the GPU probe (test_common_gpu) did not build; see %s", build_log));
  } else {
    int lock = lock_gpu(opt, report, 0);
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

/* The GPU probe beside the build: it needs nothing the build makes, so its second or so need
 * not be added to every submission's time. test_common_gpu is built first, since two builds in one
 * tree at once could both rebuild what they share; then a child of the grader runs the probe
 * and leaves what it found in logs/gpu-probe.result for probe_finish: "present", "name",
 * "no-gpu" and "problem" lines. Only in a tree whose labs were all built once (BUILT_STAMP): the
 * probe's CTest runs the test discovery of every test program in the tree, which fails on a
 * program being linked, as in a first build. pid -1: no child (probe_finish runs the probe). */
typedef struct probe_job {
  pid_t pid;
  int built;
  char *result;
  size_t problems; /* report->problems before the probe */
} probe_job;

static void put_line(strbuf *sb, const char *key, const char *value) {
  sb_printf(sb, "%s\t", key);
  for (const char *c = value; *c; c++) sb_append_char(sb, *c == '\n' ? ' ' : *c);
  sb_append_char(sb, '\n');
}

static void probe_start(const grade_options *opt, grade_report *report, const char *logs,
                        probe_job *job) {
  char *build_log = path_join(logs, "gpu-probe-build.log");
  job->built = build_target(opt, report->build_dir, "test_common_gpu", build_log) == 0;
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

static void probe_finish(const grade_options *opt, grade_report *report, const char *logs,
                         probe_job *job) {
  const int status = job->pid > 0 ? wait_exit_status(job->pid) : -1;
  char *text = status == 0 ? read_file(job->result, NULL) : NULL;
  if (text == NULL) {
    if (job->pid > 0) progress(opt, "the GPU probe beside the build did not finish; again");
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
static void audit_built_lab(const grade_options *opt, grade_report *report, lab_result *lab) {
  audit_lab(&lab->rubric.audit, report->build_dir, report->source_dir, lab->lab, &lab->audit);
  for (size_t i = 0; i < lab->audit.problems.count; i++) {
    sl_push_owned(&report->problems, xasprintf("%s: %s", lab->lab, lab->audit.problems.items[i]));
  }
  for (size_t i = 0; i < lab->audit.count; i++) {
    char *text = audit_finding_text(&lab->audit.findings[i]);
    progress(opt, "%s: audit: %s", lab->lab, text);
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
  progress(opt, "%s: building %s", lab->lab, target);
  remove(build_log);
  double t = now_seconds();
  int build_status = build_target(opt, report->build_dir, target, build_log);
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
    progress(opt, "%s: did not build: %s", lab->lab, first ? first : "see the log");
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
  int lock = lock_gpu(opt, report, kind == 1);
  progress(opt, "%s: running the %s tests", lab->lab, kinds[kind]);
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
  progress(opt, "%s: %.2f of %.2f points (%zu tests)%s", lab->lab, t.score, t.max_score,
           lab->tests.count, t.not_scored > 0 ? ", some items not scored" : "");
}

/* One lab from start to end: build, audit, correctness tests, performance tests (unless
 * correctness_only, or on the CPU backend), scores. */
static void grade_lab(const grade_options *opt, grade_report *report, lab_result *lab,
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
  progress(opt, "running the correctness tests of %s", names_text.data);
  sb_free(&names_text);
  char *select[] = {"-L", regex.data, "-L", "^correctness(-shards)?$", "-LE", "^sharded$", NULL};
  strlist names, labels;
  sl_init(&names);
  sl_init(&labels);
  ctest_names(opt, report->build_dir, select, &names, &labels);
  char *junit = path_join(logs, "correctness.xml");
  char *log = path_join(logs, "correctness.log");
  int lock = lock_gpu(opt, report, 0);
  test_list found;
  tests_init(&found);
  strbuf why;
  sb_init(&why);
  char *xml = NULL;
  int rc = ctest_once(opt, report->build_dir, select, 1, junit, log, &found, &why, &xml);
  if (rc == 0 && report->sandbox == NULL) report->sandbox = sandbox_layers(xml);
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
    if (!split_shards(&mine[k], &cases, &seen)) {
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

/* ---- labs that use another lab ---- */

/* Why a lab's code cannot be trusted by the labs that use it, or NULL: it did not build, a test
 * failed, or the audit charged it. */
static char *lab_failure(const lab_result *dep) {
  if (dep->state == LAB_BUILD_FAILED) return xstrdup("did not build");
  if (dep->state != LAB_GRADED) return xstrdup("could not be graded");
  for (size_t i = 0; i < dep->tests.count; i++) {
    const test_result *t = &dep->tests.items[i];
    if (t->status == TEST_FAILED) return xasprintf("failed a test (%s)", t->name);
  }
  if (dep->audit.count > 0 && dep->rubric.audit.cost != 0) {
    char *text = audit_finding_text(&dep->audit.findings[0]);
    char *why = xasprintf("failed the audit (%s)", text);
    free(text);
    return why;
  }
  return NULL;
}

/* The verdict on lab `name` of this run, or one made now for the purpose (its correctness
 * tests and audit, not reported) when the run does not grade it. */
static char *dependency_failure(const grade_options *opt, grade_report *report, const char *name,
                                const score_context *ctx, const char *logs) {
  for (size_t i = 0; i < report->n_labs; i++) {
    if (strcmp(report->labs[i].lab, name) == 0) return lab_failure(&report->labs[i]);
  }
  grade_report scratch;
  report_init(&scratch);
  scratch.source_dir = xstrdup(report->source_dir);
  scratch.build_dir = xstrdup(report->build_dir);
  lab_result *dep = report_add_lab(&scratch, name);
  strbuf errors;
  sb_init(&errors);
  char *why;
  if (load_rubric(report->source_dir, name, &dep->rubric, &errors) != 0) {
    why = xasprintf("has a rubric with errors");
  } else {
    progress(opt, "%s: checking it for the labs that use it", name);
    grade_lab(opt, &scratch, dep, ctx, logs, 1);
    why = lab_failure(dep);
  }
  sb_free(&errors);
  report_free(&scratch);
  return why;
}

/* Before a lab that uses others (its rubric's uses lines): picks, for each, the student's code
 * or the reference, and configures the build tree to match (GPULABS_REFERENCE_LABS; changed
 * only when a used lab failed, so a good submission costs no time). Returns 0, or -1 when the
 * build tree would not configure. */
static int use_dependencies(const grade_options *opt, grade_report *report, lab_result *lab,
                            const score_context *ctx, const char *logs, strlist *references) {
  strlist wanted;
  sl_init(&wanted);
  for (size_t u = 0; u < lab->rubric.n_uses; u++) {
    const rubric_use *use = &lab->rubric.uses[u];
    char *why = dependency_failure(opt, report, use->lab, ctx, logs);
    if (why == NULL) continue;
    char *solutions = xasprintf("solutions/%s", use->lab);
    char *path = path_join(report->source_dir, solutions);
    char *note;
    int own_is_reference = strcmp(report->lab_impl, "solutions") == 0;
    if (!use->reference) {
      note = xasprintf("graded with your %s, which %s (the rubric says: uses %s "
                       "fallback=student)", use->lab, why, use->lab);
    } else if (own_is_reference) {
      note = xasprintf("graded with this build's %s (LAB_IMPL=solutions), which %s", use->lab, why);
    } else if (dir_exists(path)) {
      sl_push(&wanted, use->lab);
      note = xasprintf("graded with the reference %s: your %s %s, and the %s lab alone loses "
                       "points for it", use->lab, use->lab, why, use->lab);
    } else {
      note = xasprintf("graded with your %s, which %s: this copy of the course has no reference "
                       "%s (%s/ is not in the student release)", use->lab, why, use->lab, solutions);
    }
    if (lab->note) {
      char *both = xasprintf("%s; %s", lab->note, note);
      free(note);
      note = both;
    }
    free(lab->note);
    lab->note = note;
    free(path);
    free(solutions);
    free(why);
  }
  /* The build tree's value, as CMake keeps a list: "scan;radix". */
  strbuf value;
  sb_init(&value);
  for (size_t i = 0; i < wanted.count; i++) sb_printf(&value, "%s%s", i ? ";" : "", wanted.items[i]);
  char *current = cmake_cache_get(report->build_dir, "GPULABS_REFERENCE_LABS");
  int rc = 0;
  if (strcmp(current ? current : "", value.data) != 0) {
    char *name = xasprintf("%s-configure.log", lab->lab);
    char *log = path_join(logs, name);
    char *define = xasprintf("-DGPULABS_REFERENCE_LABS=%s", value.data);
    char *argv[] = {(char *)opt->cmake, "-S", report->source_dir, "-B", report->build_dir, define, NULL};
    progress(opt, "%s: configuring the build with %s", lab->lab, define);
    remove(log);
    if (run_logged(argv, log) != 0) rc = -1;
    free(define);
    free(log);
    free(name);
  }
  free(current);
  for (size_t i = 0; i < wanted.count; i++) {
    if (!sl_contains(references, wanted.items[i])) sl_push(references, wanted.items[i]);
  }
  sb_free(&value);
  sl_free(&wanted);
  return rc;
}

/* Each item of a lab graded with a reference says so. */
static void note_references(lab_result *lab, const strlist *used) {
  for (size_t i = 0; i < lab->n_items; i++) {
    item_result *item = &lab->items[i];
    for (size_t u = 0; u < used->count; u++) {
      char *note = item->note ? xasprintf("%s; graded with the reference %s", item->note, used->items[u])
                              : xasprintf("graded with the reference %s", used->items[u]);
      free(item->note);
      item->note = note;
    }
  }
}

/* Lays the submission over a pristine copy of the course and configures its build. */
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
  progress(opt, "copying the course to %s and laying the submission over it", src);
  int rc = tree_sync(opt->source_dir, src, &rules, &ov, &stats, &err);
  if (rc != 0) {
    sl_push_owned(&report->problems, xasprintf("cannot prepare the copy of the course: %s", err.data));
  } else {
    progress(opt, "%zu files written, %zu unchanged, %zu removed", stats.copied, stats.unchanged,
             stats.removed);
    char *log = path_join(logs, "configure.log");
    remove(log);
    progress(opt, "configuring %s", build);
    int status = configure(opt, src, build, log);
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

int grade_run(const grade_options *opt, grade_report *report) {
  double start = now_seconds();
  if (reaper_adopt() != 0) {
    sl_push_owned(&report->problems, xasprintf("cannot adopt the tests' orphans "
                                               "(PR_SET_CHILD_SUBREAPER): %s", strerror(errno)));
  }
  sl_free(&left_behind);
  sl_init(&left_behind);
  report->started_at = utc_now();
  char *logs = path_join(opt->out_dir, "logs");
  if (mkdir_p(logs) != 0) {
    sl_push_owned(&report->problems, xasprintf("cannot make %s: %s", logs, strerror(errno)));
  }
  report->source_dir = xstrdup(opt->source_dir);
  report->submission = opt->submission ? xstrdup(opt->submission) : NULL;

  /* The rubrics come from the pristine course, never from a submission; in place, from the
   * tree the build was configured from (which --build-dir may point at). */
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
      if (load_rubric(rubric_root, name, &lab->rubric, &errors) != 0) {
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

  int ready = 1;
  double t = now_seconds();
  if (opt->submission) {
    ready = prepare_submission(opt, report, logs) == 0;
  } else {
    report->build_dir = xstrdup(opt->build_dir);
    char *cache = path_join(report->build_dir, "CMakeCache.txt");
    if (!file_exists(cache)) {
      char *log = path_join(logs, "configure.log");
      remove(log);
      progress(opt, "configuring %s (LAB_IMPL=labs)", report->build_dir);
      int status = configure(opt, opt->source_dir, report->build_dir, log);
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
  report->phase[PHASE_PREPARE] += now_seconds() - t;
  if (report->lab_impl == NULL) report->lab_impl = xstrdup("labs");
  if (report->backend == NULL) report->backend = xstrdup("cuda");
  score_context ctx = {0, strcmp(report->backend, "sim") == 0};
  t = now_seconds();
  probe_job probe = {-1, 0, NULL, 0};
  if (ready && !ctx.cpu_backend) probe_start(opt, report, logs, &probe);
  report->phase[PHASE_GPU_PROBE] += now_seconds() - t;

  /* Every lab built (one parallel build, then each lab's for its status and log) and audited,
   * then every lab's correctness tests side by side, all with the student's own code. */
  char **build_notes = xcalloc(report->n_labs + 1, sizeof *build_notes);
  if (ready) {
    build_all_labs(opt, report, logs);
    for (size_t i = 0; i < report->n_labs; i++) {
      lab_result *lab = &report->labs[i];
      if (lab->state != LAB_GRADED) continue;
      double began = now_seconds();
      lab_build(opt, report, lab, logs);
      lab->seconds += now_seconds() - began;
      build_notes[i] = lab->note; /* "did not build; ...": the labs it uses may change that */
      lab->note = NULL;
    }
    t = now_seconds(); /* what is left of the probe when the build is done */
    if (!ctx.cpu_backend) probe_finish(opt, report, logs, &probe);
    report->phase[PHASE_GPU_PROBE] += now_seconds() - t;
    ctx.gpu_present = report->gpu_present;
    correctness_together(opt, report, logs);
  }
  /* Then lab by lab: the labs it uses (a lab tested with a used lab that failed is built and
   * tested again against the reference), its performance tests, its scores. */
  for (size_t i = 0; i < report->n_labs; i++) {
    lab_result *lab = &report->labs[i];
    if (!ready) {
      if (lab->state == LAB_GRADED) {
        lab_not_graded(lab, xstrdup("not graded: the build tree could not be prepared"));
      }
      continue;
    }
    /* No rubric, a rubric with errors, or correctness tests that could not be run. */
    if (lab->state == LAB_NO_RUBRIC || lab->state == LAB_ERROR) {
      free(build_notes[i]);
      continue;
    }
    strlist references;
    sl_init(&references);
    t = now_seconds();
    int deps = use_dependencies(opt, report, lab, &ctx, logs, &references);
    report->phase[PHASE_DEPENDENCIES] += now_seconds() - t;
    double began = now_seconds();
    if (deps != 0) {
      free(build_notes[i]);
      lab_reset(lab);
      lab_not_graded(lab, xasprintf("not graded: the build tree would not configure for the "
                                    "labs it uses; see logs/%s-configure.log", lab->lab));
      sl_push_owned(&report->problems, xasprintf("%s: %s", lab->lab, lab->note));
    } else if (references.count > 0) {
      free(build_notes[i]);
      lab_reset(lab);
      progress(opt, "%s: building and testing it again with the reference %s", lab->lab,
               references.items[0]);
      grade_lab(opt, report, lab, &ctx, logs, 0);
      note_references(lab, &references);
    } else {
      if (build_notes[i] != NULL) {
        char *both = lab->note ? xasprintf("%s; %s", build_notes[i], lab->note)
                               : xstrdup(build_notes[i]);
        free(build_notes[i]);
        free(lab->note);
        lab->note = both;
      }
      if (lab->state == LAB_GRADED && !ctx.cpu_backend) lab_tests_locked(opt, report, lab, 1, logs);
      lab_score(opt, lab, &ctx);
    }
    lab->seconds += now_seconds() - began;
    sl_free(&references);
  }
  free(build_notes);
  /* The build tree goes back to the student's own code (the student's next ctest, the next
   * submission of a batch). */
  t = now_seconds();
  char *left = ready ? cmake_cache_get(report->build_dir, "GPULABS_REFERENCE_LABS") : NULL;
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
  free(logs);
  report->phase[PHASE_DEPENDENCIES] += now_seconds() - t;
  for (size_t i = 0; i < report->n_labs; i++) {
    for (int p = 0; p < PHASE_COUNT; p++) report->phase[p] += report->labs[i].phase[p];
  }
  /* Nothing of the submission's may outlive its grade: the reports come after this. */
  reaper_sweep(&left_behind);
  if (left_behind.count > 0) {
    strbuf names;
    sb_init(&names);
    for (size_t i = 0; i < left_behind.count && i < 8; i++) {
      sb_printf(&names, "%s%s", i ? ", " : "", left_behind.items[i]);
    }
    sl_push_owned(&report->problems,
                  xasprintf("the tests left %zu process%s running (%s%s); %s ended before any "
                            "result was read", left_behind.count,
                            left_behind.count == 1 ? "" : "es", names.data,
                            left_behind.count > 8 ? ", ..." : "",
                            left_behind.count == 1 ? "it was" : "they were"));
    sb_free(&names);
  }
  sl_free(&left_behind);
  sl_init(&left_behind);
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
