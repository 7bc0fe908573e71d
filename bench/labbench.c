/* labbench: time every step of a lab over sizes and block sizes, beside CUB and the copy
 * bandwidth measured in the same run; print a table and optionally write CSV. */
#define _POSIX_C_SOURCE 200809L
#include "labbench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GPULABS_LABBENCH_CUPTI
#include <cuda_runtime_api.h>
#include "gpulabs/launch_callbacks.h"

/* Launches seen through the runtime's API and through the driver's: a launch may be reported by
 * either or both, so the larger count is the call's. */
static long launches[2];

static void CUPTIAPI on_launch(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                               const void *data) {
  const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
  (void)user;
  (void)id;
  if (cb->callbackSite == CUPTI_API_ENTER) launches[domain == CUPTI_CB_DOMAIN_DRIVER_API]++;
}

long lb_count_launches(gl_timed_fn fn, void *context) {
  CUpti_SubscriberHandle subscriber;
  if (cudaDeviceSynchronize() != cudaSuccess) return -1;
  if (cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_launch, NULL) != CUPTI_SUCCESS) return -1;
  gl_enable_launch_callbacks(subscriber);
  launches[0] = launches[1] = 0;
  gl_status status = fn(context);
  cudaError_t err = cudaDeviceSynchronize();
  cuptiUnsubscribe(subscriber);
  if (status != GL_OK || err != cudaSuccess) return -1;
  return launches[0] > launches[1] ? launches[0] : launches[1];
}
#else
long lb_count_launches(gl_timed_fn fn, void *context) {
  (void)fn;
  (void)context;
  return -1;
}
#endif

typedef struct lab_entry {
  const char *name;
  int (*run)(const lb_options *);
} lab_entry;

/* The labs with a benchmark, in the course's order (bench/CMakeLists.txt writes the list). */
static const lab_entry lab_table[] = {
#define LB_LAB(lab) {#lab, labbench_##lab},
#include "labbench_labs.h"
#undef LB_LAB
};
enum { LAB_COUNT = sizeof lab_table / sizeof lab_table[0] };

static void usage(FILE *out) {
  fprintf(out,
          "usage: labbench [options] <lab>|all\n"
          "  labs:");
  for (int i = 0; i < LAB_COUNT; ++i) fprintf(out, " %s", lab_table[i].name);
  fprintf(out,
          "\n"
          "options:\n"
          "  --step S        only step S (its number or its name)\n"
          "  --n N[,N...]    sizes (2^k may be written 2^26)\n"
          "  --block B[,B..] block sizes (labs that have them)\n"
          "  --reps R        timed runs per point, median reported (default 20)\n"
          "  --warmup W      untimed runs first (default 3)\n"
          "  --csv FILE      also write the rows as CSV (device and date on every row)\n"
          "  --cpu-limit S   ode: stop each CPU baseline run after S seconds (0: no CPU runs);\n"
          "                  default: run it whole (tens of seconds on one core, or more)\n");
}

static size_t parse_size(const char *text) {
  if (strncmp(text, "2^", 2) == 0) return (size_t)1 << strtoul(text + 2, NULL, 10);
  return (size_t)strtoull(text, NULL, 0);
}

void lb_emit(const lb_options *opt, const gl_bench_row *row) {
  lb_progress(0, 0, NULL);
  gl_bench_print_row(stdout, row);
  fflush(stdout);
  if (opt->csv) gl_bench_csv_row(opt->csv, opt->device.name, opt->date, row);
}

void lb_progress(int done, int total, const char *what) {
  if (!isatty(2)) return;
  if (what == NULL) {
    fprintf(stderr, "\r%-78s\r", "");
  } else {
    fprintf(stderr, "\r[%3d/%3d] %-66.66s", done + 1, total, what);
  }
  fflush(stderr);
}

int lb_rotation(const lb_options *opt, size_t bytes) {
  if (bytes == 0) return 1;
  size_t copies = (2 * opt->device.l2_bytes) / bytes + 1;
  return copies > 64 ? 64 : (int)copies;
}

