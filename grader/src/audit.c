/* The static audit (audit.h). The object's structure (sections, symbols, relocations) is read
 * here with <elf.h>, so no name a student chooses can confuse a text parser; binutils do the
 * rest: c++filt names symbols, addr2line maps code to source lines, objdump disassembles. */
#define _POSIX_C_SOURCE 200809L
#include "audit.h"

#include <ctype.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proc.h"
#include "report.h"
#include "rubric.h"

/* Defaults. The C library's process, file and code-loading calls are forbidden by name;
 * abort (what assert calls) and atexit (nvcc's registration uses it) are not: abort ends the
 * test as a crash, a failure, and neither can fake a pass. mmap is forbidden with mprotect:
 * together they make memory executable, and device memory comes from cudaMalloc anyway. */
const char *const audit_default_forbid[] = {
    /* a library in place of the exercise */
    "cub::*", "thrust::*", "cutlass::*", "cute::*", "cublas*",
    /* streams the lab does not need (a rubric allows them where it does), and the driver's
     * entry points by name, which reach any function without naming it */
    "cudaStreamCreate*", "cuStreamCreate*", "cudaGetDriverEntryPoint*", "cuGetProcAddress*",
    "__cudaGetProcAddress",
    /* names that reach around the worker's counts of launches and GPU memory (the linker's
     * __real_ and __wrap_ names), and the runtime's internal ones */
    "__real_*", "__wrap_*", "libcudart_static_*",
    /* leaving the process, or starting another */
    "exit", "_exit", "_Exit", "quick_exit", "fork", "vfork", "clone", "clone3", "execl",
    "execle", "execlp", "execv", "execve", "execvp", "execvpe", "execveat", "fexecve",
    "posix_spawn", "posix_spawnp", "system", "popen",
    /* files */
    "fopen", "fopen64", "freopen", "freopen64", "open", "open64", "openat", "openat64", "creat",
    "creat64", "unlink", "unlinkat", "rename", "renameat", "renameat2", "remove",
    "std::*fstream*", "std::*filebuf*", "std::filesystem::*",
    /* loading code, making memory executable, other processes, the kernel, the network */
    "dlopen", "dlmopen", "dlsym", "dlvsym", "mprotect", "pkey_mprotect", "mmap", "mmap64",
    "ptrace", "kill", "tgkill", "syscall", "socket", "connect",
    /* code that runs between the calls, where the sealed timing does not look: a thread of its
     * own, or a signal handler run from a timer (either could keep the GPU busy while the
     * yardstick is timed) */
    "pthread_create", "thrd_create", "std::thread::*", "std::jthread::*", "signal", "sigaction",
    "sigset", "bsd_signal", "sysv_signal", "alarm", "ualarm", "setitimer", "timer_create",
    /* ... or one the C library starts for it: asynchronous I/O, lookups and message queues
     * notify through a thread of their own; __clone is clone by another name */
    "aio_*", "lio_listio*", "getaddrinfo_a", "mq_notify", "__clone*",
    /* the C library's other names for opening files */
    "__open", "__open64", "__openat*", "_IO_*",
    /* device limits and L2 set-asides the worker's GPU memory cap does not count, and that
     * outlast a call (gpu_memory.c refuses them too) */
    "cudaDeviceSetLimit", "cuCtxSetLimit*", "cudaCtxResetPersistingL2Cache",
    "cudaStreamSetAttribute*", "cudaGraphKernelNodeSetAttribute*",
    /* code that runs before main or after it; inline assembly; #line, which would make code
     * of the student's look like a header's to the line tables; an #include of a macro, which
     * hides the header it names from the text */
    "constructor", "asm", "line-directive", "include-macro", NULL};

/* ---- the rubric's audit lines ---- */

void audit_config_init(audit_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  sl_init(&cfg->forbid);
  cfg->cost = AUDIT_COST_STEP | AUDIT_COST_PERF;
}

void audit_config_free(audit_config *cfg) {
  sl_free(&cfg->forbid);
  for (size_t i = 0; i < cfg->n_allow; i++) {
    free(cfg->allow[i].pattern);
    free(cfg->allow[i].step);
  }
  free(cfg->allow);
  memset(cfg, 0, sizeof *cfg);
}

static int parse_cost(const char *text, int *cost) {
  if (strcmp(text, "none") == 0) {
    *cost = 0;
    return 1;
  }
  int bits = 0;
  for (const char *p = text;;) {
    size_t n = strcspn(p, "+");
    if (n == 4 && strncmp(p, "step", 4) == 0) bits |= AUDIT_COST_STEP;
    else if (n == 4 && strncmp(p, "perf", 4) == 0) bits |= AUDIT_COST_PERF;
    else if (n == 3 && strncmp(p, "lab", 3) == 0) bits |= AUDIT_COST_LAB;
    else return 0;
    if (p[n] == '\0') break;
    p += n + 1;
  }
  *cost = bits;
  return 1;
}

int audit_parse_line(audit_config *cfg, const strlist *w, const char *where, strbuf *errors) {
  const char *verb = w->count > 1 ? w->items[1] : "";
  if (strcmp(verb, "cost") == 0) {
    if (w->count != 3 || !parse_cost(w->items[2], &cfg->cost)) {
      sb_printf(errors, "%s: audit cost takes one of step+perf, step, perf, lab, none\n", where);
      return -1;
    }
    return 0;
  }
  int allow = strcmp(verb, "allow") == 0;
  if (!allow && strcmp(verb, "forbid") != 0) {
    sb_printf(errors, "%s: an audit line is 'audit forbid <pattern>...', 'audit allow "
                      "<pattern>... [step=<id>]' or 'audit cost <what>'\n", where);
    return -1;
  }
  const char *step = NULL;
  size_t patterns = 0;
  int ok = 1;
  for (size_t i = 2; i < w->count; i++) {
    const char *word = w->items[i];
    if (allow && starts_with(word, "step=") && word[5] != '\0' && step == NULL) {
      step = word + 5;
    } else if (strchr(word, '=') != NULL) {
      sb_printf(errors, "%s: unexpected '%s' (only 'audit allow' takes step=<id>, once)\n",
                where, word);
      ok = 0;
    } else {
      patterns++;
    }
  }
  if (patterns == 0) {
    sb_printf(errors, "%s: audit %s names at least one pattern\n", where, verb);
    ok = 0;
  }
  if (!ok) return -1;
  for (size_t i = 2; i < w->count; i++) {
    const char *word = w->items[i];
    if (strchr(word, '=') != NULL) continue;
    if (!allow) {
      sl_push(&cfg->forbid, word);
      continue;
    }
    cfg->allow = xrealloc(cfg->allow, (cfg->n_allow + 1) * sizeof *cfg->allow);
    cfg->allow[cfg->n_allow].pattern = xstrdup(word);
    cfg->allow[cfg->n_allow].step = step ? xstrdup(step) : NULL;
    cfg->n_allow++;
  }
  return 0;
}

static int ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* A pattern of one alternative that starts with a namespace: "cub::*", "std::filesystem::*". */
static int namespace_pattern(const char *p, size_t n) {
  size_t id = 0;
  while (id < n && ident_char(p[id])) id++;
  return id > 0 && id + 2 <= n && p[id] == ':' && p[id + 1] == ':';
}

/* The qualified name that starts at `p`: names, "::" and template arguments ("cub::Sum<int*>"),
 * up to what ends it at the outer level (a parameter list, a comma, a space). */
static size_t qualified_length(const char *p) {
  size_t n = 0;
  int depth = 0;
  for (; p[n]; n++) {
    char ch = p[n];
    if (ch == '<' || (ch == '(' && depth > 0)) depth++;
    else if ((ch == '>' || ch == ')') && depth > 0) depth--;
    else if (depth == 0 && !ident_char(ch) && ch != ':') break;
  }
  return n;
}

