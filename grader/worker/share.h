/* Device buffers shared between the test program and its lab worker. The test program owns
 * every buffer (it allocates, poisons, checks and frees them); the worker sees only the
 * allocations a call hands it (on the GPU, slabs holding many of the test's shared buffers:
 * grader/shim/test_buffers.cpp). On the GPU that is CUDA IPC (cudaIpcGetMemHandle and
 * cudaIpcOpenMemHandle); on the CPU backend, the shared-memory file behind the allocation,
 * passed over the socket. */
#ifndef GPULABS_WORKER_SHARE_H
#define GPULABS_WORKER_SHARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gl_share_token {
  uint64_t id;               /* unique among the live allocations of the test program */
  uint64_t size;             /* the allocation's bytes */
  unsigned char handle[64];  /* cudaIpcMemHandle_t on the GPU; unused on the CPU backend */
} gl_share_token;

/* Test program: the allocation holding ptr. *base its start; *fd (CPU backend) the descriptor
 * to send the first time the worker sees this id (borrowed: do not close), else -1. 0, or -1
 * when ptr is not device memory of this process. */
int gl_share_export(const void *ptr, gl_share_token *token, uintptr_t *base, int *fd);
/* Test program: whether the allocation `token` described still starts at base. */
int gl_share_alive(const gl_share_token *token, uintptr_t base);

/* Worker: maps the allocation (fd: the received descriptor on the CPU backend, taken over;
 * -1 on the GPU). NULL on failure, with a message in gl_last_error(). */
void *gl_share_import(const gl_share_token *token, int fd);
/* Worker: unmaps what gl_share_import returned. */
void gl_share_close(void *base);

#ifdef __cplusplus
}
#endif
#endif
