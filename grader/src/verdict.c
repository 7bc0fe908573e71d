#define _POSIX_C_SOURCE 200809L
#include "verdict.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "xml.h"

/* The longest reason the grader keeps: one readable line in every report. */
#define REASON_MAX 300
/* An excerpt keeps at most this many lines of a test's output. */
#define EXCERPT_MAX_LINES 40

const char *test_status_name(test_status status) {
  switch (status) {
    case TEST_PASSED: return "passed";
    case TEST_FAILED: return "failed";
    case TEST_SKIPPED: return "skipped";
    case TEST_NOT_RUN: return "not run";
  }
  return "unknown";
}

void tests_init(test_list *tests) {
  tests->items = NULL;
  tests->count = 0;
  tests->cap = 0;
}

static void test_free(test_result *t) {
  free(t->name);
  free(t->output);
  free(t->ctest_status);
  free(t->reason);
  free(t->excerpt);
  for (size_t i = 0; i < t->n_metrics; i++) {
    free(t->metrics[i].name);
    free(t->metrics[i].detail);
  }
  free(t->metrics);
}

void tests_free(test_list *tests) {
  for (size_t i = 0; i < tests->count; i++) test_free(&tests->items[i]);
  free(tests->items);
  tests_init(tests);
}

test_result *tests_add(test_list *tests) {
  if (tests->count == tests->cap) {
    tests->cap = tests->cap ? tests->cap * 2 : 16;
    tests->items = xrealloc(tests->items, tests->cap * sizeof *tests->items);
  }
  test_result *t = &tests->items[tests->count++];
  memset(t, 0, sizeof *t);
  return t;
}

const test_result *tests_find(const test_list *tests, const char *name) {
  for (size_t i = 0; i < tests->count; i++) {
    if (strcmp(tests->items[i].name, name) == 0) return &tests->items[i];
  }
  return NULL;
}

/* ---- the JUnit file ---- */

static void read_testcase(const xml_node *node, test_list *tests) {
  const char *name = xml_attr_get(node, "name");
  if (name == NULL || name[0] == '\0') return;
  test_result *t = tests_add(tests);
  t->name = xstrdup(name);
  const char *time = xml_attr_get(node, "time");
  t->seconds = time ? strtod(time, NULL) : 0.0;
  if (!isfinite(t->seconds) || t->seconds < 0) t->seconds = 0;
  const xml_node *out = xml_child(node, "system-out");
  t->output = xstrdup(out ? out->text : "");

  const char *status = xml_attr_get(node, "status");
  const xml_node *skipped = xml_child(node, "skipped");
  const char *skip_message = skipped ? xml_attr_get(skipped, "message") : NULL;
  if (status == NULL) {
    /* Other JUnit writers mark the outcome by child elements only. */
    if (xml_child(node, "failure") || xml_child(node, "error")) t->status = TEST_FAILED;
    else if (skipped) t->status = TEST_SKIPPED;
    else t->status = TEST_PASSED;
  } else if (strcmp(status, "run") == 0) {
    t->status = TEST_PASSED;
  } else if (strcmp(status, "notrun") == 0) {
    /* CTest writes "notrun" both for a test that skipped itself (SKIP_REGULAR_EXPRESSION,
     * SKIP_RETURN_CODE) and for one it could not start. */
    if (skip_message == NULL || starts_with(skip_message, "SKIP_")) {
      t->status = TEST_SKIPPED;
    } else {
      t->status = TEST_NOT_RUN;
      t->ctest_status = xstrdup(skip_message);
    }
  } else if (strcmp(status, "disabled") == 0) {
    t->status = TEST_NOT_RUN;
    t->ctest_status = xstrdup("Disabled");
  } else {
    t->status = TEST_FAILED;
  }
}

static void read_suite(const xml_node *node, test_list *tests) {
  for (size_t i = 0; i < node->n_children; i++) {
    const xml_node *child = node->children[i];
    if (strcmp(child->name, "testcase") == 0) read_testcase(child, tests);
    else if (strcmp(child->name, "testsuite") == 0) read_suite(child, tests);
  }
}

