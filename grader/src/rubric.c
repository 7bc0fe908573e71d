#define _POSIX_C_SOURCE 200809L
#include "rubric.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rubric_init(rubric *r, const char *lab) {
  memset(r, 0, sizeof *r);
  r->lab = xstrdup(lab);
  sl_init(&r->files);
  audit_config_init(&r->audit);
}

void rubric_free(rubric *r) {
  for (size_t i = 0; i < r->n_items; i++) {
    free(r->items[i].id);
    free(r->items[i].tests);
    free(r->items[i].metric);
    free(r->items[i].source);
  }
  free(r->items);
  free(r->lab);
  sl_free(&r->files);
  audit_config_free(&r->audit);
  for (size_t i = 0; i < r->n_uses; i++) free(r->uses[i].lab);
  free(r->uses);
  memset(r, 0, sizeof *r);
}

const char *item_kind_name(item_kind kind) { return kind == ITEM_STEP ? "step" : "perf"; }

double rubric_total(const rubric *r) {
  double total = 0;
  for (size_t i = 0; i < r->n_items; i++) total += r->items[i].bonus ? 0 : r->items[i].points;
  return total;
}

/* ---- parsing ---- */

static int parse_number(const char *text, double *value) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !isfinite(v)) return 0;
  *value = v;
  return 1;
}

/* An id is one word (the line is split at white space); commas are kept out so that lists of
 * ids (the self-test's mutations) can be written with them, and control characters so that
 * every report can show it as it is. */
static int valid_id(const char *id) {
  if (id[0] == '\0') return 0;
  for (const char *p = id; *p; p++) {
    if (*p == ',' || (unsigned char)*p < 0x20 || *p == 0x7F) return 0;
  }
  return 1;
}

static int valid_file_pattern(const char *path) {
  if (path[0] == '/' || path[0] == '\0') return 0;
  /* No ".." component: a rubric names files inside the course. */
  const char *p = path;
  while (*p) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.') return 0;
    if (slash == NULL) break;
    p = slash + 1;
  }
  return 1;
}

/* Splits a line into white-space separated words; a word starting with '#' ends the line. */
static void split_words(const char *line, strlist *words) {
  const char *p = line;
  for (;;) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (*p == '\0' || *p == '#') return;
    const char *begin = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    sl_push_owned(words, xstrndup(begin, (size_t)(p - begin)));
  }
}

static rubric_item *find_item(const rubric *r, const char *id) {
  for (size_t i = 0; i < r->n_items; i++) {
    if (strcmp(r->items[i].id, id) == 0) return &r->items[i];
  }
  return NULL;
}

static void parse_item(rubric *r, const strlist *w, const char *where, strbuf *errors,
                       int *failed) {
  const char *kind = w->items[0];
  int is_perf = strcmp(kind, "perf") == 0;
  if (w->count < 4) {
    sb_printf(errors, "%s: a %s line needs: %s <id> <points> <tests>%s\n", where, kind, kind,
              is_perf ? " metric=<name> target=<ratio> floor=<ratio>" : "");
    *failed = 1;
    return;
  }
  const char *id = w->items[1];
  double points = 0;
  int ok = 1;
  if (!valid_id(id)) {
    sb_printf(errors, "%s: item id '%s' may not hold a comma\n", where, id);
    ok = 0;
  } else if (find_item(r, id)) {
    sb_printf(errors, "%s: item id '%s' is used twice (first at %s)\n", where, id,
              find_item(r, id)->source);
    ok = 0;
  }
  if (!parse_number(w->items[2], &points) || points < 0) {
    sb_printf(errors, "%s: points '%s' is not a non-negative number\n", where, w->items[2]);
    ok = 0;
  }
  const char *tests = w->items[3];
  if (strchr(tests, '=') != NULL) {
    sb_printf(errors, "%s: '%s' is in the place of the tests pattern\n", where, tests);
    ok = 0;
  }
  char *metric = NULL;
  double target = NAN, floor_ratio = NAN;
  int bonus = 0;
  for (size_t i = 4; i < w->count; i++) {
    const char *word = w->items[i];
    if (strcmp(word, "bonus") == 0 && !bonus) {
      bonus = 1;
    } else if (!is_perf) {
      sb_printf(errors, "%s: unexpected '%s' after the tests pattern (one pattern; join "
                        "alternatives with '|'; the only word a step line takes after it is "
                        "'bonus')\n", where, word);
      ok = 0;
    } else if (starts_with(word, "metric=") && word[7] != '\0' && metric == NULL) {
      metric = xstrdup(word + 7);
    } else if (starts_with(word, "target=")) {
      if (!parse_number(word + 7, &target)) {
        sb_printf(errors, "%s: %s is not a number\n", where, word);
        ok = 0;
      }
    } else if (starts_with(word, "floor=")) {
      if (!parse_number(word + 6, &floor_ratio)) {
        sb_printf(errors, "%s: %s is not a number\n", where, word);
        ok = 0;
      }
    } else {
      sb_printf(errors, "%s: unexpected '%s' (a perf line takes metric=, target=, floor= and "
                        "bonus)\n", where, word);
      ok = 0;
    }
  }
  if (is_perf && ok) {
    if (metric == NULL || isnan(target) || isnan(floor_ratio)) {
      sb_printf(errors, "%s: a perf line needs metric=<name> target=<ratio> floor=<ratio>\n",
                where);
      ok = 0;
    } else if (!(floor_ratio >= 0 && target > floor_ratio)) {
      sb_printf(errors, "%s: needs 0 <= floor < target (floor=%g, target=%g)\n", where,
                floor_ratio, target);
      ok = 0;
    }
  }
  if (!ok) {
    free(metric);
    *failed = 1;
    return;
  }
  r->items = xrealloc(r->items, (r->n_items + 1) * sizeof *r->items);
  rubric_item *item = &r->items[r->n_items++];
  item->kind = is_perf ? ITEM_PERF : ITEM_STEP;
  item->id = xstrdup(id);
  item->points = points;
  item->tests = xstrdup(tests);
  item->metric = metric;
  item->target = is_perf ? target : 0;
  item->floor = is_perf ? floor_ratio : 0;
  item->bonus = bonus;
  item->source = xstrdup(where);
}

