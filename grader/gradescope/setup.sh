#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image from the zip
# (unpacked in /autograder/source). It installs the course's set-up from Ubuntu's own packages
# (the README's: cmake g++ libgtest-dev libexpat1-dev; nothing else is downloaded), builds the
# grader, and grades an empty submission once (autograder.conf's `prewarm`), so the image holds
# the configured and built course and each submission rebuilds only the student's files.
#
# Needs CMake 3.25 or newer: Ubuntu 24.04's package (3.28) has it, 22.04's (3.22) does not, so
# pick the Ubuntu 24.04 base image in the autograder's settings.
#
# Only missing packages are installed (dpkg -s; a cmake or g++ on the PATH counts), so on a
# machine that has them apt is never called. Paths: AUTOGRADER_ROOT (default /autograder), AUTOGRADER_SOURCE, AUTOGRADER_BUILD,
# AUTOGRADER_WORK, AUTOGRADER_CONF as in run_autograder; AUTOGRADER_PREWARM=no skips the
# warm-up whatever autograder.conf says.
set -euo pipefail

ROOT=${AUTOGRADER_ROOT:-/autograder}
SOURCE=${AUTOGRADER_SOURCE:-$ROOT/source}
BUILD=${AUTOGRADER_BUILD:-$ROOT/gpulabs-build}
WORK=${AUTOGRADER_WORK:-$ROOT/gpulabs-work}
CONF=${AUTOGRADER_CONF:-$SOURCE/autograder.conf}
COURSE=$SOURCE/gpulabs
export AUTOGRADER_ROOT=$ROOT AUTOGRADER_SOURCE=$SOURCE AUTOGRADER_BUILD=$BUILD \
       AUTOGRADER_WORK=$WORK AUTOGRADER_CONF=$CONF

say() { echo "setup.sh: $*"; }
[ -f "$COURSE/CMakeLists.txt" ] || { say "the course is missing: $COURSE/CMakeLists.txt" >&2; exit 1; }

# ---- the README's set-up, from Ubuntu's packages ----
# A cmake or g++ already on the PATH (another package, a pip cmake) will do; the libraries'
# headers come from their packages.
need=()
for pkg in cmake g++ libgtest-dev libexpat1-dev; do
  case "$pkg" in cmake|g++) ! command -v "$pkg" >/dev/null || continue ;; esac
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${need[@]}"
else
  say "cmake g++ libgtest-dev libexpat1-dev are installed"
fi
version=$(cmake --version | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
major=${version%%.*} minor=${version#*.}
if [ -z "$version" ] || [ "$major" -lt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -lt 25 ]; }; then
  say "CMake ${version:-?} is too old: the course needs 3.25 or newer. On Gradescope pick the" >&2
  say "Ubuntu 24.04 base image (its cmake is 3.28; Ubuntu 22.04's is 3.22)." >&2
  exit 1
fi

# ---- autograder.conf, checked now rather than at the first submission ----
bash "$SOURCE/run_autograder" --check-config
# The backend this machine would grade on: the grader's build is configured for it, so a fresh
# build for a submission gets that backend's defaults (the CPU backend's longer test timeouts).
backend=$(bash "$SOURCE/run_autograder" --check-config | sed -n 's/^backend: .*(on this machine: \([a-z]*\).*/\1/p')
prewarm=$(bash "$SOURCE/run_autograder" --check-config | sed -n 's/^prewarm: //p')

# ---- the grader ----
command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || export PATH=/usr/local/cuda/bin:$PATH
configure=(-S "$COURSE" -B "$BUILD" -DLAB_IMPL=labs "-DLAB_BACKEND=$backend")
say "configuring the grader's build in $BUILD (LAB_BACKEND=$backend)"
cmake "${configure[@]}" >"$ROOT/gpulabs-configure.log" 2>&1 || {
  cat "$ROOT/gpulabs-configure.log" >&2; exit 1; }
cmake --build "$BUILD" --target grade -j "$(nproc)"

# ---- the warm-up: grade an empty submission once ----
if [ "$prewarm" = yes ] && [ "${AUTOGRADER_PREWARM:-yes}" != no ]; then
  say "grading an empty submission once, so each submission rebuilds only its own files"
  empty=$(mktemp -d)
  results=$(mktemp -d)
  AUTOGRADER_SUBMISSION=$empty AUTOGRADER_RESULTS=$results \
    bash "$SOURCE/run_autograder" >"$ROOT/gpulabs-prewarm.log" 2>&1 || {
      tail -n 40 "$ROOT/gpulabs-prewarm.log" >&2; say "the warm-up failed" >&2; exit 1; }
  rm -rf "$empty" "$results" "$WORK/out" "$WORK/submission"
  say "warm-up done (log: $ROOT/gpulabs-prewarm.log)"
fi
say "ready"
