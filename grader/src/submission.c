#define _XOPEN_SOURCE 700
#include "submission.h"

#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void overlay_init(overlay *ov) {
  sl_init(&ov->rel);
  sl_init(&ov->from);
}

void overlay_free(overlay *ov) {
  sl_free(&ov->rel);
  sl_free(&ov->from);
}

void copy_rules_init(copy_rules *rules) {
  sl_init(&rules->exclude);
  sl_init(&rules->keep_hidden);
}

void copy_rules_free(copy_rules *rules) {
  sl_free(&rules->exclude);
  sl_free(&rules->keep_hidden);
}

void copy_rules_for_grading(copy_rules *rules) {
  sl_push(&rules->exclude, "build");
  sl_push(&rules->exclude, "grade-out");
  sl_push(&rules->keep_hidden, ".gitignore");
  sl_push(&rules->keep_hidden, ".github");
  sl_push(&rules->keep_hidden, ".ci");
}

void copy_rules_for_release(copy_rules *rules) {
  copy_rules_for_grading(rules);
  sl_push(&rules->exclude, "solutions");
  sl_push(&rules->exclude, "grader/private");
  sl_push(&rules->exclude, "grader/selftest");
  sl_push(&rules->exclude, "labs/_template"); /* the instructors' start of a new lab */
  /* The course's own CI (.ci/run checks the solutions); a student's repository grades with
   * .github/workflows/classroom.yml, which stays. */
  sl_push(&rules->exclude, ".github/workflows/ci.yml");
}

int release_drop_course_ci(const char *dest) {
  char *readme = path_join(dest, "README.md");
  size_t length = 0;
  char *text = read_file(readme, &length);
  int rc = 0;
  if (text != NULL) {
    strbuf kept;
    sb_init(&kept);
    int dropped = 0, just_dropped = 0;
    for (const char *line = text; *line;) {
      const char *end = strchr(line, '\n');
      size_t n = end ? (size_t)(end - line + 1) : strlen(line);
      char *one = xstrndup(line, n);
      int blank = one[0] == '\n';
      int kept_blank = kept.len == 0 || (kept.len >= 2 && kept.data[kept.len - 2] == '\n');
      if (strstr(one, "actions/workflows/ci.yml") != NULL) {
        dropped = just_dropped = 1;
      } else if (just_dropped && blank && kept_blank) {
        just_dropped = 0; /* the paragraph break the dropped line had: one is enough */
      } else {
        sb_append_n(&kept, one, n);
        just_dropped = 0;
      }
      free(one);
      line += n;
    }
    if (dropped && write_file_atomic(readme, kept.data ? kept.data : "", kept.len) != 0) rc = -1;
    sb_free(&kept);
    free(text);
  }
  free(readme);
  return rc;
}

size_t copy_rules_skip_git_ignored(copy_rules *rules, const char *root) {
  /* Ignored paths, a wholly ignored folder as one entry ending in '/', separated by NULs. */
  char *argv[] = {"git", "-C", (char *)root, "ls-files", "--others", "--ignored",
                  "--exclude-standard", "--directory", "-z", NULL};
  size_t length = 0;
  char *listing = run_capture(argv, &length);
  if (listing == NULL) return 0;
  size_t added = 0;
  for (size_t at = 0; at < length;) {
    const char *path = listing + at;
    size_t n = strlen(path);
    at += n + 1;
    while (n > 0 && path[n - 1] == '/') n--;
    if (n == 0) continue;
    sl_push_owned(&rules->exclude, xstrndup(path, n));
    added++;
  }
  free(listing);
  return added;
}

/* ---- finding a submission's files ---- */

static int has_glob_chars(const char *text) { return strpbrk(text, "*?[") != NULL; }

/* `text` with glob's special characters escaped, so a folder named "alice [late]" is literal. */
static char *glob_escape(const char *text) {
  strbuf sb;
  sb_init(&sb);
  for (const char *p = text; *p; p++) {
    if (strchr("*?[]\\", *p)) sb_append_char(&sb, '\\');
    sb_append_char(&sb, *p);
  }
  return sb_steal(&sb);
}

