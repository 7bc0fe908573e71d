# The self-tests' tally (sourced by run.sh and hostile.sh): pass and fail print one line and
# count it; finish prints "<tally_name>: N passed, M failed" and exits non-zero when anything
# failed.
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS  $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
finish() {
  echo "$tally_name: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}
