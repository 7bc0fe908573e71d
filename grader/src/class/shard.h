/* Shards of a batch (grade --batch DIR --shard K/N) and the manifest every batch output folder
 * carries, batch-manifest.txt, which grade --merge reads to join shards safely: which batch it
 * belongs to (every submission's name, in the batch's order), which shards of how many it
 * holds, how it was graded (the course, the rubrics' fingerprint, the labs, the configure
 * arguments), which submissions are graded so far, and whether it is complete. */
#ifndef GRADE_SHARD_H
#define GRADE_SHARD_H

#include <stddef.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BATCH_MANIFEST "batch-manifest.txt"
#define SHARD_COUNT_MAX 100000

/* Reads "K/N" (0 <= K < N <= SHARD_COUNT_MAX, decimal, nothing else). 0, or -1. */
int shard_parse(const char *text, size_t *index, size_t *count);
/* The shard that grades the submission at `position` (0-based) of the batch's sorted list:
 * every N-th from K, so shards differ in size by one at most. */
size_t shard_of(size_t position, size_t count);

typedef struct batch_manifest {
  size_t shard_count;   /* N */
  unsigned char *holds; /* shard_count flags: which shards this folder holds */
  char *course;         /* the course tree that was graded (absolute) */
  char *rubrics;        /* rubric_fingerprint() of the graded labs */
  char *labs;           /* the graded labs, space-separated, in grading order */
  strlist cmake_args;   /* the configure arguments of each submission's build */
  char *submissions_dir;
  strlist submissions;  /* the whole batch, in its order (sorted by name) */
  strlist graded;       /* the submissions of the held shards graded so far */
  strlist gpus;         /* the GPUs (or "no GPU") the held submissions were graded on */
  int complete;         /* every submission of the held shards was graded */
} batch_manifest;

void manifest_init(batch_manifest *m, size_t shard_count);
void manifest_free(batch_manifest *m);
int manifest_holds(const batch_manifest *m, size_t shard);
/* "shard 2/4", "shards 0-3 of 4", "shards 0, 2 of 4", "no shard of 4". */
char *manifest_shards_text(const batch_manifest *m);
/* Whether the submission at `position` of the batch is in one of the held shards. */
int manifest_holds_position(const batch_manifest *m, size_t position);

char *manifest_format(const batch_manifest *m);
/* Parses a manifest's text; -1 with the reason in `err` when it is not one. */
int manifest_parse(batch_manifest *m, const char *text, strbuf *err);
int manifest_write(const batch_manifest *m, const char *dir); /* 0 or -1 (errno) */
/* Reads DIR/batch-manifest.txt: 0; -1 with the reason in `err`. */
int manifest_load(batch_manifest *m, const char *dir, strbuf *err);

/* A fingerprint of how the labs are scored: the bytes of labs/<lab>/<lab>.rubric and of
 * grader/private/<lab>.rubric (where there is one) of each lab, in order. 16 hex digits. */
char *rubric_fingerprint(const char *course, const strlist *labs);

#ifdef __cplusplus
}
#endif
#endif
