/* The static audit (audit.h): one audit of an exercise object, where its code comes from in
 * the source, its findings, and the entry points. The object's structure is read with <elf.h>
 * (audit_elf.c); binutils do the rest: c++filt names symbols, addr2line maps code to source
 * lines, objdump disassembles. */
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

/* ---- one audit ---- */


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
void audit_locate(audit_ctx *c, uint32_t sec, const uint64_t *offsets, size_t n) {
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
    char *text = audit_is_exec(&c->elf, sec) ? run_capture(argv, NULL) : NULL;
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

place audit_place_of(audit_ctx *c, uint32_t sec, uint64_t offset) {
  int found;
  if (sec >= c->elf.n_secs) return (place){sec, offset, 0, 0, 0};
  audit_locate(c, sec, &offset, 1);
  return c->places[place_index(c, sec, offset, &found)];
}


/* Adds the line of the code at `offset` of section `sec`; code on no line of the file counts
 * for every step, and the report says why. */
void audit_finding_add_site(audit_ctx *c, audit_finding *f, uint32_t sec, uint64_t offset) {
  place p = audit_place_of(c, sec, offset);
  if (p.line > 0) {
    audit_finding_add_line(c, f, p.line);
  } else if (!p.elsewhere) {
    f->unplaced = f->unplaced > (p.generated ? 2 : 1) ? f->unplaced : p.generated ? 2 : 1;
    f->every_step = 1;
  }
}

void audit_finding_add_line(audit_ctx *c, audit_finding *f, int line) {
  if (line <= 0) return;
  for (size_t i = 0; i < f->n_lines; i++) if (f->lines[i] == line) return;
  if (f->n_lines < AUDIT_MAX_LINES) f->lines[f->n_lines++] = line;
  const char *step = step_map_lookup(&c->steps, line);
  if (step == NULL) f->every_step = 1;
  else if (!sl_contains(&f->steps, step)) sl_push(&f->steps, step);
}

/* Lines where the code names `token` (an identifier), #include lines left out: where a library
 * is used, when its symbols' references lead to no line of the student's own. */
void audit_text_lines(audit_ctx *c, audit_finding *f, const char *token, int prefix) {
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
        audit_finding_add_line(c, f, line);
      continue;
    }
    p++;
  }
}

void audit_finding_free(audit_finding *f) {
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
  int hit = audit_name_match(pattern, brief, brief);
  free(brief);
  return hit;
}

/* Keeps a finding the rubric does not allow; frees it otherwise. The symbols one pattern
 * forbids in one file are one finding, named by its shortest name ("forbidden symbol
 * cub::DeviceReduce::Sum (and 8 more matching cub::*)"), with all their lines. */
void audit_finding_keep(audit_ctx *c, audit_finding *f, const char *pattern) {
  if (f->n_lines == 0) f->every_step = 1;
  if (audit_allowed_in_steps(c->cfg, f)) {
    audit_finding_free(f);
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
    for (size_t k = 0; k < f->n_lines; k++) audit_finding_add_line(c, g, f->lines[k]);
    g->every_step |= f->every_step;
    if (f->unplaced > g->unplaced) g->unplaced = f->unplaced;
    audit_finding_free(f);
    return;
  }
  if (pattern) f->pattern = xstrdup(pattern);
  res->findings = xrealloc(res->findings, (res->count + 1) * sizeof *res->findings);
  res->findings[res->count++] = *f;
}

void audit_finding_start(audit_ctx *c, audit_finding *f, const char *name, char *what) {
  memset(f, 0, sizeof *f);
  f->name = xstrdup(name);
  f->what = what;
  f->file = xstrdup(c->display);
  sl_init(&f->steps);
}

/* ---- entry points ---- */

void audit_result_init(audit_result *res) {
  memset(res, 0, sizeof *res);
  sl_init(&res->audited);
  sl_init(&res->problems);
}

void audit_result_free(audit_result *res) {
  for (size_t i = 0; i < res->count; i++) audit_finding_free(&res->findings[i]);
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
  c.code = audit_code_only(text);
  c.n_directives = audit_read_directives(text, &c.directives);
  step_map_build(&c.steps, text);
  free(text);
  sl_push(&res->audited, display);
  strbuf why;
  sb_init(&why);
  if (elf_load(&c.elf, object, &why) != 0) {
    /* What the student's file compiled to cannot be checked: that counts against it. */
    audit_finding f;
    audit_finding_start(&c, &f, "object", xasprintf("an object the audit cannot read (%s)", why.data));
      audit_finding_keep(&c, &f, NULL);
  } else {
    if (!audit_demangle_all(&c.elf))
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
  audit_disasm_free(c.ins, c.n_ins);
  free(c.ins_begin);
  free(c.ins_end);
  free(c.ins_relocated);
  free(c.places);
  free(c.start_up);
  free(c.refs_begin);
  free(c.refs);
  elf_free(&c.elf);
  step_map_free(&c.steps);
  audit_directives_free(c.directives, c.n_directives);
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
