/* XML read into a tree of elements, with expat doing the parsing. The grader reads CTest's JUnit
 * files, and those carry whatever text student code printed, so the reader is strict: a file
 * that is not well-formed XML is refused, never guessed at (a file cut short included). It keeps
 * elements, their attributes and their text (character data and CDATA, entities decoded);
 * comments, processing instructions and the DOCTYPE are left out. No external entity is ever
 * loaded, entity expansion is bounded (expat's billion laughs protection, set explicitly), and
 * so is the nesting depth. */
#ifndef GRADE_XML_H
#define GRADE_XML_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xml_attr {
  char *name;
  char *value; /* entities decoded */
} xml_attr;

typedef struct xml_node {
  char *name;
  xml_attr *attrs;
  size_t n_attrs;
  struct xml_node **children; /* elements only, in document order */
  size_t n_children;
  char *text; /* all character data directly inside this element, concatenated */
} xml_node;

/* Elements nested deeper than this are refused: no JUnit file comes close, and the tree is freed
 * recursively. */
#define GRADE_XML_MAX_DEPTH 256

/* Parses a document and returns its root element, or NULL with a message such as
 * "line 12: mismatched tag" in `err`. */
xml_node *xml_parse(const char *text, size_t length, char *err, size_t err_size);
void xml_free(xml_node *node);

/* The value of an attribute, or NULL. */
const char *xml_attr_get(const xml_node *node, const char *name);
/* The first child element with this name, or NULL. */
const xml_node *xml_child(const xml_node *node, const char *name);

#ifdef __cplusplus
}
#endif
#endif