int junit_read(const char *xml_text, size_t length, test_list *tests, char *err,
               size_t err_size) {
  xml_node *root = xml_parse(xml_text, length, err, err_size);
  if (root == NULL) return -1;
  if (strcmp(root->name, "testsuite") != 0 && strcmp(root->name, "testsuites") != 0) {
    snprintf(err, err_size, "the root element is <%s>, not <testsuite>", root->name);
    xml_free(root);
    return -1;
  }
  read_suite(root, tests);
  xml_free(root);
  return 0;
}

/* ---- a shard: one process, many test cases ---- */

static void split_lines(const char *text, strlist *lines);

/* "[       OK ] Suite.Case (12 ms)": the status line of test `name`, or 0. */
static int case_end(const char *line, const char *name, test_status *status, double *seconds) {
  static const struct {
    const char *tag;
    test_status status;
  } tags[] = {{"[       OK ] ", TEST_PASSED},
              {"[  FAILED  ] ", TEST_FAILED},
              {"[  SKIPPED ] ", TEST_SKIPPED}};
  for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
    if (!starts_with(line, tags[i].tag)) continue;
    const char *rest = line + strlen(tags[i].tag);
    size_t n = strlen(name);
    if (strncmp(rest, name, n) != 0 || (rest[n] != '\0' && rest[n] != ' ')) return 0;
    *status = tags[i].status;
    const char *ms = strstr(rest + n, " (");
    *seconds = ms ? strtod(ms + 2, NULL) / 1000.0 : 0.0;
    if (!isfinite(*seconds) || *seconds < 0) *seconds = 0;
    return 1;
  }
  return 0;
}

int gtest_split_shard(const test_result *shard, test_list *cases) {
  strlist lines;
  sl_init(&lines);
  split_lines(shard->output ? shard->output : "", &lines);
  static const char run_tag[] = "[ RUN      ] ";
  size_t first = 0;
  while (first < lines.count && !starts_with(lines.items[first], run_tag)) first++;
  int finished = 0;
  for (size_t i = first; i < lines.count;) {
    if (starts_with(lines.items[i], "[==========] ")) { /* the end of the run: its summary */
      finished = strstr(lines.items[i], " ran.") != NULL;
      break;
    }
    if (!starts_with(lines.items[i], run_tag)) {
      i++;
      continue;
    }
    const char *name = lines.items[i] + strlen(run_tag);
    size_t stop = i + 1;
    while (stop < lines.count && !starts_with(lines.items[stop], run_tag) &&
           !starts_with(lines.items[stop], "[==========] ")) {
      stop++;
    }
    test_result *t = tests_add(cases);
    t->name = trim_copy(name, strlen(name));
    t->status = TEST_FAILED;
    int ended = 0;
    strbuf out;
    sb_init(&out);
    for (size_t h = 0; h < first; h++) { /* the program's banner: the seed */
      if (starts_with(lines.items[h], "[ gpulabs  ] seed ")) sb_printf(&out, "%s\n", lines.items[h]);
    }
    for (size_t j = i; j < stop; j++) {
      sb_printf(&out, "%s\n", lines.items[j]);
      if (!ended) ended = case_end(lines.items[j], t->name, &t->status, &t->seconds);
    }
    if (!ended) {
      /* The process ended inside this test case: a crash, the watchdog, CTest's timeout. */
      t->ctest_status = shard->ctest_status ? xstrdup(shard->ctest_status) : NULL;
      if (stop == lines.count) t->seconds = shard->seconds;
    }
    t->output = sb_steal(&out);
    sb_free(&out);
    i = stop;
  }
  sl_free(&lines);
  return finished;
}

/* ---- CTest's console log ---- */

/* Parses "\t  7 - Fixture.Segfaults (SEGFAULT)" into name and status. CMake 4 adds the test's
 * labels after the status ("\t  7 - Fixture.Segfaults (SEGFAULT)   lab correctness gpu"), so
 * the status is the last parenthesis of the line, wherever the line ends. */