/* Regular files matching `pattern` below `dir`, as absolute paths, sorted. */
static void glob_files(const char *dir, const char *pattern, strlist *out) {
  char *escaped = glob_escape(dir);
  char *full = path_join(escaped, pattern);
  glob_t g;
  if (glob(full, 0, NULL, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; i++) {
      struct stat st;
      /* lstat: a symbolic link is reported, not followed (the caller refuses it). */
      if (lstat(g.gl_pathv[i], &st) == 0 && !S_ISDIR(st.st_mode)) sl_push(out, g.gl_pathv[i]);
    }
    globfree(&g);
  }
  free(full);
  free(escaped);
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static char *dir_part(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup("");
}

/* Why a found file cannot be taken, or NULL when it can. */
static const char *refusal(const char *path, const char *submission_root) {
  struct stat st;
  if (lstat(path, &st) != 0) return "unreadable";
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if ((unsigned long long)st.st_size > SUBMISSION_MAX_FILE_BYTES) return "larger than 4 MiB";
  char *resolved = real_path(path);
  int inside = resolved != NULL && path_is_inside(resolved, submission_root);
  free(resolved);
  if (!inside) return "outside the submission";
  return NULL;
}

void submission_collect(const char *submission_dir, const strlist *patterns, overlay *ov,
                        strlist *taken, strlist *missing, strlist *rejected) {
  char *root = real_path(submission_dir);
  if (root == NULL) root = absolute_path(submission_dir);
  for (size_t i = 0; i < patterns->count; i++) {
    const char *pattern = patterns->items[i];
    strlist found;
    sl_init(&found);
    /* 1. A copy of the course: the same path. */
    glob_files(root, pattern, &found);
    int how = 1;
    /* 2. A copy of labs/: the path without "labs/". */
    if (found.count == 0 && starts_with(pattern, "labs/")) {
      glob_files(root, pattern + 5, &found);
      how = 2;
    }
    /* 3. The files side by side: the file name alone (when the folder is not a glob). */
    char *folder = dir_part(pattern);
    if (found.count == 0 && !has_glob_chars(folder)) {
      glob_files(root, base_name(pattern), &found);
      how = 3;
    }
    if (found.count == 0) sl_push(missing, pattern);
    for (size_t f = 0; f < found.count; f++) {
      const char *from = found.items[f];
      const char *inside = from + strlen(root) + 1; /* the path relative to the submission */
      char *rel;
      if (how == 1) rel = xstrdup(inside);
      else if (how == 2) rel = xasprintf("labs/%s", inside);
      else rel = folder[0] ? xasprintf("%s/%s", folder, base_name(from)) : xstrdup(base_name(from));
      const char *why = refusal(from, root);
      if (why != NULL) {
        sl_push_owned(rejected, xasprintf("%s (%s)", inside, why));
      } else {
        /* Two labs may name the same file (compaction uses the student's scan.cu): it is laid
         * over the course once and listed as taken for each. */
        if (!sl_contains(&ov->rel, rel)) {
          sl_push(&ov->rel, rel);
          sl_push(&ov->from, from);
        }
        if (strcmp(rel, inside) == 0) sl_push(taken, rel);
        else sl_push_owned(taken, xasprintf("%s (found as %s)", rel, inside));
      }
      free(rel);
    }
    free(folder);
    sl_free(&found);
  }
  free(root);
}

/* ---- the given code ---- */

/* Whether the file at `path` already holds exactly these bytes. */
static int same_content(const char *path, const char *data, size_t length) {
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != length) return 0;
  size_t have_length = 0;
  char *have = read_file(path, &have_length);
  int same = have != NULL && have_length == length && memcmp(have, data, length) == 0;
  free(have);
  return same;
}

/* Whether a rubric names `rel` ("labs/reduction/reduction.cu"), as glob() would find it. */
static int named_by(const strlist *patterns, const char *rel) {
  for (size_t i = 0; i < patterns->count; i++) {
    if (fnmatch(patterns->items[i], rel, FNM_PATHNAME | FNM_PERIOD) == 0) return 1;
  }
  return 0;
}

/* Whether a file of a lab's folder is code the lab's build compiles or reads (its headers, given
 * sources, API table, build file): the files a submission's copy of is reported. The handout,
 * figures, rubric and recorded results beside them are the course's too, but not code. */
