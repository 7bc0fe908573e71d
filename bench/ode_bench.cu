// The ode lab's benchmark (written with the lab).
#include <stdio.h>

#include "labbench.h"

extern "C" int labbench_ode(const lb_options *opt) {
  (void)opt;
  fprintf(stderr, "labbench: the ode benchmark is not written yet\n");
  return 1;
}
