#define _XOPEN_SOURCE 700
#include "merge.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gradebook.h"
#include "shard.h"

/* One folder to merge: a shard's output, or OUT's earlier merge (the base). */
typedef struct merge_source {
  char *dir;
  batch_manifest m;
  char *header[GRADEBOOK_FILES]; /* NULL: the file is empty (a shard with no submission) */
  strbuf *rows[GRADEBOOK_FILES]; /* per position in the batch: that submission's lines */
} merge_source;

static void source_free(merge_source *s) {
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    free(s->header[f]);
    if (s->rows[f]) {
      for (size_t i = 0; i < s->m.submissions.count; i++) sb_free(&s->rows[f][i]);
      free(s->rows[f]);
    }
  }
  manifest_free(&s->m);
  free(s->dir);
  memset(s, 0, sizeof *s);
}

static int compare_names(const void *key, const void *item) {
  return strcmp((const char *)key, *(char *const *)item);
}

/* The position of `name` in the batch's sorted list, or -1. */
static long position_of(const batch_manifest *m, const char *name) {
  char **found = bsearch(name, m->submissions.items, m->submissions.count, sizeof(char *),
                         compare_names);
  return found ? (long)(found - m->submissions.items) : -1;
}

/* Reads a batch output folder: its manifest, which must say it is complete, and its three
 * gradebook files, whose lines must be exactly those of the submissions it holds. */
static int load_source(merge_source *s, const char *dir, const char *what, strbuf *err) {
  memset(s, 0, sizeof *s);
  s->dir = xstrdup(dir);
  manifest_init(&s->m, 1);
  if (manifest_load(&s->m, dir, err) != 0) return -1;
  batch_manifest *m = &s->m;
  char *shards = manifest_shards_text(m);
  int rc = 0;
  size_t held = 0;
  for (size_t i = 0; i < m->submissions.count; i++) held += manifest_holds_position(m, i);
  if (!m->complete) {
    sb_printf(err, "%s %s holds %s, which is not complete: %zu of its %zu submissions are graded "
                   "(is its grade --batch still running, or did it stop? run it again to the end)",
              what, dir, shards, m->graded.count, held);
    rc = -1;
  }
  /* Graded: exactly the submissions of the held shards. */
  for (size_t i = 0; rc == 0 && i < m->graded.count; i++) {
    long pos = position_of(m, m->graded.items[i]);
    if (pos < 0 || !manifest_holds_position(m, (size_t)pos)) {
      sb_printf(err, "%s: its manifest lists '%s' as graded, which is not one of the "
                     "submissions of %s", dir, m->graded.items[i], shards);
      rc = -1;
    }
  }
  if (rc == 0 && m->graded.count != held) {
    sb_printf(err, "%s: %zu of the %zu submissions of %s are graded", dir, m->graded.count, held,
              shards);
    rc = -1;
  }
  for (size_t i = 0; rc == 0 && i < m->submissions.count; i++) {
    if (!manifest_holds_position(m, i)) continue;
    char *reports = path_join(dir, m->submissions.items[i]);
    if (!dir_exists(reports)) {
      sb_printf(err, "%s: the reports of '%s' (%s) are missing", dir, m->submissions.items[i],
                reports);
      rc = -1;
    }
    free(reports);
  }
  for (int f = 0; rc == 0 && f < GRADEBOOK_FILES; f++) {
    const char *name = gradebook_file_name((gradebook_file)f);
    char *path = path_join(dir, name);
    size_t length = 0;
    char *text = read_file(path, &length);
    strlist records;
    sl_init(&records);
    if (text == NULL) {
      sb_printf(err, "%s: %s", path, strerror(errno));
      rc = -1;
    } else if (csv_records(text, length, &records) != 0) {
      sb_printf(err, "%s is cut short (a quoted field is not closed)", path);
      rc = -1;
    }
    s->rows[f] = xcalloc(m->submissions.count + 1, sizeof(strbuf));
    for (size_t i = 0; i < m->submissions.count; i++) sb_init(&s->rows[f][i]);
    size_t *lines = xcalloc(m->submissions.count + 1, sizeof(size_t));
    if (rc == 0 && records.count > 0) s->header[f] = xstrdup(records.items[0]);
    for (size_t r = 1; rc == 0 && r < records.count; r++) {
      char *who = csv_first_field(records.items[r]);
      long pos = position_of(m, who);
      if (pos < 0 || !manifest_holds_position(m, (size_t)pos)) {
        sb_printf(err, "%s has a line for '%s', which is not one of the submissions of %s", path,
                  who, shards);
        rc = -1;
      } else {
        sb_append(&s->rows[f][pos], records.items[r]);
        lines[pos]++;
      }
      free(who);
    }
    /* gradebook.csv and lms.csv: one line per submission; items.csv: one per item. */
    for (size_t i = 0; rc == 0 && f != GRADEBOOK_ITEMS && i < m->submissions.count; i++) {
      if (manifest_holds_position(m, i) && lines[i] != 1) {
        sb_printf(err, "%s has %zu lines for '%s' (one was expected)", path, lines[i],
                  m->submissions.items[i]);
        rc = -1;
      }
    }
    free(lines);
    sl_free(&records);
    free(text);
    free(path);
  }
  free(shards);
  return rc;
}

