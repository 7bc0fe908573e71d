/* gpulabs-sim: threadIdx, blockIdx, blockDim, gridDim and warpSize come with cuda_runtime.h. */
#ifndef GPULABS_SIM_DEVICE_LAUNCH_PARAMETERS_H
#define GPULABS_SIM_DEVICE_LAUNCH_PARAMETERS_H
#include "cuda_runtime.h"
#endif
