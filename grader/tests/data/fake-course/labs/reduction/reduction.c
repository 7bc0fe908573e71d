/* The fake lab's stub: every step is wrong in its own way. */
#include "reduction.h"

#include <stddef.h>
#include <unistd.h>

int fake_add(int a, int b) {
  (void)a;
  (void)b;
  return -1;
}

int fake_mul(int a, int b) {
  (void)a;
  (void)b;
  return -1;
}

int fake_wait(void) {
  for (;;) pause();
}

int fake_touch(int *cell) {
  volatile int *nowhere = NULL;
  *nowhere = *cell;
  return 0;
}

double fake_speed(void) { return 0.1; }
