/* The static audit's reading of the source (audit_internal.h): the step banners, the code
 * without comments and literals, the preprocessor's directives. */
#define _POSIX_C_SOURCE 200809L
#include "audit_internal.h"

#include <ctype.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proc.h"

/* ---- the source: its steps, its code without comments and literals ---- */

/* Past a comment's opening on a line: white space, then "//" (or more slashes), "/" followed
 * by stars, or the star that starts a line inside a block comment; then white space. NULL
 * when the line starts no comment. */
static const char *comment_body(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  if (end - p >= 2 && p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
    char mark = p[1];
    p += 2;
    while (p < end && *p == mark) p++;
  } else if (p < end && *p == '*') {
    p++;
  } else {
    return NULL;
  }
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  return p;
}

/* A run of at least `k` of `mark` in [p, end). */
static int has_run(const char *p, const char *end, char mark, size_t k) {
  size_t run = 0;
  for (; p < end; p++) {
    run = *p == mark ? run + 1 : 0;
    if (run >= k) return 1;
  }
  return 0;
}

/* A rule: a comment line of nothing but '=' or '-' (three at least) or '*' (five), such as
 * "// =====", the same after a block comment's opening, " * -----" inside one, or a line of
 * stars. */
static int rule_line(const char *line, const char *end) {
  if (comment_body(line, end) == NULL) return 0;
  for (const char *p = line; p < end; p++) {
    if (strchr(" \t\r/*=-", *p) == NULL) return 0;
  }
  return has_run(line, end, '=', 3) || has_run(line, end, '-', 3) || has_run(line, end, '*', 5);
}

/* The id of a banner line, lower-cased into `id` (its length; 0: no banner). The forms the
 * labs write and their variants: "// Step 5: title", "// Step 5 (bonus): title", the same in
 * a block comment (on its opening line, or " * STEP 6 - title" inside it, or one line that
 * also closes it), with any spacing and case. The id is a number and
 * at most two letters; after it (and a parenthesis) comes ':', '.', a dash and a space, or
 * the end of the comment, so "// Steps 5-6" and "// Step 1's kernel" are no banners. */
static size_t banner_id(const char *line, const char *end, char *id, size_t cap) {
  const char *p = comment_body(line, end);
  if (p == NULL || end - p < 5 || strncasecmp(p, "step", 4) != 0 || (p[4] != ' ' && p[4] != '\t'))
    return 0;
  p += 4;
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  size_t n = 0;
  while (p < end && isdigit((unsigned char)*p) && n + 1 < cap) id[n++] = *p++;
  size_t digits = n;
  while (p < end && isalpha((unsigned char)*p) && n + 1 < cap && n - digits < 2)
    id[n++] = (char)tolower((unsigned char)*p++);
  if (digits == 0 || (p < end && (isalnum((unsigned char)*p) || *p == '_'))) return 0;
  id[n] = '\0';
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  if (p < end && *p == '(') {
    const char *close = memchr(p, ')', (size_t)(end - p));
    if (close == NULL) return 0;
    p = close + 1;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
  }
  while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
  if (p == end || *p == ':' || *p == '.' || (end - p >= 2 && strncmp(p, "*/", 2) == 0)) return n;
  /* A dash: '-', '--', or an en or em dash in UTF-8, then a space. */
  const char *after = NULL;
  if (*p == '-') after = p[1] == '-' ? p + 2 : p + 1;
  else if (end - p >= 3 && (strncmp(p, "\xe2\x80\x93", 3) == 0 || strncmp(p, "\xe2\x80\x94", 3) == 0)) after = p + 3;
  return after && (after == end || *after == ' ' || *after == '\t') ? n : 0;
}