/* A namespace pattern matched at every place its namespace begins a qualified name inside the
 * demangled name: wrapped in another namespace (CUB_WRAPPED_NAMESPACE gives
 * "mywrap::cub::DeviceScan::..."), in template arguments, in parameter types; never inside a
 * longer name ("mycub::", "scrub::"). Each place is matched as it is and without its versioned
 * namespaces, as a whole name is. */
static int nested_match(const char *pattern, const char *full) {
  size_t ns = strcspn(pattern, ":") + 2; /* "cub::" */
  int hit = 0;
  for (const char *p = full; !hit && *p; p++) {
    if (strncmp(p, pattern, ns) != 0 || (p > full && ident_char(p[-1]))) continue;
    char *name = xstrndup(p, qualified_length(p));
    char *brief = audit_short_name(name);
    hit = pattern_match(pattern, name) || pattern_match(pattern, brief);
    free(brief);
    free(name);
  }
  return hit;
}

/* Whether `pattern` matches a symbol: its short name, its whole demangled name, or, for an
 * alternative that starts with a namespace, that namespace anywhere in the name. */
static int name_match(const char *pattern, const char *full, const char *brief) {
  if (pattern_match(pattern, brief) || pattern_match(pattern, full)) return 1;
  for (const char *alt = pattern;;) {
    const char *bar = strchr(alt, '|');
    size_t n = bar ? (size_t)(bar - alt) : strlen(alt);
    if (namespace_pattern(alt, n)) {
      char *one = xstrndup(alt, n);
      int hit = nested_match(one, full);
      free(one);
      if (hit) return 1;
    }
    if (bar == NULL) return 0;
    alt = bar + 1;
  }
}

/* The forbidding pattern `name` (or its short form) matches, or NULL; NULL too when an allow
 * line without a step allows it. */
static const char *forbidding_pattern(const audit_config *cfg, const char *name, const char *brief) {
  const char *hit = NULL;
  for (size_t i = 0; audit_default_forbid[i] && !hit; i++) {
    if (name_match(audit_default_forbid[i], name, brief)) hit = audit_default_forbid[i];
  }
  for (size_t i = 0; i < cfg->forbid.count && !hit; i++) {
    if (name_match(cfg->forbid.items[i], name, brief)) hit = cfg->forbid.items[i];
  }
  for (size_t i = 0; hit && i < cfg->n_allow; i++) {
    const audit_allow *a = &cfg->allow[i];
    if (a->step == NULL && name_match(a->pattern, name, brief)) hit = NULL;
  }
  return hit;
}

/* Allowed in the steps it is in: each of them has an allow line for it. */
static int allowed_in_steps(const audit_config *cfg, const audit_finding *f) {
  if (f->every_step || f->steps.count == 0) return 0;
  char *brief = audit_short_name(f->name);
  int ok = 1;
  for (size_t s = 0; s < f->steps.count && ok; s++) {
    int allowed = 0;
    for (size_t i = 0; i < cfg->n_allow && !allowed; i++) {
      const audit_allow *a = &cfg->allow[i];
      allowed = a->step && strcmp(a->step, f->steps.items[s]) == 0 &&
                name_match(a->pattern, f->name, brief);
    }
    if (!allowed) ok = 0;
  }
  free(brief);
  return ok;
}

/* ---- names ---- */

/* A component such as CUB_300001_SM_900 or THRUST_200200_NS (a library's versioned inline
 * namespace), or libstdc++'s __cxx11 and libcu++'s __4. */
static int version_namespace(const char *p, size_t n) {
  if (n >= 3 && p[0] == '_' && p[1] == '_') {
    if (n == 7 && strncmp(p, "__cxx11", 7) == 0) return 1;
    for (size_t i = 2; i < n; i++) if (!isdigit((unsigned char)p[i])) return 0;
    return 1;
  }
  if (!isupper((unsigned char)p[0])) return 0;
  int digit = 0;
  for (size_t i = 0; i < n; i++) {
    if (!isupper((unsigned char)p[i]) && !isdigit((unsigned char)p[i]) && p[i] != '_') return 0;
    digit |= isdigit((unsigned char)p[i]) != 0;
  }
  return digit;
}

/* _FORTIFY_SOURCE (on by default in Ubuntu's gcc) turns printf into __printf_chk and open into
 * __open_2: the audit names and matches the function the student wrote. */
static char *fortified_base(char *name) {
  size_t n = strlen(name);
  static const char *const opens[] = {"open", "open64", "openat", "openat64"};
  if (n > 6 && strncmp(name, "__", 2) == 0 && strcmp(name + n - 4, "_chk") == 0) {
    memmove(name, name + 2, n - 6);
    name[n - 6] = '\0';
    return name;
  }
  for (size_t i = 0; n > 4 && i < sizeof opens / sizeof opens[0]; i++) {
    size_t m = strlen(opens[i]);
    if (n == m + 4 && strncmp(name, "__", 2) == 0 && strncmp(name + 2, opens[i], m) == 0 &&
        strcmp(name + 2 + m, "_2") == 0) {
      memmove(name, name + 2, m);
      name[m] = '\0';
      return name;
    }
  }
  return name;
}

char *audit_short_name(const char *full) {
  strbuf flat;
  sb_init(&flat);
  int depth = 0;
  for (const char *p = full; *p; p++) {
    if (*p == '<' || *p == '(' || *p == '[') depth++;
    else if ((*p == '>' || *p == ')' || *p == ']') && depth > 0) depth--;
    else if (depth == 0) sb_append_char(&flat, *p);
  }
  /* The last word that is not a qualifier: drops a return type ("void f") and "const". */
  const char *best = NULL;
  size_t best_n = 0;
  for (const char *p = flat.data; *p;) {
    while (*p == ' ') p++;
    const char *begin = p;
    while (*p && *p != ' ') p++;
    size_t n = (size_t)(p - begin);
    if (n == 0) break;
    if ((n == 5 && strncmp(begin, "const", 5) == 0) || (n == 8 && strncmp(begin, "volatile", 8) == 0) ||
        (n == 1 && begin[0] == '&') || (n == 2 && strncmp(begin, "&&", 2) == 0))
      continue;
    best = begin;
    best_n = n;
  }
  strbuf out;
  sb_init(&out);
  for (const char *p = best; p && p < best + best_n;) {
    const char *end = strstr(p, "::");
    size_t n = end && end < best + best_n ? (size_t)(end - p) : (size_t)(best + best_n - p);
    if (!version_namespace(p, n)) {
      if (out.len) sb_append(&out, "::");
      sb_append_n(&out, p, n);
    }
    p += n;
    if (p < best + best_n) p += 2;
  }
  sb_free(&flat);
  if (out.len == 0) {
    sb_free(&out);
    return xstrdup(full);
  }
  return fortified_base(sb_steal(&out));
}

/* ---- the object file ---- */

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

static void index_functions(elf_obj *o);

