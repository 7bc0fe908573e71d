#include "xml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Deeper than any JUnit file; the limit keeps a hostile file from exhausting the stack. */
#define XML_MAX_DEPTH 256

typedef struct parser {
  const char *start;
  const char *p;
  const char *end;
  char *err;
  size_t err_size;
  int failed;
} parser;

static void fail(parser *ps, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void fail(parser *ps, const char *format, ...) {
  if (ps->failed) return;
  ps->failed = 1;
  int line = 1;
  for (const char *q = ps->start; q < ps->p && q < ps->end; q++) line += *q == '\n';
  char message[256];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  if (ps->err && ps->err_size) snprintf(ps->err, ps->err_size, "line %d: %s", line, message);
}

static int at(const parser *ps, const char *literal) {
  size_t n = strlen(literal);
  return (size_t)(ps->end - ps->p) >= n && memcmp(ps->p, literal, n) == 0;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void skip_space(parser *ps) {
  while (ps->p < ps->end && is_space(*ps->p)) ps->p++;
}

/* Moves past the next occurrence of `terminator`; fails when there is none. */
static void skip_past(parser *ps, const char *terminator, const char *what) {
  size_t n = strlen(terminator);
  while (ps->p < ps->end) {
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, terminator, n) == 0) {
      ps->p += n;
      return;
    }
    ps->p++;
  }
  fail(ps, "unterminated %s", what);
}

