/* Submissions: the pristine copy of the course that a submission is graded in, the student's
 * files laid over it, and the student release (the same copy, minus what students must not
 * see). Copies are kept in sync file by file, so a second grade rebuilds only what changed. */
#ifndef GRADE_SUBMISSION_H
#define GRADE_SUBMISSION_H

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A file written over the course's own: its path in the course, and where it comes from. */
typedef struct overlay {
  strlist rel;  /* "labs/scan/scan.cu" */
  strlist from; /* an absolute path inside the submission */
} overlay;

void overlay_init(overlay *ov);
void overlay_free(overlay *ov);

/* What a copy leaves out: paths relative to the course root (a folder drops all it holds),
 * every hidden entry at the top level except those in keep_hidden, and any folder holding a
 * CMakeCache.txt (a build tree, wherever it was configured). */
typedef struct copy_rules {
  strlist exclude;
  strlist keep_hidden;
} copy_rules;

void copy_rules_init(copy_rules *rules);
void copy_rules_free(copy_rules *rules);
/* What grading copies: no build/, grade-out/ or hidden folders such as .git/. */
void copy_rules_for_grading(copy_rules *rules);
/* A student release: as for grading, and no solutions/, grader/private/, grader/selftest/ or the
 * course's own CI workflow (.github/workflows/ci.yml). */
void copy_rules_for_release(copy_rules *rules);
/* In a release copied to `dest`: takes the lines that name the course's CI workflow
 * (`.github/workflows/ci.yml`, its status badge) out of README.md, since the release has no such
 * workflow. 0, or -1 when README.md could not be rewritten (a missing README.md is no error). */
int release_drop_course_ci(const char *dest);
/* When `root` is a git checkout (and git is on the PATH), leaves out what git ignores there
 * (scratch builds, editor files). Returns how many paths were added. */
size_t copy_rules_skip_git_ignored(copy_rules *rules, const char *root);

/* The largest file taken from a submission. */
#define SUBMISSION_MAX_FILE_BYTES (4u << 20)

/* Finds the files a rubric names (`patterns`, relative to the course root) in a submission and
 * adds them to `ov`. A submission may be a copy of the course, of its labs/ folder, or the
 * files side by side. Records each file taken ("labs/scan/scan.cu", or with "(found as
 * scan.cu)"), each pattern that matched nothing, and each file refused (a symbolic link,
 * not a regular file, outside the submission, too large). */
void submission_collect(const char *submission_dir, const strlist *patterns, overlay *ov,
                        strlist *taken, strlist *missing, strlist *rejected);

/* The lab's given code: the code files of the course's labs/<lab>/ (sources, headers, the API
 * table, the build file; not the handout or the rubric beside them) that `patterns` (the rubric's
 * files line) do not name, such as <lab>_given.cu, <lab>.h or CMakeLists.txt. They always come
 * from the course: submission_collect takes only what the patterns name. Adds to `changed` the
 * path of each copy of one that the submission carries with other content (in any of the three
 * layouts; loose files only when the submission has no folder for the lab), so the report can
 * say it was not used. An identical copy is no news and is not listed. */
void submission_given_changed(const char *submission_dir, const char *course_dir, const char *lab,
                              const strlist *patterns, strlist *changed);

typedef struct sync_stats {
  size_t copied;    /* files written */
  size_t unchanged; /* files already identical, left alone (their times too) */
  size_t removed;   /* entries deleted because the source has no such path */
} sync_stats;

/* Makes `dst` a copy of `src` under `rules`, with the overlay's files in place of the course's.
 * Writes only files whose content or mode differs and deletes what `src` lacks. Refuses to
 * touch a `dst` that is neither empty nor made by an earlier copy (it holds the marker file
 * TREE_MARKER), so a mistyped path never loses anyone's files. Returns 0, or -1 with the
 * cause in `err`. */
#define TREE_MARKER ".gpulabs-copy"
int tree_sync(const char *src, const char *dst, const copy_rules *rules, const overlay *ov,
              sync_stats *stats, strbuf *err);

#ifdef __cplusplus
}
#endif
#endif