static int is_given_code(const char *name) {
  static const char *const endings[] = {".h", ".c", ".cu", ".cuh", ".cpp", ".def"};
  if (strcmp(name, "CMakeLists.txt") == 0) return 1;
  size_t length = strlen(name);
  for (size_t i = 0; i < sizeof endings / sizeof endings[0]; i++) {
    size_t end = strlen(endings[i]);
    if (length > end && strcmp(name + length - end, endings[i]) == 0) return 1;
  }
  return 0;
}

void submission_given_changed(const char *submission_dir, const char *course_dir, const char *lab,
                              const strlist *patterns, strlist *changed) {
  char *root = real_path(submission_dir);
  if (root == NULL) root = absolute_path(submission_dir);
  char *lab_rel = xasprintf("labs/%s", lab);
  char *lab_dir = path_join(course_dir, lab_rel);
  strlist names;
  sl_init(&names);
  DIR *dir = opendir(lab_dir);
  struct dirent *entry;
  while (dir != NULL && (entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] != '.' && is_given_code(entry->d_name)) sl_push(&names, entry->d_name);
  }
  if (dir != NULL) closedir(dir);
  sl_sort(&names);
  /* Loose files are the lab's only in a submission without a folder for it: in a copy of the
   * course, the top level holds the course's own files (its CMakeLists.txt, say). */
  char *as_course = path_join(root, lab_rel);
  char *as_labs = path_join(root, lab);
  int loose = !dir_exists(as_course) && !dir_exists(as_labs);
  for (size_t i = 0; i < names.count; i++) {
    char *rel = path_join(lab_rel, names.items[i]);
    char *course_file = path_join(course_dir, rel);
    struct stat st;
    size_t length = 0;
    char *given = NULL;
    if (lstat(course_file, &st) == 0 && S_ISREG(st.st_mode) && !named_by(patterns, rel)) {
      given = read_file(course_file, &length);
    }
    /* The same three layouts submission_collect looks in. */
    const char *layouts[] = {rel, rel + strlen("labs/"), loose ? names.items[i] : NULL};
    for (size_t k = 0; given != NULL && k < 3 && layouts[k] != NULL; k++) {
      char *copy = path_join(root, layouts[k]);
      /* Anything there but the course's very bytes is reported: other text, a link, a folder. */
      if (lstat(copy, &st) == 0) {
        int same = refusal(copy, root) == NULL && same_content(copy, given, length);
        if (!same) sl_push(changed, layouts[k]);
      }
      free(copy);
    }
    free(given);
    free(course_file);
    free(rel);
  }
  free(as_course);
  free(as_labs);
  sl_free(&names);
  free(lab_dir);
  free(lab_rel);
  free(root);
}

/* ---- keeping a copy in sync ---- */

typedef struct sync_job {
  const char *src;
  const char *dst;
  const copy_rules *rules;
  const overlay *ov;
  sync_stats *stats;
  strbuf *err;
  strlist expected; /* every relative path the copy should hold (sorted before pruning) */
} sync_job;

static int excluded(const sync_job *job, const char *rel) {
  if (strchr(rel, '/') == NULL && rel[0] == '.') {
    return !sl_contains(&job->rules->keep_hidden, rel);
  }
  return sl_contains(&job->rules->exclude, rel);
}

static int remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  DIR *dir = opendir(path);
  if (dir == NULL) return -1;
  struct dirent *entry;
  int rc = 0;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    char *child = path_join(path, entry->d_name);
    if (remove_tree(child) != 0) rc = -1;
    free(child);
  }
  closedir(dir);
  if (rmdir(path) != 0) rc = -1;
  return rc;
}

