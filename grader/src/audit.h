/* The static audit of a lab's exercise files, as the build compiled them: forbidden symbols (a
 * library or a system call in place of the exercise), constructors that run before any test,
 * inline assembly. It reads the object files, not only the text, so a macro cannot hide a call.
 * The rubric's `audit` lines configure it (grader/rubric/README.md, "The audit"). */
#ifndef GRADE_AUDIT_H
#define GRADE_AUDIT_H

#include <stddef.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a finding costs, as bits: the items of the steps it is in, the lab's perf items, or
 * every item of the lab. 0: reported only. */
enum { AUDIT_COST_STEP = 1, AUDIT_COST_PERF = 2, AUDIT_COST_LAB = 4 };

typedef struct audit_allow {
  char *pattern;
  char *step; /* NULL: allowed everywhere; "8": only in the code of step 8 */
} audit_allow;

typedef struct audit_config {
  strlist forbid;     /* patterns the rubric adds to audit_default_forbid */
  audit_allow *allow;
  size_t n_allow;
  int cost;           /* AUDIT_COST_* bits; default AUDIT_COST_STEP | AUDIT_COST_PERF */
} audit_config;

/* The patterns every lab forbids unless its rubric allows them, NULL-terminated. "asm" stands
 * for inline assembly, "constructor" for code that runs before main (or after it). */
extern const char *const audit_default_forbid[];

void audit_config_init(audit_config *cfg);
void audit_config_free(audit_config *cfg);
/* Parses one rubric line whose first word is "audit". Returns 0, or -1 with the problem in
 * `errors` ("scan.rubric:4: ..."). */
int audit_parse_line(audit_config *cfg, const strlist *words, const char *where, strbuf *errors);

#define AUDIT_MAX_LINES 4

typedef struct audit_finding {
  char *name;     /* what patterns match: a symbol's name, "constructor", "asm" */
  char *what;     /* for reports: "forbidden symbol cub::DeviceReduce::Sum" */
  char *file;     /* the exercise file, relative to the course: "labs/reduction/reduction.cu" */
  int lines[AUDIT_MAX_LINES];
  size_t n_lines;
  strlist steps;      /* the steps of those lines ("8", "4a"), in file order */
  int every_step;     /* a line outside every step, or none known: it counts for every step */
  int unplaced;       /* some of it lies on no line of the file, where the line tables say
                         nothing (1) or in code nvcc generated from it (2): every step */
  char *pattern;      /* the pattern that forbids a symbol; NULL for other findings */
  size_t more;        /* more symbols that pattern forbids on the same lines */
} audit_finding;

typedef struct audit_result {
  audit_finding *findings; /* violations only: what the rubric allows is not listed */
  size_t count;
  strlist audited;         /* the files audited, relative to the course */
  strlist problems;        /* what kept the audit from checking fully (a tool missing, ...) */
} audit_result;

void audit_result_init(audit_result *res);
void audit_result_free(audit_result *res);

/* Audits one compiled exercise file: `object` was compiled from `source` (the file the student
 * wrote: its text, its "// Step N:" banners, its lines), or from `compiled`, its rewrite for the
 * CPU backend (#line keeps the source's lines; NULL: the source itself); `display` names it in
 * reports. Appends to `res`. */
void audit_object(const audit_config *cfg, const char *object, const char *source,
                  const char *compiled, const char *display, audit_result *res);

/* Audits the exercise files of `lab` that the build tree lists in
 * <build_dir>/gpulabs-audit/<lab>.txt (written by gpulabs_add_lab). `source_dir` is the course
 * the build was configured from (report paths are relative to it). */
void audit_lab(const audit_config *cfg, const char *build_dir, const char *source_dir,
               const char *lab, audit_result *res);

/* "forbidden symbol exit in labs/scan/scan.cu line 12 (step 2)". */
char *audit_finding_text(const audit_finding *f);

/* The step of each line of a source text: the id of the last banner at or above it ("// Step
 * <id>:", "// Step <id> (bonus):" and their variants, on the comment line below a "// ===" rule;
 * the id lower-cased), or NULL above the first. For tests and the audit. */
typedef struct step_map {
  char **step_of_line; /* index: line number (1-based); entries point into `ids` */
  size_t n_lines;
  strlist ids;
} step_map;
void step_map_build(step_map *map, const char *text);
const char *step_map_lookup(const step_map *map, int line);
void step_map_free(step_map *map);

/* A symbol's name without return type, template arguments, parameters and version namespaces:
 * "cudaError cub::CUB_300001_SM_900::DeviceReduce::Sum<int*>(void*, ...)" -> "cub::DeviceReduce::Sum". */
char *audit_short_name(const char *demangled);

#ifdef __cplusplus
}
#endif
#endif