static int parse_listed_test(const char *line, size_t length, char **name, char **status) {
  const char *p = line, *end = line + length;
  while (p < end && isspace((unsigned char)*p)) p++;
  if (p == end || !isdigit((unsigned char)*p)) return 0;
  while (p < end && isdigit((unsigned char)*p)) p++;
  if (end - p < 3 || memcmp(p, " - ", 3) != 0) return 0;
  p += 3;
  const char *close = NULL;
  for (const char *q = end; q-- > p;) {
    if (*q == ')') {
      close = q;
      break;
    }
  }
  if (close == NULL) return 0;
  const char *open = NULL;
  for (const char *q = close; q > p; q--) {
    if (*q == '(' && q[-1] == ' ') {
      open = q;
      break;
    }
  }
  if (open == NULL || open - 1 == p) return 0;
  *name = xstrndup(p, (size_t)(open - 1 - p));
  *status = xstrndup(open + 1, (size_t)(close - open - 1));
  return 1;
}

void ctest_log_apply(const char *log_text, test_list *tests) {
  int in_list = 0;
  const char *line = log_text;
  while (*line) {
    const char *eol = strchr(line, '\n');
    size_t length = eol ? (size_t)(eol - line) : strlen(line);
    if (starts_with(line, "The following tests FAILED:") ||
        starts_with(line, "The following tests did not run:")) {
      in_list = 1;
    } else if (in_list) {
      char *name = NULL, *status = NULL;
      if (parse_listed_test(line, length, &name, &status)) {
        for (size_t i = 0; i < tests->count; i++) {
          if (strcmp(tests->items[i].name, name) == 0) {
            free(tests->items[i].ctest_status);
            tests->items[i].ctest_status = status;
            status = NULL;
            break;
          }
        }
        free(name);
        free(status);
      } else {
        in_list = 0;
      }
    }
    if (eol == NULL) break;
    line = eol + 1;
  }
}

/* ---- why a test failed ---- */

/* The output split into lines (copies, without the newline). */
static void split_lines(const char *text, strlist *lines) {
  const char *line = text;
  while (*line) {
    const char *eol = strchr(line, '\n');
    size_t length = eol ? (size_t)(eol - line) : strlen(line);
    if (length > 0 && line[length - 1] == '\r') length--;
    sl_push_owned(lines, xstrndup(line, length));
    if (eol == NULL) break;
    line = eol + 1;
  }
}

static int is_failure_header(const char *line) {
  return ends_with(line, ": Failure") || strcmp(line, "Failure") == 0;
}

/* Lines that Google Test or the shim print around a test ("[ RUN      ] ...", "[ gpulabs  ]"). */
static int is_marker(const char *line) {
  return line[0] == '[' && strlen(line) > 12 && line[11] == ']';
}

static const char *find_line(const strlist *lines, const char *prefix, size_t *index) {
  for (size_t i = 0; i < lines->count; i++) {
    if (starts_with(lines->items[i], prefix)) {
      if (index) *index = i;
      return lines->items[i];
    }
  }
  return NULL;
}

