# gpulabs-sim: CUDA kernels on the CPU. Include this file from a project with C and CXX
# enabled (no CUDA language needed). It defines:
#
#   gpulabs_sim_rewrite            the rewriting step (a host program)
#   gpulabs_sim                    the runtime library. Linking it brings the include folder
#                                  with cuda_runtime.h & co., -g, -fno-strict-aliasing and,
#                                  with GPULABS_SIM_SANITIZE, AddressSanitizer, to the target.
#   gpulabs_sim_sources(<out_var> <file.cu>...)
#                                  returns, in <out_var>, the rewritten C++ sources to compile
#                                  instead of the .cu files (one build step per file; the step
#                                  reruns when the .cu or a header next to it changes).
#
# Options:
#   GPULABS_SIM_SANITIZE  (ON)   AddressSanitizer on everything linking gpulabs_sim, so an
#                                out-of-bounds global or shared access names its line
#   GPULABS_SIM_UCONTEXT  (OFF)  switch threads through <ucontext.h> instead of the x86-64
#                                assembly (automatic on other CPUs; much slower)
include_guard(GLOBAL)

set(GPULABS_SIM_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "gpulabs-sim sources")
option(GPULABS_SIM_SANITIZE "gpulabs-sim: build with AddressSanitizer" ON)
option(GPULABS_SIM_UCONTEXT "gpulabs-sim: switch fibers with ucontext instead of assembly" OFF)

find_package(Threads REQUIRED)

add_executable(gpulabs_sim_rewrite
  "${GPULABS_SIM_ROOT}/rewrite/main.cpp"
  "${GPULABS_SIM_ROOT}/rewrite/rewrite.cpp")
target_compile_features(gpulabs_sim_rewrite PRIVATE cxx_std_17)

add_library(gpulabs_sim STATIC
  "${GPULABS_SIM_ROOT}/src/fiber.cpp"
  "${GPULABS_SIM_ROOT}/src/ipc.cpp"
  "${GPULABS_SIM_ROOT}/src/runtime.cpp"
  "${GPULABS_SIM_ROOT}/src/report.cpp"
  "${GPULABS_SIM_ROOT}/src/settings.cpp"
  "${GPULABS_SIM_ROOT}/src/shared.cpp"
  "${GPULABS_SIM_ROOT}/src/threads.cpp"
  "${GPULABS_SIM_ROOT}/src/warp.cpp"
  "${GPULABS_SIM_ROOT}/src/workers.cpp")
target_include_directories(gpulabs_sim PUBLIC "${GPULABS_SIM_ROOT}/include")
target_compile_features(gpulabs_sim PUBLIC cxx_std_17)
target_link_libraries(gpulabs_sim PUBLIC Threads::Threads)
set_target_properties(gpulabs_sim PROPERTIES POSITION_INDEPENDENT_CODE ON)
if(GPULABS_SIM_UCONTEXT)
  target_compile_definitions(gpulabs_sim PRIVATE GPULABS_SIM_UCONTEXT=1)
endif()
# The runtime is optimised whatever the build type: a Debug build is for stepping through
# kernels, and every thread switch goes through this code.
target_compile_options(gpulabs_sim PRIVATE -O2)
# Device code type-puns freely (int4 loads of int arrays, float bits as int), as nvcc allows.
target_compile_options(gpulabs_sim PUBLIC -g -fno-strict-aliasing -fno-omit-frame-pointer)
if(GPULABS_SIM_SANITIZE)
  # The code that links the runtime is checked; the runtime itself is not instrumented (that
  # doubled the cost of every thread switch) but tells AddressSanitizer about each switch.
  target_compile_options(gpulabs_sim INTERFACE -fsanitize=address)
  target_link_options(gpulabs_sim INTERFACE -fsanitize=address)
  # GCC's shared AddressSanitizer runtime reaches its thread-local data through
  # __tls_get_addr on every fiber switch; the static one does not (Clang links it statically
  # anyway). About 15% of a barrier-heavy test.
  target_link_options(gpulabs_sim INTERFACE $<$<CXX_COMPILER_ID:GNU>:-static-libasan>)
  target_compile_definitions(gpulabs_sim PRIVATE GPULABS_SIM_ASAN=1)
endif()

function(gpulabs_sim_sources out_var)
  set(result "")
  foreach(source IN LISTS ARGN)
    get_filename_component(path "${source}" ABSOLUTE)
    file(RELATIVE_PATH rel "${CMAKE_SOURCE_DIR}" "${path}")
    string(REGEX REPLACE "[^A-Za-z0-9_.-]" "_" name "${rel}")
    set(out "${CMAKE_CURRENT_BINARY_DIR}/gpulabs_sim/${name}.cpp")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND gpulabs_sim_rewrite "${path}" "${out}" --header-dir "${out}.inc" --depfile "${out}.d"
      DEPENDS "${path}" gpulabs_sim_rewrite
      DEPFILE "${out}.d"
      COMMENT "gpulabs-sim: rewriting ${rel}"
      VERBATIM)
    # nvcc's host compiler never sees a kernel's body, so an unused kernel parameter (a stub
    # that is still empty) draws no warning there; nor does it here.
    set_source_files_properties("${out}" PROPERTIES COMPILE_OPTIONS "-Wno-unused-parameter")
    list(APPEND result "${out}")
  endforeach()
  set(${out_var} "${result}" PARENT_SCOPE)
endfunction()
