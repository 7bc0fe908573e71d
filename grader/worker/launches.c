/* How many kernels the lab worker has launched (worker.h, gl_on_gpu): a GPU step's call that
 * launches none computed its answer on the host. Linked into the labs' workers only, with the
 * linker's --wrap for every entry point a launch goes through (grader/worker/CMakeLists.txt):
 * nvcc's <<<...>>> (__cudaLaunchKernel) and the runtime's launch functions (a graph's launch
 * among them), each with its per-thread-stream twin. What is counted is a call to launch: a
 * launch that fails counts too (the call then fails on its own error). On the CPU backend the
 * simulator counts its own launches. The given code's own kernels are taken off the count
 * (gl_given_kernel_launched, gpulabs/status.h): a step is judged by the kernels it launches. */
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "gpulabs/status.h"

/* The given code's kernels so far, each reported after its launch. */
static volatile unsigned long given_launched;

void gl_given_kernel_launched(void) { __atomic_add_fetch(&given_launched, 1, __ATOMIC_RELAXED); }

#ifdef GPULABS_SIM
#include "gpulabs_sim.h"

long gl_kernel_launches(void) { return (long)(gpulabs_sim_launch_count() - given_launched); }

#elif defined(__x86_64__)

/* Each wrapper adds one to the count and jumps to the real entry point, its arguments and
 * return address untouched (a C wrapper would have to know each one's signature). */
__attribute__((used)) static volatile unsigned long launched;

#define GL_COUNT_LAUNCHES(fn)                                   \
  __asm__(".text\n"                                             \
          ".globl __wrap_" #fn "\n"                             \
          ".type __wrap_" #fn ", @function\n"                   \
          "__wrap_" #fn ":\n"                                   \
          "  lock incq launched(%rip)\n"                        \
          "  jmp __real_" #fn "\n"                              \
          ".size __wrap_" #fn ", . - __wrap_" #fn "\n");

GL_COUNT_LAUNCHES(__cudaLaunchKernel)
GL_COUNT_LAUNCHES(__cudaLaunchKernel_ptsz)
GL_COUNT_LAUNCHES(cudaLaunchKernel)
GL_COUNT_LAUNCHES(cudaLaunchKernel_ptsz)
GL_COUNT_LAUNCHES(cudaLaunchKernelExC)
GL_COUNT_LAUNCHES(cudaLaunchKernelExC_ptsz)
GL_COUNT_LAUNCHES(cudaLaunchCooperativeKernel)
GL_COUNT_LAUNCHES(cudaLaunchCooperativeKernel_ptsz)
GL_COUNT_LAUNCHES(cudaGraphLaunch)
GL_COUNT_LAUNCHES(cudaGraphLaunch_ptsz)

long gl_kernel_launches(void) { return (long)(launched - given_launched); }

#else

long gl_kernel_launches(void) { return -1; } /* not counted here: no call is judged by it */

#endif
