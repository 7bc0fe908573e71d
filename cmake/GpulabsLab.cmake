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

# OpenMP for a lab's CPU reference (the ODE's ode_ref_*_threads: ode_reference --threads, the CPU
# baselines of labbench ode). Without it, or with -DGPULABS_OPENMP=OFF, a reference still builds
# and runs on one thread. Only the reference's C sources get -fopenmp; what links it gets the
# runtime (libgomp with gcc) through the static library's link dependencies.
option(GPULABS_OPENMP "Run the labs' CPU references on several threads with OpenMP where they can" ON)
if(GPULABS_OPENMP)
  find_package(OpenMP COMPONENTS C)
endif()
if(NOT OpenMP_C_FOUND)
  message(STATUS "gpulabs: no OpenMP for C (or GPULABS_OPENMP=OFF): the CPU references run on one thread")
endif()

# The labs whose reference solution replaces the student's code in the labs that use them
# (DEPENDS): the grader sets it when a student's scan fails, so that compaction and radix sort
# are graded with the reference scan and the scan lab alone pays (grader/README.md).
set(GPULABS_REFERENCE_LABS "" CACHE STRING
  "Labs (e.g. scan) linked from solutions/ into the labs that use them; set by the grader")

# gpulabs_add_lab(<lab> EXERCISES <file>... GIVEN <file>... [DEPENDS <lab>...])
#
# Builds the static library lab_<lab> from two kinds of source:
#   EXERCISES  the student's file(s), taken from ${LAB_IMPL}/<lab>/: the stub under labs/, the
#              same file filled in under solutions/ (so both flavours share file names)
#   GIVEN      the lab's given code (argument checks, scratch, dispatch, the public API), always
#              taken from labs/<lab>/: it exists once, and no flavour or submission replaces it
# Both see the lab's folder labs/<lab>/ for its headers (<lab>.h, <lab>_steps.h). DEPENDS links
# other labs: compaction uses the student's own scan, not a copy of it (or the reference scan,
# when GPULABS_REFERENCE_LABS names it).
#
# Beside it, from the files of the lab's folder that follow the course's names:
#   <lab>_reference.c  the CPU reference (<lab>_reference.h): lab_<lab>_cpu_reference, which the
#                      lab and its tests link
#   <lab>_yardstick.cu what the lab is measured against (<lab>_yardstick.h, CUB most often):
#                      lab_<lab>_yardstick, for the performance tests and labbench (CUDA only)
# The tests in its tests/ folder are built by grader/tests, its <lab>_bench.cu by bench/.
#
# For the grader's audit (grader/src/audit.c) it writes <build>/gpulabs-audit/<lab>.txt: each
# exercise file, the source compiled for it (rewritten on the CPU backend) and the lab's
# objects; and nvcc compiles the exercise files with host line tables (-g: no change to the
# code, device code included), so that a finding names its line.
function(gpulabs_add_lab lab)
  cmake_parse_arguments(ARG "" "" "EXERCISES;GIVEN;DEPENDS" ${ARGN})
  if(NOT ARG_EXERCISES)
    message(FATAL_ERROR "gpulabs_add_lab(${lab}): name the student's file(s) after EXERCISES")
  endif()
  set_property(GLOBAL PROPERTY GPULABS_LAB_${lab}_EXERCISES "${ARG_EXERCISES}")
  set_property(GLOBAL PROPERTY GPULABS_LAB_${lab}_GIVEN "${ARG_GIVEN}")
  set_property(GLOBAL PROPERTY GPULABS_LAB_${lab}_DEPENDS "${ARG_DEPENDS}")
  set(exercises "")
  foreach(file IN LISTS ARG_EXERCISES)
    list(APPEND exercises "${GPULABS_IMPL_ROOT}/${lab}/${file}")
  endforeach()
  set(sources ${exercises})
  foreach(file IN LISTS ARG_GIVEN)
    list(APPEND sources "${PROJECT_SOURCE_DIR}/labs/${lab}/${file}")
  endforeach()
  gpulabs_device_sources(sources ${sources})
  add_library(lab_${lab} STATIC ${sources})
  target_include_directories(lab_${lab} PUBLIC "${PROJECT_SOURCE_DIR}/labs/${lab}")
  target_link_libraries(lab_${lab} PUBLIC gpulabs_common)
  foreach(dep IN LISTS ARG_DEPENDS)
    gpulabs_lab_for_dependents(${dep} dep_target)
    target_link_libraries(lab_${lab} PUBLIC ${dep_target})
  endforeach()
  set_target_properties(lab_${lab} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  gpulabs_add_lab_references(${lab})

  set(manifest "")
  foreach(exercise IN LISTS exercises)
    list(FIND exercises "${exercise}" index)
    list(GET sources ${index} compiled)
    string(APPEND manifest "exercise\t${exercise}\t${compiled}\n")
    if(LAB_BACKEND STREQUAL "cuda")
      # Not --split-compile, though it shortens a submission's build: nvcc's help says it has
      # little effect on the code, but compiled so, bitonic sort's step 5 runs at about half its
      # speed (its straight-line kernels are optimised in pieces), and a submission would be
      # timed on code it did not write that way.
      set_source_files_properties("${exercise}" PROPERTIES COMPILE_OPTIONS "-g")
    endif()
  endforeach()
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/gpulabs-audit/${lab}.txt"
    CONTENT "${manifest}object\t$<JOIN:$<TARGET_OBJECTS:lab_${lab}>,\nobject\t>\n")
