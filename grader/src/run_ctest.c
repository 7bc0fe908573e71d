/* A grading run's use of CTest (run_internal.h): the command, one run of a selection, the test
 * cases a program has, and the ones a shard never ran. */
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

char *run_sandbox_layers(const char *xml) {
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

/* run_internal.h */
strlist run_left_behind;

/* One CTest run: `select` holds its -L/-LE/-R options (NULL-terminated); the JUnit file's tests
 * are appended to `found`, with the statuses CTest's console log adds, not yet classified. The
 * JUnit text is kept in *xml_out when asked for. 0, or -1 with the cause in `why`. */
int run_ctest_once(const grade_options *opt, const char *build_dir, char *const select[],
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
  reaper_sweep(&run_left_behind);
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
void run_ctest_names(const grade_options *opt, const char *build_dir, char *const select[],
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
int run_split_shards(test_list *found, test_list *cases, strlist *seen) {
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
int run_missing(const grade_options *opt, const char *build_dir, const char *lab_regex,
                       const char *kind_label, int parallel, const char *junit_path,
                       const char *log_path, const strlist *seen, test_list *cases,
                       strbuf *why) {
  char *one_kind = xasprintf("^%s$", kind_label);
  char *select_sharded[] = {"-L", (char *)lab_regex, "-L", one_kind, "-L", "^sharded$", NULL};
  strlist expected, missing;
  sl_init(&expected);
  sl_init(&missing);
  run_ctest_names(opt, build_dir, select_sharded, &expected, NULL);
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
    rc = run_ctest_once(opt, build_dir, select_rest, parallel, junit2, log2, cases, why, NULL);
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
int run_ctest(const grade_options *opt, const char *build_dir, const char *lab_label,
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
  int rc = run_ctest_once(opt, build_dir, select, parallel, junit_path, log_path, &found, why, &xml);
  if (rc == 0 && !run_split_shards(&found, &cases, &seen)) {
    rc = run_missing(opt, build_dir, lab_regex, kind_label, parallel, junit_path, log_path,
                     &seen, &cases, why);
  }
  if (rc == 0 && sandbox != NULL && *sandbox == NULL) *sandbox = run_sandbox_layers(xml);
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