static int same_list(const strlist *a, const strlist *b) {
  if (a->count != b->count) return 0;
  for (size_t i = 0; i < a->count; i++) {
    if (strcmp(a->items[i], b->items[i]) != 0) return 0;
  }
  return 1;
}

static const char *text_or_none(const char *text) { return text && *text ? text : "(none)"; }

/* Two folders merge only when they come from one batch graded alike. */
static int check_alike(const merge_source *a, const merge_source *b, strbuf *err) {
  const char *what = NULL;
  char *one = NULL, *two = NULL;
  if (a->m.shard_count != b->m.shard_count) {
    what = "shard counts";
    one = xasprintf("%zu", a->m.shard_count);
    two = xasprintf("%zu", b->m.shard_count);
  } else if (!same_list(&a->m.submissions, &b->m.submissions)) {
    what = "lists of submissions";
    one = xasprintf("%zu submissions", a->m.submissions.count);
    two = xasprintf("%zu submissions", b->m.submissions.count);
    for (size_t i = 0; i < a->m.submissions.count && i < b->m.submissions.count; i++) {
      if (strcmp(a->m.submissions.items[i], b->m.submissions.items[i]) != 0) {
        free(one);
        free(two);
        one = xasprintf("'%s' at number %zu", a->m.submissions.items[i], i);
        two = xasprintf("'%s'", b->m.submissions.items[i]);
        break;
      }
    }
  } else if (strcmp(text_or_none(a->m.course), text_or_none(b->m.course)) != 0) {
    what = "courses";
    one = xstrdup(text_or_none(a->m.course));
    two = xstrdup(text_or_none(b->m.course));
  } else if (strcmp(text_or_none(a->m.rubrics), text_or_none(b->m.rubrics)) != 0) {
    what = "rubrics (their fingerprints)";
    one = xstrdup(text_or_none(a->m.rubrics));
    two = xstrdup(text_or_none(b->m.rubrics));
  } else if (strcmp(text_or_none(a->m.labs), text_or_none(b->m.labs)) != 0) {
    what = "graded labs (--lab)";
    one = xstrdup(text_or_none(a->m.labs));
    two = xstrdup(text_or_none(b->m.labs));
  } else if (!same_list(&a->m.cmake_args, &b->m.cmake_args)) {
    what = "configure arguments (--cmake-arg, or the grader's own build)";
    strbuf x, y;
    sb_init(&x);
    sb_init(&y);
    for (size_t i = 0; i < a->m.cmake_args.count; i++) sb_printf(&x, "%s%s", i ? " " : "", a->m.cmake_args.items[i]);
    for (size_t i = 0; i < b->m.cmake_args.count; i++) sb_printf(&y, "%s%s", i ? " " : "", b->m.cmake_args.items[i]);
    one = sb_steal(&x);
    two = sb_steal(&y);
    sb_free(&x);
    sb_free(&y);
  }
  for (int f = 0; what == NULL && f < GRADEBOOK_FILES; f++) {
    if (a->header[f] && b->header[f] && strcmp(a->header[f], b->header[f]) != 0) {
      what = "gradebook columns";
      one = xasprintf("%s", gradebook_file_name((gradebook_file)f));
      two = xstrdup("another header line");
    }
  }
  if (what == NULL) return 0;
  char *sa = manifest_shards_text(&a->m), *sbx = manifest_shards_text(&b->m);
  sb_printf(err, "%s (%s) and %s (%s) are not shards of one batch graded alike: their %s differ "
                 "(%s; %s). Shards merge only when every one graded the same submissions folder "
                 "with the same --shard count, course, rubrics, labs and options",
            a->dir, sa, b->dir, sbx, what, one, two);
  free(sa);
  free(sbx);
  free(one);
  free(two);
  return -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  return (flag == FTW_DP ? rmdir(path) : unlink(path)) == 0 || errno == ENOENT ? 0 : -1;
}

