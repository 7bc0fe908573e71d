# The grader's targets (included from grader/CMakeLists.txt, after grader/src defines `grade`).
#
# grade_labs       grades labs/ in this build tree: what `cmake --workflow --preset grade`
#                  builds. It depends on the grade program only: grade builds each lab's tests
#                  itself, one lab at a time, so a build error in one lab costs that lab only.
#                  Reports go to grade-out/ at the course root; the table goes to the terminal.
# student_release  copies the course without solutions/, grader/private/ and grader/selftest/
#                  into <build>/release/gpulabs and packs it as gpulabs-student.tar.gz.
# gradescope_autograder
#                  writes <build>/gradescope/gpulabs-autograder.zip, Gradescope's autograder:
#                  setup.sh, run_autograder, autograder.conf and the release's course (plus
#                  grader/private/), by grader/gradescope/make-autograder (its --lab and
#                  --config options make one for some labs only).
add_custom_target(grade_labs
  COMMAND grade --build-dir "${CMAKE_BINARY_DIR}" --out "${PROJECT_SOURCE_DIR}/grade-out"
  WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
  USES_TERMINAL
  VERBATIM
  COMMENT "Grading labs/ with their rubrics (reports in grade-out/)")

set(gpulabs_release_dir "${CMAKE_BINARY_DIR}/release")
file(MAKE_DIRECTORY "${gpulabs_release_dir}")
add_custom_target(student_release
  COMMAND grade --export-release "${gpulabs_release_dir}/gpulabs"
  COMMAND "${CMAKE_COMMAND}" -E tar czf "${gpulabs_release_dir}/gpulabs-student.tar.gz" gpulabs
  WORKING_DIRECTORY "${gpulabs_release_dir}"
  VERBATIM
  COMMENT "Exporting the student release to ${gpulabs_release_dir}")

add_custom_target(gradescope_autograder
  COMMAND "${PROJECT_SOURCE_DIR}/grader/gradescope/make-autograder" --grade "$<TARGET_FILE:grade>"
          --course "${PROJECT_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/gradescope/gpulabs-autograder.zip"
  DEPENDS grade
  USES_TERMINAL
  VERBATIM
  COMMENT "Writing the Gradescope autograder to ${CMAKE_BINARY_DIR}/gradescope/gpulabs-autograder.zip")
