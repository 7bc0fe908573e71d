/* Device buffers shared with the lab worker on the GPU: CUDA IPC (share.h). The driver API's
 * cuPointerGetAttributes gives an allocation's start, size and unique id; it is looked up at
 * run time through the runtime, so the test programs do not link libcuda and still start on a
 * machine without a driver (where the GPU tests skip). */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <string.h>

#include "gpulabs/status.h"
#include "share.h"

typedef CUresult (*get_attributes_fn)(unsigned int, CUpointer_attribute *, void **, CUdeviceptr);

static get_attributes_fn get_attributes(void) {
  static get_attributes_fn fn;
  static int looked;
  if (!looked) {
    void *p = NULL;
    enum cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &p, 12000, cudaEnableDefault,
                                         &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess) {
      fn = (get_attributes_fn)p;
    }
    looked = 1;
  }
  return fn;
}

/* The allocation's start, size and id; 0 on success. */
static int describe(const void *ptr, uintptr_t *base, uint64_t *size, uint64_t *id) {
  get_attributes_fn fn = get_attributes();
  if (fn == NULL || ptr == NULL) return -1;
  CUpointer_attribute which[3] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                  CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                  CU_POINTER_ATTRIBUTE_BUFFER_ID};
  CUdeviceptr start = 0;
  size_t bytes = 0;
  unsigned long long buffer = 0;
  void *out[3] = {&start, &bytes, &buffer};
  if (fn(3, which, out, (CUdeviceptr)(uintptr_t)ptr) != CUDA_SUCCESS || start == 0) {
    cudaGetLastError();
    return -1;
  }
  *base = (uintptr_t)start;
  *size = bytes;
  *id = buffer;
  return 0;
}

/* The handles of the allocations exported last, by buffer id: a timed call hands over the same
 * buffers each time, and cudaIpcGetMemHandle is a trip into the driver that would otherwise sit
 * inside every timed interval of the lab's side. An id is never reused by another allocation,
 * so a hit is always the same allocation. */
#define EXPORT_CACHE 128 /* above the test buffers a test program keeps (grader/shim) */
static struct {
  uint64_t id;
  unsigned char handle[sizeof(cudaIpcMemHandle_t)];
} exported[EXPORT_CACHE];
static unsigned next_slot;

int gl_share_export(const void *ptr, gl_share_token *token, uintptr_t *base, int *fd) {
  _Static_assert(sizeof(cudaIpcMemHandle_t) <= sizeof token->handle, "the token holds a handle");
  *fd = -1;
  memset(token, 0, sizeof *token);
  if (describe(ptr, base, &token->size, &token->id) != 0) return -1;
  for (unsigned i = 0; i < EXPORT_CACHE; ++i) {
    if (exported[i].id == token->id && token->id != 0) {
      memcpy(token->handle, exported[i].handle, sizeof exported[i].handle);
      return 0;
    }
  }
  cudaIpcMemHandle_t handle;
  if (cudaIpcGetMemHandle(&handle, (void *)*base) != cudaSuccess) {
    cudaGetLastError(); /* memory IPC cannot share (managed, pools): the call gets the raw value */
    return -1;
  }
  memcpy(token->handle, &handle, sizeof handle);
  unsigned slot = next_slot++ % EXPORT_CACHE;
  exported[slot].id = token->id;
  memcpy(exported[slot].handle, &handle, sizeof handle);
  return 0;
}

int gl_share_alive(const gl_share_token *token, uintptr_t base) {
  uintptr_t now = 0;
  uint64_t size = 0, id = 0;
  return describe((const void *)base, &now, &size, &id) == 0 && now == base && id == token->id;
}

void *gl_share_import(const gl_share_token *token, int fd) {
  (void)fd;
  cudaIpcMemHandle_t handle;
  memcpy(&handle, token->handle, sizeof handle);
  void *base = NULL;
  cudaError_t err = cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess);
  if (err != cudaSuccess) {
    cudaGetLastError();
    gl_fail(GL_ERR_CUDA, "the lab worker could not open a test buffer: cudaIpcOpenMemHandle: %s",
            cudaGetErrorString(err));
    return NULL;
  }
  return base;
}

void gl_share_close(void *base) {
  if (base != NULL && cudaIpcCloseMemHandle(base) != cudaSuccess) cudaGetLastError();
}