void step_map_build(step_map *map, const char *text) {
  memset(map, 0, sizeof *map);
  sl_init(&map->ids);
  size_t lines = 1;
  for (const char *p = text; *p; p++) lines += *p == '\n';
  map->n_lines = lines;
  map->step_of_line = xcalloc(lines + 2, sizeof *map->step_of_line);
  const char *current = NULL;
  int previous_rule = 0; /* the last line that was not blank is a rule */
  size_t number = 1;
  for (const char *line = text; line;) {
    const char *eol = strchr(line, '\n');
    const char *end = eol ? eol : line + strlen(line);
    char id[16];
    if (previous_rule && banner_id(line, end, id, sizeof id) > 0) {
      sl_push(&map->ids, id);
      current = map->ids.items[map->ids.count - 1];
    }
    if (line + strspn(line, " \t\r") < end) previous_rule = rule_line(line, end);
    map->step_of_line[number++] = (char *)current;
    line = eol ? eol + 1 : NULL;
  }
}

const char *step_map_lookup(const step_map *map, int line) {
  if (line < 1 || (size_t)line > map->n_lines) return NULL;
  return map->step_of_line[line];
}

void step_map_free(step_map *map) {
  free(map->step_of_line);
  sl_free(&map->ids);
  memset(map, 0, sizeof *map);
}

/* At `p`, just past an identifier [begin, p): when that is a raw string's prefix (R, LR, uR,
 * UR, u8R) and a quote follows, the end of the literal R"delim(...)delim" (past its closing
 * quote, or the text's end); else NULL. Its insides may hold quotes and comment marks. */
static const char *raw_string_end(const char *begin, const char *p) {
  size_t n = (size_t)(p - begin);
  if (*p != '"' || n == 0 || n > 3 || begin[n - 1] != 'R') return NULL;
  if (n == 2 && strchr("LuU", begin[0]) == NULL) return NULL;
  if (n == 3 && strncmp(begin, "u8", 2) != 0) return NULL;
  const char *open = p + 1;
  size_t delim = strcspn(open, "( )\\\t\n\"");
  if (open[delim] != '(' || delim > 16) return NULL;
  char close[20];
  close[0] = ')';
  memcpy(close + 1, open, delim);
  close[delim + 1] = '"';
  close[delim + 2] = '\0';
  const char *end = strstr(open + delim + 1, close);
  return end ? end + delim + 2 : open + strlen(open);
}

/* The text with comments and the insides of string and character literals turned to spaces
 * (line breaks kept), so only code is searched. */
char *audit_code_only(const char *text) {
  char *out = xstrdup(text);
  char *p = out;
  while (*p) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') *p++ = ' ';
    } else if (p[0] == '/' && p[1] == '*') {
      *p++ = ' ';
      *p++ = ' ';
      while (*p && !(p[0] == '*' && p[1] == '/')) {
        if (*p != '\n') *p = ' ';
        p++;
      }
      if (*p) {
        *p++ = ' ';
        *p++ = ' ';
      }
    } else if (*p == '"' || *p == '\'') {
      char quote = *p++;
      while (*p && *p != quote && *p != '\n') {
        if (*p == '\\' && p[1] && p[1] != '\n') *p++ = ' ';
        *p++ = ' ';
      }
      if (*p == quote) p++;
    } else if (isalnum((unsigned char)*p) || *p == '_') {
      /* A number may hold digit separators (1'000'000); an identifier may prefix a literal. */
      int number = isdigit((unsigned char)*p);
      char *begin = p;
      while (isalnum((unsigned char)*p) || *p == '_' || (number && *p == '\'' && isalnum((unsigned char)p[1])))
        p++;
      const char *raw = raw_string_end(begin, p);
      if (raw) {
        /* A raw string: its insides, between the quotes, go. */
        for (p++; p < raw - 1; p++) {
          if (*p != '\n') *p = ' ';
        }
        p = (char *)raw;
      }
    } else {
      p++;
    }
  }
  return out;
}

/* ---- the preprocessor's directives ---- */


void audit_directives_free(directive *d, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(d[i].name);
    free(d[i].argument);
  }
  free(d);
}

