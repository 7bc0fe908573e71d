/* The static audit's configuration (audit.h): the patterns every lab forbids, the rubric's
 * `audit` lines, and how a pattern matches a symbol's name. */
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

int audit_ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* A pattern of one alternative that starts with a namespace: "cub::*", "std::filesystem::*". */
int audit_namespace_pattern(const char *p, size_t n) {
  size_t id = 0;
  while (id < n && audit_ident_char(p[id])) id++;
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
    else if (depth == 0 && !audit_ident_char(ch) && ch != ':') break;
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
    if (strncmp(p, pattern, ns) != 0 || (p > full && audit_ident_char(p[-1]))) continue;
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
int audit_name_match(const char *pattern, const char *full, const char *brief) {
  if (pattern_match(pattern, brief) || pattern_match(pattern, full)) return 1;
  for (const char *alt = pattern;;) {
    const char *bar = strchr(alt, '|');
    size_t n = bar ? (size_t)(bar - alt) : strlen(alt);
    if (audit_namespace_pattern(alt, n)) {
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
const char *audit_forbidding_pattern(const audit_config *cfg, const char *name, const char *brief) {
  const char *hit = NULL;
  for (size_t i = 0; audit_default_forbid[i] && !hit; i++) {
    if (audit_name_match(audit_default_forbid[i], name, brief)) hit = audit_default_forbid[i];
  }
  for (size_t i = 0; i < cfg->forbid.count && !hit; i++) {
    if (audit_name_match(cfg->forbid.items[i], name, brief)) hit = cfg->forbid.items[i];
  }
  for (size_t i = 0; hit && i < cfg->n_allow; i++) {
    const audit_allow *a = &cfg->allow[i];
    if (a->step == NULL && audit_name_match(a->pattern, name, brief)) hit = NULL;
  }
  return hit;
}

/* Allowed in the steps it is in: each of them has an allow line for it. */
int audit_allowed_in_steps(const audit_config *cfg, const audit_finding *f) {
  if (f->every_step || f->steps.count == 0) return 0;
  char *brief = audit_short_name(f->name);
  int ok = 1;
  for (size_t s = 0; s < f->steps.count && ok; s++) {
    int allowed = 0;
    for (size_t i = 0; i < cfg->n_allow && !allowed; i++) {
      const audit_allow *a = &cfg->allow[i];
      allowed = a->step && strcmp(a->step, f->steps.items[s]) == 0 &&
                audit_name_match(a->pattern, f->name, brief);
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