static int copy_file(sync_job *job, const char *from, const char *rel) {
  char *to = path_join(job->dst, rel);
  struct stat src_st;
  size_t length = 0;
  char *data = NULL;
  int rc = -1;
  if (stat(from, &src_st) != 0 || (data = read_file(from, &length)) == NULL) {
    sb_printf(job->err, "cannot read %s: %s\n", from, strerror(errno));
    goto done;
  }
  mode_t mode = src_st.st_mode & 0777;
  struct stat dst_st;
  if (lstat(to, &dst_st) == 0 && S_ISDIR(dst_st.st_mode)) remove_tree(to);
  if (same_content(to, data, length)) {
    if (lstat(to, &dst_st) == 0 && (dst_st.st_mode & 0777) != mode) chmod(to, mode);
    job->stats->unchanged++;
    rc = 0;
    goto done;
  }
  char *parent = dir_part(to);
  if (parent[0] && mkdir_p(parent) != 0) {
    sb_printf(job->err, "cannot make %s: %s\n", parent, strerror(errno));
    free(parent);
    goto done;
  }
  free(parent);
  if (write_file_atomic(to, data, length) != 0 || chmod(to, mode) != 0) {
    sb_printf(job->err, "cannot write %s: %s\n", to, strerror(errno));
    goto done;
  }
  job->stats->copied++;
  rc = 0;
done:
  free(data);
  free(to);
  return rc;
}

static int is_build_tree(const char *dir) {
  char *cache = path_join(dir, "CMakeCache.txt");
  int found = file_exists(cache);
  free(cache);
  return found;
}

/* Copies the folder `rel` of the source (recursively). */
static int sync_dir(sync_job *job, const char *rel) {
  char *src_dir = rel[0] ? path_join(job->src, rel) : xstrdup(job->src);
  DIR *dir = opendir(src_dir);
  if (dir == NULL) {
    sb_printf(job->err, "cannot read the folder %s: %s\n", src_dir, strerror(errno));
    free(src_dir);
    return -1;
  }
  strlist names;
  sl_init(&names);
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
      sl_push(&names, entry->d_name);
    }
  }
  closedir(dir);
  sl_sort(&names);
  int rc = 0;
  for (size_t i = 0; i < names.count && rc == 0; i++) {
    char *child_rel = rel[0] ? path_join(rel, names.items[i]) : xstrdup(names.items[i]);
    char *child_src = path_join(src_dir, names.items[i]);
    struct stat st;
    if (excluded(job, child_rel) || strcmp(child_rel, TREE_MARKER) == 0 ||
        stat(child_src, &st) != 0) {
      /* left out (a dangling link in the course is left out too) */
    } else if (S_ISDIR(st.st_mode) && is_build_tree(child_src)) {
      /* A build tree configured inside the course (sim/build, labs/x/build, ...): never part
       * of the course, and often large. */
    } else if (S_ISDIR(st.st_mode)) {
      char *child_dst = path_join(job->dst, child_rel);
      struct stat dst_st;
      if (lstat(child_dst, &dst_st) == 0 && !S_ISDIR(dst_st.st_mode)) unlink(child_dst);
      if (mkdir_p(child_dst) != 0) {
        sb_printf(job->err, "cannot make %s: %s\n", child_dst, strerror(errno));
        rc = -1;
      }
      free(child_dst);
      sl_push(&job->expected, child_rel);
      if (rc == 0) rc = sync_dir(job, child_rel);
    } else if (S_ISREG(st.st_mode)) {
      sl_push(&job->expected, child_rel);
      /* The overlay's own files are written after the walk. */
      if (!sl_contains(&job->ov->rel, child_rel)) rc = copy_file(job, child_src, child_rel);
    }
    free(child_src);
    free(child_rel);
  }
  sl_free(&names);
  free(src_dir);
  return rc;
}

static int compare_keys(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_expected_sorted(const sync_job *job, const char *rel) {
  return bsearch(&rel, job->expected.items, job->expected.count, sizeof(char *), compare_keys) !=
         NULL;
}

/* Deletes what the copy holds but the source does not. */
static void prune(sync_job *job, const char *rel) {
  char *dst_dir = rel[0] ? path_join(job->dst, rel) : xstrdup(job->dst);
  DIR *dir = opendir(dst_dir);
  if (dir == NULL) {
    free(dst_dir);
    return;
  }
  strlist names;
  sl_init(&names);
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
      sl_push(&names, entry->d_name);
    }
  }
  closedir(dir);
  for (size_t i = 0; i < names.count; i++) {
    char *child_rel = rel[0] ? path_join(rel, names.items[i]) : xstrdup(names.items[i]);
    char *child_dst = path_join(dst_dir, names.items[i]);
    struct stat st;
    if (strcmp(child_rel, TREE_MARKER) == 0) {
      /* keep */
    } else if (!is_expected_sorted(job, child_rel)) {
      if (remove_tree(child_dst) == 0) job->stats->removed++;
    } else if (lstat(child_dst, &st) == 0 && S_ISDIR(st.st_mode)) {
      prune(job, child_rel);
    }
    free(child_dst);
    free(child_rel);
  }
  sl_free(&names);
  free(dst_dir);
}

