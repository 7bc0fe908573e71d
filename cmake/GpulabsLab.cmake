# gpulabs_device_sources(<out_var> <file>...)
#
# The sources to compile for the chosen LAB_BACKEND: unchanged for cuda; for sim, each .cu file
# is replaced by its rewritten C++ twin (sim/cmake/GpulabsSim.cmake), other files are kept. Call
# it in the directory that creates the target: the rewriting step is a build rule made there.
function(gpulabs_device_sources out_var)
  set(result "")
  foreach(file IN LISTS ARGN)
    if(LAB_BACKEND STREQUAL "sim" AND file MATCHES "\\.cu$")
      gpulabs_sim_sources(rewritten "${file}")
      list(APPEND result ${rewritten})
    else()
      list(APPEND result "${file}")
    endif()
  endforeach()
  set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

# gpulabs_add_lab(<lab> EXERCISES <file>... GIVEN <file>... [DEPENDS <lab>...])
#
# Builds the static library lab_<lab> from two kinds of source:
#   EXERCISES  the student's file(s), taken from ${LAB_IMPL}/<lab>/: the stub under labs/, the
#              same file filled in under solutions/ (so both flavours share file names)
#   GIVEN      the lab's given code (argument checks, scratch, dispatch, the public API), always
#              taken from labs/<lab>/: it exists once, and no flavour or submission replaces it
# Both see the lab's folder labs/<lab>/ for its headers (<lab>.h, <lab>_steps.h). DEPENDS links
# other labs: compaction uses the student's own scan, not a copy of it.
function(gpulabs_add_lab lab)
  cmake_parse_arguments(ARG "" "" "EXERCISES;GIVEN;DEPENDS" ${ARGN})
  if(NOT ARG_EXERCISES)
    message(FATAL_ERROR "gpulabs_add_lab(${lab}): name the student's file(s) after EXERCISES")
  endif()
  set(sources "")
  foreach(file IN LISTS ARG_EXERCISES)
    list(APPEND sources "${GPULABS_IMPL_ROOT}/${lab}/${file}")
  endforeach()
  foreach(file IN LISTS ARG_GIVEN)
    list(APPEND sources "${PROJECT_SOURCE_DIR}/labs/${lab}/${file}")
  endforeach()
  gpulabs_device_sources(sources ${sources})
  add_library(lab_${lab} STATIC ${sources})
  target_include_directories(lab_${lab} PUBLIC "${PROJECT_SOURCE_DIR}/labs/${lab}")
  target_link_libraries(lab_${lab} PUBLIC gpulabs_common)
  foreach(dep IN LISTS ARG_DEPENDS)
    target_link_libraries(lab_${lab} PUBLIC lab_${dep})
  endforeach()
  set_target_properties(lab_${lab} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# gpulabs_add_test_executable(<name> <source> LABELS <label>... [TIMEOUT s] [SERIAL] [LIBS ...])
#
# One Google Test program; every test case in it becomes its own CTest test (so a crash or a
# hang costs one test), carrying the given labels. A GPU test skipped for want of a device shows
# as "Skipped" in CTest's summary: gtest_discover_tests maps "[  SKIPPED ]" to a skip.
function(gpulabs_add_test_executable name source)
  cmake_parse_arguments(ARG "SERIAL" "TIMEOUT" "LABELS;LIBS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT ${GPULABS_TEST_TIMEOUT})
  endif()
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE gpulabs_gtest_shim ${ARG_LIBS})
  # The in-process watchdog fires a little before CTest's timeout, so the log names the hung test.
  math(EXPR watchdog "${ARG_TIMEOUT} - 2")
  if(ARG_SERIAL)
    # Timings taken while other tests share the GPU would be worthless.
    set(serial RUN_SERIAL TRUE)
  else()
    set(serial "")
  endif()
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
    TEST_LIST ${name}_TESTS
    PROPERTIES TIMEOUT ${ARG_TIMEOUT} ${serial})
  # gtest_discover_tests flattens a list given in PROPERTIES (LABELS a;b;c arrives as a, b, c),
  # so the labels and the environment are set by a second include file that CTest reads after
  # the discovered tests.
  # On the CPU backend, GPU tests also get GPULABS_MAX_N: kernels run far slower there, so the
  # sizes a test picks are capped (gl::StandardSizes, gl::CapSize). And two host threads each,
  # which CTest counts as two of its -j slots (PROCESSORS): blocks still run truly side by side,
  # as races between blocks and look-backs need, without oversubscribing the machine (with 16
  # tests of 16 threads each, radix sort's step 2 timed out on a 16-core machine).
  set(environment "GPULABS_TEST_TIMEOUT=${watchdog}")
  set(processors 1)
  if(LAB_BACKEND STREQUAL "sim" AND "gpu" IN_LIST ARG_LABELS)
    list(APPEND environment "GPULABS_MAX_N=${GPULABS_SIM_MAX_N}" "GPULABS_SIM_THREADS=2")
    set(processors 2)
  endif()
  set(label_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${label_file}"
    "foreach(t IN LISTS ${name}_TESTS)\n"
    "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${ARG_LABELS}\" ENVIRONMENT \"${environment}\"\n"
    "                      PROCESSORS ${processors})\n"
    "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${label_file}")
endfunction()