static int remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlink(path);
  return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Copies the folders and regular files under `from` (links and the like are left out: the
 * grader writes none into a report folder). */
static int copy_tree(const char *from, const char *to, strbuf *err) {
  if (mkdir_p(to) != 0) {
    sb_printf(err, "cannot make %s: %s", to, strerror(errno));
    return -1;
  }
  DIR *dir = opendir(from);
  if (dir == NULL) {
    sb_printf(err, "cannot read %s: %s", from, strerror(errno));
    return -1;
  }
  int rc = 0;
  struct dirent *entry;
  while (rc == 0 && (entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    char *src = path_join(from, entry->d_name);
    char *dst = path_join(to, entry->d_name);
    struct stat st;
    if (lstat(src, &st) != 0) {
      sb_printf(err, "cannot read %s: %s", src, strerror(errno));
      rc = -1;
    } else if (S_ISDIR(st.st_mode)) {
      rc = copy_tree(src, dst, err);
    } else if (S_ISREG(st.st_mode)) {
      size_t length = 0;
      char *data = read_file(src, &length);
      if (data == NULL || write_file_atomic(dst, data, length) != 0) {
        sb_printf(err, "cannot copy %s to %s: %s", src, dst, strerror(errno));
        rc = -1;
      }
      free(data);
    }
    free(dst);
    free(src);
  }
  closedir(dir);
  return rc;
}

/* OUT/<name> := the source's <name>/, swapped in once the copy is whole. */
static int replace_reports(const char *from_dir, const char *out_dir, const char *name, strbuf *err) {
  char *from = path_join(from_dir, name);
  char *to = path_join(out_dir, name);
  char *tmp_name = xasprintf(".merge-%s.tmp", name);
  char *tmp = path_join(out_dir, tmp_name);
  int rc = 0;
  if (remove_tree(tmp) != 0 || copy_tree(from, tmp, err) != 0) {
    if (err->len == 0) sb_printf(err, "cannot clear %s: %s", tmp, strerror(errno));
    rc = -1;
  } else if (remove_tree(to) != 0) {
    sb_printf(err, "cannot remove the earlier %s: %s", to, strerror(errno));
    rc = -1;
  } else if (rename(tmp, to) != 0) {
    sb_printf(err, "cannot rename %s to %s: %s", tmp, to, strerror(errno));
    rc = -1;
  }
  if (rc != 0) remove_tree(tmp);
  free(tmp);
  free(tmp_name);
  free(to);
  free(from);
  return rc;
}

static int dir_is_empty(const char *path) {
  DIR *dir = opendir(path);
  if (dir == NULL) return 0;
  int empty = 1;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
      empty = 0;
      break;
    }
  }
  closedir(dir);
  return empty;
}

/* One merge: the folders named, OUT's earlier merge (base), and which folder holds each shard. */
typedef struct merge_run {
  char *out;
  merge_source *src;
  size_t loaded;
  merge_source base;
  int have_base;
  size_t *holder; /* per shard: the index in src of the folder that holds it, or (size_t)-1 */
  size_t n_shards;
} merge_run;

/* The folders named, each read (a folder, not OUT, not inside it or around it, named once). */
static int load_sources(merge_run *m, const char *const *sources, size_t n_sources, strbuf *err) {
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < n_sources; i++) {
    char *dir = real_path(sources[i]);
    if (dir == NULL || !dir_exists(dir)) {
      sb_printf(err, "%s is not a folder", sources[i]);
      rc = 1;
    } else if (strcmp(dir, m->out) == 0) {
      sb_printf(err, "%s is both the merged folder and a folder to merge: merge into another "
                     "folder", sources[i]);
      rc = 1;
    } else if (path_is_inside(dir, m->out) || path_is_inside(m->out, dir)) {
      sb_printf(err, "the merged folder %s and the shard's folder %s may not lie one inside the "
                     "other: a submission's reports could land on a shard's folder", m->out, dir);
      rc = 1;
    } else {
      for (size_t j = 0; rc == 0 && j < m->loaded; j++) {
        if (strcmp(m->src[j].dir, dir) == 0) {
          sb_printf(err, "%s is named twice", sources[i]);
          rc = 1;
        }
      }
    }
    if (rc == 0) {
      if (load_source(&m->src[m->loaded], dir, "the folder", err) != 0) rc = 1;
      m->loaded++;
    }
    free(dir);
  }
  return rc;
}

/* OUT: new, empty, or an earlier batch output of the same batch (its other shards stay); the
 * folders named all of one batch. */