/* The text as the preprocessor sees it before directives: backslash-newlines spliced, then
 * each comment turned to one space (so a block comment may join two lines into one
 * directive), literals kept, a raw string's line breaks turned to spaces (no directive starts
 * inside it). `line_of` gets the source line of each character. */
static char *preprocessed_text(const char *text, int **line_of) {
  size_t n = strlen(text);
  char *spliced = xmalloc(n + 1);
  int *spliced_line = xmalloc((n + 1) * sizeof *spliced_line);
  size_t m = 0;
  int line = 1;
  for (size_t i = 0; i < n; i++) {
    if (text[i] == '\\' && (text[i + 1] == '\n' || (text[i + 1] == '\r' && text[i + 2] == '\n'))) {
      i += text[i + 1] == '\n' ? 1 : 2;
      line++;
      continue;
    }
    spliced[m] = text[i];
    spliced_line[m++] = line;
    line += text[i] == '\n';
  }
  spliced[m] = '\0';
  spliced_line[m] = line;
  char *out = xmalloc(m + 1);
  int *lines = xmalloc((m + 1) * sizeof *lines);
  size_t k = 0;
  for (size_t i = 0; i < m;) {
    const char *p = spliced + i;
    size_t length = 1;
    char as = *p;
    if (p[0] == '/' && p[1] == '/') {
      length = strcspn(p, "\n");
      as = ' ';
    } else if (p[0] == '/' && p[1] == '*') {
      const char *close = strstr(p + 2, "*/");
      length = close ? (size_t)(close + 2 - p) : strlen(p);
      as = ' ';
    } else if (*p == '"' || *p == '\'') {
      while (p[length] && p[length] != *p && p[length] != '\n') length += p[length] == '\\' && p[length + 1] ? 2 : 1;
      length += p[length] == *p;
    } else if (audit_ident_char(*p)) {
      int number = isdigit((unsigned char)*p);
      while (audit_ident_char(p[length]) || (number && p[length] == '\'' && isalnum((unsigned char)p[length + 1])))
        length++;
      const char *raw = raw_string_end(p, p + length);
      if (raw) length = (size_t)(raw - p);
    }
    if (as == ' ') {
      out[k] = ' ';
      lines[k++] = spliced_line[i];
    } else {
      for (size_t j = 0; j < length; j++) {
        out[k] = p[j] == '\n' && length > 1 ? ' ' : p[j];
        lines[k++] = spliced_line[i + j];
      }
    }
    i += length;
  }
  out[k] = '\0';
  lines[k] = spliced_line[m];
  free(spliced);
  free(spliced_line);
  *line_of = lines;
  return out;
}

/* The directives of a source text: a line whose first token is '#' (or its digraph "%:"). */
size_t audit_read_directives(const char *text, directive **out) {
  int *line_of = NULL;
  char *t = preprocessed_text(text, &line_of);
  size_t count = 0;
  *out = NULL;
  for (char *line = t; line && *line;) {
    char *eol = strchr(line, '\n');
    if (eol) *eol = '\0';
    char *p = line + strspn(line, " \t\r\f\v");
    size_t mark = *p == '#' ? 1 : strncmp(p, "%:", 2) == 0 ? 2 : 0;
    if (mark > 0) {
      int at = line_of[p - t];
      p += mark;
      p += strspn(p, " \t\r\f\v");
      size_t name = 0;
      while (audit_ident_char(p[name]) && !isdigit((unsigned char)p[0])) name++;
      char *argument = p + name + strspn(p + name, " \t\r\f\v");
      size_t length = strlen(argument);
      while (length > 0 && isspace((unsigned char)argument[length - 1])) length--;
      *out = xrealloc(*out, (count + 1) * sizeof **out);
      (*out)[count++] = (directive){at, xstrndup(p, name), xstrndup(argument, length)};
    }
    line = eol ? eol + 1 : NULL;
  }
  free(t);
  free(line_of);
  return count;
}
