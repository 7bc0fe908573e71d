/* The static audit's check of code that runs before main (audit_internal.h): the
 * constructors a student writes, told apart from the start-up code the compilers generate. */
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
    audit_relocation_target(o, r, &ref);
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
  size_t n = audit_code_refs(j->c, fn, &refs);
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
  return t->type == STT_SECTION ? audit_function_at(o, t->shndx, (uint64_t)r->addend, 1)
         : t->type == STT_FUNC   ? (long)r->sym
                                 : -1;
}

/* Whether function `fn` is start-up code (nvcc's registration is): what it refers to, it only
 * registers (a kernel's stub, a __device__ variable's host copy) and uses nothing. */
int audit_compilers_start_up(audit_ctx *c, long fn) {
  if (fn < 0) return 0;
  if (c->start_up == NULL) {
    audit_read_code(c);
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
    audit_finding_start(c, &f, "constructor", NULL);
    judge j;
    judge_init(&j, c);
    j.state[START_UP][fn] = 1; /* a call back to it counts as clean: its references decide */
    code_ref *refs = NULL, *first = NULL;
    size_t n = audit_code_refs(c, fn, &refs);
    int through_pointers = 0;
    for (size_t i = 0; i < n; i++) through_pointers |= refs[i].indirect;
    for (size_t i = 0; i < n; i++) {
      if (judge_ref(&j, &refs[i], START_UP, through_pointers)) continue;
      if (first == NULL) first = &refs[i];
      audit_finding_add_site(c, &f, refs[i].sec, refs[i].offset);
    }
    char *name = first ? ref_name(c, first) : NULL;
    f.what = name ? xasprintf("constructor: a global object's initialiser calls %s (it runs %s the tests)",
                              name, when)
                  : xasprintf("constructor: a global object's initialiser (it runs %s the tests)", when);
    if (first == NULL) audit_finding_add_site(c, &f, y->shndx, y->value);
    free(name);
    free(refs);
    judge_free(&j);
  } else {
    audit_finding_start(c, &f, "constructor",
                  xasprintf("%s %s (it runs %s the tests)", destructor ? "destructor" : "constructor",
                            y ? y->full : t->type == STT_SECTION ? "?" : t->full, when));
    if (y) audit_finding_add_site(c, &f, y->shndx, y->value);
  }
  audit_finding_keep(c, &f, NULL);
}

/* Code that runs before main or after it: each entry of .init_array, .fini_array, .ctors,
 * .dtors and .preinit_array that no compiler made, an entry that names no code of this file,
 * code in .init or .fini, an IFUNC (its resolver runs in the dynamic loader), and a definition
 * of a function that the compilers' generated code calls (the linker would take it for the
 * CUDA runtime's or the C library's, and start-up code would run it). */
void audit_constructors(audit_ctx *c) {
  const elf_obj *o = &c->elf;
  if (audit_forbidding_pattern(c->cfg, "constructor", "constructor") == NULL) return;
  audit_read_code(c);
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
      audit_finding_start(c, &f, "constructor", xasprintf("an entry of %s that names no code of this file", s->name));
      audit_finding_keep(c, &f, NULL);
    } else if (strcmp(s->name, ".init") == 0 || strcmp(s->name, ".fini") == 0) {
      /* Code placed in the .init or .fini section runs with the program's own start-up. */
      audit_finding_start(c, &f, "constructor", xasprintf("code in the %s section", s->name));
      audit_finding_add_site(c, &f, (uint32_t)i, 0);
      audit_finding_keep(c, &f, NULL);
    }
  }
  for (size_t i = 1; i < o->n_syms; i++) {
    const elf_sym *y = &o->syms[i];
    if (y->shndx == SHN_UNDEF) continue;
    audit_finding f;
    int marks = 0;
    if (y->type == STT_GNU_IFUNC) {
      audit_finding_start(c, &f, "constructor", xasprintf("an IFUNC, %s (its resolver runs in the dynamic "
                                                    "loader, before the tests)", y->full));
    } else if ((y->bind == STB_GLOBAL || y->bind == STB_WEAK) &&
               (trusted_external(y->name, START_UP, &marks) || trusted_external(y->name, LAUNCH, &marks))) {
      audit_finding_start(c, &f, "constructor", xasprintf("a definition of %s, which the compilers' generated "
                                                    "code calls (the linker would take it for the library's)",
                                                    y->full));
    } else {
      continue;
    }
    if (y->shndx < o->n_secs && audit_is_exec(o, y->shndx)) audit_finding_add_site(c, &f, y->shndx, y->value);
    audit_finding_keep(c, &f, NULL);
  }
}
