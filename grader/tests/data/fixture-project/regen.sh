#!/usr/bin/env bash
# Rebuilds the grader's fixtures from real CTest runs of fixture_test.cpp:
#   ../ctest-fixture.xml   CTest's JUnit file (every way a test can end)
#   ../ctest-fixture.log   CTest's console output of the same run (the grader reads its
#                          "The following tests FAILED" list for timeouts and crashes)
#   ../ctest-empty.xml     the JUnit file of a label filter that selects nothing
# Usage: regen.sh <a configured gpulabs build tree with gpulabs_common built>
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
build="$(cd "$1" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake -S "$here" -B "$work" -DGPULABS_ROOT="$root" -DGPULABS_BUILD="$build" >/dev/null
cmake --build "$work" -j2 >/dev/null
# A fixed seed keeps the fixtures the same from one regeneration to the next. CTest exits
# non-zero here: most of these tests fail on purpose.
GPULABS_SEED=0x5eed1234 ctest --test-dir "$work" -j4 --output-junit "$here/../ctest-fixture.xml" \
  --test-output-size-passed 65536 --test-output-size-failed 262144 >"$here/../ctest-fixture.log" 2>&1 || true
ctest --test-dir "$work" -L '^nothing$' --output-junit "$here/../ctest-empty.xml" >/dev/null 2>&1 || true
# Machine-specific paths and names out, so the fixtures read the same everywhere.
sed -i "s|$work|/BUILD|g; s|$root|/ROOT|g; s|hostname=\"[^\"]*\"|hostname=\"host\"|" \
  "$here/../ctest-fixture.xml" "$here/../ctest-fixture.log" "$here/../ctest-empty.xml"
echo "wrote ctest-fixture.xml, ctest-fixture.log and ctest-empty.xml in $(cd "$here/.." && pwd)"
