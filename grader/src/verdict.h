/* Each test's verdict: passed, failed, skipped or not run, and in one line why. CTest's JUnit
 * file (`ctest --output-junit`) gives each test's name, status, time and output; CTest's console
 * log adds what the JUnit file leaves out (a test stopped by CTest's TIMEOUT, or killed by a
 * signal); the output says why a test failed (a mismatch, a hang, a crash, a stub) and what it
 * measured (GPULABS_METRIC lines). */
#ifndef GRADE_VERDICT_H
#define GRADE_VERDICT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum test_status {
  TEST_PASSED,
  TEST_FAILED,
  TEST_SKIPPED,  /* the test skipped itself (GTEST_SKIP: no GPU, ...) */
  TEST_NOT_RUN   /* CTest did not run it (disabled, executable missing) */
} test_status;

const char *test_status_name(test_status status); /* "passed", "failed", ... */

typedef struct metric {
  char *name;
  double ratio;
  char *detail; /* the rest of the GPULABS_METRIC line */
} metric;

typedef struct test_result {
  char *name;
  test_status status;
  double seconds;
  char *output;        /* stdout and stderr together, as CTest captured them */
  char *ctest_status;  /* from the console log: "Timeout", "SEGFAULT", ...; NULL if unknown */
  char *reason;        /* one line: why it failed or was skipped; NULL when it passed */
  char *excerpt;       /* the lines of the output that show the failure; NULL when none */
  metric *metrics;     /* GPULABS_METRIC lines, in order */
  size_t n_metrics;
} test_result;

typedef struct test_list {
  test_result *items;
  size_t count;
  size_t cap;
} test_list;

void tests_init(test_list *tests);
void tests_free(test_list *tests);
const test_result *tests_find(const test_list *tests, const char *name);
/* A new, zeroed result at the end of the list. */
test_result *tests_add(test_list *tests);

/* Reads a JUnit file's text and appends its test cases to `tests` (reason not yet set).
 * Returns 0, or -1 with the cause in `err`. */
int junit_read(const char *xml_text, size_t length, test_list *tests, char *err,
               size_t err_size);

/* A shard (GPULABS_GRADER_SHARDS): one run of a Google Test program over many test cases, as
 * one CTest test. Appends one result per test case it started, named as CTest names it alone
 * ("Suite.Case"), with its part of the output (and the program's seed line); a case the process
 * ended in (a crash, a timeout) fails with the shard's CTest status. Returns 1 when the program
 * ran to its end, 0 when test cases it was to run may not have started. */
int gtest_split_shard(const test_result *shard, test_list *cases);

/* Reads CTest's console output and records, for each test it lists as failed or not run,
 * the completion status CTest printed ("Timeout", "SEGFAULT", "Subprocess aborted", ...). */
void ctest_log_apply(const char *log_text, test_list *tests);

/* Works out each test's reason and excerpt, and its metrics. A test CTest reports as passed
 * whose output lacks Google Test's "[       OK ]" line ended before the test did (lab code
 * that called exit(), say): it becomes a failure. Call after junit_read and ctest_log_apply. */
void tests_classify(test_list *tests);

/* The reason for one test's output (exposed for the tests of the grader). */
char *classify_failure(const test_result *test);

#ifdef __cplusplus
}
#endif
#endif
