# Picks the GPU architectures before CUDA is enabled.
#
# A user's -DCMAKE_CUDA_ARCHITECTURES=... always wins. Otherwise: when nvidia-smi sees a GPU we
# build for it ("native"), and when none is present we build for a list that covers Turing,
# Ampere/Ada and Hopper (sm_90 with PTX, so newer GPUs can JIT it). "native" alone would make
# configuration fail on a machine without a GPU, which is every CI runner of this course.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(_gpulabs_has_gpu FALSE)
  find_program(GPULABS_NVIDIA_SMI nvidia-smi)
  if(GPULABS_NVIDIA_SMI)
    execute_process(
      COMMAND "${GPULABS_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE _gpulabs_caps
      RESULT_VARIABLE _gpulabs_smi_rc
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE
      TIMEOUT 20)
    if(_gpulabs_smi_rc EQUAL 0 AND _gpulabs_caps MATCHES "[0-9]+\\.[0-9]+")
      set(_gpulabs_has_gpu TRUE)
    endif()
  endif()
  if(_gpulabs_has_gpu)
    set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "GPU architectures to build for")
    message(STATUS "gpulabs: GPU found (compute capability ${_gpulabs_caps}); building for native")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;90" CACHE STRING "GPU architectures to build for")
    message(STATUS "gpulabs: no GPU found; building for ${CMAKE_CUDA_ARCHITECTURES}")
  endif()
endif()
