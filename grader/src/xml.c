/* The tree of xml.h, built from expat's callbacks. */
#include "xml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* expat's header declares the billion laughs settings only where XML_DTD is defined; the library
 * has them wherever it was built with DTD support, expat's default and every distribution's. */
#ifndef XML_DTD
#define XML_DTD
#endif
#include <expat.h>

#include "util.h"

#if XML_MAJOR_VERSION < 2 || (XML_MAJOR_VERSION == 2 && XML_MINOR_VERSION < 4)
#error "the grader needs expat 2.4 or newer: older ones have no bound on entity expansion"
#endif
#ifdef XML_UNICODE
#error "the grader needs expat's UTF-8 interface (a build without XML_UNICODE)"
#endif

/* expat's own default factor, set explicitly so that a library built with a laxer default still
 * refuses a billion laughs; and a lower threshold than its 8 MiB, since no JUnit file declares
 * an entity at all. */
#define GRADE_XML_MAX_AMPLIFICATION 100.0f
#define GRADE_XML_AMPLIFICATION_THRESHOLD (1ull << 20)

/* expat takes its input in int-sized pieces. */
#define GRADE_XML_CHUNK (1 << 24)

typedef struct open_element {
  xml_node *node;
  strbuf text;
} open_element;

typedef struct builder {
  XML_Parser parser;
  xml_node *root;
  open_element open[GRADE_XML_MAX_DEPTH]; /* the elements not yet closed, outermost first */
  size_t depth;
  char why[96]; /* the builder's own reason to stop, "" when expat stopped */
  /* After XML_StopParser expat may still deliver a callback or two (the end of an empty
   * element): they are ignored, once why is set. */
} builder;

static void add_child(xml_node *parent, xml_node *child) {
  size_t n = parent->n_children;
  /* Capacity doubles at each power of two, so a file of many test cases stays linear. */
  if ((n & (n - 1)) == 0) {
    parent->children = xrealloc(parent->children, (n ? 2 * n : 1) * sizeof *parent->children);
  }
  parent->children[parent->n_children++] = child;
}

static void XMLCALL on_start(void *data, const XML_Char *name, const XML_Char **attrs) {
  builder *b = data;
  if (b->why[0]) return;
  if (b->depth == GRADE_XML_MAX_DEPTH) {
    snprintf(b->why, sizeof b->why, "elements nested more than %d deep", GRADE_XML_MAX_DEPTH);
    XML_StopParser(b->parser, XML_FALSE);
    return;
  }
  xml_node *node = xcalloc(1, sizeof *node);
  node->name = xstrdup(name);
  size_t n = 0;
  while (attrs[2 * n] != NULL) n++;
  node->attrs = xcalloc(n + 1, sizeof *node->attrs);
  for (size_t i = 0; i < n; i++) {
    node->attrs[i].name = xstrdup(attrs[2 * i]);
    node->attrs[i].value = xstrdup(attrs[2 * i + 1]);
  }
  node->n_attrs = n;
  /* Linked into the tree at once, so freeing the root frees a half-built tree too. */
  if (b->depth == 0) b->root = node;
  else add_child(b->open[b->depth - 1].node, node);
  b->open[b->depth].node = node;
  sb_init(&b->open[b->depth].text);
  b->depth++;
}

static void XMLCALL on_end(void *data, const XML_Char *name) {
  (void)name; /* expat has checked that it matches */
  builder *b = data;
  if (b->why[0]) return;
  open_element *e = &b->open[--b->depth];
  e->node->text = sb_steal(&e->text);
}

static void XMLCALL on_text(void *data, const XML_Char *text, int length) {
  builder *b = data;
  if (b->depth > 0 && !b->why[0]) sb_append_n(&b->open[b->depth - 1].text, text, (size_t)length);
}

static XML_Parser make_parser(builder *b) {
  XML_Parser parser = XML_ParserCreate(NULL);
  if (parser == NULL) return NULL;
  /* Parameter entities and external entities are never read (no handler loads one), and the
   * expansion of internal ones is bounded. */
  int bounded =
      XML_SetParamEntityParsing(parser, XML_PARAM_ENTITY_PARSING_NEVER) &&
      XML_SetBillionLaughsAttackProtectionMaximumAmplification(parser,
                                                               GRADE_XML_MAX_AMPLIFICATION) &&
      XML_SetBillionLaughsAttackProtectionActivationThreshold(parser,
                                                              GRADE_XML_AMPLIFICATION_THRESHOLD);
  if (!bounded) {
    XML_ParserFree(parser);
    return NULL;
  }
  XML_SetUserData(parser, b);
  XML_SetElementHandler(parser, on_start, on_end);
  XML_SetCharacterDataHandler(parser, on_text);
  return parser;
}

xml_node *xml_parse(const char *text, size_t length, char *err, size_t err_size) {
  if (err && err_size) err[0] = '\0';
  builder *b = xcalloc(1, sizeof *b);
  b->parser = make_parser(b);
  if (b->parser == NULL) {
    if (err && err_size) snprintf(err, err_size, "cannot set up the XML parser (expat)");
    free(b);
    return NULL;
  }
  int ok = 1;
  size_t at = 0;
  do {
    size_t n = length - at < GRADE_XML_CHUNK ? length - at : GRADE_XML_CHUNK;
    int last = at + n == length;
    if (XML_Parse(b->parser, text + at, (int)n, last) != XML_STATUS_OK) ok = 0;
    at += n;
  } while (ok && at < length);
  if (!ok && err && err_size) {
    const char *why = b->why[0] ? b->why : XML_ErrorString(XML_GetErrorCode(b->parser));
    snprintf(err, err_size, "line %lu: %s",
             (unsigned long)XML_GetCurrentLineNumber(b->parser), why ? why : "not XML");
  }
  xml_node *root = b->root;
  if (!ok) {
    for (size_t i = 0; i < b->depth; i++) sb_free(&b->open[i].text);
    xml_free(root);
    root = NULL;
  }
  XML_ParserFree(b->parser);
  free(b);
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
