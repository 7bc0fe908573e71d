/* A small XML reader: enough for CTest's JUnit files and nothing more. It builds a tree of
 * elements with their attributes and their text (character data and CDATA, entities decoded);
 * it skips the declaration, comments, processing instructions and a DOCTYPE. It does not
 * validate, load external entities or handle namespaces. */
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

/* Parses a document and returns its root element, or NULL with a message such as
 * "line 12: </testcase> closes <system-out>" in `err`. */
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
