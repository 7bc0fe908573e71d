/* What the files of one grading run share (run.c and run_*.c): the constants of its builds and
 * CTest runs, and the functions one part calls in another. Internal: the rest of the grader
 * calls grade.h. */
#ifndef GRADE_RUN_INTERNAL_H
#define GRADE_RUN_INTERNAL_H

#include <sys/types.h>

#include "grade.h"

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

/* Processes the tests left running, ended by the sweeps of this grade (reaper.h). */
extern strlist run_left_behind;

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

/* A progress line on stderr, "grade: <opt->progress>: <text>", written at once. */
void run_progress(const grade_options *opt, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* run.c */
int run_load_rubric(const char *source_dir, const char *lab, rubric *r, strbuf *errors);
void run_grade_lab(const grade_options *opt, grade_report *report, lab_result *lab, const
                   score_context *ctx, const char *logs, int correctness_only);

/* run_build.c */
int run_configure(const grade_options *opt, const char *source_dir, const char *build_dir, const
                  char *log_path);
int run_build_target(const grade_options *opt, const char *build_dir, const char *target, const char
                     *log_path);
void run_build_all_labs(const grade_options *opt, grade_report *report, const char *logs);

/* run_ctest.c */
char *run_sandbox_layers(const char *xml);
int run_ctest_once(const grade_options *opt, const char *build_dir, char *const select[], int
                   parallel, const char *junit_path, const char *log_path, test_list *found, strbuf
                   *why, char **xml_out);
void run_ctest_names(const grade_options *opt, const char *build_dir, char *const select[], strlist
                     *names, strlist *labels);
int run_split_shards(test_list *found, test_list *cases, strlist *seen);
int run_missing(const grade_options *opt, const char *build_dir, const char *lab_regex, const char
                *kind_label, int parallel, const char *junit_path, const char *log_path, const
                strlist *seen, test_list *cases, strbuf *why);
int run_ctest(const grade_options *opt, const char *build_dir, const char *lab_label, const char
              *kind_label, int parallel, const char *junit_path, const char *log_path, test_list
              *tests, strbuf *why, char **sandbox);

/* run_gpu.c */
int run_lock_gpu(const grade_options *opt, grade_report *report, int exclusive);
void run_probe_start(const grade_options *opt, grade_report *report, const char *logs, probe_job
                     *job);
void run_probe_finish(const grade_options *opt, grade_report *report, const char *logs, probe_job
                      *job);

/* run_deps.c */
int run_use_dependencies(const grade_options *opt, grade_report *report, lab_result *lab, const
                         score_context *ctx, const char *logs, strlist *references);
void run_note_references(lab_result *lab, const strlist *used);

#endif