int lb_step_selected(const lb_options *opt, int number, const char *name) {
  if (opt->step == NULL) return 1;
  char *end = NULL;
  long wanted = strtol(opt->step, &end, 10);
  if (end != opt->step && *end == '\0') return wanted == number;
  return strcmp(opt->step, name) == 0;
}

int main(int argc, char **argv) {
  lb_options opt;
  memset(&opt, 0, sizeof opt);
  opt.warmup = 3;
  opt.reps = 20;
  opt.cpu_limit_s = -1.0;
  const char *lab = NULL, *csv_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(arg, "--step") == 0 && value) {
      opt.step = value, ++i;
    } else if (strcmp(arg, "--reps") == 0 && value) {
      opt.reps = atoi(value), ++i;
    } else if (strcmp(arg, "--warmup") == 0 && value) {
      opt.warmup = atoi(value), ++i;
    } else if (strcmp(arg, "--cpu-limit") == 0 && value) {
      char *end = NULL;
      opt.cpu_limit_s = strtod(value, &end), ++i;
      if (end == value || *end != '\0' || !(opt.cpu_limit_s >= 0.0)) {
        fprintf(stderr, "labbench: --cpu-limit needs a number of seconds >= 0, not '%s'\n", value);
        return 2;
      }
    } else if (strcmp(arg, "--csv") == 0 && value) {
      csv_path = value, ++i;
    } else if ((strcmp(arg, "--n") == 0 || strcmp(arg, "--block") == 0) && value) {
      char *copy = strdup(value);
      for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        if (arg[2] == 'n' && opt.n_sizes < LB_MAX_SIZES) opt.sizes[opt.n_sizes++] = parse_size(tok);
        if (arg[2] == 'b' && opt.n_blocks < LB_MAX_BLOCKS) opt.blocks[opt.n_blocks++] = atoi(tok);
      }
      free(copy);
      ++i;
    } else if (arg[0] != '-' && lab == NULL) {
      lab = arg;
    } else {
      fprintf(stderr, "labbench: unknown or incomplete option '%s'\n", arg);
      usage(stderr);
      return 2;
    }
  }
  if (lab == NULL) {
    usage(stderr);
    return 2;
  }
  if (gl_device_count() == 0) {
    fprintf(stderr, "labbench: %s. Benchmarks need an NVIDIA GPU.\n", gl_no_device_reason());
    return 1;
  }
  if (gl_device_query(0, &opt.device) != GL_OK) {
    fprintf(stderr, "labbench: %s\n", gl_last_error());
    return 1;
  }
  time_t now = time(NULL);
  strftime(opt.date, sizeof opt.date, "%Y-%m-%d", localtime(&now));
  char line[512];
  gl_device_describe(&opt.device, line, sizeof line);
  printf("device: %s\n", line);
  /* 256 MiB: far beyond L2, so the copy runs at DRAM speed. */
  if (gl_measure_copy_gbps((size_t)256 << 20, 20, &opt.copy_gbps) != GL_OK) {
    fprintf(stderr, "labbench: measuring the copy bandwidth failed: %s\n", gl_last_error());
    return 1;
  }
  printf("measured device-to-device copy: %.1f GB/s (read + write)\n\n", opt.copy_gbps);
  if (csv_path) {
    opt.csv = fopen(csv_path, "w");
    if (opt.csv == NULL) {
      perror(csv_path);
      return 1;
    }
    gl_bench_csv_header(opt.csv);
  }
  gl_bench_print_header(stdout);
  int failures = 0, found = 0;
  for (int i = 0; i < LAB_COUNT; ++i) {
    if (strcmp(lab, "all") == 0 || strcmp(lab, lab_table[i].name) == 0) {
      found = 1;
      if (lab_table[i].run(&opt) != 0) ++failures;
    }
  }
  if (opt.csv) fclose(opt.csv);
  if (!found) {
    fprintf(stderr, "labbench: no lab named '%s'\n", lab);
    usage(stderr);
    return 2;
  }
  return failures == 0 ? 0 : 1;
}
