/* The GPU memory a lab worker may hold: a quarter of the GPU's, so that a submission that takes
 * all it can never makes another's test fail for lack of memory (two graders sharing a GPU with
 * --gpus 0,0, say). Linked into the labs' workers only, with the linker's --wrap for each of the
 * runtime's allocation calls (grader/worker/CMakeLists.txt): an allocation that would go past the
 * cap fails with cudaErrorMemoryAllocation, and the call's report says why (gl_gpu_memory_note).
 * The calls that allocate in ways not counted here (arrays, memory pools of one's own, a graph's
 * allocation nodes, a device stack or heap limit) are refused: no lab needs them. The names that reach around the wrappers
 * (__real_*, the runtime's internal ones) are the audit's to forbid (grader/src/audit.c).
 * On the CPU backend device memory is host memory, which the worker's host limit already caps. */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "worker.h"

#if !defined(GPULABS_SIM) && defined(__x86_64__)

#define MAX_LIVE 4096 /* allocations held at once: the labs hold a handful */

static size_t cap_bytes;  /* 0 until the first allocation asks the GPU its size */
static size_t held_bytes;
static struct {
  void *ptr;
  size_t bytes;
} live[MAX_LIVE];
static int n_live;
static char note[256];

const char *gl_gpu_memory_note(void) { return note; }
void gl_gpu_memory_clear_note(void) { note[0] = '\0'; }

static int admit(size_t bytes, const char *fn) {
  if (cap_bytes == 0) {
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return 1; /* the call fails */
    cap_bytes = total_bytes / 4;
  }
  if (n_live == MAX_LIVE) {
    snprintf(note, sizeof note, "%s refused: the lab worker holds %d allocations, its most",
             fn, MAX_LIVE);
    return 0;
  }
  if (bytes > cap_bytes - held_bytes) {
    snprintf(note, sizeof note,
             "%s of %zu MiB refused: the lab worker would hold more than its %zu MiB of GPU "
             "memory (a quarter of the GPU's)",
             fn, bytes >> 20, cap_bytes >> 20);
    return 0;
  }
  return 1;
}

static void hold(void *ptr, size_t bytes) {
  live[n_live].ptr = ptr;
  live[n_live].bytes = bytes;
  n_live++;
  held_bytes += bytes;
}

static void release(const void *ptr) {
  for (int i = 0; i < n_live; i++) {
    if (live[i].ptr != ptr) continue;
    held_bytes -= live[i].bytes;
    live[i] = live[--n_live];
    return;
  }
}

static cudaError_t refuse(const char *fn) {
  snprintf(note, sizeof note, "%s refused: the lab worker allocates GPU memory with cudaMalloc, "
           "cudaMallocManaged, cudaMallocPitch, cudaMalloc3D or cudaMallocAsync only", fn);
  return cudaErrorNotPermitted;
}

cudaError_t __real_cudaMalloc(void **, size_t);
cudaError_t __real_cudaMallocManaged(void **, size_t, unsigned int);
cudaError_t __real_cudaMallocPitch(void **, size_t *, size_t, size_t);
cudaError_t __real_cudaMalloc3D(struct cudaPitchedPtr *, struct cudaExtent);
cudaError_t __real_cudaMallocAsync(void **, size_t, cudaStream_t);
cudaError_t __real_cudaMallocAsync_ptsz(void **, size_t, cudaStream_t);
cudaError_t __real_cudaFree(void *);
cudaError_t __real_cudaFreeAsync(void *, cudaStream_t);
cudaError_t __real_cudaFreeAsync_ptsz(void *, cudaStream_t);

/* One allocation of `bytes` by `call`, counted when it succeeds. */
#define GL_COUNTED(fn, bytes, ptr_after, call)                            \
  do {                                                                    \
    if (!admit((bytes), fn)) return cudaErrorMemoryAllocation;            \
    cudaError_t err_ = (call);                                            \
    if (err_ == cudaSuccess) hold((ptr_after), (bytes));                  \
    return err_;                                                          \
  } while (0)

cudaError_t __wrap_cudaMalloc(void **p, size_t bytes) {
  GL_COUNTED("cudaMalloc", bytes, *p, __real_cudaMalloc(p, bytes));
}
cudaError_t __wrap_cudaMallocManaged(void **p, size_t bytes, unsigned int flags) {
  GL_COUNTED("cudaMallocManaged", bytes, *p, __real_cudaMallocManaged(p, bytes, flags));
}
cudaError_t __wrap_cudaMallocAsync(void **p, size_t bytes, cudaStream_t s) {
  GL_COUNTED("cudaMallocAsync", bytes, *p, __real_cudaMallocAsync(p, bytes, s));
}
cudaError_t __wrap_cudaMallocAsync_ptsz(void **p, size_t bytes, cudaStream_t s) {
  GL_COUNTED("cudaMallocAsync", bytes, *p, __real_cudaMallocAsync_ptsz(p, bytes, s));
}
/* The pitched ones: the padded size is known only afterwards, so the rows are counted at their
 * width, plus 512 bytes of padding a row, the most the runtime adds. */
cudaError_t __wrap_cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  size_t bytes = (width + 512) * height;
  GL_COUNTED("cudaMallocPitch", bytes, *p, __real_cudaMallocPitch(p, pitch, width, height));
}
cudaError_t __wrap_cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent extent) {
  size_t bytes = (extent.width + 512) * extent.height * extent.depth;
  GL_COUNTED("cudaMalloc3D", bytes, p->ptr, __real_cudaMalloc3D(p, extent));
}

cudaError_t __wrap_cudaFree(void *p) {
  cudaError_t err = __real_cudaFree(p);
  if (err == cudaSuccess) release(p);
  return err;
}
cudaError_t __wrap_cudaFreeAsync(void *p, cudaStream_t s) {
  cudaError_t err = __real_cudaFreeAsync(p, s);
  if (err == cudaSuccess) release(p);
  return err;
}
cudaError_t __wrap_cudaFreeAsync_ptsz(void *p, cudaStream_t s) {
  cudaError_t err = __real_cudaFreeAsync_ptsz(p, s);
  if (err == cudaSuccess) release(p);
  return err;
}

/* Allocations the cap could not count: refused, whatever their arguments. */
#define GL_REFUSED(fn) \
  cudaError_t __wrap_##fn(void) { return refuse(#fn); }
GL_REFUSED(cudaMallocArray)
GL_REFUSED(cudaMalloc3DArray)
GL_REFUSED(cudaMallocMipmappedArray)
GL_REFUSED(cudaMallocFromPoolAsync)
GL_REFUSED(cudaMallocFromPoolAsync_ptsz)
GL_REFUSED(cudaMemPoolCreate)
GL_REFUSED(cudaDeviceSetMemPool)
GL_REFUSED(cudaMemPoolSetAttribute)
GL_REFUSED(cudaGraphAddMemAllocNode)
GL_REFUSED(cudaGraphAddNode)
GL_REFUSED(cudaGraphAddNode_v2)
/* A stack or heap limit reserves GPU memory for every thread that can be resident (tens of GiB
 * for a deep stack): not counted, so refused. */
GL_REFUSED(cudaDeviceSetLimit)

#else

const char *gl_gpu_memory_note(void) { return ""; }
void gl_gpu_memory_clear_note(void) {}

#endif
