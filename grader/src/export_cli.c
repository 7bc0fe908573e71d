/* grade --export-release DIR (grade_cli.h): the course copied for students, without the
 * solutions, the private tests, the self-test, the lab template and the course's CI. */
#define _POSIX_C_SOURCE 200809L
#include "grade_cli.h"

#include <stdio.h>

#include "submission.h"

const struct option export_cli_options[] = {
    {"export-release", required_argument, NULL, CLI_EXPORT_RELEASE},
    {NULL, 0, NULL, 0},
};

int export_cli_option(const char **dest, int code, const char *value) {
  if (code != CLI_EXPORT_RELEASE) return 2; /* not this mode's option: the reader's mistake */
  *dest = value;
  return -1;
}

int export_cli_run(const char *course, const char *dest) {
  copy_rules rules;
  copy_rules_init(&rules);
  copy_rules_for_release(&rules);
  size_t ignored = copy_rules_skip_git_ignored(&rules, course);
  overlay none;
  overlay_init(&none);
  sync_stats stats;
  strbuf err;
  sb_init(&err);
  int rc = tree_sync(course, dest, &rules, &none, &stats, &err);
  if (rc == 0 && release_drop_course_ci(dest) != 0) {
    sb_printf(&err, "cannot rewrite %s/README.md without the course's CI badge\n", dest);
    rc = -1;
  }
  if (rc != 0) {
    fprintf(stderr, "grade: cannot export the student release: %s", err.data);
  } else {
    printf("student release in %s: %zu files written, %zu unchanged, %zu removed\n", dest,
           stats.copied, stats.unchanged, stats.removed);
    printf("left out: solutions/, grader/private/, grader/selftest/, labs/_template/, "
           ".github/workflows/ci.yml, "
           "build trees, grade-out/, hidden folders%s\n", ignored ? " and what git ignores" : "");
  }
  sb_free(&err);
  overlay_free(&none);
  copy_rules_free(&rules);
  return rc == 0 ? 0 : 1;
}
