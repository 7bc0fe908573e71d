/* Rubric files (labs/<lab>/<lab>.rubric; the format is grader/rubric/README.md). */
#ifndef GRADE_RUBRIC_H
#define GRADE_RUBRIC_H

#include <stddef.h>

#include "audit.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum item_kind { ITEM_STEP, ITEM_PERF } item_kind;

typedef struct rubric_item {
  item_kind kind;
  char *id;
  double points;
  char *tests;  /* CTest name pattern: '*', '?', alternatives joined by '|' */
  char *metric; /* perf only */
  double target;
  double floor;
  int bonus;    /* "bonus": its points count in the score, not in the maximum */
  char *source; /* "reduction.rubric:12", for messages */
} rubric_item;

/* "uses scan fallback=reference": the lab links another lab's code (compaction uses the
 * student's scan_exclusive); when that lab fails, it is graded with the reference instead. */
typedef struct rubric_use {
  char *lab;
  int reference; /* fallback=reference (the default); 0: fallback=student */
} rubric_use;

typedef struct rubric {
  char *lab;
  rubric_item *items;
  size_t n_items;
  strlist files; /* the student's files: paths relative to the course root, globs allowed */
  audit_config audit;
  rubric_use *uses;
  size_t n_uses;
  int order; /* "order N": the lab's place in the course (the build lists the labs by it) */
} rubric;

void rubric_init(rubric *r, const char *lab);
void rubric_free(rubric *r);

/* Parses a rubric's text and appends its items and files to `r`, so a private rubric can add
 * to the public one. `name` is used in messages ("reduction.rubric"). Returns 0, or -1 with
 * every problem found, one per line ("reduction.rubric:7: points 'ten' is not a number"). */
int rubric_parse(rubric *r, const char *text, const char *name, strbuf *errors);
/* Where a lab's rubrics are, from the course's root, newly allocated: the lab's own in its
 * folder, "labs/<lab>/<lab>.rubric", and an instructor's private one beside the grader,
 * "grader/private/<lab>.rubric" (left out of the student release). */
char *rubric_course_path(const char *lab);
char *rubric_private_path(const char *lab);
/* Reads and parses a file; -1 with the cause in `errors` when it cannot be read. */
int rubric_load(rubric *r, const char *path, strbuf *errors);
/* Checks what only the whole rubric can show (a files line, at least one item). */
int rubric_check(const rubric *r, const char *name, strbuf *errors);

double rubric_total(const rubric *r); /* the maximum: every item's points but the bonus ones */
const char *item_kind_name(item_kind kind); /* "step", "perf" */


#ifdef __cplusplus
}
#endif
#endif
