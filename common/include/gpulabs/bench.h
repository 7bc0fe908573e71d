/* Benchmark rows: one format for the terminal table and the CSV the figures are drawn from. */
#ifndef GPULABS_BENCH_H
#define GPULABS_BENCH_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gl_bench_row {
  const char *lab;       /* "reduction" */
  const char *step;      /* "3-sequential", "cub", "copy" */
  size_t n;              /* elements */
  int block_size;        /* threads per block; 0 when not applicable */
  double ms;             /* median time */
  double bytes;          /* bytes the operation must move (counted as the handout says) */
  double copy_gbps;      /* measured device-to-device copy, same run; 0 if not measured */
  double yardstick_ms;   /* the yardstick (CUB) at the same n, same run; 0 if none */
  double moved_bytes;    /* bytes the step's own method moves through memory (passes x bytes a
                            pass, for a sort); 0: `bytes`, as for a one-pass primitive */
} gl_bench_row;

double gl_bench_gbps(const gl_bench_row *row);           /* bytes / time */
double gl_bench_elements_per_s(const gl_bench_row *row); /* n / time */

/* The time the step's own traffic (moved_bytes, else bytes) takes at the measured copy
 * bandwidth: its physical limit. 0 when the copy was not measured. */
double gl_bench_limit_ms(const gl_bench_row *row);

/* Terminal table: the header once, then one row per measurement. The last three columns are
 * the share of the measured copy bandwidth (bytes / time against the copy), the share of the
 * step's own limit (gl_bench_limit_ms / ms: 100 = its passes at copy speed) and yardstick_ms /
 * ms (1.00 = as fast as CUB). */
void gl_bench_print_header(FILE *out);
void gl_bench_print_row(FILE *out, const gl_bench_row *row);

/* CSV with the device named on every row, so a file stands on its own. */
void gl_bench_csv_header(FILE *out);
void gl_bench_csv_row(FILE *out, const char *device, const char *date, const gl_bench_row *row);

#ifdef __cplusplus
}
#endif
#endif
