# The grader's results.json as the `result` of a GitHub Classroom grader step (grade-lab calls it):
#
#   cmake -DIN=<grade out>/results.json -DOUT=result.json [-DCOMMAND=text] -P classroom-result.cmake
#
# classroom-resources/autograding-grading-reporter reads each runner's result, a base64 JSON
# object that autograding-command-grader and autograding-io-grader write as:
#
#   {"version": 1, "status": "pass"|"fail"|"error", "max_score": N,
#    "tests": [{"name", "status", "score", "message", "test_code", "filename", "line_no",
#               "duration"}]}
#
# and reports "Points <sum of the tests' scores>/<sum of the runners' max_score>" to Classroom.
# Here one rubric item is one test: its score is the grader's (partial points included), its
# status "pass" when it earned full points, else "fail". Items that were not scored (no GPU:
# performance; a test that skipped itself) are left out, and so are their points from max_score:
# the grader's own max_score is the points of the items it scored. The runner's status is "pass"
# when every scored item passed, "error" when the grader reports a grading problem, else "fail".
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/../gradescope/json.cmake")
foreach(var IN ITEMS IN OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "classroom-result.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED COMMAND)
  set(COMMAND "grade")
endif()

file(READ "${IN}" doc)
string(JSON kind ERROR_VARIABLE err TYPE "${doc}")
if(err OR NOT kind STREQUAL "OBJECT")
  message(FATAL_ERROR "classroom-result.cmake: ${IN} is not a JSON object: ${err}")
endif()

string(JSON max_score ERROR_VARIABLE err GET "${doc}" max_score)
if(err)
  set(max_score 0)
endif()
set(status pass)
string(JSON n_problems ERROR_VARIABLE err LENGTH "${doc}" extra_data problems)
if(NOT err AND n_problems GREATER 0)
  set(status error)
endif()

json_quote(test_code "${COMMAND}")
set(tests "")
string(JSON n_tests ERROR_VARIABLE err LENGTH "${doc}" tests)
if(err)
  set(n_tests 0)
endif()
if(n_tests GREATER 0)
  math(EXPR last "${n_tests} - 1")
  foreach(i RANGE ${last})
    string(JSON score ERROR_VARIABLE not_scored GET "${doc}" tests ${i} score)
    if(not_scored)
      continue()
    endif()
    string(JSON name GET "${doc}" tests ${i} name)
    string(JSON test_status GET "${doc}" tests ${i} status)
    string(JSON max ERROR_VARIABLE err GET "${doc}" tests ${i} max_score)
    string(JSON reason ERROR_VARIABLE err GET "${doc}" tests ${i} extra_data reason)
    if(err OR reason STREQUAL "" OR reason STREQUAL "null")
      set(reason "")
    endif()
    string(JSON note ERROR_VARIABLE err GET "${doc}" tests ${i} extra_data note)
    if(err OR note STREQUAL "null")
      set(note "")
    endif()
    json_micro(s "${score}")
    json_micro_text(score_text "${s}")
    if(test_status STREQUAL "passed")
      set(result pass)
      set(message "${score_text} of ${max} points")
    else()
      set(result fail)
      if(status STREQUAL "pass")
        set(status fail)
      endif()
      set(message "${score_text} of ${max} points: ${reason}")
    endif()
    if(NOT note STREQUAL "")
      string(APPEND message " (${note})")
    endif()
    json_quote(name "${name}")
    json_quote(message "${message}")
    if(NOT tests STREQUAL "")
      string(APPEND tests ", ")
    endif()
    string(APPEND tests "{\"name\": ${name}, \"status\": \"${result}\", \"score\": ${score_text}, "
                        "\"message\": ${message}, \"test_code\": ${test_code}, \"filename\": \"\", "
                        "\"line_no\": 0, \"duration\": 0}")
  endforeach()
endif()
json_micro(m "${max_score}")
json_micro_text(max_text "${m}")
file(WRITE "${OUT}" "{\"version\": 1, \"status\": \"${status}\", \"max_score\": ${max_text}, \"tests\": [${tests}]}\n")
