# Resolves LAB_BACKEND=auto (the default) into cuda or sim, before any language is enabled.
#
#   cuda  where nvcc is found and this machine has an NVIDIA GPU: the kernels run on it.
#   sim   where there is no nvcc, or no GPU: the kernels run on the CPU backend (sim/), so every
#         correctness test runs for real instead of being skipped, and the grader scores the
#         steps (performance is not scored without a GPU).
#
# The choice is stored in the cache as the value of LAB_BACKEND, so the build tree keeps it and
# the grader configures each submission's tree with the same backend (it copies LAB_BACKEND's
# value, never "auto"). -DLAB_BACKEND=auto chooses again; -DLAB_BACKEND=cuda builds for a GPU on
# a machine without one (an instructor building on a login node for a GPU cluster).
#
# A GPU is "found" when nvidia-smi lists one (`nvidia-smi -L` succeeds and prints a "GPU n:"
# line); where nvidia-smi is not installed, when the driver's device file /dev/nvidia0 (or
# another /dev/nvidia<n>) exists. Both are cheap and need no compiler: a test program run at
# configure time would cost a CUDA compile on every fresh build tree.
include_guard(GLOBAL)

function(gpulabs_find_gpu found_var why_var)
  find_program(GPULABS_NVIDIA_SMI nvidia-smi PATHS /usr/lib/wsl/lib)
  if(GPULABS_NVIDIA_SMI)
    execute_process(
      COMMAND "${GPULABS_NVIDIA_SMI}" -L
      OUTPUT_VARIABLE gpus
      RESULT_VARIABLE rc
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE
      TIMEOUT 20)
    if(rc EQUAL 0 AND gpus MATCHES "(^|\n)GPU [0-9]+:")
      string(REGEX REPLACE "\n.*" "" first "${gpus}")
      set(${found_var} TRUE PARENT_SCOPE)
      set(${why_var} "nvidia-smi -L lists ${first}" PARENT_SCOPE)
    else()
      set(${found_var} FALSE PARENT_SCOPE)
      set(${why_var} "nvidia-smi -L lists no GPU" PARENT_SCOPE)
    endif()
    return()
  endif()
  file(GLOB devices /dev/nvidia[0-9]*)
  if(devices)
    list(GET devices 0 first)
    set(${found_var} TRUE PARENT_SCOPE)
    set(${why_var} "no nvidia-smi, but the driver's ${first} exists" PARENT_SCOPE)
  else()
    set(${found_var} FALSE PARENT_SCOPE)
    set(${why_var} "no nvidia-smi and no /dev/nvidia0" PARENT_SCOPE)
  endif()
endfunction()

# Sets gpulabs_backend (cuda or sim) and prints one line saying what auto chose and why.
macro(gpulabs_resolve_auto_backend)
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    set(gpulabs_backend sim)
    message(STATUS "gpulabs: LAB_BACKEND=auto chose sim: no nvcc found (the CUDA toolkit), so "
                   "the kernels run on the CPU backend; install the toolkit for a GPU")
  else()
    gpulabs_find_gpu(gpulabs_gpu_found gpulabs_gpu_why)
    if(gpulabs_gpu_found)
      set(gpulabs_backend cuda)
      message(STATUS "gpulabs: LAB_BACKEND=auto chose cuda (${gpulabs_gpu_why})")
    else()
      set(gpulabs_backend sim)
      message(STATUS "gpulabs: LAB_BACKEND=auto chose sim: nvcc is here but no GPU "
                     "(${gpulabs_gpu_why}), so the kernels run on the CPU backend; "
                     "-DLAB_BACKEND=cuda builds for a GPU anyway (e.g. for a GPU cluster)")
    endif()
  endif()
endmacro()