static void append_utf8(strbuf *sb, unsigned long cp) {
  char bytes[4];
  size_t n;
  if (cp < 0x80) {
    bytes[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    bytes[0] = (char)(0xC0 | (cp >> 6));
    bytes[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    bytes[0] = (char)(0xE0 | (cp >> 12));
    bytes[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    bytes[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    bytes[0] = (char)(0xF0 | (cp >> 18));
    bytes[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    bytes[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    bytes[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  sb_append_n(sb, bytes, n);
}

/* Decodes one entity at `p` (which points at '&') into `sb`; returns the bytes consumed.
 * An entity it does not know is kept as written, so odd input never loses text. */
static size_t decode_entity(const char *p, const char *end, strbuf *sb) {
  const char *semi = NULL;
  for (const char *q = p + 1; q < end && q < p + 12; q++) {
    if (*q == ';') {
      semi = q;
      break;
    }
  }
  if (semi != NULL) {
    size_t n = (size_t)(semi - p - 1);
    const char *name = p + 1;
    static const struct {
      const char *name;
      char value;
    } named[] = {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
      if (strlen(named[i].name) == n && memcmp(name, named[i].name, n) == 0) {
        sb_append_char(sb, named[i].value);
        return n + 2;
      }
    }
    if (n >= 2 && name[0] == '#') {
      int hex = name[1] == 'x' || name[1] == 'X';
      const char *digits = name + 1 + hex;
      unsigned long cp = 0;
      int ok = digits < semi;
      for (const char *d = digits; d < semi && ok; d++) {
        int v;
        if (*d >= '0' && *d <= '9') v = *d - '0';
        else if (hex && *d >= 'a' && *d <= 'f') v = *d - 'a' + 10;
        else if (hex && *d >= 'A' && *d <= 'F') v = *d - 'A' + 10;
        else v = -1;
        if (v < 0) ok = 0;
        else cp = cp * (hex ? 16u : 10u) + (unsigned long)v;
        if (cp > 0x10FFFF) ok = 0;
      }
      if (ok && cp != 0 && !(cp >= 0xD800 && cp <= 0xDFFF)) {
        append_utf8(sb, cp);
        return n + 2;
      }
    }
  }
  sb_append_char(sb, '&');
  return 1;
}

static void append_decoded(strbuf *sb, const char *p, const char *end) {
  while (p < end) {
    if (*p == '&') {
      p += decode_entity(p, end, sb);
    } else {
      const char *amp = memchr(p, '&', (size_t)(end - p));
      const char *stop = amp ? amp : end;
      sb_append_n(sb, p, (size_t)(stop - p));
      p = stop;
    }
  }
}

static char *parse_name(parser *ps) {
  const char *begin = ps->p;
  while (ps->p < ps->end && !is_space(*ps->p) && *ps->p != '/' && *ps->p != '>' &&
         *ps->p != '=' && *ps->p != '<' && *ps->p != '"' && *ps->p != '\'') {
    ps->p++;
  }
  if (ps->p == begin) {
    fail(ps, "expected a name");
    return NULL;
  }
  return xstrndup(begin, (size_t)(ps->p - begin));
}

static void add_child(xml_node *parent, xml_node *child) {
  parent->children =
      xrealloc(parent->children, (parent->n_children + 1) * sizeof *parent->children);
  parent->children[parent->n_children++] = child;
}

static void add_attr(xml_node *node, char *name, char *value) {
  node->attrs = xrealloc(node->attrs, (node->n_attrs + 1) * sizeof *node->attrs);
  node->attrs[node->n_attrs].name = name;
  node->attrs[node->n_attrs].value = value;
  node->n_attrs++;
}

/* Skips a comment, a processing instruction or a DOCTYPE at the cursor; returns 1 if it did. */
static int skip_markup(parser *ps) {
  if (at(ps, "<!--")) {
    ps->p += 4;
    skip_past(ps, "-->", "comment");
    return 1;
  }
  if (at(ps, "<?")) {
    ps->p += 2;
    skip_past(ps, "?>", "processing instruction");
    return 1;
  }
  if (at(ps, "<!DOCTYPE")) {
    /* An internal subset [...] may hold '>' characters. */
    int in_subset = 0;
    while (ps->p < ps->end) {
      char c = *ps->p++;
      if (c == '[') in_subset = 1;
      else if (c == ']') in_subset = 0;
      else if (c == '>' && !in_subset) return 1;
    }
    fail(ps, "unterminated DOCTYPE");
    return 1;
  }
  return 0;
}

static xml_node *parse_element(parser *ps, int depth);

/* Parses the content of `node` up to and including its end tag. */
static void parse_content(parser *ps, xml_node *node, int depth) {
  strbuf text;
  sb_init(&text);
  while (!ps->failed) {
    if (ps->p >= ps->end) {
      fail(ps, "<%s> is never closed", node->name);
      break;
    }
    if (*ps->p != '<') {
      const char *begin = ps->p;
      while (ps->p < ps->end && *ps->p != '<') ps->p++;
      append_decoded(&text, begin, ps->p);
      continue;
    }
    if (at(ps, "<![CDATA[")) {
      ps->p += 9;
      const char *begin = ps->p;
      skip_past(ps, "]]>", "CDATA section");
      if (!ps->failed) sb_append_n(&text, begin, (size_t)(ps->p - 3 - begin));
      continue;
    }
    if (skip_markup(ps)) continue;
    if (at(ps, "</")) {
      ps->p += 2;
      char *name = parse_name(ps);
      if (name == NULL) break;
      skip_space(ps);
      if (strcmp(name, node->name) != 0) {
        fail(ps, "</%s> closes <%s>", name, node->name);
      } else if (ps->p >= ps->end || *ps->p != '>') {
        fail(ps, "expected '>' after </%s", name);
      } else {
        ps->p++;
      }
      free(name);
      break;
    }
    xml_node *child = parse_element(ps, depth + 1);
    if (child == NULL) break;
    add_child(node, child);
  }
  free(node->text);
  node->text = sb_steal(&text);
  sb_free(&text);
}

static xml_node *parse_element(parser *ps, int depth) {
  if (depth > XML_MAX_DEPTH) {
    fail(ps, "elements nested more than %d deep", XML_MAX_DEPTH);
    return NULL;
  }
  if (ps->p >= ps->end || *ps->p != '<') {
    fail(ps, "expected an element");
    return NULL;
  }
  ps->p++;
  xml_node *node = xcalloc(1, sizeof *node);
  node->text = xstrdup("");
  node->name = parse_name(ps);
  if (node->name == NULL) {
    xml_free(node);
    return NULL;
  }
  for (;;) {
    skip_space(ps);
    if (ps->p >= ps->end) {
      fail(ps, "unterminated tag <%s", node->name);
      break;
    }
    if (at(ps, "/>")) {
      ps->p += 2;
      return node;
    }
    if (*ps->p == '>') {
      ps->p++;
      parse_content(ps, node, depth);
      break;
    }
    char *name = parse_name(ps);
    if (name == NULL) break;
    skip_space(ps);
    if (ps->p >= ps->end || *ps->p != '=') {
      fail(ps, "attribute %s of <%s> has no value", name, node->name);
      free(name);
      break;
    }
    ps->p++;
    skip_space(ps);
    if (ps->p >= ps->end || (*ps->p != '"' && *ps->p != '\'')) {
      fail(ps, "the value of attribute %s is not quoted", name);
      free(name);
      break;
    }
    char quote = *ps->p++;
    const char *begin = ps->p;
    while (ps->p < ps->end && *ps->p != quote) ps->p++;
    if (ps->p >= ps->end) {
      fail(ps, "unterminated value of attribute %s", name);
      free(name);
      break;
    }
    strbuf value;
    sb_init(&value);
    append_decoded(&value, begin, ps->p);
    ps->p++;
    add_attr(node, name, sb_steal(&value));
    sb_free(&value);
  }
  if (ps->failed) {
    xml_free(node);
    return NULL;
  }
  return node;
}

xml_node *xml_parse(const char *text, size_t length, char *err, size_t err_size) {
  parser ps = {text, text, text + length, err, err_size, 0};
  if (err && err_size) err[0] = '\0';
  if (at(&ps, "\xEF\xBB\xBF")) ps.p += 3; /* a UTF-8 byte order mark */
  xml_node *root = NULL;
  while (!ps.failed) {
    skip_space(&ps);
    if (ps.p >= ps.end) break;
    if (skip_markup(&ps)) continue;
    if (root != NULL) {
      fail(&ps, "content after the root element <%s>", root->name);
      break;
    }
    root = parse_element(&ps, 0);
    if (root == NULL) break;
  }
  if (!ps.failed && root == NULL) fail(&ps, "no root element (an empty file?)");
  if (ps.failed) {
    xml_free(root);
    return NULL;
  }
  return root;
}

void xml_free(xml_node *node) {
  if (node == NULL) return;
  for (size_t i = 0; i < node->n_children; i++) xml_free(node->children[i]);
  for (size_t i = 0; i < node->n_attrs; i++) {
    free(node->attrs[i].name);
    free(node->attrs[i].value);
  }
  free(node->children);
  free(node->attrs);
  free(node->name);
  free(node->text);
  free(node);
}

const char *xml_attr_get(const xml_node *node, const char *name) {
  for (size_t i = 0; i < node->n_attrs; i++) {
    if (strcmp(node->attrs[i].name, name) == 0) return node->attrs[i].value;
  }
  return NULL;
}

const xml_node *xml_child(const xml_node *node, const char *name) {
  for (size_t i = 0; i < node->n_children; i++) {
    if (strcmp(node->children[i]->name, name) == 0) return node->children[i];
  }
  return NULL;
}
