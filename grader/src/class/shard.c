#define _POSIX_C_SOURCE 200809L
#include "shard.h"
#include "rubric.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_size(const char *text, size_t length, size_t *value) {
  if (length == 0 || length > 9) return -1;
  size_t v = 0;
  for (size_t i = 0; i < length; i++) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (size_t)(text[i] - '0');
  }
  *value = v;
  return 0;
}

int shard_parse(const char *text, size_t *index, size_t *count) {
  const char *slash = strchr(text, '/');
  size_t k, n;
  if (slash == NULL || parse_size(text, (size_t)(slash - text), &k) != 0 ||
      parse_size(slash + 1, strlen(slash + 1), &n) != 0) {
    return -1;
  }
  if (n < 1 || n > SHARD_COUNT_MAX || k >= n) return -1;
  *index = k;
  *count = n;
  return 0;
}

size_t shard_of(size_t position, size_t count) { return count ? position % count : 0; }

void manifest_init(batch_manifest *m, size_t shard_count) {
  memset(m, 0, sizeof *m);
  m->shard_count = shard_count;
  m->holds = xcalloc(shard_count ? shard_count : 1, 1);
  sl_init(&m->cmake_args);
  sl_init(&m->submissions);
  sl_init(&m->graded);
  sl_init(&m->gpus);
}

void manifest_free(batch_manifest *m) {
  free(m->holds);
  free(m->course);
  free(m->rubrics);
  free(m->labs);
  free(m->submissions_dir);
  sl_free(&m->cmake_args);
  sl_free(&m->submissions);
  sl_free(&m->graded);
  sl_free(&m->gpus);
  memset(m, 0, sizeof *m);
}

int manifest_holds(const batch_manifest *m, size_t shard) {
  return shard < m->shard_count && m->holds[shard];
}

int manifest_holds_position(const batch_manifest *m, size_t position) {
  return manifest_holds(m, shard_of(position, m->shard_count));
}

char *manifest_shards_text(const batch_manifest *m) {
  size_t held = 0, first = 0, last = 0;
  for (size_t k = 0; k < m->shard_count; k++) {
    if (!m->holds[k]) continue;
    if (held++ == 0) first = k;
    last = k;
  }
  if (held == 0) return xasprintf("no shard of %zu", m->shard_count);
  if (held == 1) return xasprintf("shard %zu/%zu", first, m->shard_count);
  if (last - first + 1 == held) return xasprintf("shards %zu-%zu of %zu", first, last, m->shard_count);
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "shards ");
  size_t n = 0;
  for (size_t k = 0; k < m->shard_count; k++) {
    if (m->holds[k]) sb_printf(&sb, "%s%zu", n++ ? ", " : "", k);
  }
  sb_printf(&sb, " of %zu", m->shard_count);
  return sb_steal(&sb);
}

/* Values are one line each: a backslash, a tab, a line break are written as \\, \t, \n, \r. */
static void append_value(strbuf *sb, const char *key, const char *value) {
  sb_append(sb, key);
  sb_append_char(sb, '\t');
  for (const char *p = value ? value : ""; *p; p++) {
    switch (*p) {
      case '\\': sb_append(sb, "\\\\"); break;
      case '\t': sb_append(sb, "\\t"); break;
      case '\n': sb_append(sb, "\\n"); break;
      case '\r': sb_append(sb, "\\r"); break;
      default: sb_append_char(sb, *p);
    }
  }
  sb_append_char(sb, '\n');
}

static char *unescape(const char *text, size_t length) {
  strbuf sb;
  sb_init(&sb);
  for (size_t i = 0; i < length; i++) {
    if (text[i] == '\\' && i + 1 < length) {
      char c = text[++i];
      sb_append_char(&sb, c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c);
    } else {
      sb_append_char(&sb, text[i]);
    }
  }
  return sb_steal(&sb);
}

char *manifest_format(const batch_manifest *m) {
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "# gpulabs grade: a batch's output folder (grade --batch, grade --merge); grade "
                 "--merge reads it\n");
  append_value(&sb, "format", "1");
  char number[32];
  snprintf(number, sizeof number, "%zu", m->shard_count);
  append_value(&sb, "shard_count", number);
  strbuf held;
  sb_init(&held);
  for (size_t k = 0; k < m->shard_count; k++) {
    if (m->holds[k]) sb_printf(&held, "%s%zu", held.len ? " " : "", k);
  }
  append_value(&sb, "shards", held.data);
  sb_free(&held);
  append_value(&sb, "complete", m->complete ? "yes" : "no");
  append_value(&sb, "course", m->course);
  append_value(&sb, "rubrics", m->rubrics);
  append_value(&sb, "labs", m->labs);
  append_value(&sb, "submissions_dir", m->submissions_dir);
  for (size_t i = 0; i < m->cmake_args.count; i++) append_value(&sb, "cmake_arg", m->cmake_args.items[i]);
  for (size_t i = 0; i < m->gpus.count; i++) append_value(&sb, "gpu", m->gpus.items[i]);
  for (size_t i = 0; i < m->submissions.count; i++) append_value(&sb, "submission", m->submissions.items[i]);
  for (size_t i = 0; i < m->graded.count; i++) append_value(&sb, "graded", m->graded.items[i]);
  return sb_steal(&sb);
}

/* A submission's name is a folder name in the batch and in the output: never a path. */
static int safe_name(const char *name) {
  return name[0] != '\0' && name[0] != '.' && strchr(name, '/') == NULL;
}