endfunction()

# gpulabs_add_lab_references(<lab>): the lab's CPU reference and yardstick libraries, where its
# folder has them (see gpulabs_add_lab).
function(gpulabs_add_lab_references lab)
  set(dir "${PROJECT_SOURCE_DIR}/labs/${lab}")
  if(EXISTS "${dir}/${lab}_reference.c")
    add_library(lab_${lab}_cpu_reference STATIC "${dir}/${lab}_reference.c")
    target_include_directories(lab_${lab}_cpu_reference PUBLIC "${dir}")
    target_link_libraries(lab_${lab}_cpu_reference PUBLIC gpulabs_common)
    if(OpenMP_C_FOUND)
      target_link_libraries(lab_${lab}_cpu_reference PRIVATE OpenMP::OpenMP_C)
    endif()
    set_target_properties(lab_${lab}_cpu_reference PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_link_libraries(lab_${lab} PUBLIC lab_${lab}_cpu_reference)
  endif()
  if(LAB_BACKEND STREQUAL "cuda" AND EXISTS "${dir}/${lab}_yardstick.cu")
    add_library(lab_${lab}_yardstick STATIC "${dir}/${lab}_yardstick.cu")
    target_include_directories(lab_${lab}_yardstick PUBLIC "${dir}")
    target_link_libraries(lab_${lab}_yardstick PUBLIC gpulabs_yardstick)
    if(TARGET lab_${lab}_cpu_reference)
      target_link_libraries(lab_${lab}_yardstick PUBLIC lab_${lab}_cpu_reference)
    endif()
  endif()
endfunction()

# gpulabs_lab_yardstick(<lab> <out_var>): what a lab's performance code links for its yardstick:
# lab_<lab>_yardstick where the lab has one, else the shared gpulabs_yardstick.
function(gpulabs_lab_yardstick lab out_var)
  if(TARGET lab_${lab}_yardstick)
    set(${out_var} lab_${lab}_yardstick PARENT_SCOPE)
  else()
    set(${out_var} gpulabs_yardstick PARENT_SCOPE)
  endif()
endfunction()

# gpulabs_lab_for_dependents(<lab> <out_var>)
#
# The library a lab that uses <lab> links: lab_<lab>, or, when GPULABS_REFERENCE_LABS names
# <lab> and solutions/<lab>/ exists, lab_<lab>_reference: the reference solution with the lab's
# given code, made here once (the student release has no solutions/: the student's own then).
function(gpulabs_lab_for_dependents lab out_var)
  set(${out_var} lab_${lab} PARENT_SCOPE)
  if(NOT lab IN_LIST GPULABS_REFERENCE_LABS OR LAB_IMPL STREQUAL "solutions")
    return()
  endif()
  get_property(exercises GLOBAL PROPERTY GPULABS_LAB_${lab}_EXERCISES)
  get_property(given GLOBAL PROPERTY GPULABS_LAB_${lab}_GIVEN)
  get_property(depends GLOBAL PROPERTY GPULABS_LAB_${lab}_DEPENDS)
  set(sources "")
  foreach(file IN LISTS exercises)
    if(NOT EXISTS "${PROJECT_SOURCE_DIR}/solutions/${lab}/${file}")
      message(WARNING "GPULABS_REFERENCE_LABS names ${lab}, but solutions/${lab}/${file} does "
                      "not exist: the labs that use ${lab} link the student's own")
      return()
    endif()
    list(APPEND sources "${PROJECT_SOURCE_DIR}/solutions/${lab}/${file}")
  endforeach()
  if(NOT TARGET lab_${lab}_reference)
    foreach(file IN LISTS given)
      list(APPEND sources "${PROJECT_SOURCE_DIR}/labs/${lab}/${file}")
    endforeach()
    gpulabs_device_sources(sources ${sources})
    add_library(lab_${lab}_reference STATIC ${sources})
    target_include_directories(lab_${lab}_reference PUBLIC "${PROJECT_SOURCE_DIR}/labs/${lab}")
    target_link_libraries(lab_${lab}_reference PUBLIC gpulabs_common)
    foreach(dep IN LISTS depends)
      target_link_libraries(lab_${lab}_reference PUBLIC lab_${dep})
    endforeach()
    if(TARGET lab_${lab}_cpu_reference)
      target_link_libraries(lab_${lab}_reference PUBLIC lab_${lab}_cpu_reference)
    endif()
    set_target_properties(lab_${lab}_reference PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
  set(${out_var} lab_${lab}_reference PARENT_SCOPE)
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
  # as races between blocks and look-backs need, without oversubscribing the machine (a test
  # per core, each with a thread per core, would leave each test a fraction of one).
  set(environment "GPULABS_TEST_TIMEOUT=${watchdog}")
  # Programs that run side by side fill their inputs on one thread: with a team of OpenMP
  # threads in each of 16 or more processes, the teams' spinning would take cores from the
  # tests. The data are the same on any number of threads (common/src/data.c).
  # And one hardware queue per CUDA context (the lab worker inherits it): the driver makes a
  # GPU's contexts one at a time, each the longer the more queues the ones before it have, and
  # a grader's correctness run starts some 50 processes together (what it saves:
  # docs/results/grading-h100.md). The labs run on the default stream, where one queue
  # serialises nothing. Performance programs (SERIAL) keep eight: they start one at a time, and
  # the sealed timing's check for work left on another stream needs the streams apart.
  if(NOT ARG_SERIAL)
    list(APPEND environment "OMP_NUM_THREADS=1" "OMP_WAIT_POLICY=passive"
         "CUDA_DEVICE_MAX_CONNECTIONS=1")
  endif()
  set(processors 1)
  if(LAB_BACKEND STREQUAL "sim" AND "gpu" IN_LIST ARG_LABELS)
    list(APPEND environment "GPULABS_MAX_N=${GPULABS_SIM_MAX_N}" "GPULABS_SIM_THREADS=2")
    set(processors 2)
  endif()
  # For the grader (GPULABS_GRADER_SHARDS): the lab's test programs also run as a few processes
  # of many test cases each, labelled <kind>-shards; the per-test-case entries they cover are
  # labelled "sharded", so that a grader's run takes one or the other. A performance program
  # (SERIAL) is one process: its test cases run one after another anyway.
  set(labels "${ARG_LABELS}")
  set(shards 0)
  if(GPULABS_GRADER_SHARDS GREATER 0 AND NOT "grader" IN_LIST ARG_LABELS AND
     ("correctness" IN_LIST ARG_LABELS OR "performance" IN_LIST ARG_LABELS))
    set(shards ${GPULABS_GRADER_SHARDS})
    if(ARG_SERIAL OR "cpu" IN_LIST ARG_LABELS) # CPU-only programs are quick: one process
      set(shards 1)
    endif()
    list(APPEND labels sharded)
  endif()
  set(label_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${label_file}"
    "foreach(t IN LISTS ${name}_TESTS)\n"
    "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${labels}\" ENVIRONMENT \"${environment}\"\n"
    "                      PROCESSORS ${processors})\n"
    "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${label_file}")
  if(shards GREATER 0)
    list(TRANSFORM ARG_LABELS REPLACE "^(correctness|performance)$" "\\1-shards"
         OUTPUT_VARIABLE shard_labels)
    # Every test case has its own watchdog (GPULABS_TEST_TIMEOUT); this only bounds the whole.
    math(EXPR shard_timeout "${ARG_TIMEOUT} * 40")
    math(EXPR last "${shards} - 1")
    foreach(i RANGE ${last})
      set(shard "shard-${name}-${i}-of-${shards}")
      add_test(NAME ${shard} COMMAND ${name})
      set_tests_properties(${shard} PROPERTIES LABELS "${shard_labels}" TIMEOUT ${shard_timeout}
        ENVIRONMENT "${environment};GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${i}"
        PROCESSORS ${processors} ${serial})
    endforeach()
  endif()
endfunction()
