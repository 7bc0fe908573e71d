#include "gpulabs/bench.h"

double gl_bench_gbps(const gl_bench_row *row) {
  return row->ms > 0 ? row->bytes / (row->ms * 1e-3) / 1e9 : 0.0;
}

double gl_bench_elements_per_s(const gl_bench_row *row) {
  return row->ms > 0 ? (double)row->n / (row->ms * 1e-3) : 0.0;
}

double gl_bench_limit_ms(const gl_bench_row *row) {
  double moved = row->moved_bytes > 0 ? row->moved_bytes : row->bytes;
  return row->copy_gbps > 0 ? moved / (row->copy_gbps * 1e9) * 1e3 : 0.0;
}

void gl_bench_print_header(FILE *out) {
  fprintf(out, "%-12s %-24s %12s %6s %11s %10s %9s %7s %7s %8s\n", "lab", "step", "n", "block",
          "ms", "Gelem/s", "GB/s", "%copy", "%limit", "vs CUB");
}

void gl_bench_print_row(FILE *out, const gl_bench_row *row) {
  double gbps = gl_bench_gbps(row);
  char copy[16] = "-", limit[16] = "-", ratio[16] = "-", block[16] = "-";
  if (row->copy_gbps > 0) snprintf(copy, sizeof copy, "%.1f", 100.0 * gbps / row->copy_gbps);
  if (row->copy_gbps > 0 && row->ms > 0) {
    snprintf(limit, sizeof limit, "%.1f", 100.0 * gl_bench_limit_ms(row) / row->ms);
  }
  if (row->yardstick_ms > 0 && row->ms > 0) snprintf(ratio, sizeof ratio, "%.3f", row->yardstick_ms / row->ms);
  if (row->block_size > 0) snprintf(block, sizeof block, "%d", row->block_size);
  fprintf(out, "%-12s %-24s %12zu %6s %11.4f %10.3f %9.1f %7s %7s %8s\n", row->lab, row->step,
          row->n, block, row->ms, gl_bench_elements_per_s(row) / 1e9, gbps, copy, limit, ratio);
}

void gl_bench_csv_header(FILE *out) {
  fprintf(out, "device,date,lab,step,n,block_size,ms,gelem_per_s,gb_per_s,copy_gb_per_s,"
               "yardstick_ms,limit_ms\n");
}

void gl_bench_csv_row(FILE *out, const char *device, const char *date, const gl_bench_row *row) {
  fprintf(out, "\"%s\",%s,%s,%s,%zu,%d,%.6f,%.6f,%.3f,%.3f,%.6f,%.6f\n", device, date, row->lab,
          row->step, row->n, row->block_size, row->ms, gl_bench_elements_per_s(row) / 1e9,
          gl_bench_gbps(row), row->copy_gbps, row->yardstick_ms, gl_bench_limit_ms(row));
}