static int check_out_and_batches(merge_run *m, strbuf *err) {
  int rc = 0;
  if (dir_exists(m->out) && !dir_is_empty(m->out)) {
    char *manifest = path_join(m->out, BATCH_MANIFEST);
    if (!file_exists(manifest)) {
      sb_printf(err, "%s is not empty and holds no %s (it is no batch's output folder): merge "
                     "into a new or empty folder", m->out, BATCH_MANIFEST);
      rc = 1;
    } else {
      m->have_base = 1;
      if (load_source(&m->base, m->out, "the merged folder", err) != 0) rc = 1;
    }
    free(manifest);
  } else if (!dir_exists(m->out) && file_exists(m->out)) {
    sb_printf(err, "%s is a file, not a folder", m->out);
    rc = 1;
  }
  for (size_t i = 1; rc == 0 && i < m->loaded; i++) {
    if (check_alike(&m->src[0], &m->src[i], err) != 0) rc = 1;
  }
  if (rc == 0 && m->have_base && check_alike(&m->src[0], &m->base, err) != 0) {
    sb_printf(err, "\n%s holds the output of another batch: merge into a new or empty folder",
              m->out);
    rc = 1;
  }
  /* An earlier merge (or a whole batch) holds every shard; a shard's own folder is no place
   * to merge into. */
  for (size_t k = 0; rc == 0 && m->have_base && k < m->base.m.shard_count; k++) {
    if (!m->base.m.holds[k]) {
      char *held = manifest_shards_text(&m->base.m);
      sb_printf(err, "%s holds %s only (the output of grade --batch --shard): merge into a "
                     "folder of its own", m->out, held);
      free(held);
      rc = 1;
    }
  }
  return rc;
}

/* Each shard from one named folder at most; the rest from OUT's earlier merge; none missing. */
static int assign_shards(merge_run *m, strbuf *err) {
  int rc = 0;
  m->holder = xcalloc(m->n_shards, sizeof *m->holder);
  for (size_t k = 0; k < m->n_shards; k++) m->holder[k] = (size_t)-1;
  for (size_t i = 0; rc == 0 && i < m->loaded; i++) {
    for (size_t k = 0; k < m->n_shards; k++) {
      if (!m->src[i].m.holds[k]) continue;
      if (m->holder[k] != (size_t)-1) {
        sb_printf(err, "%s and %s both hold shard %zu/%zu: name each shard's folder once",
                  m->src[m->holder[k]].dir, m->src[i].dir, k, m->n_shards);
        rc = 1;
        break;
      }
      m->holder[k] = i;
    }
  }
  strbuf missing;
  sb_init(&missing);
  size_t n_missing = 0;
  for (size_t k = 0; rc == 0 && k < m->n_shards; k++) {
    if (m->holder[k] == (size_t)-1 && !(m->have_base && m->base.m.holds[k])) {
      if (n_missing++ < 20) sb_printf(&missing, "%s%zu", missing.len ? ", " : "", k);
    }
  }
  if (n_missing > 0) {
    sb_printf(err, "%s %s%s of %zu %s missing: name the output folder of every shard (each "
                   "written by grade --batch DIR --shard K/%zu)",
              n_missing == 1 ? "shard" : "shards", missing.data, n_missing > 20 ? ", ..." : "",
              m->n_shards, n_missing == 1 ? "is" : "are", m->n_shards);
    rc = 1;
  }
  sb_free(&missing);
  return rc;
}

/* The merged gradebook files: the header, then each submission's lines from its shard's folder
 * (or from OUT's earlier merge). */
static int write_gradebooks(const merge_run *m, const batch_manifest *batch, strbuf *err) {
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    strbuf text;
    sb_init(&text);
    const char *header = NULL;
    for (size_t i = 0; header == NULL && i < m->loaded; i++) header = m->src[i].header[f];
    if (header == NULL && m->have_base) header = m->base.header[f];
    if (header) sb_append(&text, header);
    for (size_t i = 0; i < batch->submissions.count; i++) {
      size_t k = shard_of(i, m->n_shards);
      const merge_source *from = m->holder[k] == (size_t)-1 ? &m->base : &m->src[m->holder[k]];
      sb_append(&text, from->rows[f][i].data);
    }
    char *path = path_join(m->out, gradebook_file_name((gradebook_file)f));
    int rc = write_file_atomic(path, text.data, text.len);
    if (rc != 0) sb_printf(err, "cannot write %s: %s", path, strerror(errno));
    free(path);
    sb_free(&text);
    if (rc != 0) return 1;
  }
  return 0;
}

