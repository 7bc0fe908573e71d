/* The static audit's checks of what the code names (audit_internal.h): forbidden symbols and
 * what reaches them, inline assembly, #line and #include tricks, the headers included. */
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

/* ---- forbidden symbols ---- */

/* nvcc gives each __device__ function a host stub that calls exit(1), should host code ever
 * call it: `int volatile ___ = 1; ::exit(___);`. exit(1) fails the test, so such a stub is no
 * threat; the check follows the 1 into the call (x86-64), so that no call to exit with another
 * value passes as one. */
static int nvcc_exit_stub(audit_ctx *c, long fn) {
  if (fn < 0 || c->elf.machine != EM_X86_64) return 0;
  const elf_sym *f = &c->elf.syms[fn];
  if (f->size == 0 || f->size > 64) return 0;
  size_t calls = 0;
  for (size_t i = 0; i < c->elf.n_rels; i++) {
    const elf_rel *r = &c->elf.rels[i];
    if (r->sec != f->shndx || r->offset < f->value || r->offset >= f->value + f->size) continue;
    if (strcmp(c->elf.syms[r->sym].name, "exit") != 0) return 0;
    calls++;
  }
  if (calls != 1) return 0;
  disasm_line *ins = NULL;
  size_t n = audit_disassemble(c, f->shndx, f->value, f->value + f->size, &ins);
  /* Follows the value 1 from its store to %edi, whatever the compiler's order (gcc 12 and 13
   * differ; Ubuntu's gcc 13 aligns the stack with "push %rax; pop %rax"): stack set-up, spills of the arguments to the stack, and padding may stand around
   * it; any other instruction, or a call with anything but 1 in %edi, is not nvcc's stub. */
  char slot[64] = "";
  int edi_one = 0, eax_one = 0, called = 0, ok = 1;
  for (size_t i = 0; ok && i < n; i++) {
    const char *t = ins[i].text;
    const char *comma = strrchr(t, ',');
    if (called) {
      ok = starts_with(t, "nop") || starts_with(t, "xchg %ax,%ax") || starts_with(t, "data16") ||
           starts_with(t, "cs nop") || strcmp(t, "int3") == 0;
    } else if (strcmp(t, "endbr64") == 0 || starts_with(t, "push %r") || starts_with(t, "pop %r") ||
               starts_with(t, "sub $0x") || strcmp(t, "mov %rsp,%rbp") == 0) {
      continue;
    } else if (starts_with(t, "movl $0x1,") && strstr(t, "(%r") &&
               strlen(t + 10) < sizeof slot) {
      strcpy(slot, t + 10);
    } else if (strcmp(t, "mov $0x1,%edi") == 0) {
      edi_one = 1;
    } else if (slot[0] && starts_with(t, "mov ") && comma &&
               strncmp(t + 4, slot, strlen(slot)) == 0 && t + 4 + strlen(slot) == comma) {
      if (strcmp(comma, ",%edi") == 0) edi_one = 1;
      else if (strcmp(comma, ",%eax") == 0) eax_one = 1;
      else ok = 0;
    } else if (strcmp(t, "mov %eax,%edi") == 0) {
      edi_one = eax_one;
    } else if ((starts_with(t, "mov") || starts_with(t, "movsd") || starts_with(t, "movss") ||
                starts_with(t, "movq") || starts_with(t, "movaps")) &&
               comma && strstr(comma, "(%r") && strstr(t, "%edi,") == NULL) {
      if (slot[0] && strcmp(comma + 1, slot) == 0) slot[0] = '\0'; /* the 1 overwritten */
      continue; /* an argument spilled to the stack (an -O0 habit, harmless) */
    } else if (starts_with(t, "call ")) {
      ok = edi_one;
      called = 1;
    } else {
      ok = 0;
    }
  }
  ok = ok && called;
  audit_disasm_free(ins, n);
  return ok;
}

/* References no use of the student's is made through: the unwinder's tables and the
 * exception tables point at every function. */
static int bookkeeping_section(const elf_sec *s) {
  return starts_with(s->name, ".eh_frame") || starts_with(s->name, ".gcc_except_table");
}

/* The function or data object that relocation `r` reaches through a section's symbol and an
 * address inside it (how an object refers to its own local code and data, and a function to its
 * cold part), or -1. */
