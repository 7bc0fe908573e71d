/* grade --merge OUT SHARD_OUT... (class_cli.h): a batch's shards joined; nothing graded. */
#define _POSIX_C_SOURCE 200809L
#include "class_cli.h"

#include <stdio.h>

#include "merge.h"

const struct option merge_cli_options[] = {
    {"merge", required_argument, NULL, CLI_MERGE},
    {NULL, 0, NULL, 0},
};

int merge_cli_option(const char **out, int code, const char *value) {
  if (code != CLI_MERGE) return 2; /* not this mode's option: the reader's mistake */
  *out = value;
  return -1;
}

int merge_cli_run(const char *out, int other_modes, const grade_cli *cli) {
  if (other_modes) {
    fprintf(stderr, "grade: --merge joins the folders of finished shards and grades nothing: "
                    "no --batch, --shard, --gpus or --export-release with it\n");
    return 2;
  }
  if (cli->operands.count == 0) {
    fprintf(stderr, "grade: --merge OUT needs the output folders of the shards after it\n");
    return 2;
  }
  strbuf err;
  sb_init(&err);
  int rc = grade_merge(out, (const char *const *)cli->operands.items, cli->operands.count, &err,
                       stdout);
  if (rc != 0) fprintf(stderr, "grade: %s\n", err.data);
  sb_free(&err);
  return rc;
}
