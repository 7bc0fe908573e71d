/* ode_reference: the ode lab's sequential C program on the command line.
 *
 *   ode_reference --x 35 --r 65 --g 10 --h1 10 --h2 2 --h3 10 [--threads N]
 *
 * prints the reserve at every whole year t = 0 .. 120 - x, one line each: the year, a space and
 * V(t) with 17 significant digits. Missing options take the report's values (those above); at
 * those the program takes half a minute to a few minutes on one core.
 *
 * --threads N shares Outer's points, the Middle calls, among N threads with OpenMP (0: every
 * core), as OuterPar shares them among blocks; each point is still computed by one thread with
 * the sequential code, so the output is the same to the last digit. Built without OpenMP, the
 * program says so and runs on one thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ode_reference.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: ode_reference [--x AGE] [--r AGE] [--g YEARS] [--h1 N] [--h2 N] [--h3 N]\n"
          "                     [--threads N]\n"
          "  --x   the insured's age today, a whole number in [0, 120)   (default 35)\n"
          "  --r   retirement age, >= x                                  (default 65)\n"
          "  --g   guarantee period in years, >= 0                       (default 10)\n"
          "  --h1  Outer's steps per year, 1 .. %d                       (default 10)\n"
          "  --h2  Middle's steps per year                               (default 2)\n"
          "  --h3  Inner's steps per year                                (default 10)\n"
          "  --threads  threads sharing Outer's points (OpenMP), 0 = every core,\n"
          "             up to %d; the output does not change            (default 1)%s\n"
          "prints one line per whole year t = 0 .. 120 - x: \"t V(t)\" with V(t) as %%.17g\n",
          ODE_MAX_STEPS_PER_YEAR, ODE_MAX_THREADS,
          ode_ref_have_openmp() ? "" : "\n             (this build has no OpenMP: always 1 thread)");
}

/* Parses the whole of `text` as a number; 0 when it is not one. */
static int parse_double(const char *text, double *value) {
  char *end = NULL;
  *value = strtod(text, &end);
  return end != text && *end == '\0';
}

static int parse_int(const char *text, int *value) {
  char *end = NULL;
  long parsed = strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed < -1000000 || parsed > 1000000) return 0;
  *value = (int)parsed;
  return 1;
}

int main(int argc, char **argv) {
  ode_params params = ode_report_params();
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    const char *option = argv[i];
    if (strcmp(option, "-h") == 0 || strcmp(option, "--help") == 0) {
      usage(stdout);
      return 0;
    }
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    int ok = value != NULL;
    if (ok && strcmp(option, "--x") == 0) {
      ok = parse_int(value, &params.x);
    } else if (ok && strcmp(option, "--r") == 0) {
      ok = parse_double(value, &params.r);
    } else if (ok && strcmp(option, "--g") == 0) {
      ok = parse_double(value, &params.g);
    } else if (ok && strcmp(option, "--h1") == 0) {
      ok = parse_int(value, &params.h1);
    } else if (ok && strcmp(option, "--h2") == 0) {
      ok = parse_int(value, &params.h2);
    } else if (ok && strcmp(option, "--h3") == 0) {
      ok = parse_int(value, &params.h3);
    } else if (ok && strcmp(option, "--threads") == 0) {
      ok = parse_int(value, &threads) && threads >= 0 && threads <= ODE_MAX_THREADS;
    } else {
      fprintf(stderr, "ode_reference: unknown option '%s'\n", option);
      usage(stderr);
      return 2;
    }
    if (!ok) {
      if (strcmp(option, "--threads") == 0) {
        fprintf(stderr, "ode_reference: --threads needs a thread count, 0 (every core) to %d, "
                "not '%s'\n", ODE_MAX_THREADS, value ? value : "(nothing)");
        return 2;
      }
      fprintf(stderr, "ode_reference: %s needs a %s, not '%s'\n", option,
              strcmp(option, "--r") == 0 || strcmp(option, "--g") == 0 ? "number" : "whole number",
              value ? value : "(nothing)");
      return 2;
    }
    ++i;
  }
  if (ode_check_params(&params, "ode_reference") != GL_OK) {
    fprintf(stderr, "%s\n", gl_last_error());
    return 2;
  }
  if (threads != 1 && !ode_ref_have_openmp()) {
    fprintf(stderr, "ode_reference: --threads %d is unavailable: this build has no OpenMP; "
            "running 1 thread\n", threads);
    threads = 1;
  }
  size_t years = ode_year_count(&params);
  double *reserves = (double *)malloc(years * sizeof *reserves);
  gl_status status = GL_ERR_NO_MEMORY;
  if (reserves != NULL) {
    status = threads == 1 ? ode_ref_reserves(&params, reserves)
                          : ode_ref_reserves_threads(&params, threads, reserves);
  }
  if (status != GL_OK) {
    fprintf(stderr, "ode_reference: %s\n", reserves ? gl_last_error() : "out of memory");
    free(reserves);
    return 1;
  }
  for (size_t t = 0; t < years; ++t) printf("%zu %.17g\n", t, reserves[t]);
  free(reserves);
  return 0;
}