/* The merged batch's manifest: every shard held, the GPUs of the folders whose lines are in. */
static void merged_manifest(const merge_run *m, const batch_manifest *batch, size_t kept,
                            batch_manifest *merged) {
  manifest_init(merged, m->n_shards);
  memset(merged->holds, 1, m->n_shards);
  merged->complete = 1;
  merged->course = xstrdup(text_or_none(batch->course));
  merged->rubrics = xstrdup(text_or_none(batch->rubrics));
  merged->labs = xstrdup(batch->labs ? batch->labs : "");
  merged->submissions_dir = xstrdup(batch->submissions_dir ? batch->submissions_dir : "");
  for (size_t i = 0; i < batch->cmake_args.count; i++) {
    sl_push(&merged->cmake_args, batch->cmake_args.items[i]);
  }
  for (size_t i = 0; i < batch->submissions.count; i++) {
    sl_push(&merged->submissions, batch->submissions.items[i]);
    sl_push(&merged->graded, batch->submissions.items[i]);
  }
  for (size_t i = 0; i < m->loaded + (size_t)m->have_base; i++) {
    const merge_source *from = i < m->loaded ? &m->src[i] : &m->base;
    if (i == m->loaded && kept == 0) break;
    for (size_t g = 0; g < from->m.gpus.count; g++) {
      if (!sl_contains(&merged->gpus, from->m.gpus.items[g])) {
        sl_push(&merged->gpus, from->m.gpus.items[g]);
      }
    }
  }
}

static void log_merge(const merge_run *m, const batch_manifest *merged, size_t from_named,
                      size_t kept, FILE *log) {
  fprintf(log, "merged %zu shards into %s: %zu submissions, %zu from the folders named",
          m->n_shards, m->out, merged->submissions.count, from_named);
  if (m->have_base) fprintf(log, ", %zu kept from its earlier merge", kept);
  fprintf(log, "\ngradebook: %s/gradebook.csv; lms.csv and items.csv beside it\n", m->out);
  if (merged->gpus.count > 1) {
    fprintf(log, "warning: the shards were graded on different machines: ");
    for (size_t g = 0; g < merged->gpus.count; g++) {
      fprintf(log, "%s%s", g ? ", " : "", merged->gpus.items[g]);
    }
    fprintf(log, "; performance ratios were measured on each shard's own, and items not "
                 "scored on one may be scored on another\n");
  }
}

/* The reports first, then the gradebooks and the manifest: an interrupted merge leaves the
 * earlier gradebook, never one that names reports that are not there. */
static int write_merge(const merge_run *m, strbuf *err, FILE *log) {
  const batch_manifest *batch = &m->src[0].m;
  size_t from_named = 0, kept = 0;
  for (size_t i = 0; i < batch->submissions.count; i++) {
    size_t k = shard_of(i, m->n_shards);
    if (m->holder[k] == (size_t)-1) {
      kept++;
      continue;
    }
    if (replace_reports(m->src[m->holder[k]].dir, m->out, batch->submissions.items[i], err) != 0) {
      return 1;
    }
    from_named++;
  }
  batch_manifest merged;
  merged_manifest(m, batch, kept, &merged);
  int rc = write_gradebooks(m, batch, err);
  if (rc == 0 && manifest_write(&merged, m->out) != 0) {
    sb_printf(err, "cannot write %s/%s: %s", m->out, BATCH_MANIFEST, strerror(errno));
    rc = 1;
  }
  if (rc == 0 && log) log_merge(m, &merged, from_named, kept, log);
  manifest_free(&merged);
  return rc;
}

int grade_merge(const char *out_dir, const char *const *sources, size_t n_sources, strbuf *err,
                FILE *log) {
  if (n_sources == 0) {
    sb_append(err, "--merge OUT needs the output folders of the shards to join after it");
    return 1;
  }
  merge_run m;
  memset(&m, 0, sizeof m);
  m.out = absolute_path(out_dir);
  m.src = xcalloc(n_sources, sizeof *m.src);
  int rc = load_sources(&m, sources, n_sources, err);
  if (rc == 0) rc = check_out_and_batches(&m, err);
  if (rc == 0) {
    m.n_shards = m.src[0].m.shard_count;
    rc = assign_shards(&m, err);
  }
  if (rc == 0 && mkdir_p(m.out) != 0) {
    sb_printf(err, "cannot make %s: %s", m.out, strerror(errno));
    rc = 1;
  }
  if (rc == 0) rc = write_merge(&m, err, log);
  for (size_t i = 0; i < n_sources; i++) {
    if (m.src[i].dir) source_free(&m.src[i]);
  }
  free(m.src);
  if (m.base.dir) source_free(&m.base);
  free(m.holder);
  free(m.out);
  return rc;
}
