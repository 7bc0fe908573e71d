/* Device scratch memory that only grows: reserved by the first call that needs it, reused by
 * every later call that fits, so a timed call never allocates. Each CUB yardstick keeps one for
 * CUB's temporary storage. */
#ifndef GPULABS_SCRATCH_H
#define GPULABS_SCRATCH_H

#include <stddef.h>

#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gl_scratch {
  void *ptr;    /* device memory, NULL until the first reserve */
  size_t bytes; /* its size */
} gl_scratch;

#define GL_SCRATCH_INIT {NULL, 0}

/* Makes scratch->ptr hold at least `bytes` (at least 1 byte: CUB reads a NULL pointer as "tell
 * me the size" and runs nothing). A larger need replaces the block; its contents are lost. */
gl_status gl_scratch_reserve(gl_scratch *scratch, size_t bytes);

/* Frees the block (the process's exit frees it too); the scratch can be reserved again. */
void gl_scratch_release(gl_scratch *scratch);

#ifdef __cplusplus
}
#endif
#endif