/* Condenses one Google Test failure block (the lines after "file:line: Failure") to a line. */
static char *condense_failure(const strlist *lines, size_t first, size_t stop) {
  strbuf sb;
  sb_init(&sb);
  size_t actual = stop, expected_true = stop;
  for (size_t i = first; i < stop; i++) {
    const char *text = lines->items[i];
    while (*text == ' ') text++;
    if (actual == stop && starts_with(text, "Actual: false (") && ends_with(text, ")")) actual = i;
    if (actual != stop && i > actual && strcmp(text, "Expected: true") == 0) expected_true = i;
  }
  if (actual != stop) {
    /* gl::StatusIs, gl::ArraysEqual, gl::DeviceOk: the message is inside "Actual: false (...)". */
    const char *text = lines->items[actual];
    while (*text == ' ') text++;
    text += strlen("Actual: false (");
    sb_append_n(&sb, text, strlen(text) - 1);
    for (size_t i = expected_true + 1; i < stop && expected_true != stop; i++) {
      sb_append(&sb, sb.len ? " - " : "");
      sb_append(&sb, lines->items[i]);
    }
  } else {
    size_t i = first;
    if (i < stop && strcmp(lines->items[i], "Failed") == 0) i++; /* FAIL() and ADD_FAILURE() */
    for (; i < stop; i++) {
      sb_append(&sb, sb.len ? " " : "");
      sb_append(&sb, lines->items[i]);
    }
  }
  char *text = sb_steal(&sb);
  sb_free(&sb);
  return text;
}

static char *make_excerpt(const strlist *lines, size_t first, size_t stop) {
  if (stop > lines->count) stop = lines->count;
  if (first >= stop) return NULL;
  if (stop - first > EXCERPT_MAX_LINES) stop = first + EXCERPT_MAX_LINES;
  strbuf sb;
  sb_init(&sb);
  for (size_t i = first; i < stop; i++) {
    sb_append(&sb, lines->items[i]);
    sb_append_char(&sb, '\n');
  }
  char *text = sb_steal(&sb);
  sb_free(&sb);
  return text;
}

/* What a CTest completion status says, in words. NULL for statuses that are no crash. */
static const char *crash_words(const char *status) {
  static const struct {
    const char *status;
    const char *words;
  } table[] = {
      {"SEGFAULT", "a segmentation fault (SIGSEGV)"},
      {"Subprocess aborted", "abort() (SIGABRT)"},
      {"Child aborted", "abort() (SIGABRT)"},
      {"BUS", "a bus error (SIGBUS)"},
      {"ILLEGAL", "an illegal instruction (SIGILL)"},
      {"NUMERICAL", "an arithmetic exception (SIGFPE)"},
      {"INTERRUPT", "an interrupt (SIGINT)"},
      {"OTHER_FAULT", "a signal"},
      {"Exception", "a signal"},
  };
  if (status == NULL) return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (starts_with(status, table[i].status)) return table[i].words;
  }
  return NULL;
}

/* The last line of the output that is not Google Test's or the shim's own. */
static const char *last_program_line(const strlist *lines) {
  for (size_t i = lines->count; i-- > 0;) {
    const char *line = lines->items[i];
    if (line[0] == '\0' || is_marker(line) || starts_with(line, "Note: Google Test filter")) {
      continue;
    }
    return line;
  }
  return NULL;
}

/* Some CMake 4 releases run each discovered Google Test case through a launcher script
 * (Modules/GoogleTest/LaunchTest.cmake) that cannot pass a signal on: a test that crashes ends
 * as "Failed" with
 *   CMake Error at .../GoogleTest/LaunchTest.cmake:34 (cmake_language):
 *     cmake_language EXIT requires one integral argument, got "Segmentation
 *     fault"
 * Returns the CTest status the crash would have had ("SEGFAULT", ...), or NULL; sets *cut to the
 * index of the "CMake Error" line, so the program's own last line can be found above it. */
