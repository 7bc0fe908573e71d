/* grade --batch DIR [--shard K/N] [--gpus all|0,1,...] (class_cli.h): the options of a batch,
 * and the batch graded with them. */
#define _POSIX_C_SOURCE 200809L
#include "class_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "shard.h"

const struct option batch_cli_options[] = {
    {"batch", required_argument, NULL, CLI_BATCH},
    {"shard", required_argument, NULL, CLI_SHARD},
    {"gpus", required_argument, NULL, CLI_GPUS},
    {NULL, 0, NULL, 0},
};

void batch_cli_init(batch_cli *batch) {
  memset(batch, 0, sizeof *batch);
  batch->shard_count = 1;
  gpu_slots_init(&batch->slots);
}

void batch_cli_free(batch_cli *batch) { gpu_slots_free(&batch->slots); }

static int take_gpus(batch_cli *batch, const char *value) {
  strbuf err;
  sb_init(&err);
  int parsed = gpu_slots_parse(value, &batch->slots, &err);
  if (parsed != 0) fprintf(stderr, "grade: %s\n", err.data);
  sb_free(&err);
  if (parsed != 0) return 2;
  batch->gpus_text = value;
  return -1;
}

int batch_cli_option(batch_cli *batch, int code, const char *value) {
  switch (code) {
    case CLI_BATCH: batch->batch_dir = value; return -1;
    case CLI_GPUS: return take_gpus(batch, value);
    case CLI_SHARD:
      if (shard_parse(value, &batch->shard_index, &batch->shard_count) != 0) {
        fprintf(stderr, "grade: --shard takes K/N, shard K (0 to N-1) of N (1 to %d), not '%s'\n",
                SHARD_COUNT_MAX, value);
        return 2;
      }
      batch->shard_text = value;
      return -1;
    default: return 2; /* not this mode's option: the reader's mistake */
  }
}

int batch_cli_given(const batch_cli *batch) {
  return batch->batch_dir != NULL || batch->shard_text != NULL || batch->gpus_text != NULL;
}

int batch_cli_check(const batch_cli *batch) {
  if (batch->shard_text != NULL && batch->batch_dir == NULL) {
    fprintf(stderr, "grade: --shard %s picks submissions of a batch: use it with --batch DIR\n",
            batch->shard_text);
    return 2;
  }
  if (batch->gpus_text != NULL && batch->batch_dir == NULL) {
    fprintf(stderr, "grade: --gpus %s grades the submissions of a batch side by side: use it "
                    "with --batch DIR\n", batch->gpus_text);
    return 2;
  }
  return 0;
}

/* --gpus: the GPUs it names found on this machine, and the CPUs shared among the graders (each
 * builds and tests with its part) unless --jobs was given. 0, or 2 after saying why. */
static int resolve_gpus(batch_cli *batch, const grade_cli *cli, grade_options *opt) {
  strbuf note, err;
  sb_init(&note);
  sb_init(&err);
  int resolved = gpu_slots_resolve(&batch->slots, getenv("CUDA_VISIBLE_DEVICES"), "nvidia-smi",
                                   "/dev", &note, &err);
  if (resolved != 0) fprintf(stderr, "grade: %s\n", err.data);
  if (resolved == 0 && note.len) fprintf(stderr, "grade: %s\n", note.data);
  sb_free(&note);
  sb_free(&err);
  if (resolved != 0) return 2;
  if (!cli->jobs_given) {
    long share = (cli->cpus > 0 ? cli->cpus : 1) / (long)batch->slots.ids.count;
    opt->jobs = share > 0 ? (int)share : 1;
  }
  return 0;
}

int batch_cli_run(batch_cli *batch, const grade_cli *cli, grade_options *opt) {
  char *batch_abs = real_path(batch->batch_dir);
  if (batch_abs == NULL) {
    fprintf(stderr, "grade: the submissions folder %s does not exist\n", batch->batch_dir);
    return 2;
  }
  int rc = batch->gpus_text != NULL ? resolve_gpus(batch, cli, opt) : 0;
  if (rc == 0) {
    rc = grade_batch(opt, batch_abs, opt->out_dir, batch->shard_index, batch->shard_count,
                     batch->gpus_text != NULL ? &batch->slots : NULL);
  }
  free(batch_abs);
  return rc;
}
