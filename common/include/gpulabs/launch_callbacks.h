/* The CUPTI callbacks that see every kernel launch, through the runtime's API and the driver's
 * (the plain, per-thread-stream, extended and cooperative forms): one list for the tools that
 * watch launches, the sanitizer's kernel census (.ci/gpu-check) and labbench's pass count
 * (bench/labbench.c). Header-only, for code built with CUPTI. */
#ifndef GPULABS_LAUNCH_CALLBACKS_H
#define GPULABS_LAUNCH_CALLBACKS_H

#include <cupti.h>
#include <stddef.h>

/* Enables them all on `subscriber`. A launch made through the runtime may be reported in both
 * domains; cb->callbackSite is CUPTI_API_ENTER once per domain. */
static inline void gl_enable_launch_callbacks(CUpti_SubscriberHandle subscriber) {
  static const CUpti_CallbackId runtime[] = {
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000};
  static const CUpti_CallbackId driver[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,       CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,     CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
  for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++) {
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, runtime[i]);
  }
  for (size_t i = 0; i < sizeof driver / sizeof driver[0]; i++) {
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, driver[i]);
  }
}

#endif
