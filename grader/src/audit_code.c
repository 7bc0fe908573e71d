/* The static audit's reading of the machine code (audit_internal.h): the disassembly, and what
 * each function's code reaches (calls, jumps, the data it points at). */
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

/* ---- the machine code ---- */


void audit_disasm_free(disasm_line *lines, size_t n) {
  for (size_t i = 0; i < n; i++) free(lines[i].text);
  free(lines);
}

/* Instructions from objdump: one section's [begin, end), or, with sec 0, all code. */
size_t audit_disassemble(audit_ctx *c, uint32_t sec, uint64_t begin, uint64_t end,
                          disasm_line **out) {
  char start[40], stop[40];
  snprintf(start, sizeof start, "--start-address=0x%llx", (unsigned long long)begin);
  snprintf(stop, sizeof stop, "--stop-address=0x%llx", (unsigned long long)end);
  char *one[] = {"objdump", "-d", "--no-show-raw-insn", "-j", (char *)c->elf.secs[sec].name,
                 start, stop, (char *)c->object, NULL};
  char *all[] = {"objdump", "-d", "--no-show-raw-insn", (char *)c->object, NULL};
  char *text = run_capture(sec ? one : all, NULL);
  size_t n = 0, cursor = 0;
  uint32_t current = sec;
  *out = NULL;
  for (char *line = text; line && *line;) {
    char *eol = strchr(line, '\n');
    if (eol) *eol = '\0';
    char *tab = strchr(line, '\t');
    char *colon = strchr(line, ':');
    if (sec == 0 && starts_with(line, "Disassembly of section ") && ends_with(line, ":")) {
      /* Sections come in header order; names may repeat. */
      line[strlen(line) - 1] = '\0';
      current = 0;
      for (size_t i = cursor + 1; i < c->elf.n_secs && current == 0; i++) {
        if (audit_is_exec(&c->elf, (uint32_t)i) && strcmp(c->elf.secs[i].name, line + 23) == 0) {
          current = (uint32_t)i;
          cursor = i;
        }
      }
    } else if (current && tab && colon && colon < tab && line[0] == ' ') {
      *out = xrealloc(*out, (n + 1) * sizeof **out);
      (*out)[n].sec = current;
      (*out)[n].offset = strtoull(line, NULL, 16);
      strbuf sb;
      sb_init(&sb);
      for (const char *p = tab + 1; *p; p++) {
        if (!isspace((unsigned char)*p)) sb_append_char(&sb, *p);
        else if (sb.len && sb.data[sb.len - 1] != ' ') sb_append_char(&sb, ' ');
      }
      while (sb.len && sb.data[sb.len - 1] == ' ') sb.data[--sb.len] = '\0';
      (*out)[n++].text = sb_steal(&sb);
    }
    line = eol ? eol + 1 : NULL;
  }
  free(text);
  return n;
}

/* ---- what code reaches ---- */

/* The instruction of section `sec` that holds `offset`, or -1. */
static long instruction_at(const audit_ctx *c, uint32_t sec, uint64_t offset) {
  if (sec >= c->elf.n_secs) return -1;
  size_t low = c->ins_begin[sec], high = c->ins_end[sec];
  if (low >= high || c->ins[low].offset > offset) return -1;
  while (high - low > 1) {
    size_t middle = low + (high - low) / 2;
    if (c->ins[middle].offset <= offset) low = middle;
    else high = middle;
  }
  return (long)low;
}

/* Every instruction of the object, read once, with each section's share of them and whether a
 * relocation patches it. */
void audit_read_code(audit_ctx *c) {
  if (c->ins_begin) return;
  const elf_obj *o = &c->elf;
  c->n_ins = audit_disassemble(c, 0, 0, 0, &c->ins);
  c->ins_begin = xcalloc(o->n_secs + 1, sizeof *c->ins_begin);
  c->ins_end = xcalloc(o->n_secs + 1, sizeof *c->ins_end);
  c->ins_relocated = xcalloc(c->n_ins + 1, 1);
  for (size_t i = 0; i < c->n_ins; i++) {
    if (c->ins_end[c->ins[i].sec] == 0) c->ins_begin[c->ins[i].sec] = i;
    c->ins_end[c->ins[i].sec] = i + 1;
  }
  for (size_t i = 0; i < o->n_rels; i++) {
    long k = instruction_at(c, o->rels[i].sec, o->rels[i].offset);
    if (k >= 0) c->ins_relocated[k] = 1;
  }
  for (size_t i = 1; i < o->n_secs && c->n_ins == 0; i++) {
    if (audit_is_exec(o, (uint32_t)i) && o->secs[i].size > 0) {
      sl_push_owned(&c->res->problems, xasprintf("objdump read no instruction of %s: its calls within "
                                                 "a section were not checked", c->display));
      break;
    }
  }
}

