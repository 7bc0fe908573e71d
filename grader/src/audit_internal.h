/* What the static audit's files share (audit.c and audit_*.c): the object file as read, the
 * source's directives, the machine code, one audit's context, and the functions one part of the
 * audit calls in another. Internal: the grader calls the audit through audit.h. */
#ifndef GRADE_AUDIT_INTERNAL_H
#define GRADE_AUDIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "audit.h"

typedef struct elf_sec {
  const char *name;
  uint32_t type, link, info;
  uint64_t flags, offset, size;
} elf_sec;

typedef struct elf_sym {
  const char *name;
  char *full;  /* demangled */
  char *brief; /* audit_short_name */
  uint64_t value, size;
  uint32_t shndx;
  unsigned char type, bind;
} elf_sym;

typedef struct elf_rel {
  uint32_t sec, sym; /* the section it patches; the symbol it refers to */
  uint64_t offset;
  int64_t addend;
  uint32_t type;
} elf_rel;

typedef struct elf_obj {
  char *data;
  size_t size;
  unsigned machine;
  elf_sec *secs;
  size_t n_secs;
  elf_sym *syms;
  size_t n_syms;
  elf_rel *rels;
  size_t n_rels;
  size_t *functions; /* the function and data symbols, by section and address (symbol_at) */
  size_t n_functions;
} elf_obj;

typedef struct directive {
  int line;       /* the line of the source it starts on */
  char *name;     /* "include", "line", ...; "" for a line marker ("# 12 \"file\"") */
  char *argument; /* the rest of it, white space trimmed */
} directive;

typedef struct disasm_line {
  uint32_t sec;
  uint64_t offset;
  char *text; /* "movl $0x1,0xc(%rsp)", white space collapsed */
} disasm_line;

typedef struct place {
  uint32_t sec;
  uint64_t offset;
  int line;      /* the innermost frame in the student's file, or 0 */
  int generated; /* no such frame, but one in nvcc's .cudafe1.cpp, or in its stub file with no
                    header's frame: code on no line of the file, whose users decide whose it is */
  int elsewhere; /* none of those, but a frame in another file with a line (a header's) */
} place;

typedef struct code_ref {
  uint32_t sec;
  uint64_t offset; /* where the reference is made */
  int call;        /* a call or a jump (else an address, or data) */
  int indirect;    /* a call or jump through a register or memory: to no known target */
  long sym;        /* an undefined symbol (another file's), or -1 */
  long fn;         /* a function of this object, or -1 */
  long data;       /* data of this object: its object's symbol, else its section's (0: data of
                      no section, absolute or common), or -1 */
} code_ref;        /* none of them: code that no function symbol covers */

typedef struct audit_ctx {
  const audit_config *cfg;
  const char *object, *source, *compiled, *display;
  char *source_real;
  char *code; /* code_only(source text) */
  directive *directives; /* the source's preprocessor directives */
  size_t n_directives;
  elf_obj elf;
  struct disasm_line *ins;   /* every instruction of the object, once read (read_code) */
  size_t n_ins;
  size_t *ins_begin, *ins_end; /* per section: its instructions in `ins` */
  unsigned char *ins_relocated; /* per instruction: a relocation patches it */
  struct place *places;      /* where code comes from, by section and offset (locate) */
  size_t n_places;
  unsigned char *start_up;   /* per symbol: 1 start-up code, 2 not, 0 not judged yet */
  size_t *refs_begin, *refs; /* per symbol, the relocations that reach it (index_references):
                                refs[refs_begin[s]] to refs[refs_begin[s + 1]] */
  step_map steps;
  audit_result *res;
} audit_ctx;

/* patterns (audit_config.c) */
int audit_ident_char(char ch);
int audit_namespace_pattern(const char *p, size_t n);
int audit_name_match(const char *pattern, const char *full, const char *brief);
const char *audit_forbidding_pattern(const audit_config *cfg, const char *name, const char *brief);
int audit_allowed_in_steps(const audit_config *cfg, const audit_finding *f);

/* the object file (audit_elf.c) */
void elf_free(elf_obj *o);
int audit_demangle_all(elf_obj *o);
int elf_load(elf_obj *o, const char *path, strbuf *why);
int audit_is_exec(const elf_obj *o, uint32_t sec);
long audit_symbol_at(const elf_obj *o, uint32_t sec, uint64_t offset, int exact, unsigned type);
long audit_function_at(const elf_obj *o, uint32_t sec, uint64_t offset, int exact);

/* the source (audit_source.c) */
char *audit_code_only(const char *text);
void audit_directives_free(directive *d, size_t n);
size_t audit_read_directives(const char *text, directive **out);

/* one audit: places and findings (audit.c) */
void audit_locate(audit_ctx *c, uint32_t sec, const uint64_t *offsets, size_t n);
place audit_place_of(audit_ctx *c, uint32_t sec, uint64_t offset);
void audit_finding_add_site(audit_ctx *c, audit_finding *f, uint32_t sec, uint64_t offset);
void audit_finding_add_line(audit_ctx *c, audit_finding *f, int line);
void audit_text_lines(audit_ctx *c, audit_finding *f, const char *token, int prefix);
void audit_finding_free(audit_finding *f);
void audit_finding_keep(audit_ctx *c, audit_finding *f, const char *pattern);
void audit_finding_start(audit_ctx *c, audit_finding *f, const char *name, char *what);

/* the machine code (audit_code.c) */
void audit_disasm_free(disasm_line *lines, size_t n);
size_t audit_disassemble(audit_ctx *c, uint32_t sec, uint64_t begin, uint64_t end, disasm_line **out);
void audit_read_code(audit_ctx *c);
int audit_relocation_address(const elf_obj *o, const elf_rel *r, uint32_t *sec, uint64_t *offset);
long audit_data_holder(const elf_obj *o, uint32_t sec, uint64_t offset);
void audit_relocation_target(const elf_obj *o, const elf_rel *r, code_ref *ref);
size_t audit_code_refs(audit_ctx *c, long fn, code_ref **out);

/* code before main (audit_startup.c) */
int audit_compilers_start_up(audit_ctx *c, long fn);
void audit_constructors(audit_ctx *c);

/* what the code names (audit_symbols.c) */
void audit_symbols(audit_ctx *c);
void audit_assembly(audit_ctx *c);
void audit_line_directives(audit_ctx *c);
void audit_include_macros(audit_ctx *c);
void audit_headers(audit_ctx *c);

#endif