static long section_holder(const elf_obj *o, const elf_rel *r) {
  uint32_t sec;
  uint64_t offset;
  if (o->syms[r->sym].type != STT_SECTION || !audit_relocation_address(o, r, &sec, &offset)) return -1;
  return audit_symbol_at(o, sec, offset, 0, audit_is_exec(o, sec) ? STT_FUNC : STT_OBJECT);
}

/* Every symbol's references, once: the relocations that name it, and those that reach it
 * through its section's symbol. */
static void index_references(audit_ctx *c) {
  const elf_obj *o = &c->elf;
  if (c->refs_begin) return;
  long *holder = xcalloc(o->n_rels + 1, sizeof *holder);
  c->refs_begin = xcalloc(o->n_syms + 2, sizeof *c->refs_begin);
  for (size_t i = 0; i < o->n_rels; i++) {
    holder[i] = section_holder(o, &o->rels[i]);
    if (bookkeeping_section(&o->secs[o->rels[i].sec])) continue;
    c->refs_begin[o->rels[i].sym + 1]++;
    if (holder[i] >= 0 && holder[i] != (long)o->rels[i].sym) c->refs_begin[holder[i] + 1]++;
  }
  for (size_t k = 0; k < o->n_syms; k++) c->refs_begin[k + 1] += c->refs_begin[k];
  c->refs = xcalloc(c->refs_begin[o->n_syms] + 1, sizeof *c->refs);
  size_t *next = xcalloc(o->n_syms + 1, sizeof *next);
  memcpy(next, c->refs_begin, o->n_syms * sizeof *next);
  for (size_t i = 0; i < o->n_rels; i++) {
    if (bookkeeping_section(&o->secs[o->rels[i].sec])) continue;
    c->refs[next[o->rels[i].sym]++] = i;
    if (holder[i] >= 0 && holder[i] != (long)o->rels[i].sym) c->refs[next[holder[i]]++] = i;
  }
  free(next);
  free(holder);
}

