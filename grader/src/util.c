#define _XOPEN_SOURCE 700
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void out_of_memory(size_t size) {
  fprintf(stderr, "grade: out of memory (asked for %zu bytes)\n", size);
  exit(1);
}

void *xmalloc(size_t size) {
  void *ptr = malloc(size ? size : 1);
  if (ptr == NULL) out_of_memory(size);
  return ptr;
}

void *xcalloc(size_t count, size_t size) {
  void *ptr = calloc(count ? count : 1, size ? size : 1);
  if (ptr == NULL) out_of_memory(count * size);
  return ptr;
}

void *xrealloc(void *ptr, size_t size) {
  void *grown = realloc(ptr, size ? size : 1);
  if (grown == NULL) out_of_memory(size);
  return grown;
}

char *xstrdup(const char *text) { return xstrndup(text, strlen(text)); }

char *xstrndup(const char *text, size_t length) {
  char *copy = xmalloc(length + 1);
  memcpy(copy, text, length);
  copy[length] = '\0';
  return copy;
}

char *xasprintf(const char *format, ...) {
  strbuf sb;
  sb_init(&sb);
  va_list args;
  va_start(args, format);
  sb_vprintf(&sb, format, args);
  va_end(args);
  return sb_steal(&sb);
}

/* ---- strbuf ---- */

void sb_init(strbuf *sb) {
  sb->cap = 64;
  sb->len = 0;
  sb->data = xmalloc(sb->cap);
  sb->data[0] = '\0';
}

void sb_free(strbuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void sb_clear(strbuf *sb) {
  sb->len = 0;
  if (sb->data) sb->data[0] = '\0';
}

static void sb_reserve(strbuf *sb, size_t extra) {
  if (sb->data != NULL && sb->len + extra + 1 <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < sb->len + extra + 1) cap *= 2;
  int was_empty = sb->data == NULL;
  sb->data = xrealloc(sb->data, cap);
  sb->cap = cap;
  if (was_empty) sb->data[0] = '\0';
}

void sb_append_n(strbuf *sb, const char *text, size_t length) {
  sb_reserve(sb, length);
  memcpy(sb->data + sb->len, text, length);
  sb->len += length;
  sb->data[sb->len] = '\0';
}

void sb_append(strbuf *sb, const char *text) { sb_append_n(sb, text, strlen(text)); }

void sb_append_char(strbuf *sb, char c) { sb_append_n(sb, &c, 1); }

void sb_vprintf(strbuf *sb, const char *format, va_list args) {
  va_list again;
  va_copy(again, args);
  int needed = vsnprintf(NULL, 0, format, again);
  va_end(again);
  if (needed < 0) return;
  sb_reserve(sb, (size_t)needed);
  vsnprintf(sb->data + sb->len, (size_t)needed + 1, format, args);
  sb->len += (size_t)needed;
}

void sb_printf(strbuf *sb, const char *format, ...) {
  va_list args;
  va_start(args, format);
  sb_vprintf(sb, format, args);
  va_end(args);
}

char *sb_steal(strbuf *sb) {
  char *text = sb->data ? sb->data : xstrdup("");
  /* Empty and holding nothing: appending allocates again, sb_free has nothing to free. */
  sb->data = NULL;
  sb->len = sb->cap = 0;
  return text;
}

/* ---- strlist ---- */

void sl_init(strlist *list) {
  list->items = NULL;
  list->count = 0;
  list->cap = 0;
}

void sl_free(strlist *list) {
  for (size_t i = 0; i < list->count; i++) free(list->items[i]);
  free(list->items);
  sl_init(list);
}

void sl_push_owned(strlist *list, char *text) {
  if (list->count == list->cap) {
    list->cap = list->cap ? list->cap * 2 : 8;
    list->items = xrealloc(list->items, list->cap * sizeof *list->items);
  }
  list->items[list->count++] = text;
}

void sl_push(strlist *list, const char *text) { sl_push_owned(list, xstrdup(text)); }

int sl_contains(const strlist *list, const char *text) {
  for (size_t i = 0; i < list->count; i++) {
    if (strcmp(list->items[i], text) == 0) return 1;
  }
  return 0;
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void sl_sort(strlist *list) {
  if (list->count > 1) qsort(list->items, list->count, sizeof *list->items, compare_strings);
}

/* ---- text ---- */

int starts_with(const char *text, const char *prefix) {
  return strncmp(text, prefix, strlen(prefix)) == 0;
}

int ends_with(const char *text, const char *suffix) {
  size_t n = strlen(text), m = strlen(suffix);
  return n >= m && memcmp(text + n - m, suffix, m) == 0;
}

char *trim_copy(const char *text, size_t length) {
  while (length > 0 && isspace((unsigned char)text[0])) {
    text++;
    length--;
  }
  while (length > 0 && isspace((unsigned char)text[length - 1])) length--;
  return xstrndup(text, length);
}

char *one_line(const char *text, size_t max_chars) {
  strbuf sb;
  sb_init(&sb);
  int pending_space = 0;
  for (const char *p = text; *p; p++) {
    if (isspace((unsigned char)*p)) {
      pending_space = sb.len > 0;
      continue;
    }
    if (pending_space) sb_append_char(&sb, ' ');
    pending_space = 0;
    sb_append_char(&sb, *p);
  }
  if (max_chars >= 4 && sb.len > max_chars) {
    size_t cut = max_chars - 3;
    /* Step back to the start of a UTF-8 sequence (continuation bytes are 10xxxxxx). */
    while (cut > 0 && ((unsigned char)sb.data[cut] & 0xC0) == 0x80) cut--;
    sb.len = cut;
    sb.data[cut] = '\0';
    sb_append(&sb, "...");
  }
  return sb_steal(&sb);
}

/* ---- files ---- */

char *read_file(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) return NULL;
  strbuf sb;
  sb_init(&sb);
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, file)) > 0) sb_append_n(&sb, chunk, got);
  int failed = ferror(file);
  fclose(file);
  if (failed) {
    sb_free(&sb);
    errno = EIO;
    return NULL;
  }
  if (length) *length = sb.len;
  return sb_steal(&sb);
}

