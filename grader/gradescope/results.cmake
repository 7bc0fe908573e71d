# Turns the grader's results.json into the one Gradescope reads (run_autograder calls it):
#
#   cmake -DIN=<grade out>/results.json -DOUT=<results>/results.json [-DRULES=which=when;...]
#         [-DPRIVATE=lab.item;...] [-DSTDOUT_VISIBILITY=hidden] [-DNOTE_FILE=note.txt]
#         [-DEXECUTION_TIME=seconds] -P results.cmake
#
# The grader already writes Gradescope's format (score, execution_time, output, output_format,
# tests[] with name, number, score, max_score, status, output, tags, and extra_data). This keeps
# to the fields Gradescope's specification documents and adds what only the autograder knows:
#   - each test's "visibility", from RULES (autograder.conf's `visibility` lines, in order, the
#     last match winning; "which" is all, step, perf, private or a pattern on "<lab>.<item>");
#   - "stdout_visibility";
#   - the note (backend, how the submission was unpacked) at the top of "output";
#   - the grader's top-level "max_score", which the specification does not list, moves to
#     extra_data.max_score (Gradescope takes the assignment's points from its settings);
#   - an item that was not scored (no GPU: performance; a test that skipped itself) keeps no
#     score, status or max_score, so Gradescope shows its output without any points, neither
#     zero nor full marks; its points go to extra_data.max_score and "(not scored)" to its name.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/json.cmake")

foreach(var IN ITEMS IN OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "results.cmake: -D${var}=... is required")
  endif()
endforeach()
set(legal_visibility hidden after_due_date after_published visible)

file(READ "${IN}" doc)
string(JSON kind ERROR_VARIABLE err TYPE "${doc}")
if(err OR NOT kind STREQUAL "OBJECT")
  message(FATAL_ERROR "results.cmake: ${IN} is not a JSON object: ${err}")
endif()

# Private items: autograder.conf's `private` rule names them.
set(private_items "${PRIVATE}")

string(JSON n_tests ERROR_VARIABLE err LENGTH "${doc}" tests)
if(err)
  set(n_tests 0)
endif()
set(tests_text "")
if(n_tests GREATER 0)
  math(EXPR last "${n_tests} - 1")
  foreach(i RANGE ${last})
    string(JSON test GET "${doc}" tests ${i})
    string(JSON number ERROR_VARIABLE err GET "${test}" number)
    if(err)
      set(number "")
    endif()
    string(JSON item_kind ERROR_VARIABLE err GET "${test}" extra_data kind)
    if(err)
      set(item_kind "")
    endif()
    set(visibility visible)
    foreach(rule IN LISTS RULES)
      string(FIND "${rule}" "=" eq REVERSE)
      string(SUBSTRING "${rule}" 0 ${eq} which)
      math(EXPR after "${eq} + 1")
      string(SUBSTRING "${rule}" ${after} -1 when)
      if(NOT when IN_LIST legal_visibility)
        message(FATAL_ERROR "results.cmake: '${when}' is not a Gradescope visibility")
      endif()
      set(match FALSE)
      if(which STREQUAL "all")
        set(match TRUE)
      elseif(which STREQUAL "step" OR which STREQUAL "perf")
        if(item_kind STREQUAL which)
          set(match TRUE)
        endif()
      elseif(which STREQUAL "private")
        if(number IN_LIST private_items)
          set(match TRUE)
        endif()
      else()
        glob_regex(re "${which}")
        if(number MATCHES "${re}")
          set(match TRUE)
        endif()
      endif()
      if(match)
        set(visibility "${when}")
      endif()
    endforeach()
    string(JSON test SET "${test}" visibility "\"${visibility}\"")

    string(JSON score_type ERROR_VARIABLE no_score TYPE "${test}" score)
    if(no_score)
      string(JSON max ERROR_VARIABLE err GET "${test}" max_score)
      if(NOT err)
        string(JSON test REMOVE "${test}" max_score)
        string(JSON test SET "${test}" extra_data max_score "${max}")
      endif()
      string(JSON name GET "${test}" name)
      json_quote(name "${name} (not scored)")
      string(JSON test SET "${test}" name "${name}")
    endif()
    if(i GREATER 0)
      string(APPEND tests_text ",\n")
    endif()
    string(APPEND tests_text "${test}")
  endforeach()
endif()
string(JSON doc SET "${doc}" tests "[${tests_text}]")

string(JSON max ERROR_VARIABLE err GET "${doc}" max_score)
if(NOT err)
  string(JSON doc REMOVE "${doc}" max_score)
  string(JSON doc SET "${doc}" extra_data max_score "${max}")
endif()

if(DEFINED STDOUT_VISIBILITY AND NOT STDOUT_VISIBILITY STREQUAL "")
  if(NOT STDOUT_VISIBILITY IN_LIST legal_visibility)
    message(FATAL_ERROR "results.cmake: '${STDOUT_VISIBILITY}' is not a Gradescope visibility")
  endif()
  string(JSON doc SET "${doc}" stdout_visibility "\"${STDOUT_VISIBILITY}\"")
endif()

if(DEFINED NOTE_FILE AND EXISTS "${NOTE_FILE}")
  file(READ "${NOTE_FILE}" note)
  string(JSON output ERROR_VARIABLE err GET "${doc}" output)
  if(err)
    set(output "")
  endif()
  json_quote(output "${note}${output}")
  string(JSON doc SET "${doc}" output "${output}")
endif()

if(DEFINED EXECUTION_TIME AND EXECUTION_TIME MATCHES "^[0-9]+$")
  string(JSON doc SET "${doc}" execution_time "${EXECUTION_TIME}")
endif()

file(WRITE "${OUT}.tmp" "${doc}\n")
file(RENAME "${OUT}.tmp" "${OUT}")