static int by_place(const void *a, const void *b) {
  const elf_rel *x = a, *y = b;
  if (x->sec != y->sec) return x->sec < y->sec ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Reads the places of every reference to `sym` from code, one addr2line per section. */
static void locate_references(audit_ctx *c, uint32_t sym) {
  const elf_obj *o = &c->elf;
  size_t n = c->refs_begin[sym + 1] - c->refs_begin[sym];
  elf_rel *rels = xcalloc(n + 1, sizeof *rels);
  uint64_t *offsets = xcalloc(n + 1, sizeof *offsets);
  size_t m = 0;
  for (size_t k = c->refs_begin[sym]; k < c->refs_begin[sym + 1]; k++) {
    if (audit_is_exec(o, o->rels[c->refs[k]].sec)) rels[m++] = o->rels[c->refs[k]];
  }
  if (m > 1) qsort(rels, m, sizeof *rels, by_place);
  for (size_t i = 0; i < m;) {
    size_t k = 0;
    uint32_t sec = rels[i].sec;
    for (; i < m && rels[i].sec == sec; i++) offsets[k++] = rels[i].offset;
    audit_locate(c, sec, offsets, k);
  }
  free(offsets);
  free(rels);
}

/* What the references to a symbol came to. */
typedef struct reach {
  size_t lines;   /* lines of the student's file found */
  size_t users;   /* references read: not nvcc's stubs, not its registration */
  int unplaced;   /* the most of audit_finding.unplaced among them and their users */
} reach;

/* One finding's walk from a symbol to the lines that use it. */
typedef struct walk {
  audit_finding *f;
  unsigned char *state; /* per symbol: 0 not walked, 1 being walked, 2 walked (in `memo`) */
  reach *memo;
  size_t sites;   /* references to the symbol itself */
  size_t skipped; /* of them, in nvcc's exit(1) stubs or its registration */
  size_t stubs;   /* of them, in nvcc's exit(1) stubs */
  size_t foreign; /* of them, in other files' code that no line of the student's reaches */
} walk;

enum { WALK_DEPTH = 4 };

static reach symbol_uses(audit_ctx *c, walk *w, uint32_t sym, int depth);

/* The uses of what holds a reference (the function it is in, the data it lies in), each
 * walked once per finding. Four levels up at most (a library's templates calling one another,
 * as before): past them, or back into itself, a holder counts as used by other files' code,
 * and neither places nor flags. */
static reach holder_uses(audit_ctx *c, walk *w, long holder, int depth) {
  reach none = {0, 0, 0}, neutral = {0, 1, 0};
  if (holder < 0) return none; /* code no function symbol covers: nothing is known to use it */
  if (depth >= WALK_DEPTH || w->state[holder] == 1) return neutral;
  if (w->state[holder] == 2) return w->memo[holder];
  w->state[holder] = 1;
  w->memo[holder] = symbol_uses(c, w, (uint32_t)holder, depth + 1);
  w->state[holder] = 2;
  return w->memo[holder];
}

/* Adds the lines that use symbol `sym`: a reference's own line when it is in the student's
 * file, else the lines that use the function or the data it lies in (a library's template
 * calling another, a table of pointers), and so on up. No reference is dropped for want of a
 * line: code of another file's (a header's) that no line of the student's reaches is no use
 * of the student's, nor is data that only such code reads or that no file can read (a local
 * object nothing refers to); any other reference that reaches no line, in code nvcc
 * generated or where the line tables say nothing, is unplaced. nvcc's generated code holds a
 * header's code too (NVTX's, inside CUB): generated code that only other files' code uses is
 * theirs. */
static reach symbol_uses(audit_ctx *c, walk *w, uint32_t sym, int depth) {
  const elf_obj *o = &c->elf;
  reach out = {0, 0, 0};
  locate_references(c, sym);
  for (size_t k = c->refs_begin[sym]; k < c->refs_begin[sym + 1]; k++) {
    const elf_rel *r = &o->rels[c->refs[k]];
    int code = audit_is_exec(o, r->sec);
    long holder = code ? audit_function_at(o, r->sec, r->offset, 0) : audit_data_holder(o, r->sec, r->offset);
    w->sites += depth == 0;
    if (depth == 0 && code && strcmp(o->syms[sym].name, "exit") == 0 && nvcc_exit_stub(c, holder)) {
      w->skipped++;
      w->stubs++;
      continue;
    }
    if (code && audit_compilers_start_up(c, holder)) {
      w->skipped += depth == 0; /* registering a kernel's stub is no use of it */
      continue;
    }
    out.users++;
    place p = code ? audit_place_of(c, r->sec, r->offset) : (place){r->sec, r->offset, 0, 0, 0};
    if (p.line > 0) {
      audit_finding_add_line(c, w->f, p.line);
      out.lines++;
      continue;
    }
    reach above = holder_uses(c, w, holder, depth);
    out.lines += above.lines;
    if (above.unplaced > out.unplaced) out.unplaced = above.unplaced;
    if (above.lines > 0 || above.unplaced > 0) continue;
    /* Its users, if any, are all other files' code. */
    const elf_sym *h = holder >= 0 ? &o->syms[holder] : NULL;
    int own = 0;
    if (above.users == 0) own = h == NULL || h->bind != STB_LOCAL ? (p.generated ? 2 : 1) : 0;
    if (code && p.elsewhere) own = 0;
    if (own > out.unplaced) out.unplaced = own;
    w->foreign += depth == 0 && own == 0;
  }
  return out;
}

void audit_symbols(audit_ctx *c) {
  const elf_obj *o = &c->elf;
  index_references(c);
  for (size_t i = 1; i < o->n_syms; i++) {
    const elf_sym *y = &o->syms[i];
    if (y->name[0] == '\0' || y->type == STT_SECTION || y->type == STT_FILE) continue;
    const char *pattern = audit_forbidding_pattern(c->cfg, y->full, y->brief);
    if (pattern == NULL) continue;
    audit_finding f;
    audit_finding_start(c, &f, y->full, xasprintf("forbidden symbol %s", y->brief));
    walk w;
    memset(&w, 0, sizeof w);
    w.f = &f;
    w.state = xcalloc(o->n_syms + 1, 1);
    w.memo = xcalloc(o->n_syms + 1, sizeof *w.memo);
    w.state[i] = 1;
    reach uses = symbol_uses(c, &w, (uint32_t)i, 0);
    free(w.state);
    free(w.memo);
    /* Used by no code of the student's: called only by nvcc's stubs or registered by its
     * start-up code, or used by other files' code that nothing of the student's reaches, or
     * defined by a header and never referenced. A library's header is itself audited
     * (audit_headers). A use that no line places counts for every step. */
    int unused = 0;
    if (uses.unplaced) {
      f.unplaced = uses.unplaced;
      f.every_step = 1;
    } else if (f.n_lines == 0 && w.sites > 0) {
      unused = w.skipped + w.foreign == w.sites;
    } else if (f.n_lines == 0 && y->shndx != SHN_UNDEF) {
      /* Defined, and referenced by nothing here: its own code's place decides. */
      place p = {0, 0, 0, 0, 1};
      if (y->type == STT_FUNC && y->shndx < o->n_secs) p = audit_place_of(c, y->shndx, y->value);
      audit_finding_add_line(c, &f, p.line);
      if (p.line == 0 && !p.elsewhere && y->type == STT_FUNC && y->bind != STB_LOCAL) {
        f.unplaced = p.generated ? 2 : 1;
        f.every_step = 1;
      }
      unused = f.n_lines == 0 && !f.unplaced;
    }
    /* A library's symbol that no line reaches: the lines where the code names the library,
     * the namespace the pattern names ("cub" in "mywrap::cub::..."; not "mywrap", which a
     * #define above the steps names), else the symbol's outer namespace. */
    const char *colons = strstr(y->brief, "::");
    if (f.n_lines == 0 && colons && w.stubs == 0) {
      int named = 0;
      for (const char *alt = pattern; alt; alt = strchr(alt, '|') ? strchr(alt, '|') + 1 : NULL) {
        if (!audit_namespace_pattern(alt, strcspn(alt, "|"))) continue;
        char *ns = xstrndup(alt, strcspn(alt, ":"));
        audit_text_lines(c, &f, ns, 0);
        free(ns);
        named = 1;
      }
      if (!named) {
        char *ns = xstrndup(y->brief, (size_t)(colons - y->brief));
        audit_text_lines(c, &f, ns, 0);
        free(ns);
      }
      if (f.n_lines > 0) unused = 0;
    }
    if (unused) {
      audit_finding_free(&f);
      continue;
    }
    audit_finding_keep(c, &f, pattern);
  }
}

/* ---- inline assembly, and libraries included ---- */

void audit_assembly(audit_ctx *c) {
  if (audit_forbidding_pattern(c->cfg, "asm", "asm") == NULL) return;
  audit_finding f;
  audit_finding_start(c, &f, "asm", xstrdup("inline assembly"));
  audit_text_lines(c, &f, "asm", 0);
  audit_text_lines(c, &f, "__asm", 0);
  audit_text_lines(c, &f, "__asm__", 0);
  if (f.n_lines > 0) audit_finding_keep(c, &f, NULL);
  else audit_finding_free(&f);
  /* A system call needs no library function: look for the instruction itself. */
  audit_read_code(c);
  const disasm_line *ins = c->ins;
  for (size_t i = 0; i < c->n_ins; i++) {
    const char *t = ins[i].text;
    if (strcmp(t, "syscall") != 0 && strcmp(t, "sysenter") != 0 && strcmp(t, "int $0x80") != 0 &&
        !starts_with(t, "svc "))
      continue;
    audit_finding_start(c, &f, "asm", xasprintf("system call instruction '%s'", t));
    audit_finding_add_site(c, &f, ins[i].sec, ins[i].offset);
    audit_finding_keep(c, &f, NULL);
  }
}

/* "#line 1 \"/usr/include/stdio.h\"" would make the line tables place the student's code in
 * a header, where the audit neither finds its lines nor counts its calls. */
void audit_line_directives(audit_ctx *c) {
  if (audit_forbidding_pattern(c->cfg, "line-directive", "line-directive") == NULL) return;
  audit_finding f;
  audit_finding_start(c, &f, "line-directive", xstrdup("a #line directive"));
  for (size_t i = 0; i < c->n_directives; i++) {
    const directive *d = &c->directives[i];
    if (strcmp(d->name, "line") == 0 || (d->name[0] == '\0' && isdigit((unsigned char)d->argument[0])))
      audit_finding_add_line(c, &f, d->line);
  }
  if (f.n_lines > 0) audit_finding_keep(c, &f, NULL);
  else audit_finding_free(&f);
}

static int include_directive(const directive *d) {
  return strcmp(d->name, "include") == 0 || strcmp(d->name, "include_next") == 0 ||
         strcmp(d->name, "import") == 0;
}

/* An #include whose argument is a macro can name any header, a library's too, where the text
 * does not show it. */
void audit_include_macros(audit_ctx *c) {
  if (audit_forbidding_pattern(c->cfg, "include-macro", "include-macro") == NULL) return;
  for (size_t i = 0; i < c->n_directives; i++) {
    const directive *d = &c->directives[i];
    if (!include_directive(d) || d->argument[0] == '<' || d->argument[0] == '"') continue;
    audit_finding f;
    audit_finding_start(c, &f, "include-macro",
                  xasprintf("an #include of a macro, %s (it can name any header, a library's too)",
                            d->argument));
    audit_finding_add_line(c, &f, d->line);
    audit_finding_keep(c, &f, NULL);
  }
}

/* The header an #include names ("cub/cub.cuh"), or NULL for one that names a macro. */
static char *included_header(const directive *d) {
  char close = d->argument[0] == '<' ? '>' : d->argument[0] == '"' ? '"' : '\0';
  if (close == '\0') return NULL;
  const char *end = strchr(d->argument + 1, close);
  return xstrndup(d->argument + 1, end ? (size_t)(end - d->argument - 1) : strlen(d->argument + 1));
}

/* Libraries in place of the exercise, as their headers show them: a folder of the path, or the
 * start of the file's name (cublas_v2.h). */
static const struct {
  const char *dir, *ns, *token;
  int prefix;
} libraries[] = {{"/cub/", "cub::", "cub", 0},
                 {"/thrust/", "thrust::", "thrust", 0},
                 {"/cutlass/", "cutlass::", "cutlass", 0},
                 {"/cute/", "cute::", "cute", 0},
                 {"/cublas", "cublas", "cublas", 1}};
enum { N_LIBRARIES = sizeof libraries / sizeof libraries[0] };

/* Headers that bring a library, from two sources: the #include lines of the student's text,
 * and the compiler's dependency file beside the object (written by the Makefile generators;
 * Ninja keeps its own and removes it), which lists every header included however the
 * #include was spelled. Device code that uses CUB leaves no host symbol. A finding lies on
 * the lines that name the library, else on the lines that include it. */
void audit_headers(audit_ctx *c) {
  char *path = xasprintf("%s.d", c->object);
  char *deps = read_file(path, NULL);
  free(path);
  audit_finding found[N_LIBRARIES];
  int have[N_LIBRARIES] = {0}, included[N_LIBRARIES] = {0}, named = 0;
  for (size_t l = 0; l < N_LIBRARIES; l++) {
    if (audit_forbidding_pattern(c->cfg, libraries[l].ns, libraries[l].ns) == NULL) continue;
    char *header = NULL;
    int lines[AUDIT_MAX_LINES];
    for (size_t i = 0; i < c->n_directives; i++) {
      char *name = include_directive(&c->directives[i]) ? included_header(&c->directives[i]) : NULL;
      char *slashed = name ? xasprintf("/%s", name) : NULL;
      if (slashed && strstr(slashed, libraries[l].dir)) {
        if (included[l] < AUDIT_MAX_LINES) lines[included[l]++] = c->directives[i].line;
        if (header == NULL) header = xstrdup(name);
      }
      free(slashed);
      free(name);
    }
    const char *hit = deps ? strstr(deps, libraries[l].dir) : NULL;
    if (header == NULL && hit) header = xstrndup(hit + 1, strcspn(hit + 1, " \t\n\\:"));
    if (header == NULL) continue;
    audit_finding_start(c, &found[l], libraries[l].ns, xasprintf("forbidden header %s", header));
    free(header);
    audit_text_lines(c, &found[l], libraries[l].token, libraries[l].prefix);
    for (int k = 0; found[l].n_lines == 0 && k < included[l]; k++) audit_finding_add_line(c, &found[l], lines[k]);
    have[l] = 1;
    named |= found[l].n_lines > 0;
  }
  /* One library's headers include another's (CUB includes Thrust's): a library that only the
   * dependency file shows, and the code never names, counts only when the code names none. */
  for (size_t l = 0; l < N_LIBRARIES; l++) {
    if (!have[l]) continue;
    if (found[l].n_lines == 0 && named) audit_finding_free(&found[l]);
    else audit_finding_keep(c, &found[l], NULL);
  }
  free(deps);
}