/* A destination the copy may write into: missing, empty, or made by an earlier copy. */
static int may_use_destination(const char *dst) {
  if (!dir_exists(dst)) return 1;
  char *marker = path_join(dst, TREE_MARKER);
  int ok = file_exists(marker);
  free(marker);
  if (ok) return 1;
  DIR *dir = opendir(dst);
  if (dir == NULL) return 0;
  struct dirent *entry;
  int empty = 1;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) empty = 0;
  }
  closedir(dir);
  return empty;
}

int tree_sync(const char *src, const char *dst, const copy_rules *rules, const overlay *ov,
              sync_stats *stats, strbuf *err) {
  memset(stats, 0, sizeof *stats);
  char *src_abs = real_path(src);
  char *dst_abs = absolute_path(dst);
  int rc = -1;
  sync_job job = {src_abs, dst_abs, rules, ov, stats, err, {NULL, 0, 0}};
  if (src_abs == NULL) {
    sb_printf(err, "the course folder %s does not exist\n", src);
    goto done;
  }
  if (path_is_inside(src_abs, dst_abs)) {
    sb_printf(err, "the copy %s would hold its own source %s\n", dst_abs, src_abs);
    goto done;
  }
  if (path_is_inside(dst_abs, src_abs)) {
    const char *rel = dst_abs + strlen(src_abs) + 1;
    int left_out = 0;
    for (size_t i = 0; i < rules->exclude.count; i++) {
      const char *ex = rules->exclude.items[i];
      size_t n = strlen(ex);
      if (strncmp(rel, ex, n) == 0 && (rel[n] == '\0' || rel[n] == '/')) left_out = 1;
    }
    if (rel[0] == '.' && !sl_contains(&rules->keep_hidden, rel)) left_out = 1;
    if (!left_out) {
      sb_printf(err, "the copy %s lies inside the course %s and would copy itself; choose a "
                     "folder outside it (or under build/ or grade-out/)\n", dst_abs, src_abs);
      goto done;
    }
  }
  if (!may_use_destination(dst_abs)) {
    sb_printf(err, "%s is not empty and was not made by the grader (no %s file): the grader "
                   "will not overwrite it\n", dst_abs, TREE_MARKER);
    goto done;
  }
  if (mkdir_p(dst_abs) != 0) {
    sb_printf(err, "cannot make %s: %s\n", dst_abs, strerror(errno));
    goto done;
  }
  char *marker = path_join(dst_abs, TREE_MARKER);
  char *marker_text = xasprintf("A copy of %s made by the gpulabs grader; it rewrites this "
                                "folder on each run.\n", src_abs);
  int marker_ok = write_file_atomic(marker, marker_text, strlen(marker_text)) == 0;
  free(marker_text);
  free(marker);
  if (!marker_ok) {
    sb_printf(err, "cannot write in %s: %s\n", dst_abs, strerror(errno));
    goto done;
  }
  if (sync_dir(&job, "") != 0) goto done;
  for (size_t i = 0; i < ov->rel.count; i++) {
    if (copy_file(&job, ov->from.items[i], ov->rel.items[i]) != 0) goto done;
    /* The overlay file and the folders above it belong to the copy. */
    char *rel = xstrdup(ov->rel.items[i]);
    sl_push(&job.expected, rel);
    for (char *slash = strrchr(rel, '/'); slash != NULL; slash = strrchr(rel, '/')) {
      *slash = '\0';
      sl_push(&job.expected, rel);
    }
    free(rel);
  }
  sl_sort(&job.expected);
  prune(&job, "");
  rc = 0;
done:
  sl_free(&job.expected);
  free(src_abs);
  free(dst_abs);
  return rc;
}