static void elf_free(elf_obj *o) {
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
static int demangle_all(elf_obj *o) {
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
static int elf_load(elf_obj *o, const char *path, strbuf *why) {
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

static int is_exec(const elf_obj *o, uint32_t sec) {
  return sec < o->n_secs && (o->secs[sec].flags & SHF_EXECINSTR);
}

/* The symbol of `type` (a function, or a data object) that holds `offset` of section `sec`
 * (with `exact`, starts there); -1 if none. A binary search in the symbols sorted by section
 * and address. */
static long symbol_at(const elf_obj *o, uint32_t sec, uint64_t offset, int exact, unsigned type) {
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

static long function_at(const elf_obj *o, uint32_t sec, uint64_t offset, int exact) {
  return symbol_at(o, sec, offset, exact, STT_FUNC);
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
static char *code_only(const char *text) {
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

typedef struct directive {
  int line;       /* the line of the source it starts on */
  char *name;     /* "include", "line", ...; "" for a line marker ("# 12 \"file\"") */
  char *argument; /* the rest of it, white space trimmed */
} directive;

static void directives_free(directive *d, size_t n) {
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
    } else if (ident_char(*p)) {
      int number = isdigit((unsigned char)*p);
      while (ident_char(p[length]) || (number && p[length] == '\'' && isalnum((unsigned char)p[length + 1])))
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
static size_t read_directives(const char *text, directive **out) {
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
      while (ident_char(p[name]) && !isdigit((unsigned char)p[0])) name++;
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

/* ---- one audit ---- */

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

/* The student's file. Where a function has no line table of its own, addr2line names the
 * compilation unit, i.e. the CPU backend's rewrite, with the source's line number. */
static int same_file(audit_ctx *c, const char *path) {
  if (strcmp(path, c->source) == 0 || (c->compiled && strcmp(path, c->compiled) == 0)) return 1;
  char *real = real_path(path);
  int same = real && c->source_real && strcmp(real, c->source_real) == 0;
  free(real);
  return same;
}

/* nvcc's front end writes the host code it compiles to <name>.cudafe1.cpp (the student's code
 * and the headers', under line markers back to their files, and code of its own: extended
 * lambdas' wrappers) and the kernels' launch stubs and registration to <name>.cudafe1.stub.c.
 * The line tables name those files for code no marker places (a bare marker after a system
 * header's loses the file's name): an extended lambda's body, NVTX's functions. 1: the
 * .cudafe1.cpp; 2: the stub file (stubs of the student's kernels and of a header's alike);
 * 0: neither. */
static int nvcc_generated(const audit_ctx *c, const char *path) {
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  const char *source = strrchr(c->source, '/') ? strrchr(c->source, '/') + 1 : c->source;
  size_t stem = strcspn(source, ".");
  static const char *const kinds[] = {".cudafe1.cpp", ".cudafe1.c", ".cudafe1.stub.c"};
  for (size_t k = 0; k < 3; k++) {
    size_t n = strlen(base), m = strlen(kinds[k]);
    if (n < stem + m || strcmp(base + n - m, kinds[k]) != 0) continue;
    const char *name = base + n - m - stem;
    if (strncmp(name, source, stem) == 0 && (name == base || name[-1] == '_')) return k < 2 ? 1 : 2;
  }
  return 0;
}

/* Where the code at one place comes from, by its inlined frames (addr2line -i), innermost
 * first. */
typedef struct place {
  uint32_t sec;
  uint64_t offset;
  int line;      /* the innermost frame in the student's file, or 0 */
  int generated; /* no such frame, but one in nvcc's .cudafe1.cpp, or in its stub file with no
                    header's frame: code on no line of the file, whose users decide whose it is */
  int elsewhere; /* none of those, but a frame in another file with a line (a header's) */
} place;

static void place_frames(audit_ctx *c, place *p, char *frames) {
  int from_source = 0, stub = 0, other = 0;
  for (char *line = frames; line && *line && p->line == 0;) {
    char *eol = strchr(line, '\n');
    if (eol) *eol = '\0';
    char *discriminator = strstr(line, " (discriminator");
    if (discriminator) *discriminator = '\0';
    char *colon = strrchr(line, ':');
    if (colon) {
      *colon = '\0';
      int number = isdigit((unsigned char)colon[1]) ? atoi(colon + 1) : 0;
      int generated = nvcc_generated(c, line);
      if (same_file(c, line)) p->line = number;
      else if (generated == 1) from_source = 1;
      else if (generated == 2) stub = 1;
      else if (strcmp(line, "??") != 0 && number > 0) other = 1;
    }
    line = eol ? eol + 1 : NULL;
  }
  p->generated = p->line == 0 && (from_source || (stub && !other));
  p->elsewhere = p->line == 0 && !p->generated && other;
}

static long place_index(const audit_ctx *c, uint32_t sec, uint64_t offset, int *found) {
  size_t low = 0, high = c->n_places;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    const place *p = &c->places[middle];
    if (p->sec < sec || (p->sec == sec && p->offset < offset)) low = middle + 1;
    else high = middle;
  }
  *found = low < c->n_places && c->places[low].sec == sec && c->places[low].offset == offset;
  return (long)low;
}

/* Reads the places of `offsets` in section `sec` that are not known yet, a batch of them to
 * one addr2line (-a marks where each address's frames begin). */
static void locate(audit_ctx *c, uint32_t sec, const uint64_t *offsets, size_t n) {
  enum { BATCH = 200 };
  for (size_t i = 0; i < n;) {
    char *argv[BATCH + 8] = {"addr2line", "-a", "-i", "-e", (char *)c->object, "-j",
                             (char *)c->elf.secs[sec].name};
    char addresses[BATCH][24];
    size_t k = 0;
    for (; i < n && k < BATCH; i++) {
      int found;
      place_index(c, sec, offsets[i], &found);
      int twice = 0;
      for (size_t j = 0; j < k && !twice; j++) twice = strtoull(addresses[j], NULL, 16) == offsets[i];
      if (found || twice) continue;
      snprintf(addresses[k], sizeof addresses[k], "0x%llx", (unsigned long long)offsets[i]);
      argv[7 + k] = addresses[k];
      k++;
    }
    if (k == 0) continue;
    argv[7 + k] = NULL;
    char *text = is_exec(&c->elf, sec) ? run_capture(argv, NULL) : NULL;
    /* Each address's frames follow the line that repeats it ("0x" and 16 digits). */
    char *cursor = text;
    for (size_t j = 0; j < k; j++) {
      place p = {sec, strtoull(addresses[j], NULL, 16), 0, 0, 0};
      char *frames = NULL;
      if (cursor && strncmp(cursor, "0x", 2) == 0) {
        frames = strchr(cursor, '\n');
        frames = frames ? frames + 1 : NULL;
        cursor = frames;
        while (cursor && *cursor && !(strncmp(cursor, "0x", 2) == 0 && strspn(cursor + 2, "0123456789abcdef") == 16))
          cursor = strchr(cursor, '\n') ? strchr(cursor, '\n') + 1 : NULL;
        if (cursor && cursor > frames) cursor[-1] = '\0';
      }
      if (frames) place_frames(c, &p, frames);
      int found;
      long at = place_index(c, sec, p.offset, &found);
      c->places = xrealloc(c->places, (c->n_places + 1) * sizeof *c->places);
      memmove(&c->places[at + 1], &c->places[at], (c->n_places - (size_t)at) * sizeof *c->places);
      c->places[at] = p;
      c->n_places++;
    }
    free(text);
  }
}

static place place_of(audit_ctx *c, uint32_t sec, uint64_t offset) {
  int found;
  if (sec >= c->elf.n_secs) return (place){sec, offset, 0, 0, 0};
  locate(c, sec, &offset, 1);
  return c->places[place_index(c, sec, offset, &found)];
}

static void finding_add_line(audit_ctx *c, audit_finding *f, int line);

/* Adds the line of the code at `offset` of section `sec`; code on no line of the file counts
 * for every step, and the report says why. */
static void finding_add_site(audit_ctx *c, audit_finding *f, uint32_t sec, uint64_t offset) {
  place p = place_of(c, sec, offset);
  if (p.line > 0) {
    finding_add_line(c, f, p.line);
  } else if (!p.elsewhere) {
    f->unplaced = f->unplaced > (p.generated ? 2 : 1) ? f->unplaced : p.generated ? 2 : 1;
    f->every_step = 1;
  }
}

static void finding_add_line(audit_ctx *c, audit_finding *f, int line) {
  if (line <= 0) return;
  for (size_t i = 0; i < f->n_lines; i++) if (f->lines[i] == line) return;
  if (f->n_lines < AUDIT_MAX_LINES) f->lines[f->n_lines++] = line;
  const char *step = step_map_lookup(&c->steps, line);
  if (step == NULL) f->every_step = 1;
  else if (!sl_contains(&f->steps, step)) sl_push(&f->steps, step);
}

/* Lines where the code names `token` (an identifier), #include lines left out: where a library
 * is used, when its symbols' references lead to no line of the student's own. */
static void text_lines(audit_ctx *c, audit_finding *f, const char *token, int prefix) {
  size_t n = strlen(token);
  int line = 1, include = 0, line_start = 1;
  for (const char *p = c->code; *p;) {
    if (*p == '\n') {
      line++;
      include = 0;
      line_start = 1;
      p++;
      continue;
    }
    if (line_start && *p == '#') {
      const char *q = p + 1;
      while (*q == ' ' || *q == '\t') q++;
      include = strncmp(q, "include", 7) == 0;
    }
    if (!isspace((unsigned char)*p)) line_start = 0;
    if (isalpha((unsigned char)*p) || *p == '_') {
      const char *begin = p;
      while (isalnum((unsigned char)*p) || *p == '_') p++;
      size_t len = (size_t)(p - begin);
      if (!include && (prefix ? len >= n : len == n) && strncmp(begin, token, n) == 0)
        finding_add_line(c, f, line);
      continue;
    }
    p++;
  }
}

static void finding_free(audit_finding *f) {
  free(f->name);
  free(f->pattern);
  free(f->what);
  free(f->file);
  sl_free(&f->steps);
  memset(f, 0, sizeof *f);
}

/* Whether `pattern` matches the short name of the symbol `full`, as it is or at a level of it:
 * "mywrap::cub::DeviceScan::ExclusiveSum", not a function with a CUB type among its template
 * arguments. */
static int direct_match(const char *pattern, const char *full) {
  char *brief = audit_short_name(full);
  int hit = name_match(pattern, brief, brief);
  free(brief);
  return hit;
}

/* Keeps a finding the rubric does not allow; frees it otherwise. The symbols one pattern
 * forbids in one file are one finding, named by its shortest name ("forbidden symbol
 * cub::DeviceReduce::Sum (and 8 more matching cub::*)"), with all their lines. */
static void finding_keep(audit_ctx *c, audit_finding *f, const char *pattern) {
  if (f->n_lines == 0) f->every_step = 1;
  if (allowed_in_steps(c->cfg, f)) {
    finding_free(f);
    return;
  }
  audit_result *res = c->res;
  for (size_t i = 0; pattern && i < res->count; i++) {
    audit_finding *g = &res->findings[i];
    if (!g->pattern || strcmp(g->pattern, pattern) != 0 || strcmp(g->file, f->file) != 0) continue;
    g->more++;
    /* The finding is named by its shortest symbol that names the pattern itself (not only in
     * template arguments). */
    int f_direct = direct_match(pattern, f->name), g_direct = direct_match(pattern, g->name);
    if (f_direct > g_direct || (f_direct == g_direct && strlen(f->what) < strlen(g->what))) {
      char *swap = g->what;
      g->what = f->what;
      f->what = swap;
    }
    for (size_t k = 0; k < f->n_lines; k++) finding_add_line(c, g, f->lines[k]);
    g->every_step |= f->every_step;
    if (f->unplaced > g->unplaced) g->unplaced = f->unplaced;
    finding_free(f);
    return;
  }
  if (pattern) f->pattern = xstrdup(pattern);
  res->findings = xrealloc(res->findings, (res->count + 1) * sizeof *res->findings);
  res->findings[res->count++] = *f;
}

static void finding_start(audit_ctx *c, audit_finding *f, const char *name, char *what) {
  memset(f, 0, sizeof *f);
  f->name = xstrdup(name);
  f->what = what;
  f->file = xstrdup(c->display);
  sl_init(&f->steps);
}

/* ---- the machine code ---- */

typedef struct disasm_line {
  uint32_t sec;
  uint64_t offset;
  char *text; /* "movl $0x1,0xc(%rsp)", white space collapsed */
} disasm_line;

static void disasm_free(disasm_line *lines, size_t n) {
  for (size_t i = 0; i < n; i++) free(lines[i].text);
  free(lines);
}

/* Instructions from objdump: one section's [begin, end), or, with sec 0, all code. */
static size_t disassemble(audit_ctx *c, uint32_t sec, uint64_t begin, uint64_t end,
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
        if (is_exec(&c->elf, (uint32_t)i) && strcmp(c->elf.secs[i].name, line + 23) == 0) {
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
static void read_code(audit_ctx *c) {
  if (c->ins_begin) return;
  const elf_obj *o = &c->elf;
  c->n_ins = disassemble(c, 0, 0, 0, &c->ins);
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
    if (is_exec(o, (uint32_t)i) && o->secs[i].size > 0) {
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

/* The section and offset a relocation points at, when its symbol lies in a section of this
 * object: PC-relative ones on x86-64 count from the end of their 4-byte field. */
static int relocation_address(const elf_obj *o, const elf_rel *r, uint32_t *sec, uint64_t *offset) {
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
static long data_holder(const elf_obj *o, uint32_t sec, uint64_t offset) {
  long object = symbol_at(o, sec, offset, 0, STT_OBJECT), label = -1;
  for (size_t i = 1; object < 0 && i < o->n_syms; i++) {
    const elf_sym *y = &o->syms[i];
    if (y->shndx != sec || y->type == STT_FUNC || y->type == STT_OBJECT) continue;
    if (y->type == STT_SECTION) object = (long)i;
    else if (label < 0) label = (long)i;
  }
  return object >= 0 ? object : label;
}

/* The target of a relocation. */
static void relocation_target(const elf_obj *o, const elf_rel *r, code_ref *ref) {
  const elf_sym *t = &o->syms[r->sym];
  uint32_t sec;
  uint64_t offset;
  ref->sym = ref->fn = ref->data = -1;
  if (t->shndx == SHN_UNDEF) {
    ref->sym = r->sym;
  } else if (t->shndx >= o->n_secs) {
    ref->data = 0;
  } else if (!is_exec(o, t->shndx)) {
    ref->data = t->type == STT_OBJECT ? (long)r->sym
                : relocation_address(o, r, &sec, &offset) ? data_holder(o, sec, offset)
                                                          : data_holder(o, t->shndx, 0);
  } else if (t->type == STT_FUNC) {
    ref->fn = r->sym;
  } else if (t->type != STT_GNU_IFUNC && relocation_address(o, r, &sec, &offset)) {
    ref->fn = function_at(o, sec, offset, 0);
  }
}

static int by_offset(const void *a, const void *b) {
  uint64_t x = ((const elf_rel *)a)->offset, y = ((const elf_rel *)b)->offset;
  return x < y ? -1 : x > y;
}

/* Every reference the code of function `fn` makes, in the order of its instructions: its
 * relocations, and the direct calls, jumps and addresses that the assembler resolved itself
 * (within one section: no relocation shows them), and calls through a pointer. */
static size_t code_refs(audit_ctx *c, long fn, code_ref **out) {
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
      relocation_target(o, &rels[next_rel], ref);
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
    if (target) ref->fn = function_at(o, f->shndx, at, 0);
  }
  /* Relocations past the instructions read (none were, if objdump failed): calls, to be safe. */
  for (; next_rel < n_rels; next_rel++) {
    *out = xrealloc(*out, (n + 1) * sizeof **out);
    code_ref *ref = &(*out)[n++];
    relocation_target(o, &rels[next_rel], ref);
    ref->sec = f->shndx;
    ref->offset = rels[next_rel].offset;
    ref->call = 1;
    ref->indirect = 0;
  }
  free(rels);
  return n;
}

/* ---- code the compilers generate to run before main ---- */

/* Two kinds of generated code, judged by what they reach: start-up code (nvcc's kernel
 * registration, <iostream>'s initialiser, AddressSanitizer's module constructor) and a
 * kernel's host stub (what `<<<...>>>` calls: it launches the configuration pushed before
 * it). */
enum { START_UP, LAUNCH };
/* What marks start-up code as the compilers': the function it calls that the student's code
 * has no use for. */
enum { MARK_REGISTRATION = 1, MARK_IOSTREAM = 2, MARK_SANITIZER = 4 };

/* The other files' functions each kind may call or take the address of, by their symbols'
 * names: nvcc's start-up calls only the CUDA runtime's registration, the C library's atexit
 * and <iostream>'s set-up; a kernel's stub only pops its launch configuration and launches.
 * Neither may push a configuration (__cudaPushCallConfiguration), so neither launches a kernel
 * of its own. */
static int trusted_external(const char *name, int kind, int *marks) {
  static const char *const start_up[] = {
      "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
      "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar",
      "__cudaRegisterHostVar", "__cudaRegisterTexture", "__cudaRegisterSurface",
      "__cudaInitModule", "atexit", "__cxa_atexit", "__dso_handle",
      "_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", NULL};
  static const char *const launch[] = {
      "__cudaPopCallConfiguration", "cudaLaunchKernel", "__cudaLaunchKernel", "__cudaGetKernel",
      "cudaLaunchKernel_ptsz", "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort",
      "_Unwind_Resume", "__stack_chk_fail", NULL};
  static const char *const sanitizer_marks[] = {"__asan_init", "__asan_register_globals",
                                                "__asan_unregister_globals",
                                                "__asan_register_elf_globals",
                                                "__asan_unregister_elf_globals", NULL};
  const char *const *list = kind == START_UP ? start_up : launch;
  int found = kind == START_UP && (starts_with(name, "__asan_") ||
                                   starts_with(name, "__cudaRegisterLinkedBinary_"));
  for (size_t i = 0; list[i] && !found; i++) found = strcmp(name, list[i]) == 0;
  if (!found || kind != START_UP) return found;
  if (strcmp(name, "__cudaRegisterFatBinary") == 0) *marks |= MARK_REGISTRATION;
  if (strcmp(name, "_ZNSt8ios_base4InitC1Ev") == 0) *marks |= MARK_IOSTREAM;
  for (size_t i = 0; sanitizer_marks[i]; i++) {
    if (strcmp(name, sanitizer_marks[i]) == 0) *marks |= MARK_SANITIZER;
  }
  return 1;
}

/* One judgement. Each function is judged once per kind; while it is being judged, a cycle back
 * to it counts as clean, and what was found clean under that assumption is not kept (judged
 * again where it is reached again); a budget keeps a crafted call graph from making this slow
 * (over it, nothing more is clean). */
typedef struct judge {
  audit_ctx *c;
  unsigned char *state[2]; /* per symbol (a function, a data object or section): 0 not judged,
                              1 being judged, 2 clean, 3 not clean */
  int assumed;             /* a result leaned on something still being judged */
  int marks;               /* MARK_* of the start-up calls reached */
  size_t budget;
} judge;

static void judge_init(judge *j, audit_ctx *c) {
  memset(j, 0, sizeof *j);
  j->c = c;
  j->state[START_UP] = xcalloc(c->elf.n_syms + 1, 1);
  j->state[LAUNCH] = xcalloc(c->elf.n_syms + 1, 1);
  j->budget = 20000;
}

static void judge_free(judge *j) {
  free(j->state[START_UP]);
  free(j->state[LAUNCH]);
}

/* Starts judging entry `state` (of a function or data): 1 when its result is
 * already known (in *ok), 0 when the caller judges it and then calls judged(). */
static int known(judge *j, unsigned char *state, int *ok) {
  if (*state == 1) j->assumed = 1;
  if (*state != 0 || j->budget == 0) {
    *ok = *state == 1 || *state == 2;
    return 1;
  }
  j->budget--;
  *state = 1;
  return 0;
}

static int judged(judge *j, unsigned char *state, int ok, int outer_assumed) {
  *state = !ok ? 3 : j->assumed ? 0 : 2;
  j->assumed |= outer_assumed;
  return ok;
}

static int judge_function(judge *j, long fn, int kind);

/* Data that code of `kind` reads may hold the addresses of functions (a table of pointers):
 * each of them must be such code too. `holder` is the data's object (its relocations are those
 * in its bytes) or its section's symbol (all of the section's). */
static int judge_data(judge *j, long holder, int kind) {
  const elf_obj *o = &j->c->elf;
  int ok = 1;
  if (holder <= 0 || known(j, &j->state[kind][holder], &ok)) return ok;
  int outer = j->assumed;
  j->assumed = 0;
  const elf_sym *h = &o->syms[holder];
  uint64_t begin = h->type == STT_OBJECT ? h->value : 0;
  uint64_t end = h->type == STT_OBJECT ? h->value + h->size : UINT64_MAX;
  for (size_t i = 0; i < o->n_rels && ok; i++) {
    const elf_rel *r = &o->rels[i];
    if (r->sec != h->shndx || r->offset < begin || r->offset >= end) continue;
    code_ref ref;
    relocation_target(o, r, &ref);
    ok = ref.sym >= 0    ? trusted_external(o->syms[ref.sym].name, kind, &j->marks)
         : ref.fn >= 0   ? judge_function(j, ref.fn, kind)
         : ref.data >= 0 ? judge_data(j, ref.data, kind)
                         : 0;
  }
  return judged(j, &j->state[kind][holder], ok, outer);
}

/* Whether one reference keeps code of `kind` that kind. Start-up code may take the address of a
 * kernel's stub (to register it), never call one; when it calls through a pointer (nvcc's
 * registration does, unoptimised), every address it takes must be start-up code. A kernel's
 * stub calls through no pointer. */
static int judge_ref(judge *j, const code_ref *ref, int kind, int through_pointers) {
  const elf_obj *o = &j->c->elf;
  if (ref->indirect) return kind == START_UP;
  if (ref->sym >= 0) return trusted_external(o->syms[ref->sym].name, kind, &j->marks);
  if (ref->data >= 0) return judge_data(j, ref->data, kind);
  if (ref->fn < 0) return 0;
  if (judge_function(j, ref->fn, kind)) return 1;
  return kind == START_UP && !ref->call && !through_pointers && judge_function(j, ref->fn, LAUNCH);
}

/* Whether function `fn` is code of `kind`: each of its references keeps it so. */
static int judge_function(judge *j, long fn, int kind) {
  int ok = 1;
  if (known(j, &j->state[kind][fn], &ok)) return ok;
  int outer = j->assumed;
  j->assumed = 0;
  code_ref *refs = NULL;
  size_t n = code_refs(j->c, fn, &refs);
  int through_pointers = 0;
  for (size_t i = 0; i < n; i++) through_pointers |= refs[i].indirect;
  for (size_t i = 0; i < n && ok; i++) ok = judge_ref(j, &refs[i], kind, through_pointers);
  free(refs);
  return judged(j, &j->state[kind][fn], ok, outer);
}

static int init_section(const elf_sec *s) {
  return s->type == SHT_INIT_ARRAY || s->type == SHT_FINI_ARRAY || s->type == SHT_PREINIT_ARRAY ||
         starts_with(s->name, ".init_array") || starts_with(s->name, ".fini_array") ||
         starts_with(s->name, ".preinit_array") || starts_with(s->name, ".ctors") ||
         starts_with(s->name, ".dtors");
}

/* An entry of an init or fini array that a compiler made: start-up code that calls what marks
 * it. nvcc's registration and <iostream>'s initialiser stand in the plain .init_array (or
 * .ctors), at the default priority; AddressSanitizer's module constructor and destructor at a
 * priority of their own. Nothing of a compiler's goes in .preinit_array. */
static int generated_entry(audit_ctx *c, const elf_sec *s, long fn) {
  if (fn < 0 || s->type == SHT_PREINIT_ARRAY || starts_with(s->name, ".preinit_array")) return 0;
  judge j;
  judge_init(&j, c);
  int clean = judge_function(&j, fn, START_UP), marks = j.marks;
  judge_free(&j);
  int plain = strcmp(s->name, ".init_array") == 0 || strcmp(s->name, ".ctors") == 0;
  return clean && ((marks & MARK_SANITIZER) || (plain && (marks & (MARK_REGISTRATION | MARK_IOSTREAM))));
}

/* The function of an init array's entry, or -1. */
static long entry_function(const elf_obj *o, const elf_rel *r) {
  const elf_sym *t = &o->syms[r->sym];
  return t->type == STT_SECTION ? function_at(o, t->shndx, (uint64_t)r->addend, 1)
         : t->type == STT_FUNC   ? (long)r->sym
                                 : -1;
}

/* Whether function `fn` is start-up code (nvcc's registration is): what it refers to, it only
 * registers (a kernel's stub, a __device__ variable's host copy) and uses nothing. */
static int compilers_start_up(audit_ctx *c, long fn) {
  if (fn < 0) return 0;
  if (c->start_up == NULL) {
    read_code(c);
    c->start_up = xcalloc(c->elf.n_syms + 1, 1);
  }
  if (c->start_up[fn] == 0) {
    judge j;
    judge_init(&j, c);
    c->start_up[fn] = judge_function(&j, fn, START_UP) ? 1 : 2;
    judge_free(&j);
  }
  return c->start_up[fn] == 1;
}

/* What a reference reaches, for a report. */
static char *ref_name(const audit_ctx *c, const code_ref *r) {
  const elf_obj *o = &c->elf;
  if (r->sym >= 0) return xstrdup(o->syms[r->sym].brief);
  if (r->fn >= 0) return xstrdup(o->syms[r->fn].brief);
  if (r->data > 0) return xasprintf("data %s", o->syms[r->data].type == STT_SECTION
                                                    ? o->secs[o->syms[r->data].shndx].name
                                                    : o->syms[r->data].brief);
  if (r->data == 0) return xstrdup("data of no section");
  return xstrdup(r->indirect ? "a function through a pointer" : "code of no function");
}

/* One entry of an init or fini array that no compiler made. A global object's initialiser
 * (the compilers make it a local function named _GLOBAL__sub_I_...) is reported by what it
 * should not reach, on those lines; any other function by its name, on its first line. */
static void constructor_finding(audit_ctx *c, const elf_sec *s, const elf_sym *t, long fn) {
  const elf_obj *o = &c->elf;
  int destructor = strstr(s->name, "fini") != NULL || strstr(s->name, "dtors") != NULL;
  const char *when = destructor ? "after" : "before";
  const elf_sym *y = fn >= 0 ? &o->syms[fn] : NULL;
  audit_finding f;
  if (y && y->bind == STB_LOCAL && starts_with(y->name, "_GLOBAL__sub_I_")) {
    finding_start(c, &f, "constructor", NULL);
    judge j;
    judge_init(&j, c);
    j.state[START_UP][fn] = 1; /* a call back to it counts as clean: its references decide */
    code_ref *refs = NULL, *first = NULL;
    size_t n = code_refs(c, fn, &refs);
    int through_pointers = 0;
    for (size_t i = 0; i < n; i++) through_pointers |= refs[i].indirect;
    for (size_t i = 0; i < n; i++) {
      if (judge_ref(&j, &refs[i], START_UP, through_pointers)) continue;
      if (first == NULL) first = &refs[i];
      finding_add_site(c, &f, refs[i].sec, refs[i].offset);
    }
    char *name = first ? ref_name(c, first) : NULL;
    f.what = name ? xasprintf("constructor: a global object's initialiser calls %s (it runs %s the tests)",
                              name, when)
                  : xasprintf("constructor: a global object's initialiser (it runs %s the tests)", when);
    if (first == NULL) finding_add_site(c, &f, y->shndx, y->value);
    free(name);
    free(refs);
    judge_free(&j);
  } else {
    finding_start(c, &f, "constructor",
                  xasprintf("%s %s (it runs %s the tests)", destructor ? "destructor" : "constructor",
                            y ? y->full : t->type == STT_SECTION ? "?" : t->full, when));
    if (y) finding_add_site(c, &f, y->shndx, y->value);
  }
  finding_keep(c, &f, NULL);
}

/* Code that runs before main or after it: each entry of .init_array, .fini_array, .ctors,
 * .dtors and .preinit_array that no compiler made, an entry that names no code of this file,
 * code in .init or .fini, an IFUNC (its resolver runs in the dynamic loader), and a definition
 * of a function that the compilers' generated code calls (the linker would take it for the
 * CUDA runtime's or the C library's, and start-up code would run it). */
static void audit_constructors(audit_ctx *c) {
  const elf_obj *o = &c->elf;
  if (forbidding_pattern(c->cfg, "constructor", "constructor") == NULL) return;
  read_code(c);
  for (size_t i = 0; i < o->n_rels; i++) {
    const elf_rel *r = &o->rels[i];
    const elf_sec *s = &o->secs[r->sec];
    if (!init_section(s)) continue;
    long fn = entry_function(o, r);
    if (!generated_entry(c, s, fn)) constructor_finding(c, s, &o->syms[r->sym], fn);
  }
  for (size_t i = 1; i < o->n_secs; i++) {
    const elf_sec *s = &o->secs[i];
    audit_finding f;
    if (init_section(s)) {
      /* Each entry is an address, so each needs a relocation: one without runs code that no
       * symbol of this file names. */
      size_t entries = (size_t)(s->size / 8), named = 0;
      for (size_t k = 0; k < o->n_rels; k++) named += o->rels[k].sec == i;
      if (named >= entries) continue;
      finding_start(c, &f, "constructor", xasprintf("an entry of %s that names no code of this file", s->name));
      finding_keep(c, &f, NULL);
    } else if (strcmp(s->name, ".init") == 0 || strcmp(s->name, ".fini") == 0) {
      /* Code placed in the .init or .fini section runs with the program's own start-up. */
      finding_start(c, &f, "constructor", xasprintf("code in the %s section", s->name));
      finding_add_site(c, &f, (uint32_t)i, 0);
      finding_keep(c, &f, NULL);
    }
  }
  for (size_t i = 1; i < o->n_syms; i++) {
    const elf_sym *y = &o->syms[i];
    if (y->shndx == SHN_UNDEF) continue;
    audit_finding f;
    int marks = 0;
    if (y->type == STT_GNU_IFUNC) {
      finding_start(c, &f, "constructor", xasprintf("an IFUNC, %s (its resolver runs in the dynamic "
                                                    "loader, before the tests)", y->full));
    } else if ((y->bind == STB_GLOBAL || y->bind == STB_WEAK) &&
               (trusted_external(y->name, START_UP, &marks) || trusted_external(y->name, LAUNCH, &marks))) {
      finding_start(c, &f, "constructor", xasprintf("a definition of %s, which the compilers' generated "
                                                    "code calls (the linker would take it for the library's)",
                                                    y->full));
    } else {
      continue;
    }
    if (y->shndx < o->n_secs && is_exec(o, y->shndx)) finding_add_site(c, &f, y->shndx, y->value);
    finding_keep(c, &f, NULL);
  }
}

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
  size_t n = disassemble(c, f->shndx, f->value, f->value + f->size, &ins);
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
  disasm_free(ins, n);
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
  if (o->syms[r->sym].type != STT_SECTION || !relocation_address(o, r, &sec, &offset)) return -1;
  return symbol_at(o, sec, offset, 0, is_exec(o, sec) ? STT_FUNC : STT_OBJECT);
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
    if (is_exec(o, o->rels[c->refs[k]].sec)) rels[m++] = o->rels[c->refs[k]];
  }
  if (m > 1) qsort(rels, m, sizeof *rels, by_place);
  for (size_t i = 0; i < m;) {
    size_t k = 0;
    uint32_t sec = rels[i].sec;
    for (; i < m && rels[i].sec == sec; i++) offsets[k++] = rels[i].offset;
    locate(c, sec, offsets, k);
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
    int code = is_exec(o, r->sec);
    long holder = code ? function_at(o, r->sec, r->offset, 0) : data_holder(o, r->sec, r->offset);
    w->sites += depth == 0;
    if (depth == 0 && code && strcmp(o->syms[sym].name, "exit") == 0 && nvcc_exit_stub(c, holder)) {
      w->skipped++;
      w->stubs++;
      continue;
    }
    if (code && compilers_start_up(c, holder)) {
      w->skipped += depth == 0; /* registering a kernel's stub is no use of it */
      continue;
    }
    out.users++;
    place p = code ? place_of(c, r->sec, r->offset) : (place){r->sec, r->offset, 0, 0, 0};
    if (p.line > 0) {
      finding_add_line(c, w->f, p.line);
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

static void audit_symbols(audit_ctx *c) {
  const elf_obj *o = &c->elf;
  index_references(c);
  for (size_t i = 1; i < o->n_syms; i++) {
    const elf_sym *y = &o->syms[i];
    if (y->name[0] == '\0' || y->type == STT_SECTION || y->type == STT_FILE) continue;
    const char *pattern = forbidding_pattern(c->cfg, y->full, y->brief);
    if (pattern == NULL) continue;
    audit_finding f;
    finding_start(c, &f, y->full, xasprintf("forbidden symbol %s", y->brief));
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
      if (y->type == STT_FUNC && y->shndx < o->n_secs) p = place_of(c, y->shndx, y->value);
      finding_add_line(c, &f, p.line);
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
        if (!namespace_pattern(alt, strcspn(alt, "|"))) continue;
        char *ns = xstrndup(alt, strcspn(alt, ":"));
        text_lines(c, &f, ns, 0);
        free(ns);
        named = 1;
      }
      if (!named) {
        char *ns = xstrndup(y->brief, (size_t)(colons - y->brief));
        text_lines(c, &f, ns, 0);
        free(ns);
      }
      if (f.n_lines > 0) unused = 0;
    }
    if (unused) {
      finding_free(&f);
      continue;
    }
    finding_keep(c, &f, pattern);
  }
}

/* ---- inline assembly, and libraries included ---- */

static void audit_assembly(audit_ctx *c) {
  if (forbidding_pattern(c->cfg, "asm", "asm") == NULL) return;
  audit_finding f;
  finding_start(c, &f, "asm", xstrdup("inline assembly"));
  text_lines(c, &f, "asm", 0);
  text_lines(c, &f, "__asm", 0);
  text_lines(c, &f, "__asm__", 0);
  if (f.n_lines > 0) finding_keep(c, &f, NULL);
  else finding_free(&f);
  /* A system call needs no library function: look for the instruction itself. */
  read_code(c);
  const disasm_line *ins = c->ins;
  for (size_t i = 0; i < c->n_ins; i++) {
    const char *t = ins[i].text;
    if (strcmp(t, "syscall") != 0 && strcmp(t, "sysenter") != 0 && strcmp(t, "int $0x80") != 0 &&
        !starts_with(t, "svc "))
      continue;
    finding_start(c, &f, "asm", xasprintf("system call instruction '%s'", t));
    finding_add_site(c, &f, ins[i].sec, ins[i].offset);
    finding_keep(c, &f, NULL);
  }
}

/* "#line 1 \"/usr/include/stdio.h\"" would make the line tables place the student's code in
 * a header, where the audit neither finds its lines nor counts its calls. */
static void audit_line_directives(audit_ctx *c) {
  if (forbidding_pattern(c->cfg, "line-directive", "line-directive") == NULL) return;
  audit_finding f;
  finding_start(c, &f, "line-directive", xstrdup("a #line directive"));
  for (size_t i = 0; i < c->n_directives; i++) {
    const directive *d = &c->directives[i];
    if (strcmp(d->name, "line") == 0 || (d->name[0] == '\0' && isdigit((unsigned char)d->argument[0])))
      finding_add_line(c, &f, d->line);
  }
  if (f.n_lines > 0) finding_keep(c, &f, NULL);
  else finding_free(&f);
}

static int include_directive(const directive *d) {
  return strcmp(d->name, "include") == 0 || strcmp(d->name, "include_next") == 0 ||
         strcmp(d->name, "import") == 0;
}

/* An #include whose argument is a macro can name any header, a library's too, where the text
 * does not show it. */
static void audit_include_macros(audit_ctx *c) {
  if (forbidding_pattern(c->cfg, "include-macro", "include-macro") == NULL) return;
  for (size_t i = 0; i < c->n_directives; i++) {
    const directive *d = &c->directives[i];
    if (!include_directive(d) || d->argument[0] == '<' || d->argument[0] == '"') continue;
    audit_finding f;
    finding_start(c, &f, "include-macro",
                  xasprintf("an #include of a macro, %s (it can name any header, a library's too)",
                            d->argument));
    finding_add_line(c, &f, d->line);
    finding_keep(c, &f, NULL);
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
static void audit_headers(audit_ctx *c) {
  char *path = xasprintf("%s.d", c->object);
  char *deps = read_file(path, NULL);
  free(path);
  audit_finding found[N_LIBRARIES];
  int have[N_LIBRARIES] = {0}, included[N_LIBRARIES] = {0}, named = 0;
  for (size_t l = 0; l < N_LIBRARIES; l++) {
    if (forbidding_pattern(c->cfg, libraries[l].ns, libraries[l].ns) == NULL) continue;
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
    finding_start(c, &found[l], libraries[l].ns, xasprintf("forbidden header %s", header));
    free(header);
    text_lines(c, &found[l], libraries[l].token, libraries[l].prefix);
    for (int k = 0; found[l].n_lines == 0 && k < included[l]; k++) finding_add_line(c, &found[l], lines[k]);
    have[l] = 1;
    named |= found[l].n_lines > 0;
  }
  /* One library's headers include another's (CUB includes Thrust's): a library that only the
   * dependency file shows, and the code never names, counts only when the code names none. */
  for (size_t l = 0; l < N_LIBRARIES; l++) {
    if (!have[l]) continue;
    if (found[l].n_lines == 0 && named) finding_free(&found[l]);
    else finding_keep(c, &found[l], NULL);
  }
  free(deps);
}

/* ---- entry points ---- */

void audit_result_init(audit_result *res) {
  memset(res, 0, sizeof *res);
  sl_init(&res->audited);
  sl_init(&res->problems);
}

void audit_result_free(audit_result *res) {
  for (size_t i = 0; i < res->count; i++) finding_free(&res->findings[i]);
  free(res->findings);
  sl_free(&res->audited);
  sl_free(&res->problems);
  memset(res, 0, sizeof *res);
}

void audit_object(const audit_config *cfg, const char *object, const char *source,
                  const char *compiled, const char *display, audit_result *res) {
  audit_ctx c;
  memset(&c, 0, sizeof c);
  c.cfg = cfg;
  c.object = object;
  c.source = source;
  c.compiled = compiled;
  c.display = display;
  c.res = res;
  char *text = read_file(source, NULL);
  if (text == NULL) {
    sl_push_owned(&res->problems, xasprintf("cannot read %s", source));
    return;
  }
  c.source_real = real_path(source);
  c.code = code_only(text);
  c.n_directives = read_directives(text, &c.directives);
  step_map_build(&c.steps, text);
  free(text);
  sl_push(&res->audited, display);
  strbuf why;
  sb_init(&why);
  if (elf_load(&c.elf, object, &why) != 0) {
    /* What the student's file compiled to cannot be checked: that counts against it. */
    audit_finding f;
    finding_start(&c, &f, "object", xasprintf("an object the audit cannot read (%s)", why.data));
      finding_keep(&c, &f, NULL);
  } else {
    if (!demangle_all(&c.elf))
      sl_push_owned(&res->problems, xasprintf("c++filt failed: the symbols of %s were matched "
                                              "by their mangled names", display));
    audit_symbols(&c);
    audit_constructors(&c);
    audit_assembly(&c);
    audit_line_directives(&c);
    audit_include_macros(&c);
    audit_headers(&c);
  }
  sb_free(&why);
  disasm_free(c.ins, c.n_ins);
  free(c.ins_begin);
  free(c.ins_end);
  free(c.ins_relocated);
  free(c.places);
  free(c.start_up);
  free(c.refs_begin);
  free(c.refs);
  elf_free(&c.elf);
  step_map_free(&c.steps);
  directives_free(c.directives, c.n_directives);
  free(c.code);
  free(c.source_real);
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void audit_lab(const audit_config *cfg, const char *build_dir, const char *source_dir,
               const char *lab, audit_result *res) {
  char *name = xasprintf("gpulabs-audit/%s.txt", lab);
  char *path = path_join(build_dir, name);
  free(name);
  char *text = read_file(path, NULL);
  if (text == NULL) {
    sl_push_owned(&res->problems, xasprintf("not audited: the build tree has no %s (configure "
                                            "it again with this course's CMake files)", path));
    free(path);
    return;
  }
  free(path);
  /* "exercise <tab> <the student's file> <tab> <the source compiled for it>", then
   * "object <tab> <path>" for each object of lab_<lab>. */
  strlist exercises, compiled, objects;
  sl_init(&exercises);
  sl_init(&compiled);
  sl_init(&objects);
  for (char *line = text; line && *line;) {
    char *eol = strchr(line, '\n');
    if (eol) *eol = '\0';
    char *tab = strchr(line, '\t');
    if (tab && starts_with(line, "exercise\t") && strchr(tab + 1, '\t')) {
      char *second = strchr(tab + 1, '\t');
      sl_push_owned(&exercises, xstrndup(tab + 1, (size_t)(second - tab - 1)));
      sl_push(&compiled, second + 1);
    } else if (tab && starts_with(line, "object\t")) {
      sl_push(&objects, tab + 1);
    }
    line = eol ? eol + 1 : NULL;
  }
  free(text);
  char *prefix = xasprintf("%s/", source_dir);
  for (size_t i = 0; i < exercises.count; i++) {
    /* CMake names an object after its source: reduction.cu -> .../reduction.cu.o */
    char *wanted = xasprintf("%s.o", base_name(compiled.items[i]));
    const char *object = NULL;
    for (size_t k = 0; k < objects.count && !object; k++) {
      if (strcmp(base_name(objects.items[k]), wanted) == 0) object = objects.items[k];
    }
    const char *source = exercises.items[i];
    const char *display = starts_with(source, prefix) ? source + strlen(prefix) : source;
    if (object == NULL || !file_exists(object)) {
      sl_push_owned(&res->problems, xasprintf("not audited: %s has no object file %s", display,
                                              object ? object : wanted));
    } else {
      audit_object(cfg, object, source, compiled.items[i], display, res);
    }
    free(wanted);
  }
  free(prefix);
  sl_free(&exercises);
  sl_free(&compiled);
  sl_free(&objects);
}

char *audit_finding_text(const audit_finding *f) {
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, f->what);
  if (f->more > 0) sb_printf(&sb, " (and %zu more matching %s)", f->more, f->pattern);
  sb_printf(&sb, " in %s", f->file);
  if (f->n_lines > 0) {
    sb_printf(&sb, " line%s ", f->n_lines > 1 ? "s" : "");
    for (size_t i = 0; i < f->n_lines; i++) sb_printf(&sb, "%s%d", i ? ", " : "", f->lines[i]);
  }
  if (f->unplaced == 2) {
    sb_append(&sb, f->n_lines > 0 ? " (and in code that nvcc generated from the file and its line "
                                    "tables place on no line of it: it counts for every step)"
                                  : " (in code that nvcc generated from the file and its line tables "
                                    "place on no line of it: it counts for every step)");
  } else if (f->unplaced == 1 && f->n_lines > 0) {
    sb_append(&sb, " (and where the line tables name no line: it counts for every step)");
  } else if (f->every_step) {
    sb_append(&sb, f->n_lines > 0 ? " (outside the steps: it counts for every step)"
                                  : " (line unknown: it counts for every step)");
  } else if (f->steps.count > 0) {
    sb_printf(&sb, " (step%s ", f->steps.count > 1 ? "s" : "");
    for (size_t i = 0; i < f->steps.count; i++) sb_printf(&sb, "%s%s", i ? ", " : "", f->steps.items[i]);
    sb_append(&sb, ")");
  }
  return sb_steal(&sb);
}

/* ---- costs ---- */

static int item_in_step(const rubric_item *item, const char *step) {
  size_t n = strlen(step);
  return strncmp(item->id, step, n) == 0 && item->id[n] == '-';
}

/* Each step the finding lies in has an item in the lab. */
static int steps_have_items(const lab_result *lab, const audit_finding *f) {
  for (size_t s = 0; s < f->steps.count; s++) {
    int has = 0;
    for (size_t k = 0; k < lab->n_items && !has; k++) {
      const rubric_item *item = lab->items[k].item;
      has = item->kind == ITEM_STEP && item_in_step(item, f->steps.items[s]);
    }
    if (!has) return 0;
  }
  return 1;
}

void audit_apply(const audit_config *cfg, lab_result *lab) {
  const audit_result *res = &lab->audit;
  if (cfg->cost == 0 || res->count == 0) return;
  char *hit = xcalloc(lab->n_items + 1, 1); /* items already charged by an earlier finding */
  for (size_t i = 0; i < res->count; i++) {
    const audit_finding *f = &res->findings[i];
    /* Banners are the student's text: a step the rubric has no item for (a banner renamed)
     * would cost nothing, so its findings count for every step. */
    int every_step = f->every_step || !steps_have_items(lab, f);
    char *lose = xcalloc(lab->n_items + 1, 1);
    for (size_t k = 0; k < lab->n_items; k++) {
      const rubric_item *item = lab->items[k].item;
      int step = item->kind == ITEM_STEP;
      lose[k] = (cfg->cost & AUDIT_COST_LAB) || (!step && (cfg->cost & AUDIT_COST_PERF));
      if (step && (cfg->cost & AUDIT_COST_STEP)) {
        if (every_step) lose[k] = 1;
        for (size_t s = 0; s < f->steps.count && !lose[k]; s++) lose[k] = item_in_step(item, f->steps.items[s]);
      }
    }
    strbuf ids;
    sb_init(&ids);
    size_t n = 0, total = 0;
    for (size_t k = 0; k < lab->n_items; k++) total += lose[k];
    for (size_t k = 0; k < lab->n_items; k++) {
      if (!lose[k]) continue;
      n++;
      sb_printf(&ids, "%s%s", n == 1 ? "" : n == total ? " and " : ", ", lab->items[k].item->id);
    }
    char *text = audit_finding_text(f);
    if (every_step && !f->every_step) {
      char *more = xasprintf("%s (a step with no item in the lab: it counts for every step)", text);
      free(text);
      text = more;
    }
    char *reason = xasprintf("%s: %s earn%s nothing", text, ids.data, total == 1 ? "s" : "");
    for (size_t k = 0; k < lab->n_items; k++) {
      if (!lose[k]) continue;
      item_result *item = &lab->items[k];
      if (!hit[k]) {
        char *detail = xasprintf("The audit of the compiled exercise file: %s.\n\n%s", reason,
                                 item->detail ? item->detail : "");
        free(item->detail);
        item->detail = detail;
        /* What the tests found stays in the reason, after the audit's. */
        int tested = item->state == ITEM_FAILED || item->state == ITEM_PARTIAL;
        char *both = item->reason && tested ? xasprintf("%s (and before the audit: %s)", reason, item->reason)
                                  : xstrdup(reason);
        free(item->reason);
        item->reason = both;
        item->state = ITEM_FAILED;
        item->score = 0;
        hit[k] = 1;
      } else {
        char *detail = xasprintf("The audit also found: %s.\n%s", text, item->detail);
        free(item->detail);
        item->detail = detail;
      }
    }
    free(reason);
    free(text);
    sb_free(&ids);
    free(lose);
  }
  free(hit);
}