/* The mnemonic of an instruction, past its prefixes ("notrack jmp *%rax": "jmp *%rax"). */
static const char *mnemonic(const char *t) {
  static const char *const prefixes[] = {"bnd ", "notrack ", "lock ", "rep ", "repz ", "repnz ",
                                         "data16 ", "addr32 ", "cs ", "ds "};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    if (starts_with(t, prefixes[i])) {
      t += strlen(prefixes[i]);
      i = (size_t)-1;
    }
  }
  return t;
}

/* A call or a jump (x86-64 and AArch64, the machines the course's GPUs sit in); `indirect`
 * set when it goes through a register or memory. */
static int branch(const elf_obj *o, const char *text, int *indirect) {
  const char *m = mnemonic(text);
  size_t n = strcspn(m, " ");
  *indirect = 0;
  if (o->machine == EM_X86_64) {
    if (!starts_with(m, "call") && m[0] != 'j') return 0;
    *indirect = m[n] == ' ' && m[n + 1] == '*';
    return 1;
  }
  if (o->machine == EM_AARCH64) {
    static const char *const direct[] = {"b", "bl", "cbz", "cbnz", "tbz", "tbnz"};
    *indirect = (n == 2 && strncmp(m, "br", 2) == 0) || (n == 3 && strncmp(m, "blr", 3) == 0);
    for (size_t i = 0; i < sizeof direct / sizeof direct[0]; i++) {
      if (n == strlen(direct[i]) && strncmp(m, direct[i], n) == 0) return 1;
    }
    return *indirect || starts_with(m, "b.");
  }
  return 0;
}

/* What code refers to: a call or jump, an address taken, data read or written. */

/* The section and offset a relocation points at, when its symbol lies in a section of this
 * object: PC-relative ones on x86-64 count from the end of their 4-byte field. */
int audit_relocation_address(const elf_obj *o, const elf_rel *r, uint32_t *sec, uint64_t *offset) {
  const elf_sym *t = &o->syms[r->sym];
  if (t->shndx == SHN_UNDEF || t->shndx >= o->n_secs) return 0;
  int pc_relative = o->machine == EM_X86_64 &&
                    (r->type == R_X86_64_PC32 || r->type == R_X86_64_PLT32 ||
                     r->type == R_X86_64_GOTPCREL || r->type == R_X86_64_GOTPCRELX ||
                     r->type == R_X86_64_REX_GOTPCRELX);
  int64_t at = (int64_t)t->value + r->addend + (pc_relative ? 4 : 0);
  if (at < 0) return 0;
  *sec = t->shndx;
  *offset = (uint64_t)at;
  return 1;
}

/* The data that `offset` of section `sec` lies in: its object, else a symbol that stands for
 * the whole section (its section's symbol, or a label in it such as a constant's .LC0); -1
 * if the section has none. */
long audit_data_holder(const elf_obj *o, uint32_t sec, uint64_t offset) {
  long object = audit_symbol_at(o, sec, offset, 0, STT_OBJECT), label = -1;
  for (size_t i = 1; object < 0 && i < o->n_syms; i++) {
    const elf_sym *y = &o->syms[i];
    if (y->shndx != sec || y->type == STT_FUNC || y->type == STT_OBJECT) continue;
    if (y->type == STT_SECTION) object = (long)i;
    else if (label < 0) label = (long)i;
  }
  return object >= 0 ? object : label;
}

