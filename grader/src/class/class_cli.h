/* The class's modes of the grade command (main.c reads the command line; grade_cli.h has the
 * options every grade shares): a batch, --batch DIR with --shard K/N and --gpus (batch_cli.c),
 * and the merge of a batch's shards, --merge OUT SHARD_OUT... (merge_cli.c). */
#ifndef GRADE_CLASS_CLI_H
#define GRADE_CLASS_CLI_H

#include <stddef.h>

#include "gpu_slots.h"
#include "grade_cli.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Their option codes: after the shared ones (grade_cli.h). */
enum { CLI_BATCH = 0x200, CLI_SHARD, CLI_GPUS, CLI_MERGE = 0x280 };

/* ---- grade --batch DIR [--shard K/N] [--gpus all|0,1,...] ---- */

typedef struct batch_cli {
  const char *batch_dir, *shard_text, *gpus_text; /* as given; NULL: not given */
  size_t shard_index, shard_count;                /* 0 of 1 without --shard */
  gpu_slots slots;
} batch_cli;

void batch_cli_init(batch_cli *batch);
void batch_cli_free(batch_cli *batch);
extern const struct option batch_cli_options[];
int batch_cli_option(batch_cli *batch, int code, const char *value);
/* Whether any of the batch's options was given. */
int batch_cli_given(const batch_cli *batch);
/* --shard and --gpus without --batch: 2 after saying why; else 0. */
int batch_cli_check(const batch_cli *batch);
/* Grades the batch into cli's folders (grade_cli_folders made them) with the options of
 * `opt`; with --gpus, the GPUs found and --jobs shared among the graders unless given. The
 * exit status: grade_batch's, or 2 for a missing folder or GPU. */
int batch_cli_run(batch_cli *batch, const grade_cli *cli, grade_options *opt);

/* ---- grade --merge OUT SHARD_OUT... ---- */

extern const struct option merge_cli_options[];
/* --merge OUT into *out. */
int merge_cli_option(const char **out, int code, const char *value);
/* Joins the shards' folders (cli's operands) into `out`; grades nothing, so `other_modes`
 * (whether another mode's options were given: --batch, --shard, --gpus, --export-release)
 * is refused. 0, 1 when the merge was refused, 2 for bad usage. */
int merge_cli_run(const char *out, int other_modes, const grade_cli *cli);

#ifdef __cplusplus
}
#endif
#endif
