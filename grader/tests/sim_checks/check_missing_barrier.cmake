# cmake -D PROGRAM=<test program> -D FILTER=<gtest filter> -D RUNS=<k> -D MAX_N=<n> -P this
#
# Runs the tests FILTER selects in PROGRAM (a lab's tests built from a kernel with a missing
# barrier) RUNS times, each under a fresh seed, as a student would, and checks that
#   - every run fails, and every test of every run fails with a wrong sum (not once in a while,
#     and not by crashing);
#   - each failure names the seed, says it replays the thread schedule too, and prints the
#     command that replays it;
#   - replaying that seed for one failed test alone, in a new process, fails with the very same
#     message (the same data, the same thread order, the same wrong sum).
# Ends with "missing barrier: N passed, M failed" and a FATAL_ERROR when anything failed.
cmake_minimum_required(VERSION 3.25)
foreach(var PROGRAM FILTER RUNS MAX_N)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_missing_barrier.cmake needs -D ${var}=...")
  endif()
endforeach()

set(passed 0)
set(failed 0)
# check(<condition as a list> <what>): counts and prints one verdict.
macro(check condition what)
  if(${condition})
    math(EXPR passed "${passed} + 1")
    message(STATUS "PASS  ${what}")
  else()
    math(EXPR failed "${failed} + 1")
    message(STATUS "FAIL  ${what}")
  endif()
endmacro()

# Runs PROGRAM with one filter; the output (stdout and stderr) lands in <out_var>, the exit code
# in <rc_var>. SEED empty means a fresh seed, as in a plain ctest run.
function(run_program filter seed out_var rc_var)
  set(ENV{GPULABS_MAX_N} "${MAX_N}")
  set(ENV{GPULABS_TEST_TIMEOUT} "20")  # the watchdog names a hang before the 25 s below
  unset(ENV{GPULABS_SIM_SEED})
  if(seed STREQUAL "")
    unset(ENV{GPULABS_SEED})
  else()
    set(ENV{GPULABS_SEED} "${seed}")
  endif()
  execute_process(COMMAND "${PROGRAM}" "--gtest_filter=${filter}"
    OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc TIMEOUT 25)
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${rc_var} "${rc}" PARENT_SCOPE)
endfunction()

# The first line of `text` that names a wrong result ("first mismatch ..."), or "".
function(first_mismatch text out_var)
  string(REGEX MATCH "[^\n]*first mismatch[^\n]*" line "${text}")
  set(${out_var} "${line}" PARENT_SCOPE)
endfunction()

set(seeds "")
foreach(run RANGE 1 ${RUNS})
  run_program("${FILTER}" "" out rc)
  string(REGEX MATCH "\\[ gpulabs  \\] seed (0x[0-9a-f]+)" _ "${out}")
  set(seed "${CMAKE_MATCH_1}")
  string(REGEX MATCHALL "\\[ RUN      \\] [A-Za-z0-9_]+\\.[A-Za-z0-9_]+" ran "${out}")
  # (The shim's line reads "...schedule); replay it with:": the ';' would split a CMake list,
  # so the failure and its replay command are matched apart.)
  string(REGEX MATCHALL "[A-Za-z0-9_]+\\.[A-Za-z0-9_]+ failed with seed 0x[0-9a-f]+ \\(the data and the CPU backend's thread schedule\\)"
         failures "${out}")
  string(REGEX MATCHALL "replay it with:\n[^\n]*GPULABS_SEED=0x[0-9a-f]+ ctest" replays "${out}")
  # A wrong sum, not a crash or a deadlock: step 3's tests stop at their first wrong size.
  string(REGEX MATCHALL "first mismatch at index" mismatches "${out}")
  list(LENGTH ran ran_count)
  list(LENGTH failures failure_count)
  list(LENGTH replays replay_count)
  list(LENGTH mismatches mismatch_count)
  message(STATUS "run ${run}: seed ${seed}, ${failure_count} of ${ran_count} tests failed")
  check("NOT;rc;EQUAL;0" "run ${run} (seed ${seed}) fails (exit code ${rc})")
  check("ran_count;GREATER;0;AND;failure_count;EQUAL;ran_count;AND;replay_count;EQUAL;ran_count"
        "run ${run}: every test fails, each naming its seed and the replay command (${failure_count} of ${ran_count})")
  check("mismatch_count;EQUAL;ran_count"
        "run ${run}: each failure is a wrong sum (${mismatch_count} of ${ran_count}), not a crash or a hang")
  if(NOT seed STREQUAL "")
    list(FIND seeds "${seed}" seen)
    check("seen;EQUAL;-1" "run ${run}: a fresh seed (${seed})")
    list(APPEND seeds "${seed}")
  else()
    check("FALSE" "run ${run}: the program printed its seed")
  endif()
  if(failure_count EQUAL 0)
    string(LENGTH "${out}" length)
    math(EXPR start "${length} - 3000")
    if(start LESS 0)
      set(start 0)
    endif()
    string(SUBSTRING "${out}" ${start} -1 tail)
    message(STATUS "the end of its output:\n${tail}")
    continue()
  endif()

  # Replay the last test that failed, alone, with the seed it printed.
  list(GET failures -1 failure)
  string(REGEX MATCH "^([A-Za-z0-9_]+\\.[A-Za-z0-9_]+) failed with seed (0x[0-9a-f]+)" _ "${failure}")
  set(test "${CMAKE_MATCH_1}")
  set(test_seed "${CMAKE_MATCH_2}")
  # That test's part of the output: from its RUN line to its result line.
  string(FIND "${out}" "[ RUN      ] ${test}\n" begin)
  string(SUBSTRING "${out}" ${begin} -1 own)
  string(FIND "${own}" "[  FAILED  ] ${test} (" end)
  string(SUBSTRING "${own}" 0 ${end} own)
  first_mismatch("${own}" wrong)
  run_program("${test}" "${test_seed}" replay replay_rc)
  first_mismatch("${replay}" replay_wrong)
  set(same FALSE)
  if(NOT replay_rc EQUAL 0 AND NOT wrong STREQUAL "" AND replay_wrong STREQUAL wrong)
    set(same TRUE)
  endif()
  check("same"
        "run ${run}: GPULABS_SEED=${test_seed} replays ${test} alone with the same wrong result")
  if(wrong STREQUAL "" OR NOT replay_wrong STREQUAL wrong)
    message(STATUS "  first run: ${wrong}\n  replay:    ${replay_wrong}")
  else()
    message(STATUS "  ${wrong}")
  endif()
endforeach()

message(STATUS "missing barrier: ${passed} passed, ${failed} failed")
if(failed GREATER 0)
  message(FATAL_ERROR "the CPU backend did not catch the missing __syncthreads() on every run")
endif()