/* The target of a relocation. */
void audit_relocation_target(const elf_obj *o, const elf_rel *r, code_ref *ref) {
  const elf_sym *t = &o->syms[r->sym];
  uint32_t sec;
  uint64_t offset;
  ref->sym = ref->fn = ref->data = -1;
  if (t->shndx == SHN_UNDEF) {
    ref->sym = r->sym;
  } else if (t->shndx >= o->n_secs) {
    ref->data = 0;
  } else if (!audit_is_exec(o, t->shndx)) {
    ref->data = t->type == STT_OBJECT ? (long)r->sym
                : audit_relocation_address(o, r, &sec, &offset) ? audit_data_holder(o, sec, offset)
                                                          : audit_data_holder(o, t->shndx, 0);
  } else if (t->type == STT_FUNC) {
    ref->fn = r->sym;
  } else if (t->type != STT_GNU_IFUNC && audit_relocation_address(o, r, &sec, &offset)) {
    ref->fn = audit_function_at(o, sec, offset, 0);
  }
}

static int by_offset(const void *a, const void *b) {
  uint64_t x = ((const elf_rel *)a)->offset, y = ((const elf_rel *)b)->offset;
  return x < y ? -1 : x > y;
}

/* Every reference the code of function `fn` makes, in the order of its instructions: its
 * relocations, and the direct calls, jumps and addresses that the assembler resolved itself
 * (within one section: no relocation shows them), and calls through a pointer. */
size_t audit_code_refs(audit_ctx *c, long fn, code_ref **out) {
  const elf_obj *o = &c->elf;
  const elf_sym *f = &o->syms[fn];
  uint64_t begin = f->value, end = f->value + (f->size ? f->size : 1);
  size_t n_rels = 0, n = 0;
  elf_rel *rels = NULL;
  for (size_t i = 0; i < o->n_rels; i++) {
    const elf_rel *r = &o->rels[i];
    if (r->sec != f->shndx || r->offset < begin || r->offset >= end) continue;
    rels = xrealloc(rels, (n_rels + 1) * sizeof *rels);
    rels[n_rels++] = *r;
  }
  if (n_rels > 1) qsort(rels, n_rels, sizeof *rels, by_offset);
  *out = NULL;
  long first = instruction_at(c, f->shndx, begin);
  size_t next_rel = 0;
  for (size_t i = first < 0 ? c->n_ins : (size_t)first; i < c->ins_end[f->shndx] && c->ins[i].offset < end; i++) {
    int indirect = 0, call = branch(o, c->ins[i].text, &indirect);
    uint64_t stop = i + 1 < c->ins_end[f->shndx] ? c->ins[i + 1].offset : end;
    for (; next_rel < n_rels && rels[next_rel].offset < stop; next_rel++) {
      *out = xrealloc(*out, (n + 1) * sizeof **out);
      code_ref *ref = &(*out)[n++];
      audit_relocation_target(o, &rels[next_rel], ref);
      ref->sec = f->shndx;
      ref->offset = rels[next_rel].offset;
      ref->indirect = 0;
      ref->call = call || (o->machine == EM_X86_64 && rels[next_rel].type == R_X86_64_PLT32) ||
                  (o->machine == EM_AARCH64 && (rels[next_rel].type == R_AARCH64_CALL26 ||
                                                rels[next_rel].type == R_AARCH64_JUMP26));
    }
    if (c->ins_relocated[i]) continue;
    /* objdump shows a resolved target as "<hex> <symbol+offset>". */
    const char *angle = strstr(c->ins[i].text, " <");
    const char *hex = angle;
    while (hex && hex > c->ins[i].text && isxdigit((unsigned char)hex[-1])) hex--;
    int target = hex && hex < angle && (hex == c->ins[i].text || hex[-1] == ' ');
    uint64_t at = target ? strtoull(hex, NULL, 16) : 0;
    if (target && at >= begin && at < end) continue; /* within the function */
    if (!target && !(call && indirect)) continue;
    *out = xrealloc(*out, (n + 1) * sizeof **out);
    code_ref *ref = &(*out)[n++];
    *ref = (code_ref){f->shndx, c->ins[i].offset, call, !target, -1, -1, -1};
    if (target) ref->fn = audit_function_at(o, f->shndx, at, 0);
  }
  /* Relocations past the instructions read (none were, if objdump failed): calls, to be safe. */
  for (; next_rel < n_rels; next_rel++) {
    *out = xrealloc(*out, (n + 1) * sizeof **out);
    code_ref *ref = &(*out)[n++];
    audit_relocation_target(o, &rels[next_rel], ref);
    ref->sec = f->shndx;
    ref->offset = rels[next_rel].offset;
    ref->call = 1;
    ref->indirect = 0;
  }
  free(rels);
  return n;
}