static const char *launcher_crash_status(const strlist *lines, size_t *cut) {
  size_t at = lines->count;
  for (size_t i = 0; i < lines->count; i++) {
    if (starts_with(lines->items[i], "CMake Error at ") &&
        strstr(lines->items[i], "LaunchTest.cmake") != NULL) {
      at = i;
      break;
    }
  }
  if (at == lines->count) return NULL;
  strbuf said;
  sb_init(&said);
  int inside = 0;
  for (size_t i = at + 1; i < lines->count && i <= at + 4; i++) {
    const char *text = lines->items[i];
    if (!inside) {
      const char *open = strstr(text, "integral argument, got \"");
      if (open == NULL) continue;
      text = open + strlen("integral argument, got \"");
      inside = 1;
    } else {
      while (*text == ' ') text++;
      sb_append_char(&said, ' ');
    }
    const char *close = strchr(text, '"');
    sb_append_n(&said, text, close ? (size_t)(close - text) : strlen(text));
    if (close != NULL) break;
  }
  static const struct {
    const char *words;
    const char *status;
  } table[] = {
      {"Segmentation fault", "SEGFAULT"}, {"Subprocess aborted", "Subprocess aborted"},
      {"Child aborted", "Child aborted"}, {"Aborted", "Child aborted"},
      {"Bus error", "BUS"},               {"Illegal instruction", "ILLEGAL"},
      {"Floating-point exception", "NUMERICAL"}, {"User interrupt", "INTERRUPT"},
  };
  const char *status = NULL;
  if (inside) {
    status = "OTHER_FAULT";
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
      if (starts_with(said.data ? said.data : "", table[i].words)) status = table[i].status;
    }
  }
  sb_free(&said);
  if (status != NULL) *cut = at;
  return status;
}

static int ended_early(const test_result *t) {
  int is_gtest = strstr(t->output, "[ RUN      ]") != NULL ||
                 strstr(t->output, "Google Test filter") != NULL;
  if (!is_gtest) return 0;
  if (strstr(t->output, "[       OK ] ") != NULL) return 0;
  /* CTest cut a long output short: the OK line may have been cut with it. */
  if (strstr(t->output, "exceeds the threshold of") != NULL) return 0;
  return 1;
}

char *classify_failure(const test_result *t) {
  strlist lines;
  sl_init(&lines);
  split_lines(t->output, &lines);
  char *reason = NULL;
  size_t index = 0;

  const char *watchdog = find_line(&lines, "[  TIMEOUT ] ", &index);
  if (watchdog != NULL) {
    const char *why = strstr(watchdog, " did not finish in time");
    reason = xasprintf("timeout: the test%s", why ? why : " did not finish in time");
  } else if (t->ctest_status && strcmp(t->ctest_status, "Timeout") == 0) {
    reason = xasprintf("timeout: stopped by CTest after %.0f s (a kernel may be hung: a "
                       "__syncthreads() not every thread reaches, or a loop that never ends)",
                       t->seconds);
  }

  if (reason == NULL) {
    for (size_t i = 0; i < lines.count; i++) {
      if (!is_failure_header(lines.items[i])) continue;
      size_t stop = i + 1;
      while (stop < lines.count && !is_marker(lines.items[stop]) &&
             !is_failure_header(lines.items[stop])) {
        stop++;
      }
      char *text = condense_failure(&lines, i + 1, stop);
      const char *not_implemented = strstr(text, "not implemented: ");
      reason = xstrdup(not_implemented ? not_implemented : text);
      free(text);
      break;
    }
  }

  if (reason == NULL) {
    const char *crash = crash_words(t->ctest_status);
    size_t cut = 0;
    const char *launcher = crash == NULL ? launcher_crash_status(&lines, &cut) : NULL;
    if (launcher != NULL) {
      crash = crash_words(launcher);
      while (lines.count > cut) free(lines.items[--lines.count]); /* CMake's lines, not the program's */
    }
    const char *last = last_program_line(&lines);
    if (crash != NULL) {
      reason = last ? xasprintf("crashed: the test program ended with %s; last output: %s", crash,
                                last)
                    : xasprintf("crashed: the test program ended with %s", crash);
    } else if (ended_early(t) || find_line(&lines, "[  FAILED  ]", NULL) == NULL) {
      reason = last ? xasprintf("the test program ended before the test finished (a crash, a "
                                "signal, or exit() called by lab code); last output: %s", last)
                    : xstrdup("the test program ended before the test finished (a crash, a "
                              "signal, or exit() called by lab code)");
    } else {
      reason = xstrdup("failed (see the test's output)");
    }
  }
  char *line = one_line(reason, REASON_MAX);
  free(reason);
  sl_free(&lines);
  return line;
}

