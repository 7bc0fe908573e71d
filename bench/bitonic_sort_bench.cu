// The bitonic_sort lab's benchmark (written with the lab).
#include <stdio.h>

#include "labbench.h"

extern "C" int labbench_bitonic_sort(const lb_options *opt) {
  (void)opt;
  fprintf(stderr, "labbench: the bitonic_sort benchmark is not written yet\n");
  return 1;
}