int manifest_parse(batch_manifest *m, const char *text, strbuf *err) {
  manifest_free(m);
  manifest_init(m, 0);
  int format = 0, have_count = 0;
  char *shards = NULL;
  int rc = 0;
  size_t line_no = 0;
  for (const char *line = text; *line && rc == 0;) {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    line_no++;
    if (length > 0 && line[0] != '#') {
      const char *tab = memchr(line, '\t', length);
      if (tab == NULL) {
        sb_printf(err, "line %zu has no tab", line_no);
        rc = -1;
        break;
      }
      char *key = xstrndup(line, (size_t)(tab - line));
      char *value = unescape(tab + 1, length - (size_t)(tab + 1 - line));
      if (strcmp(key, "format") == 0) {
        format = strcmp(value, "1") == 0 ? 1 : -1;
      } else if (strcmp(key, "shard_count") == 0) {
        size_t n;
        if (parse_size(value, strlen(value), &n) != 0 || n < 1 || n > SHARD_COUNT_MAX) {
          sb_printf(err, "line %zu: shard_count '%s' is not a number of shards", line_no, value);
          rc = -1;
        } else {
          m->shard_count = n;
          have_count = 1;
        }
      } else if (strcmp(key, "shards") == 0) {
        free(shards);
        shards = xstrdup(value);
      } else if (strcmp(key, "complete") == 0) {
        m->complete = strcmp(value, "yes") == 0;
      } else if (strcmp(key, "course") == 0) {
        free(m->course);
        m->course = xstrdup(value);
      } else if (strcmp(key, "rubrics") == 0) {
        free(m->rubrics);
        m->rubrics = xstrdup(value);
      } else if (strcmp(key, "labs") == 0) {
        free(m->labs);
        m->labs = xstrdup(value);
      } else if (strcmp(key, "submissions_dir") == 0) {
        free(m->submissions_dir);
        m->submissions_dir = xstrdup(value);
      } else if (strcmp(key, "cmake_arg") == 0) {
        sl_push(&m->cmake_args, value);
      } else if (strcmp(key, "gpu") == 0) {
        sl_push(&m->gpus, value);
      } else if (strcmp(key, "submission") == 0 || strcmp(key, "graded") == 0) {
        if (!safe_name(value)) {
          sb_printf(err, "line %zu: '%s' is not a submission's folder name", line_no, value);
          rc = -1;
        } else {
          sl_push(key[0] == 's' ? &m->submissions : &m->graded, value);
        }
      } /* other keys: from a later grader, informative only */
      free(key);
      free(value);
    }
    line = end ? end + 1 : line + length;
  }
  if (rc == 0 && format != 1) {
    sb_append(err, format == 0 ? "no format line" : "a format this grader does not read");
    rc = -1;
  }
  if (rc == 0 && !have_count) {
    sb_append(err, "no shard_count line");
    rc = -1;
  }
  if (rc == 0) {
    free(m->holds);
    m->holds = xcalloc(m->shard_count, 1);
    for (char *p = shards ? shards : ""; *p && rc == 0;) {
      size_t n = strcspn(p, " ");
      size_t k;
      if (parse_size(p, n, &k) != 0 || k >= m->shard_count) {
        sb_printf(err, "shards '%s' names no shard of %zu", shards, m->shard_count);
        rc = -1;
        break;
      }
      m->holds[k] = 1;
      p += n;
      while (*p == ' ') p++;
    }
  }
  free(shards);
  for (size_t i = 1; rc == 0 && i < m->submissions.count; i++) {
    if (strcmp(m->submissions.items[i - 1], m->submissions.items[i]) >= 0) {
      sb_append(err, "its submissions are not in the batch's order (sorted, each once)");
      rc = -1;
    }
  }
  return rc;
}

int manifest_write(const batch_manifest *m, const char *dir) {
  char *text = manifest_format(m);
  char *path = path_join(dir, BATCH_MANIFEST);
  int rc = write_file_atomic(path, text, strlen(text));
  free(path);
  free(text);
  return rc;
}

int manifest_load(batch_manifest *m, const char *dir, strbuf *err) {
  char *path = path_join(dir, BATCH_MANIFEST);
  char *text = read_file(path, NULL);
  int rc = -1;
  if (text == NULL) {
    sb_printf(err, "%s: %s (is it the output folder of grade --batch?)", path, strerror(errno));
  } else {
    strbuf why;
    sb_init(&why);
    rc = manifest_parse(m, text, &why);
    if (rc != 0) sb_printf(err, "%s: %s", path, why.data);
    sb_free(&why);
  }
  free(text);
  free(path);
  return rc;
}

static void fnv1a(uint64_t *hash, const void *data, size_t length) {
  const unsigned char *bytes = data;
  for (size_t i = 0; i < length; i++) {
    *hash ^= bytes[i];
    *hash *= UINT64_C(0x100000001b3);
  }
}

char *rubric_fingerprint(const char *course, const strlist *labs) {
  uint64_t hash = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < labs->count; i++) {
    for (int private_rubric = 0; private_rubric < 2; private_rubric++) {
      char *rel = private_rubric ? rubric_private_path(labs->items[i])
                                 : rubric_course_path(labs->items[i]);
      char *path = path_join(course, rel);
      size_t length = 0;
      char *text = read_file(path, &length);
      fnv1a(&hash, rel, strlen(rel) + 1);
      if (text) fnv1a(&hash, text, length);
      else fnv1a(&hash, "(none)", 7);
      free(text);
      free(path);
      free(rel);
    }
  }
  return xasprintf("%016" PRIx64, hash);
}
