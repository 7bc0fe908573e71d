/* Small helpers the grader's parts share: allocation that never returns NULL, a growable
 * string, lists of strings, files and paths. */
#ifndef GRADE_UTIL_H
#define GRADE_UTIL_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Allocation: on failure print why and exit (the grader cannot do anything useful without it). */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *text);
char *xstrndup(const char *text, size_t length);
char *xasprintf(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A growable, always NUL-terminated string. */
typedef struct strbuf {
  char *data; /* NULL only after sb_steal, until the next append */
  size_t len;
  size_t cap;
} strbuf;

void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
void sb_clear(strbuf *sb);
void sb_append(strbuf *sb, const char *text);
void sb_append_n(strbuf *sb, const char *text, size_t length);
void sb_append_char(strbuf *sb, char c);
void sb_printf(strbuf *sb, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_vprintf(strbuf *sb, const char *format, va_list args);
/* Hands the text over to the caller (free() it) and leaves `sb` empty: it may be appended to
 * again, and sb_free on it is harmless. */
char *sb_steal(strbuf *sb);

/* A growable list of owned strings. */
typedef struct strlist {
  char **items;
  size_t count;
  size_t cap;
} strlist;

void sl_init(strlist *list);
void sl_free(strlist *list);
void sl_push(strlist *list, const char *text); /* copies `text` */
void sl_push_owned(strlist *list, char *text); /* takes ownership */
int sl_contains(const strlist *list, const char *text);
void sl_sort(strlist *list);

/* Text helpers. */
int starts_with(const char *text, const char *prefix);
int ends_with(const char *text, const char *suffix);
/* Copies `text` without leading and trailing white space. */
char *trim_copy(const char *text, size_t length);
/* Collapses runs of white space into one space and cuts to at most `max_chars` bytes (adding
 * "..." when cut, never in the middle of a UTF-8 sequence). Returns a new string. */
char *one_line(const char *text, size_t max_chars);

/* Files. read_file returns NULL (and sets errno) on failure; *length may be NULL. */
char *read_file(const char *path, size_t *length);
/* Writes through a temporary file and a rename, so a reader never sees half a report.
 * Returns 0 or -1 (errno set). */
int write_file_atomic(const char *path, const char *data, size_t length);
int file_exists(const char *path);
int dir_exists(const char *path);
int mkdir_p(const char *path); /* 0 or -1 (errno set) */
char *path_join(const char *a, const char *b);
/* The absolute, symlink-free form of an existing path, or NULL. */
char *real_path(const char *path);
/* An absolute form of a path that may not exist yet (made from the current directory). */
char *absolute_path(const char *path);
/* True when `path` is `root` or lies inside it (both absolute and normalised). */
int path_is_inside(const char *path, const char *root);

/* Seconds since an arbitrary fixed point (a monotonic clock). */
double now_seconds(void);

/* The lock graders sharing a GPU take around its tests (grade --batch --gpus): shared for
 * correctness tests, which may overlap, exclusive for performance tests, which are timed with
 * nothing else on the GPU. flock(2) on `path` (made if missing), waiting as long as it takes.
 * A waiting exclusive taker goes before shared ones that come after it (they queue on
 * `path`.queue first), so overlapping correctness runs never keep timing waiting for long.
 * Returns the descriptor that holds the lock (gpu_lock_release drops it; so does the end of the
 * process), or -1 with errno set. */
int gpu_lock_acquire(const char *path, int exclusive);
void gpu_lock_release(int fd);

/* True when `name` matches the whole pattern, or one of its '|' alternatives: '*' matches
 * any run of characters (also none), '?' exactly one, and every other character itself ('['
 * and a backslash too: fnmatch(3) does the matching, without its brackets and escapes). */
int pattern_match(const char *pattern, const char *name);

#ifdef __cplusplus
}
#endif
#endif
