/* Device buffers shared with the lab worker on the CPU backend (share.h): every allocation of
 * gpulabs-sim is a shared-memory file; the test program sends the file of each allocation a call
 * uses, and no other, so the worker cannot reach the test program's other buffers. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/stat.h>

#include "gpulabs/status.h"
#include "gpulabs_sim.h"
#include "share.h"

static int identify(const void *ptr, gl_share_token *token, uintptr_t *base, int *fd) {
  void *start = NULL;
  size_t size = 0;
  struct stat st;
  if (ptr == NULL || gpulabs_sim_ipc_export(ptr, fd, &start, &size) != 0 || *fd < 0 ||
      fstat(*fd, &st) != 0) {
    *fd = -1;
    return -1;
  }
  memset(token, 0, sizeof *token);
  token->id = (uint64_t)st.st_ino; /* unique among live memory files */
  token->size = size;
  *base = (uintptr_t)start;
  return 0;
}

int gl_share_export(const void *ptr, gl_share_token *token, uintptr_t *base, int *fd) {
  return identify(ptr, token, base, fd);
}

int gl_share_alive(const gl_share_token *token, uintptr_t base) {
  gl_share_token now;
  uintptr_t start = 0;
  int fd = -1;
  return identify((const void *)base, &now, &start, &fd) == 0 && start == base &&
         now.id == token->id;
}

void *gl_share_import(const gl_share_token *token, int fd) {
  void *base = NULL;
  if (fd < 0) {
    gl_fail(GL_ERR_CUDA, "the lab worker got a test buffer without its memory file");
    return NULL;
  }
  if (gpulabs_sim_ipc_import(fd, (size_t)token->size, &base) != 0) {
    gl_fail(GL_ERR_CUDA, "the lab worker could not map a test buffer of %llu bytes",
            (unsigned long long)token->size);
    return NULL;
  }
  return base;
}

void gl_share_close(void *base) {
  if (base != NULL) gpulabs_sim_ipc_release(base);
}