static char *classify_skip(const test_result *t) {
  strlist lines;
  sl_init(&lines);
  split_lines(t->output, &lines);
  char *reason = NULL;
  for (size_t i = 0; i < lines.count && reason == NULL; i++) {
    if (!ends_with(lines.items[i], ": Skipped")) continue;
    strbuf sb;
    sb_init(&sb);
    for (size_t j = i + 1; j < lines.count && !is_marker(lines.items[j]); j++) {
      sb_append(&sb, sb.len ? " " : "");
      sb_append(&sb, lines.items[j]);
    }
    if (sb.len > 0) reason = one_line(sb.data, REASON_MAX);
    sb_free(&sb);
  }
  sl_free(&lines);
  return reason ? reason : xstrdup("skipped");
}

static char *failure_excerpt(const test_result *t) {
  strlist lines;
  sl_init(&lines);
  split_lines(t->output, &lines);
  char *excerpt = NULL;
  size_t index = 0;
  if (find_line(&lines, "[  TIMEOUT ] ", &index) != NULL) {
    excerpt = make_excerpt(&lines, index, index + 1);
  } else {
    for (size_t i = 0; i < lines.count; i++) {
      if (!is_failure_header(lines.items[i])) continue;
      size_t stop = i + 1;
      /* Up to Google Test's "[  FAILED  ]" line, keeping the shim's replay lines. */
      while (stop < lines.count && !starts_with(lines.items[stop], "[  FAILED  ]")) stop++;
      excerpt = make_excerpt(&lines, i, stop);
      break;
    }
  }
  if (excerpt == NULL) {
    /* A crash or an early end: the last lines the program printed. */
    size_t first = lines.count > 10 ? lines.count - 10 : 0;
    excerpt = make_excerpt(&lines, first, lines.count);
  }
  sl_free(&lines);
  return excerpt;
}

static void read_metrics(test_result *t) {
  const char *line = t->output;
  while (*line) {
    const char *eol = strchr(line, '\n');
    size_t length = eol ? (size_t)(eol - line) : strlen(line);
    if (starts_with(line, "GPULABS_METRIC name=")) {
      char *copy = xstrndup(line, length);
      char *name = copy + strlen("GPULABS_METRIC name=");
      char *space = strchr(name, ' ');
      if (space != NULL && starts_with(space + 1, "ratio=")) {
        *space = '\0';
        char *number = space + 1 + strlen("ratio=");
        char *rest = NULL;
        double ratio = strtod(number, &rest);
        if (rest != number && name[0] != '\0') {
          t->metrics = xrealloc(t->metrics, (t->n_metrics + 1) * sizeof *t->metrics);
          metric *m = &t->metrics[t->n_metrics++];
          m->name = xstrdup(name);
          m->ratio = ratio;
          while (*rest == ' ') rest++;
          m->detail = trim_copy(rest, strlen(rest));
        }
      }
      free(copy);
    }
    if (eol == NULL) break;
    line = eol + 1;
  }
}

void tests_classify(test_list *tests) {
  for (size_t i = 0; i < tests->count; i++) {
    test_result *t = &tests->items[i];
    free(t->reason);
    free(t->excerpt);
    t->reason = NULL;
    t->excerpt = NULL;
    for (size_t m = 0; m < t->n_metrics; m++) {
      free(t->metrics[m].name);
      free(t->metrics[m].detail);
    }
    t->n_metrics = 0;
    if (t->status == TEST_PASSED && ended_early(t)) t->status = TEST_FAILED;
    read_metrics(t);
    switch (t->status) {
      case TEST_PASSED:
        break;
      case TEST_FAILED:
        t->reason = classify_failure(t);
        t->excerpt = failure_excerpt(t);
        break;
      case TEST_SKIPPED:
        t->reason = classify_skip(t);
        break;
      case TEST_NOT_RUN:
        t->reason = xasprintf("CTest did not run it (%s)",
                              t->ctest_status ? t->ctest_status : "not run");
        break;
    }
  }
}
