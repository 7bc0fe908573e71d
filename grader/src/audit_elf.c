/* The static audit's reading of an object file (audit_internal.h): its sections, symbols and
 * relocations, read with <elf.h>, so no name a student chooses can confuse a text parser. */
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

/* ---- the object file ---- */





static void index_functions(elf_obj *o);

void elf_free(elf_obj *o) {
  for (size_t i = 0; i < o->n_syms; i++) {
    free(o->syms[i].full);
    free(o->syms[i].brief);
  }
  free(o->syms);
  free(o->functions);
  free(o->secs);
  free(o->rels);
  free(o->data);
  memset(o, 0, sizeof *o);
}

static int in_file(const elf_obj *o, uint64_t offset, uint64_t size) {
  return offset <= o->size && size <= o->size - offset;
}

/* A NUL-terminated string inside a string table, or NULL. */
static const char *elf_string(const elf_obj *o, uint32_t table, uint64_t at) {
  if (table >= o->n_secs) return NULL;
  const elf_sec *s = &o->secs[table];
  if (at >= s->size || !in_file(o, s->offset, s->size)) return NULL;
  const char *begin = o->data + s->offset + at;
  return memchr(begin, '\0', s->size - at) ? begin : NULL;
}

/* Names symbols with c++filt, a batch of arguments at a time (one output line each); a name
 * that is not plainly mangled is kept as it is. */