/* uses <lab> [fallback=reference|student] */
static void parse_uses(rubric *r, const strlist *w, const char *where, strbuf *errors, int *failed) {
  int reference = 1;
  int ok = w->count == 2 || w->count == 3;
  const char *lab = ok ? w->items[1] : "";
  if (ok && (lab[0] == '\0' || lab[strspn(lab, "abcdefghijklmnopqrstuvwxyz0123456789_")] != '\0'))
    ok = 0;
  if (ok && w->count == 3) {
    if (strcmp(w->items[2], "fallback=reference") == 0) reference = 1;
    else if (strcmp(w->items[2], "fallback=student") == 0) reference = 0;
    else ok = 0;
  }
  for (size_t i = 0; ok && i < r->n_uses; i++) ok = strcmp(r->uses[i].lab, lab) != 0;
  if (!ok) {
    sb_printf(errors, "%s: a uses line is 'uses <lab> fallback=reference' or 'uses <lab> "
                      "fallback=student', once per lab\n", where);
    *failed = 1;
    return;
  }
  r->uses = xrealloc(r->uses, (r->n_uses + 1) * sizeof *r->uses);
  r->uses[r->n_uses].lab = xstrdup(lab);
  r->uses[r->n_uses].reference = reference;
  r->n_uses++;
}

int rubric_parse(rubric *r, const char *text, const char *name, strbuf *errors) {
  int failed = 0;
  int line_number = 0;
  const char *line = text;
  while (*line) {
    const char *eol = strchr(line, '\n');
    size_t length = eol ? (size_t)(eol - line) : strlen(line);
    char *copy = xstrndup(line, length);
    line_number++;
    strlist words;
    sl_init(&words);
    split_words(copy, &words);
    char *where = xasprintf("%s:%d", name, line_number);
    if (words.count == 0) {
      /* blank or comment */
    } else if (strcmp(words.items[0], "step") == 0 || strcmp(words.items[0], "perf") == 0) {
      parse_item(r, &words, where, errors, &failed);
    } else if (strcmp(words.items[0], "files") == 0) {
      if (words.count < 2) {
        sb_printf(errors, "%s: a files line names at least one file\n", where);
        failed = 1;
      }
      for (size_t i = 1; i < words.count; i++) {
        if (!valid_file_pattern(words.items[i])) {
          sb_printf(errors, "%s: '%s' must be a path inside the course (relative, no '..')\n",
                    where, words.items[i]);
          failed = 1;
        } else if (!sl_contains(&r->files, words.items[i])) {
          sl_push(&r->files, words.items[i]);
        }
      }
    } else if (strcmp(words.items[0], "audit") == 0) {
      if (audit_parse_line(&r->audit, &words, where, errors) != 0) failed = 1;
    } else if (strcmp(words.items[0], "uses") == 0) {
      parse_uses(r, &words, where, errors, &failed);
    } else if (strcmp(words.items[0], "order") == 0) {
      char *end = NULL;
      long order = words.count == 2 ? strtol(words.items[1], &end, 10) : 0;
      if (end == NULL || *end != '\0' || order < 1 || order > 9999) {
        sb_printf(errors, "%s: an order line holds one whole number from 1 to 9999\n", where);
        failed = 1;
      } else {
        r->order = (int)order;
      }
    } else {
      sb_printf(errors,
                "%s: '%s' is not a kind of line (step, perf, files, audit, uses or order)\n",
                where, words.items[0]);
      failed = 1;
    }
    free(where);
    sl_free(&words);
    free(copy);
    if (eol == NULL) break;
    line = eol + 1;
  }
  return failed ? -1 : 0;
}

char *rubric_course_path(const char *lab) { return xasprintf("labs/%s/%s.rubric", lab, lab); }

char *rubric_private_path(const char *lab) { return xasprintf("grader/private/%s.rubric", lab); }

int rubric_load(rubric *r, const char *path, strbuf *errors) {
  char *text = read_file(path, NULL);
  if (text == NULL) {
    sb_printf(errors, "%s: cannot read it: %s\n", path, strerror(errno));
    return -1;
  }
  const char *slash = strrchr(path, '/');
  int rc = rubric_parse(r, text, slash ? slash + 1 : path, errors);
  free(text);
  return rc;
}

int rubric_check(const rubric *r, const char *name, strbuf *errors) {
  int failed = 0;
  if (r->n_items == 0) {
    sb_printf(errors, "%s: no step or perf line: nothing to score\n", name);
    failed = 1;
  }
  if (r->files.count == 0) {
    sb_printf(errors, "%s: no files line: name the files the student edits (e.g. "
                      "files labs/%s/%s.cu)\n", name, r->lab, r->lab);
    failed = 1;
  }
  return failed ? -1 : 0;
}