int write_file_atomic(const char *path, const char *data, size_t length) {
  char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
  FILE *file = fopen(tmp, "wb");
  if (file == NULL) {
    free(tmp);
    return -1;
  }
  int ok = fwrite(data, 1, length, file) == length;
  ok = (fclose(file) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    int saved = errno;
    remove(tmp);
    free(tmp);
    errno = saved ? saved : EIO;
    return -1;
  }
  free(tmp);
  return 0;
}

int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int dir_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mkdir_p(const char *path) {
  char *copy = xstrdup(path);
  for (char *p = copy + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
      free(copy);
      return -1;
    }
    *p = '/';
  }
  int rc = mkdir(copy, 0777);
  free(copy);
  if (rc != 0 && errno != EEXIST) return -1;
  if (!dir_exists(path)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

char *path_join(const char *a, const char *b) {
  if (a[0] == '\0') return xstrdup(b);
  size_t n = strlen(a);
  return xasprintf("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

char *real_path(const char *path) {
  char *resolved = realpath(path, NULL);
  if (resolved == NULL) return NULL;
  char *copy = xstrdup(resolved);
  free(resolved);
  return copy;
}

char *absolute_path(const char *path) {
  char *resolved = real_path(path);
  if (resolved) return resolved;
  if (path[0] == '/') return xstrdup(path);
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == NULL) return xstrdup(path);
  return path_join(cwd, path);
}

int path_is_inside(const char *path, const char *root) {
  size_t n = strlen(root);
  while (n > 1 && root[n - 1] == '/') n--;
  if (strncmp(path, root, n) != 0) return 0;
  return path[n] == '\0' || path[n] == '/' || (n == 1 && root[0] == '/');
}

double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the GPU lock ---- */

static int lock_file(const char *path, int operation) {
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  while (flock(fd, operation) != 0) {
    if (errno != EINTR) {
      int saved = errno;
      close(fd);
      errno = saved;
      return -1;
    }
  }
  return fd;
}

int gpu_lock_acquire(const char *path, int exclusive) {
  /* The turnstile: every taker passes it alone, and an exclusive one holds it until it has the
   * lock, so shared takers that come after it wait (flock alone would let them overtake). */
  char *queue = xasprintf("%s.queue", path);
  int turn = lock_file(queue, LOCK_EX);
  free(queue);
  if (turn < 0) return -1;
  int fd = lock_file(path, exclusive ? LOCK_EX : LOCK_SH);
  int saved = errno;
  close(turn);
  errno = saved;
  return fd;
}

void gpu_lock_release(int fd) {
  if (fd >= 0) close(fd);
}

/* ---- patterns (rubric items' tests, the audit's names) ---- */

/* One '|' alternative, matched by fnmatch(3). A rubric pattern knows '*' and '?' only, so the
 * characters fnmatch gives a meaning of its own ('[', ']' and a backslash) are escaped to stand
 * for themselves, as they always did in rubrics. An empty alternative matches nothing (fnmatch
 * would match it to an empty name). */
static int alternative_matches(const char *alt, size_t length, const char *name) {
  if (length == 0) return 0;
  strbuf escaped;
  sb_init(&escaped);
  for (size_t i = 0; i < length; i++) {
    if (alt[i] == '[' || alt[i] == ']' || alt[i] == '\\') sb_append_char(&escaped, '\\');
    sb_append_char(&escaped, alt[i]);
  }
  /* No flags: '*' crosses '/' (parameterised tests are "Suite.Test/3") and a leading '.' is
   * an ordinary character. */
  int match = fnmatch(escaped.data, name, 0) == 0;
  sb_free(&escaped);
  return match;
}

int pattern_match(const char *pattern, const char *name) {
  for (const char *alt = pattern;;) {
    const char *bar = strchr(alt, '|');
    size_t length = bar ? (size_t)(bar - alt) : strlen(alt);
    if (alternative_matches(alt, length, name)) return 1;
    if (bar == NULL) return 0;
    alt = bar + 1;
  }
}