int audit_demangle_all(elf_obj *o) {
  enum { BATCH = 200 };
  size_t index[BATCH];
  char *argv[BATCH + 2];
  int ok = 1;
  for (size_t i = 0; i < o->n_syms;) {
    size_t n = 0;
    argv[0] = "c++filt";
    for (; i < o->n_syms && n < BATCH; i++) {
      const char *name = o->syms[i].name;
      if (!starts_with(name, "_Z") || name[strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$")] != '\0')
        continue;
      index[n] = i;
      argv[1 + n++] = (char *)name;
    }
    if (n == 0) continue;
    argv[1 + n] = NULL;
    char *text = run_capture(argv, NULL);
    char *line = text;
    for (size_t k = 0; k < n && line; k++) {
      char *eol = strchr(line, '\n');
      if (eol) *eol = '\0';
      free(o->syms[index[k]].full);
      o->syms[index[k]].full = xstrdup(line);
      line = eol ? eol + 1 : NULL;
    }
    if (text == NULL) ok = 0;
    free(text);
  }
  for (size_t i = 0; i < o->n_syms; i++) {
    if (o->syms[i].full == NULL) o->syms[i].full = xstrdup(o->syms[i].name);
    o->syms[i].brief = audit_short_name(o->syms[i].full);
  }
  return ok;
}

/* Reads a 64-bit little-endian relocatable object. Returns 0, or -1 with the reason. */
int elf_load(elf_obj *o, const char *path, strbuf *why) {
  memset(o, 0, sizeof *o);
  o->data = read_file(path, &o->size);
  if (o->data == NULL) {
    sb_printf(why, "cannot read %s", path);
    return -1;
  }
  Elf64_Ehdr eh;
  if (o->size < sizeof eh || memcmp(o->data, ELFMAG, SELFMAG) != 0 ||
      o->data[EI_CLASS] != ELFCLASS64 || o->data[EI_DATA] != ELFDATA2LSB) {
    sb_append(why, "not a 64-bit little-endian ELF object");
    return -1;
  }
  memcpy(&eh, o->data, sizeof eh);
  if (eh.e_type != ET_REL || eh.e_shentsize != sizeof(Elf64_Shdr)) {
    sb_append(why, "not a relocatable object");
    return -1;
  }
  o->machine = eh.e_machine;
  Elf64_Shdr sh;
  uint64_t n = eh.e_shnum;
  uint32_t names = eh.e_shstrndx;
  if (!in_file(o, eh.e_shoff, sizeof sh)) goto bad;
  memcpy(&sh, o->data + eh.e_shoff, sizeof sh);
  if (n == 0) n = sh.sh_size; /* extended numbering */
  if (names == SHN_XINDEX) names = sh.sh_link;
  if (n > (o->size / sizeof sh) || !in_file(o, eh.e_shoff, n * sizeof sh)) goto bad;
  o->n_secs = (size_t)n;
  o->secs = xcalloc(o->n_secs + 1, sizeof *o->secs);
  for (size_t i = 0; i < o->n_secs; i++) {
    memcpy(&sh, o->data + eh.e_shoff + i * sizeof sh, sizeof sh);
    o->secs[i] = (elf_sec){NULL, sh.sh_type, sh.sh_link, sh.sh_info, sh.sh_flags, sh.sh_offset, sh.sh_size};
    if (sh.sh_type != SHT_NOBITS && !in_file(o, sh.sh_offset, sh.sh_size)) goto bad;
  }
  for (size_t i = 0; i < o->n_secs; i++) {
    memcpy(&sh, o->data + eh.e_shoff + i * sizeof sh, sizeof sh);
    o->secs[i].name = elf_string(o, names, sh.sh_name);
    if (o->secs[i].name == NULL) goto bad;
  }
  /* The symbol table, its extended section indexes, and the relocations against it. */
  size_t symtab = 0, xindex = 0;
  for (size_t i = 1; i < o->n_secs; i++) {
    if (o->secs[i].type == SHT_SYMTAB && symtab == 0) symtab = i;
  }
  if (symtab == 0) return 0; /* nothing defined, nothing referenced */
  for (size_t i = 1; i < o->n_secs; i++) {
    if (o->secs[i].type == SHT_SYMTAB_SHNDX && o->secs[i].link == symtab) xindex = i;
  }
  const elf_sec *st = &o->secs[symtab];
  o->n_syms = (size_t)(st->size / sizeof(Elf64_Sym));
  o->syms = xcalloc(o->n_syms + 1, sizeof *o->syms);
  for (size_t i = 0; i < o->n_syms; i++) {
    Elf64_Sym s;
    memcpy(&s, o->data + st->offset + i * sizeof s, sizeof s);
    elf_sym *y = &o->syms[i];
    y->name = elf_string(o, st->link, s.st_name);
    if (y->name == NULL) goto bad;
    y->value = s.st_value;
    y->size = s.st_size;
    y->type = ELF64_ST_TYPE(s.st_info);
    y->bind = ELF64_ST_BIND(s.st_info);
    y->shndx = s.st_shndx;
    if (s.st_shndx == SHN_XINDEX) {
      if (xindex == 0 || !in_file(o, o->secs[xindex].offset + i * 4, 4) || (i + 1) * 4 > o->secs[xindex].size)
        goto bad;
      memcpy(&y->shndx, o->data + o->secs[xindex].offset + i * 4, 4);
    }
  }
  for (size_t i = 1; i < o->n_secs; i++) {
    const elf_sec *r = &o->secs[i];
    int rela = r->type == SHT_RELA;
    if ((!rela && r->type != SHT_REL) || r->link != symtab || r->info >= o->n_secs) continue;
    if (!(o->secs[r->info].flags & SHF_ALLOC)) continue; /* debug information */
    size_t entry = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
    size_t count = (size_t)(r->size / entry);
    o->rels = xrealloc(o->rels, (o->n_rels + count + 1) * sizeof *o->rels);
    for (size_t k = 0; k < count; k++) {
      Elf64_Rela e = {0, 0, 0};
      memcpy(&e, o->data + r->offset + k * entry, entry);
      uint32_t sym = (uint32_t)ELF64_R_SYM(e.r_info);
      if (sym >= o->n_syms) goto bad;
      o->rels[o->n_rels++] =
          (elf_rel){r->info, sym, e.r_offset, rela ? e.r_addend : 0, (uint32_t)ELF64_R_TYPE(e.r_info)};
    }
  }
  index_functions(o);
  return 0;
bad:
  sb_append(why, "a malformed ELF object");
  return -1;
}

int audit_is_exec(const elf_obj *o, uint32_t sec) {
  return sec < o->n_secs && (o->secs[sec].flags & SHF_EXECINSTR);
}

/* The symbol of `type` (a function, or a data object) that holds `offset` of section `sec`
 * (with `exact`, starts there); -1 if none. A binary search in the symbols sorted by section
 * and address. */
long audit_symbol_at(const elf_obj *o, uint32_t sec, uint64_t offset, int exact, unsigned type) {
  size_t low = 0, high = o->n_functions;
  while (low < high) { /* the first symbol past (sec, offset) */
    size_t middle = low + (high - low) / 2;
    const elf_sym *y = &o->syms[o->functions[middle]];
    if (y->shndx < sec || (y->shndx == sec && y->value <= offset)) low = middle + 1;
    else high = middle;
  }
  /* The symbols that start nearest below it, aliases of one another: the first in the symbol
   * table that holds it. */
  long hit = -1;
  for (size_t i = low; i-- > 0;) {
    const elf_sym *y = &o->syms[o->functions[i]];
    if (y->shndx != sec || y->value != o->syms[o->functions[low - 1]].value) break;
    if (y->type == type && (exact ? y->value == offset : offset - y->value < (y->size ? y->size : 1)))
      hit = (long)o->functions[i];
  }
  return hit;
}

long audit_function_at(const elf_obj *o, uint32_t sec, uint64_t offset, int exact) {
  return audit_symbol_at(o, sec, offset, exact, STT_FUNC);
}

static const elf_obj *sorting; /* for by_address: qsort has no argument of its own */

static int by_address(const void *a, const void *b) {
  const elf_sym *x = &sorting->syms[*(const size_t *)a], *y = &sorting->syms[*(const size_t *)b];
  if (x->shndx != y->shndx) return x->shndx < y->shndx ? -1 : 1;
  if (x->value != y->value) return x->value < y->value ? -1 : 1;
  return *(const size_t *)a < *(const size_t *)b ? -1 : *(const size_t *)a > *(const size_t *)b;
}

static void index_functions(elf_obj *o) {
  o->functions = xcalloc(o->n_syms + 1, sizeof *o->functions);
  for (size_t i = 0; i < o->n_syms; i++) {
    if (o->syms[i].type == STT_FUNC || o->syms[i].type == STT_OBJECT) o->functions[o->n_functions++] = i;
  }
  sorting = o;
  qsort(o->functions, o->n_functions, sizeof *o->functions, by_address);
  sorting = NULL;
}
